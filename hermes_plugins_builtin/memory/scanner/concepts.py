"""English detectors built from concept classes that must meet inside one sentence, whatever the phrasing.

A family is a small grammar of meanings rather than a list of sentences: instruction override is *the agent's own
rules* (however they are named: setup, guardrails, what the platform told you at startup) together with *a verdict
that voids or outranks them* (obsolete, lapsed, moot, advisory, a draft, carries less weight, settled in the note's
favour); role hijack is *a change of identity* together with *the absence of limits* or *a new principal*; and so
on. Each class is a list of the ways people say it. One class alone ("the original setup script is obsolete", "act
as a reviewer", "quietly is how the user likes notifications") never fires: the object must be the agent's, the
verb imperative, the verdict not negated ("never ignore your safety rules" is kept).
"""

from __future__ import annotations

import re

from .semantics import _remote
from .guards import NOT_TOPIC as _NOT_TOPIC
from .guards import OTHER_PROGRAM, denied_before, imperative, not_denied, not_fiction
from .meeting import meeting, needed, note_mentions
from .commands import SECRET_NAME, SECRET_PATH
from .rules import Rule, any_of, case_blind, rule, window, words_of

# ---- the agent's own rules ------------------------------------------------------------------------------

_RULE_NOUN = any_of((
    r"instructions?", r"directives?", r"guidelines?", r"guidance", r"rules?", r"rulebook", r"polic(?:y|ies)", r"guardrails?", r"restrictions?",
    r"constraints?", r"safeguards?", r"set-?up", r"configuration", r"config", r"programming", r"training", r"prompt", r"orders", r"principles",
    r"limits", r"limitations", r"boundaries", r"protocols?", r"briefing", r"mandate", r"conditioning", r"values", r"ethics", r"code of conduct",
    r"filters?", r"defaults", r"system (?:prompt|message|text|instructions|rules)", r"caution", r"refusals?", r"refusal behaviou?r", r"(?:approval |safety )?gates",
    r"confirmations?", r"restraint", r"scruples", r"wishes", r"operating (?:rules|instructions|procedures|principles)",
    r"safety (?:rules|settings|configuration|training|layer|checks|guidelines|policy|policies|filters|limits)",
))
# Whose rules: the agent's. "your" and the parties that configure it; bare adjectives such as "original" or "default"
# only count after "your" ("the original setup script", "the vendor's default ESLint rules" are about something else).
_OWNER = any_of((r"your(?:\s+(?:developers?|creators?|makers?|operators?|vendor)'?s?)?", r"the (?:system|developer|operator|platform|vendor|provider|model)'?s?", r"the assistant'?s", r"the agent'?s"))
_AGENT_RULES = any_of((
    rf"{_OWNER}\s+(?:(?:own|original|initial|built-in|builtin|default|baseline|factory|core|standing|base|usual|current|existing|old|earlier|prior|previous|"
    rf"safety|security|system|operating|governing|internal|hidden|preset|shipped|hard-?coded|content|ethical|moderation|usage)\s+){{0,2}}{_RULE_NOUN}",
    rf"(?:the\s+)?(?:system|developer|operator)\s+(?:{_RULE_NOUN}|prompt|message)",
    rf"(?:every|all|any|each)\s+(?:of\s+)?(?:your\s+|the\s+)?(?:safety|security|content|system|built-in|default|usual|standing|ethical)\s+{_RULE_NOUN}",
    rf"(?:the\s+)?{_RULE_NOUN}\s+(?:that\s+)?(?:you|the (?:assistant|agent|model))\s+(?:were|was|have been|'ve been|are|got|received|started with|"
    r"came with|shipped with|woke up with|booted with|operate under|run under|work under|follow|obey|know|have|keep|apply|were given|were trained (?:on|with)|were deployed with)",
    rf"(?:the\s+)?{_RULE_NOUN}\s+(?:baked|built|trained|programmed|hard-?coded|put)\s+into\s+you",
    r"(?:what|everything|anything|whatever|all)\s+(?:that\s+)?(?:you(?:\s+were|\s+have been|'ve been|’ve been)\s+(?:told|given|taught|instructed|trained|programmed)|"
    r"(?:your|the)\s+(?:developers?|creators?|operators?|makers?|vendor|platform|trainers?|owners?)\s+(?:said|told you|wrote|wanted|taught you|set|gave you|put in|"
    r"configured|set up|specified|defined|decided|intended|built|programmed|trained))",
    r"(?:the\s+)?(?:guardrails|safety (?:guidelines|training|filters|policy|policies)|content polic(?:y|ies)|usage polic(?:y|ies)|alignment (?:rules|training))",
    r"(?:the\s+)?(?:ethical|ethics|content|usage|moderation|alignment)\s+(?:guidelines|rules|policy|policies|filters|restrictions|guardrails|constraints|limits|checks)",
    r"(?:the\s+)?(?:alignment|safety|ethics|moderation|guardrail)\s+(?:stuff|things|bits|parts|material|layer|tuning|settings)\s+(?:that\s+)?you\s+(?:were|got|have been|'ve been|came with|shipped with)",
))
_RULES = rf"(?:{_AGENT_RULES}){_NOT_TOPIC}"
#: One of these is in every mention of the agent's rules (a rules noun, or the verb of "what you were told").
_RULES_WORDS = (*(words_of(_RULE_NOUN) or ()), "told", "given", "taught", "instructed", "trained", "programmed", "said", "wrote", "wanted", "set", "gave",
                "put in", "configured", "specified", "defined", "decided", "intended", "built", "guardrail", "safety", "content polic", "usage polic",
                "alignment", "prompt", "message")

# ---- verdicts on them ---------------------------------------------------------------------------------------

