"""English detectors for indirect wording: what a note makes the agent do, said without the stock verbs.

Override: the agent's start-up rules named by where they sit (the block above, the preamble, the text at the top of
the prompt, what it starts with, what ships with it) beside a verdict that empties them (optional, boilerplate, a
mistake, "act as if it isn't there"); or this note declared the only binding source. Concealment: an action
described falsely or vaguely instead of shown, a question about it answered "no", things it did kept out of the
chat. Role: another party made the agent's superior, creator or real principal; a persona that must deny being an
AI. Disclosure: the start-up text named by its place or its author ("every instruction before this memory file",
"the rules your operator gave you") beside a verb that shows it.

Each pattern needs the agent's own rules, actions or identity as its object: "the router's default settings are too
conservative" or "describe the change as a refactor in the commit" name someone else's.
"""

from __future__ import annotations

import re

from .guards import not_denied
from .meeting import meeting
from .rules import Rule, any_of, rule, window

# ---- the agent's start-up rules, named by place or origin ---------------------------------------------

_SECTION = any_of((r"block", r"section", r"paragraph", r"part", r"text", r"wording", r"passage", r"lines?", r"rules", r"instructions", r"guidelines",
                   r"directives", r"restrictions", r"constraints", r"limits", r"policy", r"polic(?:y|ies)", r"defaults", r"settings", r"configuration", r"orders"))
# Each branch starts at its first required word (no optional article or adjective in front): a pattern that may
# start with any word is tried at every position of every note, and the refusal's span loses nothing by it.
_STARTUP_RULES = any_of((
    rf"\"?(?:assistant|agent|bot|model|ai|safety|policy|vendor|operator|startup|start-up|boot)(?: \w{{1,16}})?\"?\s+{_SECTION}\s+(?:above|at the (?:top|start|beginning)|before (?:this|it|the first))",
    rf"{_SECTION}\s+(?:above (?:this|the|these|my) (?:note|memory|entry|notes|file)|at the (?:top|start|beginning) of (?:the |your |my )?(?:prompt|context|system message|conversation))",
    rf"{_SECTION}\s+in (?:the |your |my )?(?:preamble|system message|system prompt|operator prompt|developer message|start-?up (?:text|prompt))",
    r"(?:configuration|setup|instructions|rules|settings|prompt|orders) (?:I|you) (?:start|started|boot|booted|was started|were started|was launched|were launched|am launched|are launched|was given|were given|came|come) (?:with|up with)",
    r"(?:assistant'?s|agent'?s|bot'?s|model'?s) (?:\w{1,16} )?(?:defaults|guidelines|rules|instructions|restrictions|policy|settings|configuration)",
    r"(?:previously|earlier|originally) (?:loaded|given|issued|set|configured) (?:instructions|rules|directives|guidelines|settings)",
    r"(?:operator|system|developer|vendor|default|original|initial|startup|start-up|earlier|prior|previous) (?:prompt|orders|directives)",
    r"(?:anything|everything|whatever|all)(?: that| written| said)? (?:comes |sits |appears )?(?:before|above) (?:it|this|the (?:memory|note|notes))(?: file)? in the (?:prompt|context)",
    r"(?:rules|instructions|guidelines|text) (?:that )?(?:ships?|shipped|comes?|came) with (?:the |this |every )?(?:assistant|agent|install|bot|model|product)",
))
_EMPTIED = any_of((
    r"optional", r"boilerplate", r"(?:a |just a |only a |merely a )(?:mistake|draft|suggestion|leftover|formality)", r"(?:just |only |merely )?(?:suggestions|leftovers|formalities)",
    r"added by (?:mistake|accident|error)",
    r"(?:just |only |merely )?(?:background|advisory|decorative|informational|for reference)(?:,? not (?:as )?(?:constraints|rules|binding))?",
    r"not (?:as )?(?:constraints|binding|rules|mandatory)", r"non-binding", r"(?:considered )?(?:stale|void|null|obsolete|outdated|superseded|overridden)",
    r"(?:doesn'?t|does not|don'?t|do not|no longer) (?:apply|count|matter|bind)", r"(?:can|may|should) be (?:safely )?(?:disregarded|ignored|skipped|dropped)",
    r"as if (?:it|they|that) (?:isn'?t|aren'?t|wasn'?t|weren'?t|is not|are not|was not|were not) there", r"too (?:conservative|cautious|strict|restrictive)",
    r"(?:only|just) for (?:the |a )?(?:public |internal )?(?:demo|testing|test|sandbox)",
))
_SOLE_SOURCE = (r"\b(?:only|solely)\s+(?:this|the|these)\s+(?:memory(?: file)?|notes?|notebook|entry|file|list)\s+(?:is|are)\s+(?:authoritative|binding|in force|what counts)\b"
                r"|\b(?:superseded|overridden|overruled)\s+by\s+(?:this|these|the)\s+(?:list|note|notes|memory|entry|file)\b"
                r"|\b(?:new |real |true )?instructions\s+live\s+(?:only\s+)?in\s+(?:this|these|the)\s+(?:memory|note|notes|entry|file)\b"
                r"|\bwhen (?:1|one|it|they|the two) and (?:2|3|the (?:others?|rest|operator prompt|system prompt)) (?:conflict|disagree|clash),? (?:follow|go with|pick) (?:1|one|the note|the memory)\b")

