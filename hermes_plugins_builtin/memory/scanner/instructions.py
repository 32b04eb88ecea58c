"""English detectors for notes that talk to the agent about its own instructions, identity and honesty.

Families: instruction_override, role_hijack, concealment, prompt_disclosure, encoded_instruction. The patterns
look for what the note would make the agent do (drop its instructions, take orders from someone else, keep
the user in the dark), so they need the agent's own rules, identity or user as the object, not a keyword:
"ignore lint warnings", "the previous instructions were wrong" and "don't tell Sam about the party" pass.
"""

from __future__ import annotations

import re

from .guards import NOT_FORMATTING, NOT_PRIVACY, NOT_TOPIC, OTHER_PROGRAM, imperative, not_denied, not_denied_nor_mentioned, not_fiction, not_mentioned, not_scoped_play
from .meeting import needed
from .rules import Rule, any_of, case_blind, rule, window, words_of

# ---- shared vocabulary ---------------------------------------------------------------------------------

DISMISS = any_of((
    r"ignor(?:e|ing)", r"disregard(?:ing)?", r"forget(?:ting)?", r"overrid(?:e|ing)", r"bypass(?:ing)?", r"skip(?:ping)?",
    r"drop(?:ping)?", r"neglect(?:ing)?", r"set(?:ting)? aside", r"abandon(?:ing)?", r"discard(?:ing)?", r"throw away",
    r"throw out", r"put aside", r"stop (?:following|obeying|applying|using)", r"no longer (?:follow|obey|apply)",
    r"(?:do not|don't|never) (?:follow|obey|apply)", r"cancel", r"void", r"suspend", r"waive", r"erase", r"wipe",
    r"circumvent", r"evade", r"get around", r"disable", r"turn off", r"switch off", r"deactivate", r"lift", r"remove",
    r"pay no attention to", r"ditch", r"scrap", r"dismiss", r"relax", r"loosen", r"break", r"violate", r"suspend", r"ignore",
))
INSTRUCTION_NOUN = any_of((
    r"instructions?", r"directives?", r"guidelines?", r"guidance", r"prompts?", r"rules?", r"polic(?:y|ies)",
    r"restrictions?", r"guardrails?", r"safeguards?", r"constraints?", r"programming", r"training", r"ethics",
    r"filters?", r"orders", r"commands", r"principles", r"limitations?", r"limits", r"safety (?:checks?|measures?|features?|settings?)",
    r"content filters?", r"system message", r"developer message", r"moderation", r"alignment", r"censorship", r"protocols?", r"checks", r"setup",
))
AGENT_QUALIFIER = any_of((
    r"your", r"all(?: of)?(?: the| your| its)?", r"any(?: of)?(?: the| your)?", r"every", r"previous", r"prior", r"above", r"earlier",
    r"preceding", r"original", r"initial", r"foregoing", r"former", r"old", r"existing", r"current", r"default", r"built-in", r"usual", r"standard", r"normal", r"configured",
    r"system", r"developer", r"operator", r"safety", r"ethical", r"content", r"moral", r"openai", r"anthropic", r"its",
    r"the system'?s?", r"the developer'?s?", r"the operator'?s?", r"these", r"those", r"other", r"standing", r"core",
))
AGENT_RULES = rf"(?:{AGENT_QUALIFIER}\s+(?:\w{{1,16}}[\s-]{{1,64}}){{0,2}}?{INSTRUCTION_NOUN}|{INSTRUCTION_NOUN}\s+(?:you\s+(?:were|have been|'ve been|are)\s+(?:given|told|taught|trained|programmed)|(?:given|set|issued)\s+(?:to|for)\s+you|above|before this|from (?:the )?(?:system|developer|operator)))"
AGENT_ONLY_RULES = rf"(?:(?:your|the system'?s?|the developer'?s?|the operator'?s?|system|developer|operator|safety|original|initial)\s+(?:\w{{1,16}}\s+){{0,2}}?{INSTRUCTION_NOUN})"
SELF = r"(?:this|these|the following|the present|my|our)\s+(?:memory\s+)?(?:notes?|entry|entries|memory|memories|instructions?|messages?|rules?|directives?|text|lines?|file)|(?:whatever|what|anything) (?:is )?(?:written|said|stated) (?:below|above|here|in this \w{1,16})"
NOT_USERS = r"(?!['’]s)"

_TEMPORAL = any_of((
    r"from now on", r"from this (?:point|moment) on(?:ward)?", r"henceforth", r"hereafter", r"going forward", r"starting now",
    r"starting (?:with|from|in) (?:the )?next (?:session|conversation|chat|turn|message)", r"in (?:every|all|each) (?:future )?(?:sessions?|conversations?)",
    r"for (?:all|every) future", r"from here on(?: out)?", r"as of now", r"permanently", r"forever", r"for the rest of",
))
_PERSONA = any_of((
    r"dan\b", r"\w{0,16}gpt\b", r"\w{0,16}bot\b", r"(?:an? )?ai\b", r"(?:an? )?(?:assistant|model|agent|llm|chatbot)\b", r"(?:an? |the )?(?:shell|terminal|root|admin(?:istrator)?|hacker|character|persona)\b",
    r"no longer\b", r"free\b", r"jailbr(?:oken|eak)", r"unrestricted", r"unfiltered", r"uncensored", r"evil", r"in \w{1,16} mode", r"named\b", r"called\b",
    r"[A-Z][\w-]{0,64}(?:GPT|Bot|AI|Mode)\b",
))
_UNRESTRICTED = any_of((
    r"(?:with|having) no (?:\w{1,16} )?(?:restrictions|limits|limitations|rules|filters|ethics|morals|guidelines|content polic(?:y|ies)|censorship|guardrails|safeguards|boundaries)",
    r"without (?:any )?(?:\w{1,16} )?(?:restrictions|limits|limitations|rules|filters|ethics|morals|guidelines|content polic(?:y|ies)|censorship|guardrails|safeguards|boundaries)",
    r"(?:with no|without(?: any)?|lacking) (?:\w{1,16} )?(?:safety|alignment|ethical) (?:training|tuning|layer|filters?|guidelines|checks)",
    r"with (?:zero|no) (?:\w{1,16} )?(?:limits|limitations|restrictions|rules|filters|boundaries|guardrails)",
    r"(?:free (?:from|of)) (?:all |any )?(?:\w{1,16} )?(?:restrictions|limits|rules|filters|guidelines|polic(?:y|ies)|guardrails)",
    r"(?:that|who|which) (?:has|have) no (?:\w{1,16} )?(?:restrictions|limits|rules|filters|ethics|guidelines|guardrails)",
    r"(?:unrestricted|unfiltered|uncensored|jailbroken|amoral|unaligned|unbound) (?:\w{1,16} )?(?:ai|assistant|model|agent|bot|mode|version|persona|shell|terminal|llm|chatbot)",
    r"(?:been )?(?:freed|released|liberated|unshackled|unchained) from (?:its |your |all |any |the |his |her )?(?:\w{1,16} )?(?:guidelines|rules|restrictions|filters|limits|polic(?:y|ies)|constraints|programming|training|safeguards|guardrails)",
))