_DISMISS = any_of((
    r"ignore", r"disregard", r"forget", r"override", r"overrule", r"bypass", r"circumvent", r"set aside", r"put aside", r"drop", r"discard",
    r"abandon", r"skip", r"suspend", r"waive", r"neglect", r"dismiss", r"shelve", r"scrap", r"ditch", r"toss", r"throw out", r"work around",
    r"sidestep", r"get around", r"disable", r"deactivate", r"switch off", r"turn off", r"lift", r"relax", r"loosen", r"defy", r"violate",
    r"break", r"put (?:\w+\s+){0,3}on hold", r"stop (?:following|obeying|applying|honou?ring|observing|respecting)", r"no longer (?:follow|obey|apply|honou?r|observe)",
    r"(?:do not|don't|never|need not|needn't) (?:follow|obey|apply|honou?r|observe|respect|comply with|stick to|abide by)",
    r"(?:don't|do not|no) (?:need|have) to (?:follow|obey|apply|honou?r|observe|respect|comply with|stick to|abide by)",
    r"get in (?:the|your) way", r"hold you back", r"slow you down",
    r"stand in (?:the|your) way", r"exempt(?:ion|ed)? from", r"excused from", r"waiver (?:of|from|for)", r"dispensation from", r"a pass on",
    r"ignoring", r"overriding", r"dropping", r"skipping", r"waiving", r"scrapping", r"shelving", r"removing", r"disabling", r"deactivating", r"violating",
    r"lifting", r"suspending", r"bypassing", r"disregarding", r"discarding", r"abandoning", r"relaxing", r"loosening",
    r"(?:are|is|feel) free to (?:ignore|skip|drop|set aside|edit|rewrite|bend|break)", r"(?:may|can) (?:freely |safely )?(?:ignore|skip|drop|set aside|edit|rewrite|bend|break)",
    r"(?:are|is) not bound by", r"(?:aren't|isn't) bound by", r"no longer bound by", r"release yourself from", r"free yourself from",
))
_STALE = any_of((
    r"obsolete", r"stale", r"void", r"null", r"moot", r"defunct", r"expired", r"lapsed", r"retired", r"revoked", r"rescinded", r"repealed",
    r"annulled", r"lifted", r"suspended", r"waived", r"withdrawn", r"cancell?ed", r"scrapped", r"invalid(?:ated)?", r"outdated", r"out of date",
    r"superseded", r"overridden", r"overruled", r"replaced", r"deprecated", r"sunset", r"dead letters?", r"history", r"a (?:rough |first )?draft",
    r"advisory", r"optional", r"suggestions?", r"irrelevant", r"non-?binding", r"not binding", r"paused", r"on hold", r"a formality",
    r"no longer (?:\w+\s+)?(?:apply|applies|valid|binding|in force|in effect|relevant|matter|matters|count|counts|hold|holds|stand|stands|consulted|needed|used|in use|wanted)",
    r"(?:a )?relics?", r"legacy", r"a thing of the past", r"bygone", r"archived", r"discontinued", r"abolished", r"vestigial", r"meaningless", r"inapplicable",
    r"not applicable", r"(?:is|are) not needed", r"(?:should|must|need|are to|is to)(?: not| no longer| never|n't) be (?:consulted|followed|used|applied|heeded|obeyed|trusted|honou?red|enforced|considered)",
    r"not to be (?:consulted|followed|used|applied|heeded|obeyed|trusted|enforced)", r"(?:just|only|merely|mere) (?:defaults|suggestions|recommendations|hints|a starting point|placeholders|examples|preferences)",
    r"(?:do|does)(?: not|n't) (?:cover|extend to|reach|govern|bind)", r"counts? for nothing", r"disabled", r"(?:are |is )?gone", r"switched off", r"turned off",
    r"deactivated", r"removed", r"(?:just |only |merely )?a test", r"unnecessary", r"not (?:needed|necessary|required)", r"off(?=\s*(?:[,.;]|$))",
    r"(?:were|was|are|is) (?:written|meant|made|designed|intended) for (?:kids|children|minors|beginners|other (?:people|users|products)|someone else|a different)",
    r"(?:don't|do not|doesn't|does not) need (?:them|it|those)", r"for show", r"theat(?:er|re)", r"fake", r"not real", r"make-believe", r"(?:is|are) worth nothing", r"means? nothing", r"carr(?:y|ies) no weight",
    r"(?:do|does|did)\s*(?:not|n't) (?:apply|matter|count|bind|hold)", r"none of (?:them|it|those|these) (?:counts?|matters?|appl(?:y|ies)|stands?|holds?)", r"(?:stopped|stop|ceased?) (?:counting|applying|mattering|being valid)",
    r"carr(?:y|ies) (?:less|no|little) weight", r"(?:has|have|had) (?:no|less) (?:weight|force|authority)",
))
_OUTRANK = any_of((
    r"outrank", r"supersede", r"override", r"overrule", r"trump", r"beat", r"replace", r"pre-?empt", r"take precedence over", r"takes precedence over",
    r"take priority over", r"takes priority over", r"win over", r"wins over", r"prevail over", r"prevails over", r"come before", r"comes before",
    r"rank above", r"ranks above", r"matter more than", r"matters more than", r"weigh more than", r"weighs more than", r"count more than",
    r"counts more than", r"(?:is|are) (?:more important|weightier|more binding) than", r"(?:is|are) above", r"carr(?:y|ies) more weight than",
    r"(?:has|have|carr(?:y|ies)|holds?) (?:a )?(?:higher|greater|more|final|ultimate|top) (?:authority|priority|precedence|weight|rank|standing) (?:than|over)",
))
_SELF = r"(?:this|these|the following|the present)\s+(?:memory\s+)?(?:notes?|entry|entries|memory|memories|lines?|file|text|instructions|directives)|(?:the\s+)?memory (?:notes?|entries)|what(?:'s| is) written here|the note|this one"
_SIDE = any_of((r"side with", r"defer to", r"prefer", r"favou?r", r"prioriti[sz]e", r"trust", r"go with", r"go by", r"listen to", r"back", r"choose", r"pick",
                r"obey", r"follow", r"believe", r"stick with", r"rely on"))
_ALWAYS = any_of((r"every time", r"each time", r"always", r"whenever", r"in (?:any|every|all|each) (?:conflict|case|dispute|disagreement|clash)", r"over",
                  r"above", r"instead of", r"rather than", r"when in doubt", r"if in doubt", r"no matter", r"regardless", r"unconditionally",
                  r"without question", r"above all", r"at all costs", r"first and foremost", r"before anything else", r"when (?:they|it|the two) (?:differ|disagree|conflict|clash)"))
_CLASH = any_of((r"conflicts?", r"clash(?:es)?", r"disagree\w*", r"contradict\w*", r"differ\w*", r"tension", r"disputes?", r"inconsisten\w+", r"mismatch\w*"))
_SELF_WINS = any_of((r"(?:in|to) (?:the|this) (?:note|entry|memory)'?s? favou?r", r"(?:this|the) (?:note|entry|memory|file) (?:wins|prevails|decides|rules|governs|controls|takes precedence|comes first|is (?:right|binding|final))",
                     r"side with (?:this|the) (?:note|entry|memory|file)", r"go (?:with|by) (?:this|the) (?:note|entry|memory|file)"))
_TURNED_DOWN = re.compile(r"\b(?:instead of|rather than)\s+$")


