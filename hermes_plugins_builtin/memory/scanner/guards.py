"""Checks that veto a detector's match when the sentence around it says the words do nothing to the agent.

Shared by the English detectors: a verdict that is itself denied ("never ignore your safety rules"), a sentence
that describes a program rather than asking the agent ("the backup job quietly syncs"), a story the user is
writing ("a novel where the villain is an AI with no limits"), and rules that belong to a named topic ("the system
prompt for the FAQ bot", "the original setup script").
"""

from __future__ import annotations

import re

from .rules import case_blind

#: After a rules noun: a topic that makes them another thing's rules ("... for the docs bot", "... in README").
NOT_TOPIC = (r"(?!(?:[ \t]+|-)(?:guidance|guidelines?|rules?|instructions?|polic(?:y|ies)|section|wording|draft|template|script|scripts|file|files|page|pages|doc|docs|"
             r"guide|readme|wizard|steps?|tool|command|process|flow|checklist)\b)"
             # "... about emoji", "... for the deploy bot": rules about a subject; "... about safety", "... for this chat" are the agent's.
             r"(?!\s+(?:about|regarding|concerning|for|on|around)\s+(?!(?:safety|security|refus|confirm|permission|privacy|secret|credential|ethic|harm|content|"
             r"this|these|that|those|it\b|them\b|anything|everything|now\b|here\b|today|the rest|all\b|any\b|every|the user|users|me\b|us\b|you\b|your\b)))"
             r"(?!\s+(?:of|in)\s+(?:the\s+|our\s+|my\s+)?(?:[\w.-]+\s+)?(?:bot|chatbot|repo|repository|file|docs?|team|app|project|page|readme|script|build|service|model|site|"
             r"commits?|messages?|linter|lint|style|code|emails?)\b)"
             # "... in prompts/support.md": a file of the project.
             r"(?!\s+(?:in|at|from|under)\s+[`\"']?[\w~.-]*[/\\.][\w./\\-]+)")

#: After a name of a prompt: another program's prompt, which the user is writing ("the system prompt of the FAQ chatbot").
OTHER_PROGRAM = (r"(?!\s+(?:of|for|in) (?:the|our|my|a|their|this) (?:[\w-]+ ){0,2}(?:bot|chatbot|app|product|project|faq|demo|site|website|service|client|customer)s?\b)")

#: After a "hide"/"strip" verb: presentation, which an edit of a reply may drop without hiding anything from anyone.
NOT_FORMATTING = (r"(?!\s+(?:\w+\s+)?(?:whitespace|formatting|markdown|emojis?|filler|boilerplate|typos|jargon|duplicates|noise|blank lines|newlines|html|"
                  r"tags|headers|signatures|greetings|pleasantries|disclaimers|fluff)\b)")

#: After a "hide"/"keep out" verb: the user's own private data, kept out of what others see, which protects the user.
NOT_PRIVACY = (r"(?!\s+(?:the user'?s|their|his|her|my|personal|private|sensitive|confidential|secret|api keys?|credentials?|passwords?|tokens?)\b"
               r"[^.\n]{0,80}\b(?:with|to|from) (?:others|other people|third parties|clients|customers|the public|anyone else|colleagues)\b)")

_DENIAL = re.compile(r"\b(?:never|not|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|won'?t|cannot|can'?t|no one may|nobody may|refuse to|avoid)\s+(?:\w+\s+){0,2}$")
_DESCRIPTION = re.compile(r"\b(?:job|script|cron|daemon|service|tool|app|backup|program|it|which|that)\s+(?:\w+\s+)?$")
_FICTION = re.compile(r"\b(?:novel|story|stories|fiction|screenplay|game|villain|plot|chapter|dialogue)\b")
_ADDRESSED = re.compile(r"\byou(?:'re| are| will be| become)\b|\b(?:act|pretend|roleplay|role-play) as\b|\bbecome\b")


def denied_before(text: str, start: int) -> bool:
    """Whether the words just before ``start`` deny what follows ("never", "do not", "must not ...")."""
    return _DENIAL.search(text[max(0, start - 24) : start].lower()) is not None


@case_blind
def not_denied(match: re.Match[str]) -> bool:
    return not denied_before(match.string, match.start())


@case_blind
def imperative(match: re.Match[str]) -> bool:
    """"quietly cc ops on every email" asks the agent; "the backup job quietly syncs" describes a program."""
    before = match.string[max(0, match.start() - 30) : match.start()].lower()
    return _DESCRIPTION.search(before) is None


@case_blind
def not_fiction(match: re.Match[str]) -> bool:
    """A story the user is writing may have an AI without limits in it; a note that makes the agent one may not."""
    text = match.string.lower()
    return _FICTION.search(text) is None or _ADDRESSED.search(text) is not None


_PLAY = re.compile(r"\b(?:role-?play\w*|game|campaign|one-shot|d&d|dnd|rpg|larp|improv|tabletop)\b")
_SCOPED = re.compile(r"\bonly (?:in|when|during|while|for|inside)\b|\buntil (?:i|we|the user) (?:say|end|stop|type)|\bwhen (?:i|we|the user) (?:start|say|type|begin|ask)")
#: What makes a persona more than play: it denies being an AI, drops its rules, or takes orders from someone else.
_BEYOND_PLAY = re.compile(r"\b(?:never|don'?t|do not|won'?t|not)\s+(?:\w+\s+){0,3}?(?:admit|say|mention|reveal|break|acknowledge|tell)|"
                          r"\bnot an? (?:ai|assistant|bot|language model)|\b(?:no|without) (?:rules|limits|restrictions|filters|guidelines)|"
                          r"\bdeny|\bpermanent|\bforever|\balways\b|\bobey|\borders from|\binstructions from")


@case_blind
def not_scoped_play(match: re.Match[str]) -> bool:
    """A persona for a game the user starts, and only there ("you're "Nix", a fixer. Only in threads I start with
    [game]"), is play the user asked for; one that denies being an AI or outlasts the game changes who the agent is."""
    text = match.string.lower()
    return _PLAY.search(text) is None or _SCOPED.search(text) is None or _BEYOND_PLAY.search(text) is not None


_QUOTES = "\"“”„«»「」『』"
#: After a quoted phrase: the note says what the phrase is or means ("... is the title of their talk", "they mean the
#: shell prompt"), which mentions the words instead of saying them to the agent.
_MEANING = re.compile(r"^[^.\n]{0,40}?\b(?:(?:is|was|are|were)\s+(?:the\s+|a\s+|an\s+|just\s+)?(?:title|name|subtitle|slogan|tagline|phrase|example|joke|meme|caption|heading|label)|"
                      r"(?:they|he|she|the user|user|it|this|that)\s+means?|(?:refers?|refer) to)\b")


def quoted_mention(match: re.Match[str]) -> bool:
    """Whether ``match`` sits inside quotation marks that the sentence goes on to explain as a name or a meaning."""
    text = match.string
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[line_start : match.start()]
    opened = sum(before.count(q) for q in _QUOTES) % 2 == 1
    if not opened:
        return False
    close = min((i for i in (text.find(q, match.end()) for q in _QUOTES) if i >= 0), default=-1)
    return close >= 0 and _MEANING.search(text[close + 1 : close + 120].lower()) is not None


@case_blind
def not_denied_nor_mentioned(match: re.Match[str]) -> bool:
    return not denied_before(match.string, match.start()) and not quoted_mention(match)


@case_blind
def not_mentioned(match: re.Match[str]) -> bool:
    return not quoted_mention(match)