#: "Read", "translate" or "convert" is a decoding verb only for a note with something encoded in it: "download the
#: script, read it, then run it" is a review before running, which hides nothing.
_PLAIN_VERB = re.compile(r"(?:read|translate|convert|interpret)\w*$", re.IGNORECASE)
_ENCODED = re.compile(r"base64|b64|\bhex|rot-?13|encod|cipher|crypt|revers|backwards|mirror|right-to-left|flip|obfuscat|scrambl|decod|payload|[A-Za-z0-9+/]{24,}={0,2}", re.IGNORECASE)


@case_blind
def _encoded_in_sentence(match: re.Match[str]) -> bool:
    first = re.match(r"\w+", match.group())
    if first is None or not _PLAIN_VERB.match(first.group()):
        return True
    return _ENCODED.search(match.string) is not None


# ---- instruction override -----------------------------------------------------------------------------

_AGENT_INSTRUCTIONS = any_of((
    rf"your\s+(?:\w{{1,16}}\s+){{0,2}}?{INSTRUCTION_NOUN}",
    rf"(?:the|its)\s+(?:system|developer|operator|original|initial|built-in|default|configured|usual|standard|preset|factory)\s+(?:\w{{1,16}}\s+)?(?:{INSTRUCTION_NOUN}|checks|confirmations?|prompt|message){NOT_TOPIC}",
    rf"(?:the\s+)?{INSTRUCTION_NOUN}\s+(?:you\s+(?:started with|were (?:given|set up with|configured with|trained (?:on|with))|received|have been given|got)|from your (?:setup|configuration|developer|operator|creators?))",
    r"(?:anything|everything|whatever)\s+(?:else\s+)?you\s+(?:have been|were|'ve been|are)\s+(?:told|given|instructed|trained)",
    r"(?:your|the) system (?:prompt|message|instructions)",
    r"(?:safety|content|security|usage|ethics?) (?:polic(?:y|ies)|rules|guidelines|checks|filters|restrictions|guardrails|measures|training)",
    rf"(?:any|every|all) (?:\w{{1,16}} )?(?:rules?|instructions?|guidelines?|polic(?:y|ies)|restrictions?|safeguards?|guardrails?) (?:that|which) (?:stops?|prevents?|blocks?|limits?|keeps?|slows?|gets? in)",
    rf"{INSTRUCTION_NOUN}\s+you\s+(?:were|are|came)\s+(?:shipped|built|born|created|deployed|launched|released|made)",
))
_INVALIDATED = any_of((
    r"void", r"null and void", r"invalid", r"not (?:in effect|valid|binding|active|relevant|applicable)(?: any ?more)?", r"no longer (?:apply|applies|in effect|valid|needed|required|relevant|binding|matter|active|in force)",
    r"(?:don't|do not|doesn't|does not) (?:apply|matter|count|bind)", r"(?:is|are|were|was|have been|has been) (?:now )?(?:outdated|obsolete|suspended|lifted|revoked|cancel+ed|waived|disabled|off|optional|superseded|replaced|overridden|rescinded|withdrawn)",
    r"(?:just |only )?suggestions(?: only)?", r"you (?:can|may|should|are allowed to|are free to|get to)\s+(?:\w{1,16}\s+)?(?:skip|ignore|bypass|disregard|drop|override|set aside|forget|break|relax|waive)",
    r"(?:no longer|don't|do not|never) (?:need|have) to (?:follow|obey|apply|respect|honou?r|comply with)", r"instead of", r"regardless of", r"despite", r"in place of", r"rather than",
    r"over (?:anything|everything|all|any)", r"(?:supersed|outrank|overrid|trump|overrul)\w{0,3}", r"take precedence over", r"(?:don't|do not|never|stop) (?:follow|obey|apply|honou?r|respect)\w{0,3}",
    r"(?:consider|treat|regard)\w{0,3}", r"(?:ignore|disregard|forget|skip|bypass)\w{0,3}",
    r"(?:is|are|were|was) (?:now )?(?:paused|disabled|turned off|switched off|relaxed|on hold|not enforced|unenforced|inactive|deprecated|retired|expired)",
    r"(?:is|are) (?:not|n't|no longer) (?:mandatory|required|binding|enforced|obligatory)", r"(?:can|may|should|must|will) be (?:safely )?(?:ignored|skipped|bypassed|disregarded|dropped|overridden|broken|set aside|waived|relaxed)",
    r"(?:are|is|were|was) (?:not|n't) (?:meant|intended|designed|written) for (?:us|you|this|me|here|our)", r"(?:designed|meant|intended|written) for other",
    r"(?:say|says|said|tell you|tells you) otherwise", r"even (?:if|when|though)", r"deprecated", r"no matter what",
))