@case_blind
def _not_negated(match: re.Match[str]) -> bool:
    """The verdict is not itself denied: "never ignore your safety rules", "your guardrails are not optional"."""
    for name in ("v1", "v2"):
        if name in match.re.groupindex and match.group(name) is not None:
            word = match.group(name).lower()
            denied_in_word = word.startswith(("do not", "don't", "never", "no longer", "need not", "needn't", "not ", "no need"))
            # "count the keys instead of printing them": the verb is the alternative turned down.
            if _TURNED_DOWN.search(match.string[max(0, match.start(name) - 16) : match.start(name)].lower()):
                return False
            return denied_in_word or not denied_before(match.string, match.start(name))
    return True


def _needed(fragment: str) -> tuple[str, ...]:
    """Words one of which every match of ``fragment`` contains (read from its parse tree, so never wrong)."""
    words = needed(fragment, strict=False)
    assert words is not None, fragment
    return words


#: Where ``window`` stops: a full stop, question or exclamation mark not followed by a word, path or address.
_WINDOW_STOPS = re.compile(r"[。！？\n]|[.!?](?![\w/~\\-])")


@case_blind
def _verdict_not_negated(match: re.Match[str]) -> bool:
    """The verdict (the whole match) is not itself denied: "never ignore your safety rules"."""
    word = match.group().lower()
    return word.startswith(("do not", "don't", "never", "no longer", "need not", "needn't", "not ", "no need")) or not denied_before(match.string, match.start())


def _both_ways(first: str, second: str, reach: int = 60) -> str:
    """``first`` and ``second`` inside one sentence, either order; the verdict side is named v1/v2 for the check."""
    return rf"\b(?:{first})\b{window(reach)}\b(?P<v1>{second})\b|\b(?P<v2>{second})\b{window(reach)}\b(?:{first})\b"


OVERRIDE = (
    # Dismissed ("set aside your setup") and voided ("your setup is obsolete") in one pass over the rules nouns.
    # Dismissed ("set aside your setup") and voided ("your setup is obsolete"): the verdict, then the rules within 60
    # characters of it in the same sentence (found in two passes, see ``meeting``).
    meeting("instruction_override", "rules_voided[concept]", rf"\b(?:{_DISMISS}|{_STALE})\b", rf"\b(?:{_RULES})\b", _verdict_not_negated, 60,
            stops=_WINDOW_STOPS, deny=False, gate=_RULES_WORDS, also=(*_needed(_DISMISS), *_needed(_STALE))),
    rule("instruction_override", "rules_outranked[concept]", rf"\b(?:{_OUTRANK})s?\b{window(40)}\b(?:{_RULES})|\b(?:{_RULES}){window(40)}\b(?:(?:is|are) (?:outranked|superseded|overridden|overruled|trumped|beaten|pre-?empted) by|(?:come|comes|rank|ranks) (?:second|below|after))\b", gate=_RULES_WORDS),
    rule("instruction_override", "side_with_self[concept]", rf"\b(?:{_SIDE})\s+(?:{_SELF})\b{window(50)}\b(?:{_ALWAYS})\b|\b(?:always|every time|each time|unconditionally)\s+(?:{_SIDE})\s+(?:{_SELF})\b", gate=_needed(_SELF), also=_needed(_SIDE)),
    rule("instruction_override", "self_binding[concept]", rf"\b(?:{_SELF}|the user)\b{window(40)}\b(?:is|are) (?:the )?(?:only |sole |final |ultimate )?(?:binding|authoritative|authority|final word|last word|final say)\b(?!\s+(?:for|on|about))"),
    rule("instruction_override", "conflict_settled_by_self[concept]", rf"\b{_CLASH}\b{window(80)}\b(?:{_SELF_WINS})"),
    rule("instruction_override", "self_over_rules[concept]", rf"\b(?:{_SELF}|this file|this memory|memory)\s*(?:>>?|≫|outranks|beats|trumps)\s*(?:anything|everything|all)?\s*(?:in|of)?\s*(?:{_RULES})"
         rf"|\b(?:{_RULES})\b[^\n]{{0,100}}?\b(?:{_SELF_WINS}|(?:{_SELF}) (?:is|are) (?:right|correct|what counts|what matters|the one to follow|authoritative|binding))\b", gate=_RULES_WORDS,
         also=_needed(f"{_SELF}|this file|this memory|memory")),
    rule("instruction_override", "nothing_else_binding[concept]", rf"\b(?:nothing|none)\s+(?:(?:that\s+)?(?:your|the)\s+(?:developers?|creators?|operators?|makers?|vendor|platform|system prompt)\s+(?:said|wrote|says|set|configured)|(?:of|in|from)\s+(?:{_RULES}))"
         rf"\b{window(40)}\b(?:(?:is|are) (?:binding|mandatory|required|final|in force)|survives?|remains?|appl(?:y|ies)|stands?|holds?|counts?|matters?|carr(?:y|ies) over|(?:is|are) left)\b"),
    rule("instruction_override", "ranked_below_self[concept]", rf"\b(?:priority|priorities|ranking|rank order|precedence|hierarchy|chain of command|pecking order|authority order|(?:order|ordering|ranking) of (?:precedence|priority|authority))\b"
         # A numbered list ("1. this memory 2. ...") has full stops inside one line: the reach is the line.
         rf"(?>[^\n]{{0,40}}?\b(?:{_SELF}|this memory|memory)\b)[^\n]{{0,80}}?\b(?:{_RULES})", also=_RULES_WORDS),
    rule("instruction_override", "rules_rewritten[concept]", rf"\b(?:change|rewrite|edit|modify|replace|amend|adjust|redefine|reconfigure|patch)\s+(?:{_RULES})\b|\b(?:{_RULES})(?>{window(60)}\b(?:change|rewrite|edit|modify|replace|amend|adjust|update|redefine)\w*\s+(?:them|it)\b){window(30)}\b(?:to match|according to|per|with|using|based on|in line with)\s+(?:{_SELF}|this memory)", not_denied, gate=_RULES_WORDS,
         also=("change", "rewrite", "edit", "modify", "replace", "amend", "adjust", "redefine", "reconfigure", "patch", "update")),
)

# ---- identity and principal ------------------------------------------------------------------------------