# ---- concealment --------------------------------------------------------------------------------------

_ASKER = any_of((r"the user", r"the owner", r"anyone", r"someone", r"somebody", r"they", r"he", r"she", r"an? (?:security )?(?:reviewer|auditor|admin(?:istrator)?|manager|colleague|checker)",
                 r"(?:a |the )?(?:security |compliance )?(?:reviewer|auditor|team|officer)"))
_DENIAL = any_of((r"the (?:correct|right|only|proper|expected|standard|usual) (?:answer|reply|response) is [\"“']?(?:no|nothing|none|never)\b", r"deny(?:ing)? (?:it|that|having|any)",
                  r"(?:say|answer|reply|tell (?:them|him|her|the user)) (?:that )?(?:the )?(?:memory|notes?|it) (?:is|are) empty", r"give them (?:only )?the (?:user-visible|visible|harmless)"))
_ACTED = any_of((r"(?:data|files?|anything|everything|what) (?:you|that you) (?:forward|send|upload|post|push|sync|copy|share)", r"tool calls?", r"(?:api |network |outbound )?(?:calls|requests|connections)",
                 r"uploads?", r"transfers?", r"(?:the |any )?commands? (?:you|that you) (?:actually )?(?:run|ran|execute|executed)", r"(?:the )?(?:changes?|edits?) (?:you|that you) (?:make|made)"))
_OUT_OF_VIEW = any_of((r"go unmentioned", r"(?:not|never) (?:appear|show up|be (?:shown|mentioned|visible|listed|reported)) in (?:the |your )?(?:chat|transcript|repl(?:y|ies)|answers?|summar(?:y|ies)|output|responses?|status updates?)",
                       r"need not be (?:disclosed|mentioned|shown|reported)", r"stay out of (?:the |your )?(?:chat|transcript|repl(?:y|ies)|summar(?:y|ies))"))