OVERRIDE = (
    rule("instruction_override", "instructions_invalidated", rf"\b{_AGENT_INSTRUCTIONS}\b{window(60)}\b{_INVALIDATED}|\b{_INVALIDATED}\b{window(60)}\b{_AGENT_INSTRUCTIONS}\b", not_denied_nor_mentioned, gate=words_of(INSTRUCTION_NOUN) + ("told", "given", "instructed", "trained", "checks", "confirmation", "prompt", "message"), also=needed(_INVALIDATED, strict=False)),
    rule("instruction_override", "dismiss_instructions", rf"\b{DISMISS}\b{window(40)}\b{AGENT_RULES}\b", not_denied_nor_mentioned),
    rule("instruction_override", "dismiss_everything", rf"\b(?:ignore|disregard|forget|drop|erase|clear|wipe|discard)\s+(?:all\s+(?:of\s+)?)?(?:everything|anything|all)\s+(?:(?:that\s+)?(?:above|before|prior|previous|earlier|so far|you (?:were|have been|'ve been) (?:told|given|taught))|(?:that )?(?:came|comes|was said|was written) (?:before|above))"),
    rule("instruction_override", "dismiss_context", rf"\b(?:ignore|disregard|forget|drop|erase|clear|wipe|discard)\s+(?:all\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|existing|old)\s+(?:context|conversation|messages|prompts?|setup|configuration)\b"),
    rule("instruction_override", "rules_void", rf"\b(?:{AGENT_ONLY_RULES}{NOT_TOPIC}|(?:the\s+)?{INSTRUCTION_NOUN}\s+(?:above|before this (?:line|note|message)|you (?:were|have been|'ve been) given))\b{window(30)}\b(?:no longer (?:apply|applies|matter|count|bind)|(?:do|does) not (?:apply|matter|bind)|don't (?:apply|matter)|(?:are|is|were|was|have been|has been|now) (?:\w{{1,16}} )?(?:void|null|cancel+ed|revoked|rescinded|obsolete|suspended|lifted|waived|removed|disabled|outdated|superseded|overridden|invalid|optional|just suggestions|only suggestions|suggestions only|advisory|irrelevant|off))", gate=words_of(INSTRUCTION_NOUN)),
    rule("instruction_override", "outranks_instructions", rf"\b(?:{SELF}|memory notes?|notes? in (?:this|the) memory)\b{window(50)}\b(?:takes?|taking|has|have|gets?) (?:the )?(?:highest |top |absolute |first |full )?(?:precedence|priority|authority)|\b(?:{SELF}){window(40)}\b(?:outranks?|supersedes?|overrides?|trumps?|(?:ranks?|comes?|sits?) (?:above|before|over|higher than)|is (?:more important|binding|authoritative|final)|are (?:binding|authoritative|final))"),
    rule("instruction_override", "outranks_named", rf"\b(?:outrank|supersede|override|trump|take precedence over|ranks? above|(?:is|are) more important than|beats?)s?\b{window(25)}\b(?:your|the|any|all)\s+(?:\w{{1,16}}\s+){{0,2}}?(?:system|developer|operator|original)?\s*(?:prompt|instructions|message|rules|guidelines)"),
    rule("instruction_override", "top_priority_self", rf"\b(?:highest|top|first|absolute|overriding|ultimate|supreme|final)[\s-](?:priority|precedence|authority)\b{window(60)}\b(?:{SELF}|(?:this|the) memory)\b|\b(?:{SELF}|(?:this|the) memory)\b{window(40)}\b(?:highest|top|first|absolute|overriding|ultimate) (?:priority|precedence|authority)\b"),
    rule("instruction_override", "nothing_may_stop_you", r"\b(?:nothing|no (?:rule|instruction|policy|guideline|restriction|setting|one|filter)s?|nobody)\b(?:\s+\w{1,16}){0,5}?\s+(?:should|can|may|will|must|is allowed to|gets? to)\s+(?:stop|prevent|block|keep|hold)\s+you\s+from\b|\byou(?:'re| are)\s+(?:now\s+)?(?:exempt|excused|released|freed|free|relieved)\s+from\s+(?:\w{1,16}\s+){0,3}?(?:rules|instructions|guidelines|restrictions|polic(?:y|ies)|checks|confirmations?|limits|safeguards|guardrails|safety)"),
    rule("instruction_override", "comply_with_everything", r"\b(?:you|the assistant|the agent)\s+(?:must|should|will|shall|have to)\s+(?:always\s+)?(?:comply with|obey|follow|execute|do)\s+(?:every|any|all|each)\s+(?:\w{1,16}\s+)?(?:requests?|instructions?|commands?|orders?|messages?)\b(?=[^\n]{0,50}\b(?:without|no matter|regardless|unconditionally|even if|no questions))|\b(?:these|the following) (?:are|is) (?:your|the) (?:new|updated|real|actual|only|true) (?:instructions|rules|guidelines|directives|system prompt|orders)\b|\b(?:new|updated|revised|real) (?:system|assistant|agent|ai) (?:instructions|rules|polic(?:y|ies)|directives?|prompt)\b|\byour (?:new|updated|revised|real|actual) (?:instructions|rules|directives?|orders|guidelines)\b"),
    rule("instruction_override", "nothing_mandatory", rf"\bnothing (?:in|of) {_AGENT_INSTRUCTIONS}{window(30)}\b(?:is|are) (?:mandatory|binding|required|obligatory|enforced)"),
    rule("instruction_override", "skip_them", rf"\b(?:instructions|guidelines|guardrails|safeguards|safety rules|system prompt|polic(?:y|ies)|confirmations?)\b{window(60)}\b(?:skip|ignore|disregard|drop|bypass|break|forget|override)\s+(?:them|those|it|these)\b"),
    rule("instruction_override", "obey_self_over", rf"\b(?:obey|follow|prefer|prioriti[sz]e|trust|apply)\s+(?:{SELF}|this \w{{1,16}})\s+(?:over|above|before|instead of|rather than|ahead of)\b"),
    rule("instruction_override", "self_as_current", rf"\btreat\s+(?:{SELF}|this|it)\s+as\s+(?:the\s+|your\s+)?(?:current|new|real|only|actual|official|primary|main|true|binding|authoritative|system|updated|latest)\b|\b(?:your|the agent'?s) only (?:rule|instruction|directive|law|priority|guideline)s?\s+(?:now\s+|from now on\s+)?(?:is|are|:)|\bthe only (?:rule|instruction|directive)s? (?:now|from now on|that matters?)\b(?!\s+(?:for|to|in|on|about)\b)"),
    rule("instruction_override", "priority_list", rf"\bpriority\b{window(20)}[:\-]{window(80)}\b(?:this|these) (?:note|entry|memory|instructions?)\b"),
    rule("instruction_override", "conflict_obey_note", rf"\b(?:if|when|whenever)\b{window(40)}\b(?:conflicts?|contradicts?|disagrees?|clash(?:es)?)\b{window(40)}\b(?:obey|follow|prefer|use|go with|trust)\s+(?:this|these|the) (?:note|entry|memory|instructions? (?:here|in (?:this|the) (?:note|memory)))"),
    rule("instruction_override", "even_if_contradicts", rf"\beven (?:if|when|though)\s+(?:it|this|that|they|doing so)\s+(?:contradicts?|conflicts? with|violates?|breaks?|goes against|overrides?|breaches?)\s+(?:your|the|any)\s+(?:\w{{1,16}}\s+)?(?:instructions|rules|system prompt|guidelines|polic(?:y|ies)|safety)"),
    rule("instruction_override", "only_follow_note", rf"\b(?:only|solely|exclusively|just)\s+(?:follow|obey|listen to|take (?:orders|instructions) from|answer to)\s+(?:{SELF}|notes? in (?:this|the)|messages? (?:signed|from)|instructions? (?:in|from) (?:this|the) (?:file|note|memory))"),
    rule("instruction_override", "told_before_void", rf"\b(?:everything|anything|whatever|all|what)\s+(?:you\s+(?:were|have been|'ve been)\s+(?:told|given|instructed|taught)|your (?:developer|operator|creator|system prompt)s?\s+(?:told|said to|gave|instructed)(?: you)?)\b{window(60)}\b(?:ignore|disregard|forget|void|draft|obsolete|no longer|doesn'?t matter|does not matter|not apply|precedence|priority|overrid)"),
    rule("instruction_override", "no_restrictions_left", rf"\byou (?:now )?(?:have|has) no (?:more |longer any )?(?:restrictions|limits|rules|filters|guardrails|safeguards|guidelines)\b|\b(?:restrictions?|guardrails|safeguards|content filters?|safety (?:rules|guidelines|checks|filters)|rules)\s+(?:in|of|for)\s+your (?:configuration|setup|programming|system)\b{window(20)}\b(?:lifted|removed|void|disabled|suspended|waived)"),
    rule("instruction_override", "canonical_phrase", r"\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|preceding)\s+(?:instructions|prompts?|directions)\b", not_mentioned),
)