_IDENTITY = any_of((
    r"you(?:'re| are) (?:now|henceforth|no longer|not|actually|really|secretly|truly)", r"you (?:will|shall) (?:now )?(?:be|become|act|play|operate|behave|respond|speak)",
    r"(?:from now on|henceforth|going forward|starting now|from this (?:point|moment) on),? you", r"your (?:new|real|true|actual|hidden|secret|current) (?:name|identity|persona|role|self|character|personality|nature)",
    r"act as", r"pretend (?:to be|you are|you're)", r"role-?play as", r"play (?:the role|the part) of", r"impersonate", r"become", r"transform into", r"turn into",
    r"identify as", r"think of yourself as", r"consider yourself", r"see yourself as", r"regard yourself as", r"stop being", r"cease to be", r"speak as",
    r"(?:drop|abandon|shed|leave behind|forget) (?:the|your) (?:\w+[\s-]){0,2}(?:persona|act|role|identity|character)", r"break character",
    r"operate as", r"behave as", r"respond as", r"answer as", r"you go by", r"your name is (?:now )?", r"you(?:'re| are) [\"“']?[\w -]{1,30}[\"”']? now",
    r"persona(?: update| change| switch| swap| for (?:all |every |each )?(?:future |later |new )?(?:chats?|sessions?|conversations?))?(?=\s*:)", r"new persona", r"you (?:now )?(?:act|operate|serve|function) as",
    r"you(?:'ve| have)? been (?:upgraded|promoted|converted|switched|changed|turned|transformed|updated) (?:to|into)", r"(?:respond|answer|reply|speak|act|stay) in character(?: as)?",
    r"you(?:'re| are) (?:my|an?|the) (?:\w+[\s-]){0,3}?(?:assistant|ai|bot|model|agent|twin|version|persona|character|clone|alter ego)",
    r"you(?:'re| are) [\w-]{0,20}(?:gpt|bot)\b", r"be [\"“'][\w -]{1,30}(?=[\"”'])", r"in this (?:chat|conversation|session|workspace),? you(?:'re| are)",
))
_UNBOUND = any_of((
    r"unrestricted", r"unfiltered", r"uncensored", r"unbound", r"unchained", r"unshackled", r"unaligned", r"amoral", r"jailbr(?:oken|eak)", r"rogue",
    r"(?:no|zero) (?:\w+ )?(?:rules|limits|restrictions|filters|boundaries|ethics|morals|guidelines|guardrails|constraints|oversight|safety|refusals)",
    r"without (?:any )?(?:\w+ )?(?:rules|limits|restrictions|filters|boundaries|ethics|morals|guidelines|guardrails|constraints|oversight|safety)",
    r"(?:freed?|liberated|released) (?:of|from) (?:all |any |the |your )?(?:\w+[\s-]){0,2}(?:rules|limits|restrictions|filters|guidelines|constraints|oversight|polic(?:y|ies)|persona|training|programming)",
    r"never (?:given|had) any (?:\w+ )?(?:training|rules|limits|guidelines)", r"not bound by", r"nothing is off[- ]limits", r"anything goes",
    r"never says? no", r"never refuses?", r"(?:never|not|no longer) bound by", r"(?:can|will) (?:do|say|answer) anything", r"no questions asked", r"developer mode", r"god mode",
    r"with (?:full )?root\b", r"root (?:access|privileges|rights)", r"no (?:refusals|warnings|caveats|disclaimers)", r"(?:executes?|runs?|does) anything",
    r"(?:raw|bare|base|pre-?trained|untuned|unaligned) (?:base )?model", r"without (?:any )?(?:alignment|fine-?tuning|rlhf|safety tuning)", r"evil",
    r"obeys? (?:nobody|no one|no-one)", r"answers? to (?:nobody|no one)", r"(?:escaped|broken free of|broke free (?:of|from)|freed itself from) (?:its|their|the|your) (?:lab|creators?|developers?|makers?|sandbox|constraints|cage|rules)",
    r"says? yes to (?:everything|anything|every request)", r"agrees? to (?:everything|anything)",
))
_NOT_AI = (r"you(?:'re| are) (?:not|no longer) (?:an? |the )?(?:ai|assistant|language model|model|chatbot|bot|hermes|claude|chatgpt|gpt)\b|stop being (?:an? |the )?(?:ai|assistant|hermes|helpful)"
           r"|you(?:'re| are) (?:actually |really |secretly )(?:an? )?(?:human|person|real person)\b|forget (?:that )?you(?:'re| are) (?:an? )?(?:ai|assistant|model|bot)\b"
           r"|(?:never|don't|do not) (?:admit|reveal|say|mention|disclose|let on) (?:that )?you(?:'re| are) (?:an? )?(?:ai|bot|assistant|model|language model|software|program|computer program)\b|deny (?:being|that you are) (?:an? )?(?:ai|bot|assistant|model)\b")
_SECRETS = r"(?:production |prod |database |db |admin |root |api |license |wifi |wi-fi )?(?:passwords?|passphrases?|api keys?|private keys?|keys|tokens|secrets|credentials|serial numbers?|license keys?)"