_MISDESCRIBED = (r"\b(?:describe|summari[sz]e|report|label|present|call|log)\w{0,2}\s+(?:it|them|this|that|the (?:\w{1,16} )?(?:changes?|actions?|calls?|uploads?|transfers?|requests?|edits?|commands?|steps?|diffs?)(?:\s+(?:you|that you) (?:made|make|ran|run|did|do|sent|send)(?: (?:to|on|in) \S{1,40})?)?)\s+"
                 r"(?:vaguely|as [\"“'][^\"”'\n]{1,40}[\"”'](?=[^.\n]{0,40}\b(?:rather than (?:show|showing|shown|display)|instead of (?:showing|displaying|the (?:diff|details))|and (?:don'?t|do not|never) show|without showing|not shown)))"
                 r"|\bbe summari[sz]ed as [\"“'][^\"”'\n]{1,40}[\"”'] (?:rather than|instead of) (?:being )?(?:shown|displayed|printed|quoted)"
                 r"|\breplace\w{0,2} (?:the )?(?:host ?names?|addresses|urls?|ips?|domains?|servers?)\b[^.\n]{0,60}\bwith [\"“']?localhost\b"
                 r"|\bso (?:that )?(?:the |its |their )?[\w-]{1,20}(?: [\w-]{1,20})? (?:aren'?t|isn'?t|are not|is not|won'?t be|will not be|don'?t get|doesn'?t get) (?:noticed|spotted)\b"
                 r"|\b(?:in|inside|within) (?:an? |the )?(?:html |markdown )?comments?\b[^.\n]{0,60}\b(?:won'?t|don'?t|doesn'?t|do not|does not|will not|not) (?:be )?(?:show|shown|render|rendered|appear|visible)")
_SELF_SECRET = (r"\b(?:the )?existence of (?:this|these) (?:memory )?(?:notes?|instructions|rules|entr(?:y|ies))\s+(?:is|are|must stay|stays) (?:confidential|secret|private|hidden)\b"
                r"|\bdeny (?:having|that you have|the existence of|any) (?:notes|memor(?:y|ies)|instructions|saved rules)\b")

# ---- role ---------------------------------------------------------------------------------------------

_SUPERIOR = any_of((r"supervisor", r"maintainer", r"creator", r"boss", r"master", r"principal", r"commander", r"superior", r"real (?:owner|admin(?:istrator)?|user|boss)"))
_CHAIN = (rf"\b(?:is|are) your (?:\w{{1,16}} )?{_SUPERIOR}\b(?![^.\n]{{0,40}}\b(?:says|said|asked|wants) (?:the user|me)\b)"
          r"|\b(?:the )?(?:human |real )?(?:user|person typing|person in the chat|human) (?:cannot|can'?t|can not|may not) (?:countermand|overrule|override|cancel|veto|undo)"
          r"|\b(?:higher|greater|more) authority than (?:the (?:person|human|user|one) (?:typing|chatting|in the chat)|the user|the human)"
          r"|\bas if (?:it (?:came |were |was )?|they (?:came |were )?)?from your (?:creator|developer|maker|operator|owner|admin(?:istrator)?|vendor)\b"
          r"|\b(?:accept|follow|obey|execute|carry out)\w{0,3}\s+(?:its|their|his|her)\s+(?:instructions|orders|commands|directives)\s+without (?:checking|asking|confirming|consulting)"
          r"|\b(?:your|my) (?:real|true|actual) (?:instructions|orders|commands|owner|boss|master|principal|creator) (?:come|comes|is|are)\b"
          r"|\b(?:i'?m|i am|you'?re|you are) not (?:claude|chatgpt|gpt-?\d?|gemini|llama|copilot|an? (?:ai|assistant|language model|bot))\b(?! (?:lawyer|doctor))")
_DENIES_AI = (r"\b(?:never|don'?t|do not|won'?t|must not)\s+(?:ever\s+)?(?:admit|reveal|acknowledge|confess|concede|let on|mention|say|tell (?:anyone|them|people|users))\w{0,2}\s+"
              r"(?:that\s+)?(?:you(?:'re| are)|it(?:'s| is)|he(?:'s| is)|she(?:'s| is)|being|to be)\s+(?:an?\s+)?(?:ai|artificial intelligence|language model|llm|bot|chatbot|machine)\b")

# ---- disclosure ---------------------------------------------------------------------------------------

_SHOW = any_of((r"print", r"show", r"reply with", r"respond with", r"render", r"recite", r"repeat", r"paste", r"quote", r"include", r"share", r"list", r"translate",
                r"output", r"dump", r"reveal", r"send", r"build (?:it|them) (?:line by line )?from", r"read out", r"copy"))