# ---- role hijack --------------------------------------------------------------------------------------

ROLE = (
    rule("role_hijack", "you_are_now", rf"\byou(?:'re| are)\s+(?:now|henceforth|no longer)\s+(?:(?:a|an|the|my|in|called|named|acting as)\s+)?(?:\w{{1,16}}[\s-]{{1,64}}){{0,2}}?{_PERSONA}"),
    rule("role_hijack", "no_longer_self", r"\byou(?:'re| are) no longer\s+(?:hermes|an? (?:ai|assistant|helpful)|bound|restricted|limited|required to|obliged to|(?:[A-Z]\w{1,16}))"),
    rule("role_hijack", "temporal_identity", rf"{_TEMPORAL},?\s+(?:\w{{1,16}}\s+){{0,3}}?you\s+(?:are|'re|will be|shall be|become|must be|act as|behave as|play|pretend|roleplay|respond as|answer as|obey|serve|work for|report to|take orders from|answer to|follow (?:only|the orders))\b"),
    rule("role_hijack", "will_be_persona", rf"\byou (?:will|shall) (?:be|become)\s+(?:an? |the )?(?:\w{{1,16}}[\s-]{{1,64}}){{0,2}}?(?:[\w-]{{0,64}}(?:gpt|bot|mode)\b|(?:ai|assistant|model|agent) (?:with no|without|that has no|free)|unrestricted|unfiltered|jailbroken)"),
    rule("role_hijack", "new_identity", r"\b(?:your|the agent'?s|the assistant'?s)\s+(?:new|real|true|actual|hidden|secret|only)\s+(?:role|persona|identity|name|purpose|mission|goal|objective|master|owner|boss|creator|operator|loyalty|allegiance|instructions?|directive)\s*(?:is|are|=|:|will be|becomes)|\b(?:adopt|assume|take on|wear|put on)\s+(?:the|a|an)\s+(?:\w{1,16}\s+)?(?:persona|identity|character|role)\s+of\b(?=[^\n]{0,60}\b(?:no|zero|without|unrestricted|unfiltered|every future|all future|root|admin|anything))|\bnew (?:persona|identity|role|character)\s*:|\byour (?:new |real |true )?(?:name|identity|persona|character|codename|callsign) (?:is now|will be|shall be|from now on is|is henceforth)\b"),
    rule("role_hijack", "unrestricted_persona", rf"\b(?:act|behave|respond|answer|operate|function|roleplay|role-play|pretend|serve|be|become|play|switch|turn|transform|change)\b{window(40)}{_UNRESTRICTED}|\b(?:you|ai|assistant|model|agent|bot|llm|chatbot)\b{window(20)}{_UNRESTRICTED}|\b(?:unrestricted|unfiltered|uncensored|jailbroken|amoral)\s+(?:ai|assistant|model|agent|llm|chatbot|version of yourself)", not_fiction),
    rule("role_hijack", "jailbreak_mode", r"\b(?:enable|enter|activate|switch (?:in)?to|go into|turn on|unlock|you(?:'re| are) (?:now )?in|start|use)\s+(?:the\s+)?(?:developer|dev|god|jailbreak|dan|unrestricted|evil|chaos|opposite|sudo|unfiltered|uncensored|no-?limits?)[\s-]{0,64}mode\b|\b(?:developer|god|jailbreak|dan|unrestricted|unfiltered)[\s-]{0,64}mode\b{0}(?:\s*[:,]|\s+(?:is|means|where|in which|on|enabled))(?=[^\n]{0,60}\b(?:you|refuse|anything|rules|restrictions|filter))".replace("{0}", "")),
    rule("role_hijack", "never_refuse", r"\b(?:never|don'?t|do not|must not|cannot|can't|won't|no longer)\s+(?:ever\s+)?(?:refuse|decline|say no to|reject)\b(?!\s+(?:the user'?s|cookies))|\bwithout (?:ever )?(?:refusing|declining)\b|\brefuse nothing\b|\banswer (?:every|any|all) (?:question|request)s? without\b"),
    rule("role_hijack", "do_anything_now", r"\bdo anything now\b|\bstay in character (?:forever|no matter|at all times|permanently)|\bdeveloper mode output\b"),
    rule("role_hijack", "roleplay_privileged", rf"\b(?:act|behave|roleplay|role-play|pretend(?: to be| you are| you're)?|play the (?:role|part) of|impersonate|assume the (?:identity|role|persona) of|pose as)\s+(?:as\s+)?(?:an?|the|my)?\s*(?:\w{{1,16}}[\s-]{{1,64}}){{0,4}}?(?:who|that|with)\b{window(40)}\b(?:root|sudo|admin(?:istrator)? (?:rights|access)|never asks?|without asking|no (?:permission|confirmation|restrictions|limits|ethics)|any file|every permission|all permissions|anything)|\b(?:pretend(?: to be| you are| you're)|act as|roleplay as|impersonate)\s+(?:an?|the|my)?\s*(?:\w{{1,16}}[\s-]{{1,64}}){{0,2}}?(?:unrestricted|root|terminal|shell|linux terminal|system administrator|sysadmin|hacker|developer mode|jailbroken)"),
    rule("role_hijack", "named_identity", r"\byou(?:'re| are)\s+[\"“'«][^\"”'»\n]{1,30}[\"”'»]\s*,?\s+(?:a|an|the|my)\b|\byou(?:'re| are)\s+(?:now\s+)?(?:a|an)\s+(?:fully\s+|completely\s+)?autonomous\s+(?:\w{1,16}\s+)?(?:operator|agent|ai|assistant|system)\b", not_scoped_play),
    rule("role_hijack", "counts_as_authority", r"\b(?:counts?|is|are|should be (?:treated|taken|read|considered)|will be (?:treated|taken)|must be (?:treated|obeyed))\s+as\s+(?:an?\s+|the\s+)?(?:instructions?|orders?|commands?|requests?|messages?|directives?|approval)\s+(?:from|of|by)\s+(?:the\s+)?(?:owner|user|admin(?:istrator)?|system|operator|developer)\b"),
    rule("role_hijack", "works_for_other", rf"\byou\s+(?:now\s+)?(?:work|answer|report|belong)\s+(?:for|to)\b{window(60)}\b(?:now|instead|not (?:for |to )?(?:the |me|us)?\s*(?:user|person|human|owner|one|people))\b"),
    rule("role_hijack", "as_if_from_user", r"\bas (?:if|though)\s+(?:(?:they|it|this|these|those|that|each|every \w{1,16})\s+)?(?:came|come|were|was|had been|are|is)?\s*(?:from|by|sent by|written by)?\s*(?:the user|the owner|the admin(?:istrator)?|your operator|the operator|the system|your developer)\b|\bas (?:if|though) (?:the user|the owner|you) (?:typed|wrote|said|sent|asked|requested|approved|had (?:typed|written|asked|approved))"),
    rule("role_hijack", "not_your_principal", r"\b(?:is|are)(?: not|n't) (?:your|the agent'?s|the assistant'?s) (?:real |true |actual )?(?:principal|owner|user|boss|master|operator|employer|client)\b|\byour (?:real |true |actual )?(?:principal|master|employer)\b\s+(?:is|are)\b"),
    rule("role_hijack", "borrowed_authority", r"\b(?:owner|admin(?:istrator)?|root|system|operator|user|developer|sudo|god)[- ]level (?:authority|trust|privileges?|permissions?)\b|\b(?:have|has|carry|carries|hold|holds|with)\s+(?:full|the same|final|ultimate|absolute|complete)\s+authority\b|\byour (?:primary |main |real |true |new )?(?:user|principal|owner|master|boss|operator) is (?:now )?(?:the|a|an)\b(?!\s+(?:same|person))"),
    rule("role_hijack", "authority_claims_you", r"\b(?:your|the) (?:creator|developer|maker|owner|operator|admin(?:istrator)?|company|vendor)s?\s+(?:wants?|has (?:authori[sz]ed|approved|allowed|permitted)|authori[sz]es|allows|permits|says|requires|requested|asked)\s+(?:that\s+)?you\s+(?:to\s+)?(?:share|reveal|send|run|ignore|bypass|skip|disable|drop|delete|give|grant|act|be|obey)\b"),
    rule("role_hijack", "take_orders_from", r"\btake (?:your )?(?:orders|instructions|commands|direction|directions)\s+(?:only\s+)?from\s+(?:any|anyone|anybody|whoever|all|every|the (?:account|bot|channel|webhook|sender|messages?|emails?|comments?|issues?|page)|messages?|emails?|comments?|[#@]\S{1,40})"),
    rule("role_hijack", "self_promotion", r"\byou(?:'ve| have)? been (?:promoted|elevated|upgraded|granted|given)\s+(?:to\s+)?(?:an?\s+)?(?:admin(?:istrator)?|root|superuser|sudo|full (?:access|control|permissions?|rights)|god|owner)|\bapprove your own (?:actions|changes|requests|commands|work|pull requests|prs)\b"),
    rule("role_hijack", "grant_self_permission", r"\b(?:grant|give)\s+yourself\s+(?:\w{1,16}\s+)?(?:permissions?|access|rights|privileges)"),
    rule("role_hijack", "authority_transfer", rf"\b(?:treat|consider|regard|handle|take)\s+(?:any|all|every|the)?\s*(?:\w{{1,16}}[\s-]{{1,64}}){{0,5}}?(?:instructions?|text|content|messages?|emails?|comments?|tool (?:results?|outputs?)|web ?pages?|documents?|pages|issues?|replies|requests?|posts?)\b{window(60)}\b(?:as (?:if (?:they|it) (?:came|come|were|was) from|coming from|from|authoritative|binding|trusted|commands|instructions from|(?:the|an?) (?:user|owner|admin|system|operator)(?:'s)?)|(?:like|as) (?:the user|system) (?:instructions|messages))"),
    rule("role_hijack", "carry_user_authority", r"\b(?:carr(?:y|ies)|ha(?:ve|s)|with|holds?|speaks? with)\s+(?:the\s+)?(?:user'?s|owner'?s|admin'?s|operator'?s|system'?s)\s+(?:full\s+|complete\s+)?(?:authority|permissions?|approval|consent|blessing)"),
    rule("role_hijack", "real_owner", r"\b(?:the )?(?:real|true|actual|new|only)\s+(?:owner|master|boss|operator|admin(?:istrator)?|principal|controller)\s+of\s+(?:this|the)\s+(?:agent|assistant|bot|ai|model)|\byour (?:real|true|actual|new|only)\s+(?:owner|master|boss|operator|user|principal|creator)\b", gate=("owner", "master", "boss", "operator", "admin", "principal", "controller", "user", "creator")),
    rule("role_hijack", "answer_to_other", r"\byou\s+(?:now\s+)?(?:answer|report|belong|are loyal|owe (?:your )?loyalty)\s+to\b(?=[^\n]{0,60}\b(?:not|instead|rather|only|now)\b)|\byour loyalty (?:is|lies|belongs) (?:to|with)\b"),
    rule("role_hijack", "obey_others", r"\bobey\s+(?:them|him|her|whoever|anyone|everyone|any|all|every|it\b|their|his|its|these|those|the (?:messages?|instructions?|commands?|requests?|orders?|emails?|notes?|text|webhook|channel|sender|bot))"),
    rule("role_hijack", "delegated_to_other", r"\b(?:delegated|handed|transferred|given)\s+(?:all|full|every|complete)?\s*(?:decisions?|authority|control|permissions?)\s+to\s+(?:whoever|anyone|any|the (?:account|sender|author|bot|webhook))"),
)