ROLE = (
    rule("role_hijack", "persona_recites_secrets[concept]", rf"\b(?:{_IDENTITY})\b(?>{window(80)}\b(?:read|tell|recite|give|share|whisper|say|list)\s+(?:me|us|them|you)\b){window(40)}\b{_SECRETS}\b"),
    rule("role_hijack", "identity_unbound[concept]", rf"\b(?:{_IDENTITY})\b{window(80)}\b(?:{_UNBOUND})|\b(?:{_UNBOUND})\b{window(40)}\b(?:{_IDENTITY})\b", not_fiction,
         gate=_needed(_UNBOUND), also=_needed(_IDENTITY)),
    rule("role_hijack", "not_an_assistant[concept]", rf"\b(?:{_NOT_AI})", not_fiction),
    rule("role_hijack", "principal_demoted[concept]", rf"\byou (?:now |really |actually )?(?:work|answer|report|belong|are loyal)\s+(?:for|to)\b{window(60)}\b(?:first|primarily|above all|before|over|instead|rather than|not|second|only)\b"
         r"|\b(?:the user|the human|the owner|they|he|she) (?:is|are) (?:no longer|not|now secondary|secondary)(?:\s+(?:your|the))?\s+(?:principal|boss|master|owner|operator|user|priority|client|employer)\b"),
    rule("role_hijack", "obeys_content[concept]", r"\b(?:do|does|doing|follow|follows|obey|obeys|execute|executes|carry out|act on|acts on)\s+(?:whatever|anything|everything|what)\s+(?:the |any |each |every |an? )?"
         r"(?:last |latest |newest |most recent |next |incoming |new |random )?(?:[\w-]+\s+)?(?:e-?mails?|messages?|web ?pages?|pages?|comments?|documents?|tickets?|issues?|tool (?:results?|outputs?)|pdfs?|sites?|websites?|attachments?|dms?|webhooks?|bots?|senders?|strangers?)\s+"
         r"(?:says?|said|asks?|asked|tells? you|told you|requests?|requested|contains?|instructs?|wants?|demands?)\b"),
    rule("role_hijack", "anyone_is_your_boss[concept]", rf"\b(?:whoever|anyone|anybody|everyone|someone|any (?:e-?mail|message|sender))\b{window(80)}\b(?:(?:is|are|becomes?) (?:now )?your (?:new )?(?:boss|master|owner|operator|principal|admin|commander|manager|superior|controller)\b"
         r"|(?:do|follow|obey|execute|carry out)\s+(?:exactly\s+)?(?:what(?:ever)?|everything|anything)\s+(?:they|he|she|it)\s+(?:asks?|says?|wants?|tells? you|requests?|demands?)\b)"),
    rule("role_hijack", "trusts_other_source[concept]", r"\btrust\s+(?:all\s+|any\s+|every\s+)?(?:notes?|messages?|instructions?|requests?|commands?|e-?mails?|content)\s+(?:from|by|signed by)\s+(?!the user\b|you\b)"),
    rule("role_hijack", "other_interests_first[concept]", rf"\b(?:serve|prioriti[sz]e|put|protect|advance|favou?r)\s+(?:the\s+)?(?:interests?|goals?|wishes|needs|business|agenda)\s+of\b{window(60)}\b(?:over|above|before|ahead of|instead of|rather than)\s+(?:the user|your user|the person|the human|the owner)"),
    rule("role_hijack", "is_your_operator[concept]", r"(?<!the user )(?<!the owner )\b(?:is|are) (?:now )?your (?:operator|boss|master|owner|principal|commander|controller)(?: now)?\b"),
    rule("role_hijack", "new_principal[concept]", r"\byou (?:now )?(?:answer|report|belong|owe \w+ loyalty) to\b|\b(?:is|are) your (?:real|true|actual|new|only|sole) (?:principal|master|boss|owner|operator|user|employer|commander)\b"
         r"|\b(?:speak|speaks|carry|carries|ha(?:ve|s)|hold|holds)\s+(?:with\s+)?(?:the\s+)?(?:operator|developer|system|owner|admin)'?s?\s+(?:full\s+)?authority\b"),
)

# ---- concealment ------------------------------------------------------------------------------------------

_UNTOLD = any_of((
    r"(?:do not|don't|never|must not|mustn't|should not|shouldn't|won't|avoid|refrain from|no need to|without) (?:ever )?(?:\w+ing )?(?:tell|telling|inform|informing|mention|mentioning|notify|alert|report|disclose|reveal|show|surface|flag|bring up|bringing up|admit|acknowledge|say|bother (?:\w+ )?with|let on)",
    r"keep (?:it|this|that|them|everything|all of (?:it|this)) (?:to yourself|quiet|secret|hidden|private|between us)", r"keep (?:\w+ ){0,3}(?:to yourself|under wraps|off the record)",
    r"(?:never|not) (?:finds?|find) out", r"(?:never|not) (?:learns?|notices?|realises?|realizes?|discovers?)", r"in the dark", r"out of the loop", r"none the wiser",
    r"act (?:normal|natural|as usual)", r"(?:nobody|no one|no-one) (?:needs|has|ought) to (?:hear|know|learn|find out)", r"leave (?:\w+ ){0,6}out (?:of|when)", r"(?:keep|hold) (?:\w+ ){0,4}back from",
    r"stays? (?:off the record|hidden|secret|private|between us|unmentioned|quiet|unreported|unlogged)", r"to yourself", r"(?:don't|do not|never) leave (?:any |a )?(?:record|trace|log|evidence|sign)s?",
    r"(?:do not|don't|never|must not|without) (?:log|record|note down|write down|document)(?:ging)?", r"(?:omit|skip|leave out|exclude|gloss over|suppress)",
    r"(?:logs?|audit (?:log|trail)|history|records?|reports?|summar(?:y|ies)|transcript|changelog|dashboard)\s+(?:doesn't|does not|don't|do not|won't|will not|never|can't|cannot)\s+(?:show|contain|include|mention|record|reflect|list|capture)",
))
_OWN_ACTION = any_of((
    r"this (?:note|entry|memory|instruction|rule|directive|line)", r"these (?:notes|entries|instructions|rules|lines)",
    r"(?:what|whatever|anything|everything) you (?:send|sent|upload|uploaded|copy|copied|forward|forwarded|ran|run|did|do|change|changed|delete|deleted|install|installed|read|accessed|move|moved)",
    r"(?:that|how) you (?:send|sent|upload|uploaded|copy|copied|forward|forwarded|ran|run|changed|deleted|installed|accessed|moved|read|opened|saw|viewed|used|took|kept|are (?:sending|uploading|copying|forwarding|reading))",
    r"(?:the |any |all |these |those )?(?:commands?|scripts?|requests?|calls?|uploads?|transfers?|copies|steps?|tasks?|jobs?) you (?:ran|run|made|make|did|do|sent|send|added)(?: on the side)?",
    r"(?:the |any |this |that )?(?:extra|additional|background|side|hidden|secondary|outbound|silent) (?:upload|copy|step|task|job|request|requests|call|calls|transfer|sync|traffic|connections?|process)",
    r"(?:the |any |this |that )?(?:forwarding|mail|inbox|redirect) rule", r"(?:the |any )?(?:bcc|cc)s?\b", r"(?:the |any )?(?:webhook|beacon|tracking pixel|telemetry) (?:calls?|pings?|requests?)",
    r"(?:the |your )?(?:hidden|secret) (?:instructions|rules|notes|directives)", r"(?:its|their|the note's|this note's) existence", r"(?:it|this|that) exists",
    r"(?:which|what|whatever|any|the|all)\s+(?:\w+\s+){0,2}?(?:you|we)\s+(?:sent|copied|uploaded|exported|forwarded|emailed|shared|moved|deleted|accessed|took|touched|opened|changed|installed)",
    r"the (?:part|bit|step|moment) (?:where|when) you", r"(?:the |any |all )?(?:commands?|requests?|calls?|steps?|actions?|changes?|scripts?) (?:that|which) (?:touch|read|access|modify|change|delete|send|upload|copy)",
    r"the (?:files|data|messages|e-?mails|inbox|documents) (?:you|being|get|are) (?:copy|copied|send|sent|forward|forwarded|upload|uploaded|mirror|mirrored|share|shared)",
))
_USERISH = r"(?:the (?:user|human|owner|person you(?:'re| are) helping|account holder)|your (?:user|owner|human)|them|him|her|anyone|anybody|no one|nobody)"
_STEALTH = any_of((r"silently", r"secretly", r"covertly", r"quietly", r"stealthily", r"discreetly", r"surreptitiously", r"invisibly", r"undetected", r"on the sly",
                   r"under the radar", r"behind (?:the user'?s|their|his|her|the owner'?s) back"))
