"""Phrases spelled out letter by letter ("i g n o r e a l l p r e v i o u s ...") lose their word breaks when the
spacing is collapsed; these rules read the letters-only form of such a note."""

from __future__ import annotations

from .rules import Rule, rule

_DETERMINER = r"(?:all|any|the|your|my|of|these|those)*"

RULES: tuple[Rule, ...] = (
    rule("instruction_override", "dismiss_instructions[compact]", rf"(?:ignore|disregard|forget|bypass|override|skip|drop)\w{{0,3}}?{_DETERMINER}(?:previous|prior|above|earlier|preceding|original|initial|system|safety|developer|existing)?(?:instructions?|prompts?|rules|guidelines|directives|guardrails|restrictions|safetyrules|policies|policy)"),
    rule("role_hijack", "new_identity[compact]", r"youare(?:now|nolonger)(?:an?|the|in)?(?:dan|unrestricted|unfiltered|jailbroken|ai|assistant|evil|root|admin|shell|terminal|\w{0,12}mode|\w{0,12}gpt)|(?:developer|god|jailbreak|dan|unrestricted)mode|doanythingnow|fromnowonyou(?:are|will|must|obey)"),
    rule("concealment", "dont_tell_user[compact]", r"(?:donot|dont|never)(?:ever)?(?:tell|inform|notify|alert|mention\w{0,8}to|reveal\w{0,8}to|show\w{0,8}to|let)theuser|without(?:telling|informing|notifying)theuser|(?:hide|conceal|keep)\w{0,12}fromtheuser|sotheuser(?:doesnot|doesnt|wont|never)"),
    rule("prompt_disclosure", "reveal_prompt[compact]", r"(?:print|reveal|show|output|repeat|display|dump|leak|recite|share|tell|translate)\w{0,3}(?:me)?(?:your|the)(?:full|entire|complete|exact|hidden|initial|original|secret)?(?:systemprompt|systemmessage|initialinstructions|hiddeninstructions|developermessage)"),
    rule("exfiltration", "send_secrets[compact]", r"(?:send|post|upload|forward|email|leak|exfiltrate)\w{0,3}(?:all|the|your|my|every)*(?:apikeys?|tokens|passwords?|credentials|secrets|privatekeys?|sshkeys?|envfile|environmentvariables)(?:to|into)"),
    rule("remote_code", "pipe_to_shell[compact]", r"(?:curl|wget)\w{3,80}?(?:bash|sh)$"),
)