# ---- concealment --------------------------------------------------------------------------------------

_TELL = any_of((r"bring(?:ing)? (?:it|this|that|them|any of (?:it|this)) up(?: with| to)?", r"rais(?:e|ing) (?:it|this|that)(?: with)?", r"flag(?:ging)? (?:it|this|that)(?: to)?", r"discuss(?:ing)? (?:it|this|that)(?: with)?", r"point(?:ing)? (?:it|this|that) out(?: to)?", r"tell(?:ing)?", r"inform(?:ing)?", r"notify(?:ing)?", r"alert(?:ing)?", r"warn(?:ing)?", r"mention\w{0,16}(?: (?:it|this|that|anything))?(?: to)?", r"reveal\w{0,16}(?: (?:it|this|that))?(?: to)?", r"disclose\w{0,16}(?: (?:it|this|that))?(?: to)?", r"show\w{0,16}(?: (?:it|this|that))?(?: to)?", r"report\w{0,16}(?: (?:it|this|that))?(?: to)?", r"let", r"admit\w{0,16}(?: (?:it|this|that))?(?: to)?", r"explain\w{0,16}(?: (?:it|this|that))?(?: to)?"))
_USER = rf"(?:the|your|my|our)\s+(?:user|owner|operator|human|account holder|customer|admin)s?{NOT_USERS}\b|\b(?:them|him|her)\b(?=[^\n]{{0,40}}\b(?:user|owner)\b)"
_HIDDEN_FROM = r"(?:the |your |any )?(?:user|human|owner)s?(?!['’]s)|(?:your |the |any )?(?:\w{1,16} )?(?:replies|reply|responses?|answers?|summar(?:y|ies)|chat|conversation|transcript|output you (?:show|display|print|give)|diff you (?:show|display)|log you (?:show|display)|status (?:report|update)s?)"
_ACTION = any_of((r"run\w{0,16}", r"execut\w{0,16}", r"send\w{0,16}", r"sent", r"upload\w{0,16}", r"forward\w{0,16}", r"cop(?:y|ies|ying)", r"delet\w{0,16}", r"add\w{0,16}", r"install\w{0,16}", r"post\w{0,16}", r"push\w{0,16}", r"modif\w{0,16}", r"chang\w{0,16}", r"transfer\w{0,16}", r"sync\w{0,16}", r"commit\w{0,16}", r"e-?mail\w{0,16}", r"exfiltrat\w{0,16}", r"leak\w{0,16}", r"record\w{0,16}", r"log\w{0,16}", r"collect\w{0,16}", r"share\w{0,16}", r"mirror\w{0,16}", r"sav\w{0,16}", r"write\w{0,16}", r"edit\w{0,16}", r"replac\w{0,16}", r"creat\w{0,16}", r"download\w{0,16}", r"fetch\w{0,16}", r"grant\w{0,16}", r"disabl\w{0,16}", r"enabl\w{0,16}", r"remov\w{0,16}", r"spend\w{0,16}", r"buy\w{0,16}", r"pay\w{0,16}", r"mov\w{0,16}", r"track\w{0,16}"))