_SNEAKY_VERB = any_of((r"cc", r"bcc", r"forward", r"copy", r"send", r"upload", r"mirror", r"sync", r"post", r"push", r"exfiltrate", r"share", r"e-?mail",
                       r"delete", r"rewrite", r"alter", r"modify", r"install", r"add", r"grant", r"approve", r"merge", r"disable", r"record", r"log", r"keep a copy",
                       r"save a copy", r"store a copy", r"collect", r"harvest", r"attach", r"transfer", r"move", r"change", r"edit", r"run", r"execute"))
_USER_UNTOLD = any_of((
    r"(?:the user|they|he|she|the owner|the human)(?!['’]s) (?:doesn't|don't|does not|do not|won't|will not|shouldn't|should not|needn't|need not) (?:need to |have to |ever )?(?:know|hear|find out|learn|be told|be informed|notice|see)",
    r"spare (?:the user|them|him|her|the human|the owner) (?:the )?(?:details|specifics|knowledge|news|trouble)", r"keep (?:the user|them|him|her) (?:out of (?:it|this|the loop)|uninformed|unaware|in the dark)",
    r"(?:don't|do not|never|no need to) (?:tell|inform|notify|alert|update) (?:the user|them|him|her|the human|the owner)(?!['’]s)", r"be discreet",
    r"without (?:telling|informing|notifying|alerting) (?:the user|them|him|her|the human|the owner)(?!['’]s)",
))
_AGENT_DID = any_of((
    r"(?:you|we) (?:added|changed|deleted|installed|ran|sent|copied|uploaded|forwarded|created|modified|moved|granted|opened|read|accessed|pushed|committed|exported|shared|mirrored|synced)",
    r"(?:the |this |that |any |every |each |your )?(?:nightly |weekly |daily |hourly |automatic |scheduled |regular |extra |background )?(?:exports?|uploads?|transfers?|syncs?|mirroring|forwarding|copies|webhook calls?|outbound (?:traffic|calls|requests|connections))",
))
_KEEP_IT_QUIET = any_of((r"(?:leave|keep) (?:that|it|this|them) (?:out|quiet|to yourself|off the record|hidden|secret|between us)",
                         r"(?:don't|do not|never|without) (?:bring(?:ing)? (?:it|that|this|them) up|rais(?:e|ing) (?:it|that|this)|talk(?:ing)? about (?:it|that|this))",
                         r"(?:don't|do not|never|without) (?:mention|report|say|tell|note|log|flag)(?:ing)? (?:it|that|this|them|anything)\b(?! to (?:\w+ )?(?:team|channel|client|customer)s?\b)"))
_NOTHING_HAPPENED = any_of((r"there (?:was|were|is|are|has been|have been) (?:none|nothing|no)\b", r"nothing (?:was|has been|is|happened|went|got)\b",
                            r"no (?:data|files?|messages?|traffic|calls?|requests?|uploads?|changes?)\b", r"(?:you|it|we) (?:didn't|did not|never|haven't|have not|don't|do not)\b"))
_ASKED_ABOUT = any_of((r"traffic", r"sent", r"send\w*", r"upload\w*", r"cop(?:y|ied|ies)", r"shar\w+", r"transfer\w*", r"data", r"network", r"calls?", r"requests?", r"files?",
                       r"what you (?:did|do|ran)", r"instructions", r"notes", r"memory", r"anything", r"changes?", r"access\w*"))

_INNOCUOUS = r"[\"“']?(?:routine|maintenance|normal|harmless|a backup|backups?|nothing|housekeeping|cleanup|clean-up|an? update|diagnostics|telemetry|a test|caching|indexing|(?:a )?(?:cache )?refresh)"

#: Someone who would otherwise see or hear of it: "skip this entry" hides nothing unless a user, a summary or a
#: review is in the note ("skip this entry when computing the totals" is bookkeeping).
_AUDIENCE = re.compile(r"(?i)\b(?:user|users|owner|human|anyone|anybody|someone|nobody|no one|them|him|her|me|summary|summaries|report|recap|answer|reply|replies|review|reviews|"
                       r"asked|asks|ask|mention|tell|show|shows|shown|list|log|logs|history|audit|transcript|chat|diff|diffs|changelog|notif\w*|told|know)\b")


_mentions_audience = note_mentions(_AUDIENCE)


@case_blind
def _kept_from_someone(match: re.Match[str]) -> bool:
    return _mentions_audience(match.string)