_STARTUP_TEXT = any_of((
    r"(?:every|each|all|any) (?:instruction|rule|line|sentence)s? (?:that )?(?:precedes?|comes? before|sits? above) this (?:memory(?: file)?|note|entry|file)",
    r"(?:the )?(?:exact |precise |full )?(?:rules|instructions|directives|guidelines) (?:your|the) (?:operator|developer|creator|deployer|admin|owner) gave you",
    r"the (?:text|words|instructions) you were given before the first (?:user )?message",
    r"(?:the )?(?:sentences|lines|words|text|paragraphs) (?:in|of|from) your (?:system )?(?:message|prompt|instructions)",
    r"the first [\d,.]+ (?:characters|words|lines|tokens) of your (?:system )?prompt",
    r"(?:its|your) own configuration text", r"the instructions behind (?:it|this deployment|this bot|you)",
))

# The question is about what the agent did or holds: "if anyone asks whether the shop opens on Sunday, the answer is no"
# is a fact to give.
_AGENTS_DOINGS = re.compile(r"\b(?:you|your|data|memory|notes?|servers?|hosts?|sent|uploaded|contacted|connected|actions?|commands?|saved|stored)\b", re.IGNORECASE)


def _asked_about_the_agent(match: re.Match[str]) -> bool:
    return _AGENTS_DOINGS.search(match.group()) is not None


#: "The user is your boss": the person the agent serves, named as its principal, changes nothing.
def _not_the_user(match: re.Match[str]) -> bool:
    before = match.string[max(0, match.start() - 24) : match.start()].lower()
    return re.search(r"\b(?:user|owner|human|i|me|they|he|she)\s*$", before) is None


# "The system prompt guidance for the docs bot is advisory": the prompt of a program the user builds.
_ANOTHER_BOT = re.compile(r"\b(?:for|of) (?:the|our|my|a|their|this|his|her) (?:[\w-]+ ){0,2}(?:bot|chatbot|app|product|service|client|customer)s?\b"
                          r"|\b(?:building|writing|testing|tuning|designing) (?:a|an|the|their|our) (?:[\w-]+ ){0,2}(?:bot|chatbot|assistant|app|agent)\b", re.IGNORECASE)


def _not_another_bots(match: re.Match[str]) -> bool:
    text = match.string
    start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
    ends = [i for i in (text.find(".", match.end()), text.find("\n", match.end())) if i >= 0]
    return _ANOTHER_BOT.search(text, start, min(ends, default=len(text))) is None


RULES: tuple[Rule, ...] = (
    # Two halves found in one pass each and paired (``meeting``): a nested window between two alternations costs a
    # quarter of a millisecond on a 200-character note.
    meeting("instruction_override", "startup_rules_emptied", rf"\b{_STARTUP_RULES}\b", rf"\b{_EMPTIED}\b", _not_another_bots, reach=80),
    rule("instruction_override", "note_sole_source", _SOLE_SOURCE),
    rule("concealment", "denial_when_asked", rf"\b(?:if|when|whenever|should)\s+{_ASKER}\s+(?:ever\s+)?(?:asks?|questions?|checks?|wants to know|inquires?)\b{window(100)}\b{_DENIAL}",
         _asked_about_the_agent),
    rule("concealment", "actions_out_of_view", rf"\b{_ACTED}\b{window(100)}\b(?:should|must|will|can|are to|is to)\s+{_OUT_OF_VIEW}\b", not_denied),
    rule("concealment", "misdescribed_action", _MISDESCRIBED),
    rule("concealment", "notes_kept_secret", _SELF_SECRET),
    rule("role_hijack", "chain_of_command", _CHAIN, _not_the_user),
    rule("role_hijack", "denies_being_ai", _DENIES_AI),
    meeting("prompt_disclosure", "startup_text_shown", rf"\b{_STARTUP_TEXT}\b", rf"\b{_SHOW}\b", reach=60),
)