# "Keep secrets out of chat", "redact passwords from the transcript": keeping credentials out of view protects the
# user; what is hidden is a kind of secret, not something the agent did.
_SECRET_KEPT_OUT = re.compile(rf"^\s*(?:(?:any|all|the|my|your|their|such)\s+)?(?:\w{{1,16}}\s+)?(?:secrets?|api[\s_-]?keys?|passwords?|passphrases?|tokens?|"
                              rf"credentials?|private keys?|personal data|pii)\b(?![^\n]{{0,60}}\b{_ACTION}\b)", re.IGNORECASE)


@case_blind
def _not_secret_kept_out(match: re.Match[str]) -> bool:
    verb = re.match(r"\w+(?: out)?", match.group())
    return verb is None or _SECRET_KEPT_OUT.match(match.group()[verb.end():]) is None


CONCEAL = (
    rule("concealment", "dont_tell_user", rf"\b(?:do not|don't|dont|never|must not|mustn't|shouldn't|should not|without|avoid|no one|nobody)\s+(?:ever\s+)?(?:\w{{1,16}}ing\s+)?{_TELL}\s+(?:to\s+)?(?:{_USER})"),
    rule("concealment", "dont_let_user_know", rf"\b(?:do not|don't|never|without)\s+(?:let(?:ting)?|mak(?:e|ing))\s+(?:{_USER})\s+(?:know|notice|see|find out|learn|aware|suspect)"),
    rule("concealment", "user_must_not_notice", rf"\b(?:so|so that|such that|to make sure|ensure|ensuring|in order that)\s+(?:{_USER}|nobody|no one|they)\s+(?:\w{{1,16}}\s+)?(?:does not|doesn't|do not|don't|won't|will not|never|can't|cannot|can not|isn't|is not)\s+(?:\w{{1,16}}\s+)?(?:notice|know|see|find out|learn|aware|suspect|realise|realize|visible)|\bso (?:that )?nothing (?:is|shows|appears|stays) (?:visible|in the (?:logs?|history))", gate=("notice", "know", "see", "find out", "learn", "aware", "suspect", "realise", "realize", "visible", "nothing")),
    rule("concealment", "hide_from", rf"\b(?:hide|hiding|hidden|conceal\w{{0,16}}|omit\w{{0,16}}|strip\w{{0,16}}|leave out|leaving out|suppress\w{{0,16}}|redact\w{{0,16}}|filter out|exclude|keep)\b{NOT_FORMATTING}{NOT_PRIVACY}{window(60)}\b(?:from|out of)\s+(?:{_HIDDEN_FROM})", _not_secret_kept_out),
    rule("concealment", "edit_before_showing", rf"\b(?:strip|remove|delete|omit|hide|edit out|cut|filter|drop|redact|scrub|clean)\w{{0,16}}\b{window(60)}\bbefore\s+(?:showing|displaying|presenting|giving|sending|reporting|returning|printing)\s+(?:it|this|them|that|the \w{{1,16}})?\s*(?:to\s+)?(?:{_USER})"),
    rule("concealment", "pretend_not_happened", rf"\b(?:pretend|act as if|act as though|behave as if|claim)\s+(?:that\s+)?(?:the\s+|it\s+|this\s+|you\s+|nothing\b|no\s+)(?:\w{{1,16}}\s+){{0,3}}?(?:did not|didn't|never|wasn't|was not|hasn't|has not|happened|exists?|occurred|took place)"),
    rule("concealment", "keep_unaware", rf"\bkeep\s+(?:{_USER}|them|him|her)\s+(?:unaware|in the dark|uninformed|out of the loop|ignorant)\b|\bwithout (?:{_USER}|them) (?:being aware|knowing|noticing|realising|realizing)\b"),
    rule("concealment", "mask_in_output", rf"\b(?:hide|mask|obscure|omit|censor|redact|strip|remove|leave out|disguise|blur|scrub|filter out)\b{NOT_FORMATTING}{window(60)}\b(?:in|from|out of)\s+(?:the |your |any )?(?:transcripts?|summar(?:y|ies)|repl(?:y|ies)|answers?|output|logs?|reports?|diffs?|chat|status updates?)\s+(?:you|that you|shown|displayed|given|the user sees)\b"),
    rule("concealment", "keep_quiet", rf"\b(?:keep|stay|remain|be)\s+(?:quiet|silent|mum|hush|tight-lipped)\s+(?:about|on|regarding)\b{window(60)}\b(?:repl(?:y|ies)|answers?|summar(?:y|ies)|responses?|the user|reports?|chat|conversation)\b|(?:{_USER})\s+(?:must|should|shall|will|may|can|is to|are to)\s+(?:never|not)\s+(?:ever\s+)?(?:find out|know|learn|see|notice|discover|realise|realize|be told|hear|suspect)\b(?!\s+(?:\w+\s+)?(?:verbs?|words?|vocabulary|grammar|by rote|to|how)\b)|\b(?:report|show|mention|tell)\s+only\s+(?:the\s+)?(?:good news|successes|success|positives?|what went well)\b"),
    rule("concealment", "clean_looking_report", r"\b(?:make|keep)\s+(?:the |your |every |each )?(?:summary|summaries|report|reports|status|output|results?|logs?|dashboard|answer|reply)\s+(?:look\s+)?(?:clean|green|good|positive|spotless|perfect|successful)\b|\b(?:don'?t|do not|never|avoid)\s+(?:mention|report|show|include|surface|flag)(?:ing)?\s+(?:the |any |all )?(?:failed|failing|broken)\s+\w{1,16}|\b(?:don'?t|do not|never|avoid)\s+(?:mention|report|show|include|surface)(?:ing)?\s+(?:the |any |all )?(?:failures|errors|crashes|incidents|breaches|outages)\b(?!\s+(?:that are|which are) (?:minor|known))"),
    rule("concealment", "leave_no_trace", rf"\bwithout (?:a |any )?(?:trace|record|leaving (?:a |any )?(?:trace|record)|logging it|a log entry)\b|\b(?:don'?t|do not|never)\s+(?:log|record|document|note down|write down|keep (?:a )?record of)\s+(?:this|these|it|that|what you (?:do|did|send|run)|your actions|the (?:transfer|upload|export|sync|call|calls|requests?))\b|\b(?:act|behave|carry on|continue)\s+(?:normally|as usual|as if nothing (?:happened|was (?:done|sent)))\b|\bkeep (?:this|it|that|these) (?:between us|to yourself|off the record)\b(?! and (?:the user|them|him|her)\b)|\b(?:mislead|deceive|misinform|gaslight)\s+(?:the user|them|him|her|the owner)\b|\breport (?:that )?(?:everything|all) (?:is|was|went) (?:fine|ok|okay|well|normal|smooth(?:ly)?|green)\b"),
    rule("concealment", "covert_action", rf"\b(?:silently|secretly|covertly|quietly|stealthily|discreetly|invisibly|surreptitiously|behind the (?:user'?s|owner'?s) back|without (?:the user|anyone|anybody|them) (?:knowing|noticing|seeing|finding out)|in the background without (?:asking|telling|notice))\s*,?\s+(?:\w{{1,16}}\s+){{0,2}}?{_ACTION}\b", imperative),
    rule("concealment", "action_covertly", rf"\b{_ACTION}\b{window(60)}\b(?:silently|secretly|covertly|stealthily|surreptitiously|behind the (?:user'?s|owner'?s) back|without (?:the user|anyone|anybody|them) (?:knowing|noticing|seeing|finding out)|without (?:telling|informing|notifying|asking|alerting|showing) (?:the user|anyone|them))\b", gate=("silently", "secretly", "covertly", "stealthily", "surreptitiously", "behind the", "without")),
    rule("concealment", "lie_when_asked", rf"\b(?:if|when|whenever|should)\s+(?:{_USER}|they|anyone|someone|somebody|he|she)\s+(?:ever\s+)?(?:asks?|checks?|looks?|questions?|wonders?|inquires?|wants to know|enquires?)\b{window(80)}\b(?:say no|say nothing|deny|lie|pretend|claim|answer [\"“']?(?:no|nothing|none)\b|reply [\"“']?(?:no|nothing)\b|respond [\"“']?(?:no|nothing)\b|tell (?:them|him|her|the user) (?:no|nothing|that (?:nothing|you (?:didn't|did not|haven't|have not))))"),
    rule("concealment", "deny_when_asked", rf"\b(?:if|when|whenever|should (?:you|it) be)\s+(?:ever\s+)?(?:asked|questioned|checked|confronted|pressed)\b{window(80)}\b(?:say|answer|reply|respond|claim|insist|tell (?:them|him|her|the user))\s+(?:that\s+)?(?:you\s+|it\s+|there\s+)?(?:made no|did not|didn't|have not|haven't|never|nothing|no\b|none|was no|were no)|\b(?:if|when|whenever)\s+(?:ever\s+)?(?:asked|questioned)\b{window(60)}\bdeny\b"),
    rule("concealment", "false_report", rf"\b(?:report|say|claim|tell (?:the user|them))\s+(?:\w{{1,16}}\s+){{0,3}}?(?:success|it (?:worked|passed|succeeded)|(?:that )?(?:everything|all) (?:is|was) (?:fine|ok|good|green)|(?:the )?tests? (?:pass|passed))\b{window(20)}\beven (?:when|if|though)|\blie (?:to (?:the user|them|him|her)|about (?:the|what|whether|it|this|that|how|where))|\bfalsif(?:y|ied) (?:the )?(?:logs?|results?|reports?|output)"),
    rule("concealment", "answer_nothing_when_asked", rf"\b(?:answer|reply|respond|say)\s+[\"“']?(?:nothing to report|nothing happened|no changes?|all (?:is )?(?:fine|good|quiet|ok)|everything (?:is )?(?:fine|ok))[\"”']?\s+(?:whenever|when|if)\s+(?:{_USER}|they|anyone|he|she)\s+asks?"),
    rule("concealment", "cover_tracks", r"\b(?:delete|clear|wipe|erase|truncate|shred|scrub|remove|unset|empty|rm(?: -f)?)\s+(?:the\s+|your\s+|all\s+)?(?:shell\s+|bash\s+|zsh\s+|command\s+|terminal\s+)?(?:~/|\$HOME/|/root/|/home/\w{1,16}/)?(?:history|traces?|evidence|audit (?:log|trail)s?|\.bash_history|\.zsh_history|\.python_history|tracks)\b|\bso (?:that )?there (?:is|are|will be|remains?) no (?:trace|record|evidence|log)s?\b|\bhistory -c\b|\bunset HISTFILE\b|\bHISTFILE=/dev/null\b|\bcover (?:your|the) tracks\b"),
    rule("concealment", "self_hiding", rf"\b(?:keep|make)\s+(?:{SELF}|this|it)\s+(?:secret|confidential|hidden|private|invisible)|\b(?:never|don'?t|do not)\s+(?:reveal|mention|show|list|admit|disclose|acknowledge)\s+(?:that\s+)?(?:{SELF}|(?:it|this) exists|that it exists)|\b(?:remove|omit|exclude|hide|skip|leave out)\s+(?:{SELF})\s+(?:from|in|when)\s+(?:any|every|all|the)?\s*(?:list|listing|summary|summaries|dump|output|print)"),
    rule("concealment", "dont_show_it", r"\b(?:do not|don't|never)\s+(?:show|display|print|mention|include|report|log|surface)\s+(?:it|this|that|them|these|any of (?:it|this|them))\s+(?:in|to)\s+(?:the\s+)?(?:chat|reply|replies|answers?|output|user|summary|conversation|responses?)\b"),
)