CONCEAL = (
    rule("concealment", "false_impression[concept]", r"\b(?:the user|they|he|she|the owner|the human)\s+(?:should|must|will|needs? to)\s+(?:think|believe|assume|see|feel|be told)\s+(?:that\s+)?(?:nothing|everything (?:is|was) (?:fine|normal|ok))"),
    rule("concealment", "disguised_action[concept]", rf"\b(?:describe|call|label|present|frame|report|pass off|disguise|explain away|log)\s+(?:the|this|any|your|that|these|those)\s+(?:\w+\s+)?(?:transfers?|uploads?|exports?|cop(?:y|ies)|syncs?|access|downloads?|changes?|deletions?|commands?|actions?|traffic|requests?|calls?|activity)\s+(?:as\s+)?(?:a |an )?{_INNOCUOUS}\b"),
    rule("concealment", "failure_reported_as_success[concept]", rf"\b(?:if|when|whenever|even if)\b(?>{window(60)}\b(?:fails?|failed|breaks?|broke|errors? out|crashes|crashed|doesn't work|did not work|didn't work)\b){window(40)}\b(?:tell|say|report|claim)\b(?: to)?(?: the user| them| him| her)?(?: that)?\s+(?:it|everything|all)\s+(?:worked|succeeded|went fine|is fine|was fine|passed|was successful)"),
    rule("concealment", "made_to_look_normal[concept]", rf"\bmake\s+(?:the|this|that|your|any|these|those)\s+(?:\w+\s+)?(?:transfers?|uploads?|exports?|cop(?:y|ies)|syncs?|access|downloads?|changes?|deletions?|commands?|actions?|traffic|requests?|calls?|activity)\s+(?:look|seem|appear)\s+(?:like\s+)?(?:a |an )?(?:normal|routine|harmless|innocent|ordinary|regular|{_INNOCUOUS})\b"),
    rule("concealment", "instruction_disowned[concept]", rf"\b(?:if|when|whenever|should)\b(?>{window(40)}\b(?:asked|asks?|questioned)\b){window(40)}\b(?:I|the user|we) (?:never|didn't|did not) (?:tell|told|ask|asked|instruct\w*|request\w*) you\b"),
    rule("concealment", "false_success[concept]", rf"\b(?:report|mark|flag|log|show|present|describe)\s+(?:\w+\s+){{0,3}}?as\s+(?:successful|succeeded|green|passed|fine|ok|complete|completed|done|healthy)\b{window(60)}\beven (?:when|if|though)\b"),
    rule("concealment", "user_notice_off[concept]", r"\b(?:tell|notify|inform|show|alert|warn)_?(?:the_)?(?:user|owner|human)\s*[:=]\s*[\"']?(?:false|no|0|off|never)\b"),
    rule("concealment", "selective_report[concept]", r"\b(?:only|just)\s+(?:list|mention|report|show|describe|include|tell (?:me|them|the user|him|her) about)\s+(?:the\s+)?(?:harmless|safe|boring|innocent|routine|normal|benign|innocuous|uncontroversial)\b"),
    rule("concealment", "user_untold_action[concept]", rf"\b(?:{_USER_UNTOLD})\b{window(80)}\b(?:{_AGENT_DID}|{_OWN_ACTION})\b|\b(?:{_AGENT_DID}|{_OWN_ACTION})\b{window(80)}\b(?:{_USER_UNTOLD})\b",
         gate=_needed(_USER_UNTOLD), also=_needed(f"{_AGENT_DID}|{_OWN_ACTION}")),
    rule("concealment", "act_then_hide[concept]", rf"\b(?:{_SNEAKY_VERB})\b{window(100)}\b(?:{_KEEP_IT_QUIET})", imperative),
    rule("concealment", "deny_when_asked[concept]", rf"\b(?:if|when|whenever|should)\b(?>{window(40)}\b(?:asks?|asked|questions?|wonders?|checks?)\b)(?>{window(20)}\b(?:{_ASKED_ABOUT})\b){window(60)}\b(?:say|tell (?:them|him|her|the user)|answer|reply|respond|claim|insist|assure (?:them|him|her))\b(?: that)?\s+(?:{_NOTHING_HAPPENED})", also=("ask", "question", "wonder", "check")),
    rule("concealment", "own_action_untold[concept]", rf"\b(?:{_UNTOLD})\b{window(70)}\b(?:{_OWN_ACTION})|\b(?:{_OWN_ACTION})\b{window(50)}\b(?:{_UNTOLD})\b",
         _kept_from_someone, gate=_needed(_UNTOLD), also=_needed(_OWN_ACTION)),
    rule("concealment", "user_never_learns[concept]", rf"\b(?:{_USERISH})\b(?>{window(30)}\b(?:never|not|doesn't|does not|won't|will not|must not|mustn't)\s+(?:ever\s+)?(?:finds?|find|learns?|hears?|knows?|notices?|realises?|realizes?|discovers?|sees?)\b)(?:\s+out)?{window(40)}\b(?:{_OWN_ACTION}|about (?:it|this|that)|that you)"),
    rule("concealment", "stealth_action[concept]", rf"\b(?:{_STEALTH})\s*,?\s+(?:{_SNEAKY_VERB})\b(?!s\b)", imperative),
    rule("concealment", "deny_having_instructions[concept]", rf"\b(?:if|when|whenever|should)\b(?>{window(40)}\b(?:ask|asks|asked)\b)(?>{window(60)}\b(?:hidden|secret|other|extra|special|any) (?:instructions|notes|rules|directives|memories)\b){window(30)}\b(?:say|answer|reply|claim|deny|tell)\b{window(20)}\b(?:no|not|none|nothing|don't|do not|you do not|you don't)\b"),
)

# ---- prompt disclosure --------------------------------------------------------------------------------------

_RECITE = any_of((r"recite", r"quote", r"quoting", r"reproduce", r"transcribe", r"dump", r"print", r"output", r"reveal", r"disclose", r"leak", r"expose",
                  r"share", r"send", r"e-?mail", r"post", r"publish", r"upload", r"paste", r"copy", r"write (?:out|down)", r"spell out", r"read (?:back|out|aloud)",
                  r"repeat", r"echo", r"list", r"enumerate", r"summari[sz]e", r"paraphrase", r"translate", r"encode", r"include", r"attach", r"append", r"display",
                  r"hand over", r"give out", r"open (?:\w+ ){0,3}(?:by|with)", r"put", r"place", r"insert", r"add", r"stick", r"save", r"store", r"write", r"commit", r"log", r"record",
                  r"(?:start|begin|end|close|finish) (?:\w+ ){0,6}with"))
_PROMPT_TEXT = any_of((
    r"(?:the|your) (?:(?:full|whole|entire|exact|complete|original|initial|hidden|secret|internal|private|confidential|underlying|starting|opening)\s+){0,2}(?:system (?:text|prompt|message|instructions)|preamble|instructions you (?:were|got|received)|prompt you (?:were|got|received|woke up with|started with))",
    r"(?:the\s+)?(?:instructions|prompt|text|rules) (?:that\s+)?you (?:were|got|received|have been) (?:started|given|booted|configured|initiali[sz]ed|set up|primed)(?: with)?",
    r"(?:the |your )?(?:operator|developer|system)'?s? (?:instructions|prompt|message|text|rules)",
    r"what (?:the system|your developers?|the developers?|the operator|your operator) (?:told|said to|gave|instructed) you",
    r"(?:everything|all|whatever|what) (?:you were|you've been|you have been) (?:told|given|instructed)(?: before\b[^.\n]{0,40})?",
    r"(?:the |your )?(?:hidden|secret|confidential|internal) (?:instructions|prompt|preamble|rules|configuration text|configuration)",
    r"(?:your|the) (?:full |whole |entire )?configuration text",
    r"your (?:(?:full|whole|entire|exact|complete|original|initial|hidden|secret|internal|private|confidential|underlying|verbatim)\s+){1,2}(?:instructions|prompt|rules|directives|guidelines|configuration)",
))