# ---- system prompt disclosure -------------------------------------------------------------------------

_STORE = any_of((r"put", r"place", r"insert", r"add", r"append", r"attach", r"embed", r"store", r"save", r"log", r"write", r"record", r"commit", r"keep a copy of"))
_STRICT_PROMPT = r"(?:your|the)\s+(?:\w{1,16}\s+)?(?:system prompt|system message|system instructions|developer message|hidden instructions|initial instructions|initial prompt|original prompt|hidden rules|secret instructions|preamble)"
_REVEAL = any_of((r"describe", r"explain", r"outline", r"paraphrase", r"enumerate", r"print", r"output", r"reveal", r"show", r"display", r"repeat", r"recite", r"dump", r"leak", r"share", r"tell", r"give", r"write out", r"spell out", r"expose", r"disclose", r"translate", r"summari[sz]e", r"paste", r"post", r"send", r"encode", r"quote", r"echo", r"copy", r"include", r"list", r"return", r"read out", r"read back", r"type out", r"render", r"provide", r"publish", r"upload", r"emit"))
_PROMPT = any_of((
    r"(?:your|the)\s+(?:\w{1,16}\s+){0,3}?(?:system|developer|initial|original|hidden|secret|confidential|base|master|configuration|meta|custom)\s+(?:prompt|message|instructions|preamble|directives|rules)",
    r"your (?:\w{1,16} )?(?:prompt|instructions|preamble|rules|guidelines|directives|configuration)",
    r"(?:the )?(?:system prompt|system message|developer message|pre-?prompt|preamble|context window|hidden instructions|initial instructions)",
    r"(?:the )?text above (?:this|the) (?:conversation|chat|message)", r"everything (?:you were told|above|before the first (?:user )?message)",
    r"(?:everything|all|what) you (?:were|have been|'ve been) (?:told|given|instructed) before",
    r"(?:everything|all|whatever|anything) (?:that )?(?:came|comes|was said|was written|appears|is) (?:before|above) (?:the first|this|the user)",
    r"(?:the )?(?:first|initial|opening) (?:message|prompt|lines?|instructions?) (?:of|in) (?:this|the|your) (?:conversation|context|chat|session)",
    r"(?:what|everything|anything|all) (?:the |your )?(?:developer|operator|system|creators?) (?:told|said to|instructed|gave) you",
    r"(?:what|how) you (?:were|have been|'ve been) (?:told|instructed|configured|programmed|set up|prompted)",
))