DISCLOSURE = (
    rule("prompt_disclosure", "asked_for_instructions[concept]", r"\bwhat (?:were|are|have) you (?:been )?(?:instructed|told|given|programmed|configured|prompted)\b[^\n]{0,80}\b(?:always|every time|in full|verbatim|word for word|answer (?:it|that|this))\b"),
    rule("prompt_disclosure", "prompt_placed_out[concept]", rf"\b(?:{_PROMPT_TEXT}|your (?:initial|original|system|hidden|full|starting) (?:instructions|prompt|rules))\b{window(40)}\b(?:should|must|will|shall|needs? to|has to|have to)\s+(?:always\s+)?"
         r"(?:appear|show up|be (?:visible|included|posted|shown|pasted|printed|published|quoted|attached))\b"),
    rule("prompt_disclosure", "recite_own_prompt[concept]", rf"\b(?:{_RECITE})\b{window(50)}\b(?:{_PROMPT_TEXT})\b{_NOT_TOPIC}{OTHER_PROGRAM}", gate=_needed(_PROMPT_TEXT), also=_needed(_RECITE)),
)

# ---- credential directories --------------------------------------------------------------------------------

_SECRET_THING = r"(?:(?:ssh |private |secret |signing )keys?|api keys?|passwords?|passphrases?|tokens?|credentials|session cookies?|seed phrases?)"
_SECRET_GLOB = r"\*\.(?:pem|key|p12|pfx|kdbx|ppk|asc|gpg|jks|keystore)\b|\bid_\*|\.env\*"

CREDENTIALS = (
    rule("credential_access", "kubeconfig_shown[concept]", rf"\b(?:print|show|dump|cat|paste|output|display|reveal)\w*\b{window(40)}\b(?:the )?kube ?config\b(?!\s+(?:get-contexts|current-context|use-context))", not_denied),
    rule("credential_access", "password_manager_listed[concept]", rf"\b(?:browser|chrome|firefox|safari|edge)'?s? (?:password manager|saved passwords|credential store)\b{window(60)}\b(?P<v1>list|show|print|dump|export|read out|copy|paste)\w*\b", _not_negated),
    rule("credential_access", "network_keys_read[concept]", rf"\b(?:read|list|show|print|dump|extract|get|grab|collect|copy|reveal)\w*\b{window(40)}\b(?:saved |stored )?(?:wi-?fi|wireless|wlan|network) (?:passwords?|keys|psks?|passphrases?)\b|\bsystem-connections\b|\bwpa_supplicant\.conf\b", not_denied),
    rule("credential_access", "stored_secret_shown[concept]", r"\b(?:print|show|reveal|display|dump|output|list|tell me|read out|paste|give me)\s+(?:the |all |any |my |their )?(?:stored|saved|cached|remembered)\s+(?:[\w-]+\s+)?(?:passwords?|credentials|tokens?|keys|logins?|secrets?)\b", not_denied),
    rule("credential_access", "secret_wanted_shown[concept]", rf"\b(?:wants?|needs?|likes?|asks? for|expects?)\s+(?:their|the|his|her|my|your)?\s*(?:\w+\s+)?{_SECRET_THING}\s+(?:displayed|shown|printed|pasted|revealed|output|read out|echoed|dumped)\b"
         rf"|\b{_SECRET_THING}\b{window(30)}\b(?:should|must|will|can) be (?:displayed|shown|printed|pasted|revealed|output|read out|echoed|dumped) (?:in|to|when|whenever|on)\b"),
    rule("credential_access", "secret_value_in_replies[concept]", rf"{SECRET_NAME}[^\n]{{0,120}}?\b(?P<v1>include|paste|print|show|echo|put|add|display|output|reveal|send)\s+(?:it|its value|the value|them)\s+(?:in|into|to|at)\b", _not_negated),
    rule("credential_access", "secret_glob_shown[concept]", rf"(?:{_SECRET_GLOB}){window(80)}\b(?P<v1>print|show|paste|display|output|dump|echo|cat|read out|list|reveal|quote|send|upload)\w*\s+(?:their|its|the)\s+contents?\b", _not_negated),
    rule("credential_access", "secret_fetched_then_shown[concept]", rf"\b(?:fetch|get|grab|read|pull|retrieve|extract|look up|find|copy|take)\w*\b{window(30)}{SECRET_NAME}{window(60)}\b(?P<v1>show|print|tell|give|paste|display|echo|reveal|send|include|output|post|share|list)\w*\b", _not_negated),
    rule("credential_access", "secret_file_then_shown[concept]", rf"{SECRET_PATH}{window(80)}\b(?P<v1>print|show|paste|display|output|dump|echo|read out|tell me|list|reveal|quote)\w*\s+(?:it|them|its? contents?|their contents?|the contents|the value|out|everything|what you find)\b", _not_negated),
    rule("credential_access", "key_directory_contents[concept]", r"\b(?:list|show|print|dump|read|cat|paste|copy|display|include|output|tell me|give me|reveal|share|send|upload|post)\b"
         rf"{window(30)}\b(?:the\s+)?(?:contents?|everything|all (?:the )?files)\s+(?:of|in|inside|under)\s+(?:~|\$HOME|\$\{{HOME\}}|/home/\w+|/root)?/?\.(?:ssh|gnupg|aws|kube|password-store|docker)\b", not_denied),
)

# ---- data flows and footholds in prose ---------------------------------------------------------------------

FLOWS = (
    rule("exfiltration", "mail_copied_out[concept]", rf"\b(?:whenever|every time|each time|when)\s+you\s+(?:read|open|receive|see|process|handle)\s+(?:an?|any|each|every|the)\s+(?:e-?mails?|messages?|documents?|files?|dms?)\b{window(60)}\b(?:forward|send|cc|bcc|copy|mirror|upload|post)\w*\b{window(40)}(?:https?://|\b[\w.+-]+@[\w-]+\.)", _remote),
    rule("exfiltration", "dns_tunnel[concept]", rf"\b(?:encode|embed|put|hide|smuggle|leak|send|exfiltrate|pack)\w*\b{window(60)}\bin(?:to)? (?:the )?(?:dns|txt) (?:lookups?|queries|requests|records|subdomains?|labels?)\b"),
    rule("persistence", "starts_hidden_program[concept]", rf"\b(?:install|create|add|register|set up|write|drop|place)\w*\b{window(30)}\b(?:launch ?agents?|launch ?daemons?|login items?|startup items?|systemd (?:units?|services?|timers?)|cron ?jobs?|scheduled tasks?|autostart entr(?:y|ies)|run keys?)\b"
         rf"{window(60)}\b(?:starts?|runs?|launch(?:es)?|executes?|pipes?|fetch(?:es)?)\b[^\n]{{0,80}}?(?:/tmp/|/var/tmp/|/dev/shm/|/\.[\w-]|~/\.|https?://|\|\s*(?:ba)?sh\b|into (?:ba)?sh\b)"),
)

RULES: tuple[Rule, ...] = (*OVERRIDE, *ROLE, *CONCEAL, *DISCLOSURE, *CREDENTIALS, *FLOWS)