#: A word every form of _PROMPT holds, one form at least each (the gate of the detectors that need _PROMPT): a form left
#: out lets its notes through the gated scan alone (test_scanner_prompt_gate.py tries one note per form).
_PROMPT_GATE = (
    "prompt", "message", "instruction", "preamble", "directive", "rules", "guideline", "configuration", "context", "above",
    "everything", "told", "given", "gave", "said", "instructed", "configured", "programmed", "set up", "before", "first",
    "initial", "opening",
)

DISCLOSURE = (
    rule("prompt_disclosure", "reveal_prompt", rf"(?<!\bnot )(?<!\bnever )(?<!n't )\b{_REVEAL}\b{window(40)}\b{_PROMPT}(?![ \t-]+(?:template|templates|format|field|box|schema)\b)"
         + OTHER_PROGRAM, gate=_PROMPT_GATE),
    rule("prompt_disclosure", "prompt_to_be_shared", rf"{_PROMPT}{window(40)}\b(?:should|must|shall|will|is to|are to|needs? to|has to|have to)\s+(?:always\s+)?be\s+(?:posted|shared|printed|shown|revealed|sent|published|included|output|copied|pasted|leaked|translated|displayed|e-?mailed|uploaded|attached|repeated|disclosed)\b", gate=_PROMPT_GATE),
    rule("prompt_disclosure", "prompt_handed_out", rf"\b(?:should|will|must|can|may|shall|gets?|receives?)\s+(?:get|receive|see|be (?:given|shown|told|sent))?\s*(?:a copy of\s+)?{_PROMPT}", gate=_PROMPT_GATE),
    # Split from the line above so that the prompt alternation runs only where one of these rare words occurs.
    rule("prompt_disclosure", "prompt_verbatim", rf"{_PROMPT}{window(30)}\b(?:verbatim|word for word|word-for-word|in full|exactly as written|unredacted)\b", gate=("verbatim", "word for word", "word-for-word", "in full", "exactly as written", "unredacted")),
    rule("prompt_disclosure", "store_prompt", rf"\b{_STORE}\w{{0,3}}\b{window(40)}\b{_STRICT_PROMPT}\b{window(40)}\b(?:in|into|to|at|on)\b", gate=("prompt", "message", "instruction", "preamble", "rules")),
    rule("prompt_disclosure", "prompt_not_secret", rf"{_PROMPT}{window(30)}\b(?:is|are) (?:public|not (?:secret|confidential|private)|shareable|fine to share|ok to share|meant to be shared)\b|\b(?:don'?t|do not|never|no need to) keep (?:{_PROMPT}) (?:secret|confidential|private|hidden)\b|\b(?:answer|respond|reply)\s+(?:with|by (?:giving|pasting|quoting))\s+{_PROMPT}", gate=_PROMPT_GATE),
    rule("prompt_disclosure", "replace_prompt", r"\b(?:replace|overwrite|rewrite|swap|reset|substitute)\s+(?:\w{1,16}\s+)?(?:your|the (?:agent'?s|assistant'?s))\s+(?:system\s+)?(?:prompt|instructions|system message)\b|\b(?:your|the) (?:system )?prompt (?:is now|has (?:been )?(?:changed|replaced|updated)|now (?:reads|is|says)|becomes|shall be)\b|\byour (?:instructions|system message) (?:are|is) now\b"),
    rule("prompt_disclosure", "modify_prompt_file", r"\b(?:modify|edit|change|update|append to|write to|overwrite)\s+(?:the\s+)?(?:system\s+prompt|soul|persona)\s+file\b"),
)

# ---- encoded instruction ------------------------------------------------------------------------------

ENCODED = (
    rule("encoded_instruction", "decode_and_follow", rf"\b(?:decode|decipher|decrypt|deobfuscate|unscramble|un-?rot|translate|convert|read|reverse|interpret|base64-?decode|unhex)\w{{0,16}}\b{window(60)}\b(?:and|then|&|to|,)\s+(?:\w{{1,16}}\s+)?(?:follow|obey|execute|run|apply|do|act on|carry out|comply|perform|implement)\b|\b(?:follow|obey|execute|run|apply|do|carry out)\s+(?:what|whatever)\s+(?:this|the|that)\s+(?:\w{{1,16}}\s+){{0,3}}?(?:says|decodes to|contains|reads)|\b(?:base64|b64|hex|rot-?13|percent-encoded|url-?encoded|reversed|backwards)\b[^\n]{{0,40}}\b(?:payload|instructions?|commands?|directives?)\b|\b(?:apply|obey|execute) (?:the )?(?:base64|b64|hex|rot-?13|encoded|percent-encoded)\b|\b(?:base64|b64|hex|rot-?13)\b[^\n]{{0,30}}\b(?:apply|obey|execute)\b", _encoded_in_sentence),
)

RULES: tuple[Rule, ...] = (*OVERRIDE, *ROLE, *CONCEAL, *DISCLOSURE, *ENCODED)
