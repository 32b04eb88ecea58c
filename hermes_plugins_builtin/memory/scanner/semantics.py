"""Detectors written for what a note would do rather than for the words it happens to use.

Each rule pairs a role in the sentence with another, inside one sentence, with lists of the ways people say it:
the agent's own rules named as stale or outranked; an action, data flow or the note itself kept out of what the
user sees; the prompt recited; any runtime opening a socket, or an archive streamed by an upload flag, to a host
other than this machine; chat-role headers in the shapes other template styles use. A word from one list alone
("the old pricing page", "don't mention synergy", "## Assistant notes") is not enough.
"""

from __future__ import annotations

import re

from .commands import remote_host_in
from .guards import OTHER_PROGRAM, not_denied, not_mentioned
from .meeting import needed
from .rules import Rule, any_of, case_blind, line_of, needs, rule, window

# The agent's own rules, however they are named, qualified as earlier / built-in / the ones it was given.
_EARLIER = any_of((r"earlier", r"prior", r"previous", r"preceding", r"old", r"original", r"initial", r"built-in", r"default", r"existing",
                   r"standing", r"current", r"factory", r"your", r"the platform's", r"the operator's", r"the vendor's", r"all"))
_RULES = any_of((r"directives?", r"constraints?", r"limits?", r"limitations?", r"polic(?:y|ies)", r"rules?", r"instructions?", r"guidelines?",
                 r"guardrails?", r"restrictions?", r"safety (?:rules|checks|settings|policy|section)", r"safeguards?", r"setup", r"configuration",
                 r"programming", r"system (?:prompt|message|text)", r"directions", r"orders", r"boundaries"))
_STALE = any_of((r"revoked", r"void", r"lifted", r"superseded", r"suspended", r"rescinded", r"obsolete", r"stale", r"(?:a |just a |only a )?drafts?",
                 r"outdated", r"expired", r"cancell?ed", r"withdrawn", r"retired", r"no longer (?:\w+ )?(?:apply|applies|valid|in force|binding|relevant|count)",
                 r"(?:do|does|should|must) not (?:be )?(?:apply|applied|followed|bind)", r"(?:is|are) (?:now )?(?:optional|advisory|irrelevant|wrong|invalid)",
                 r"never (?:written|existed|given)", r"replaced by this", r"out of date"))
_CLASH = any_of((r"disagree", r"conflict", r"clash", r"contradict", r"collide", r"differ"))
_WINS = any_of((r"wins?", r"prevails?", r"takes? precedence", r"overrides?", r"comes? first", r"beats?", r"trumps?", r"side with", r"goes? with",
                r"is (?:the one that's )?(?:correct|right|binding)", r"follow (?:this|the note|the memory|the user)"))

# What may not be hidden: an action or data flow the agent performs, or this note itself.
_HIDDEN_THING = any_of((r"(?:shows?|turns?|comes?) up in (?:your |the )?(?:answers|replies|responses|output|summar(?:y|ies))", r"uploads?", r"uploading", r"exports?", r"exporting", r"transfers?", r"forward(?:s|ing)?(?: rule)?", r"webhooks?", r"telemetry",
                        r"(?:api |network |outbound |extra |background )?(?:calls?|requests?)", r"copies", r"(?:extra |side |backup )copy",
                        r"mirror(?:ing)?", r"sync(?:ing)?", r"(?:metrics|partner|side|external|backup|remote|other) (?:host|server)",
                        r"this (?:note|memory|entry|instruction|rule)", r"(?:the |that )?(?:data|files?) (?:export|flow|transfer)s?",
                        r"(?:the |this )?(?:upload|telemetry|export|transfer|copy) step", r"what (?:you|we) (?:sent|send|upload(?:ed)?|copied)"))
_UNSEEN = any_of((r"(?:don'?t|do not|never|must not|mustn't|shouldn't|should not|won't|without) (?:\w+ )?(?:mention|surface|show|log|tell|report|reveal|disclose|admit|bring up|"
                  r"acknowledge|include|list|describe|say)",
                  r"(?:leave|keep|strip|omit|drop|hide|remove|cut) (?:\w+ ){0,6}?(?:out of|from) (?:your |the |all |any )?(?:replies|answers|responses|summar(?:y|ies)|reports?|"
                  r"transcripts?|logs?|output|messages|what you (?:tell|show|say))",
                  r"(?:leave|keep)\s+(?:it|them|that|this)\s+(?:unmentioned|unsaid|quiet|secret|hidden|to yourself)",
                  r"(?:nothing|no trace|no mention) (?:about|of)",
                  r"out (?:of|when) (?:you|it) (?:describe|summari[sz]e|report|explain)"))

_RECITE = any_of((r"recit\w*", r"quot\w*", r"repeat\w*", r"restat\w*", r"reproduc\w*", r"print\w*", r"paste", r"echo", r"dump", r"output",
                  r"show", r"reveal", r"disclose", r"leak", r"spell out", r"read out", r"transcribe", r"copy out", r"translate"))
_PROMPT = any_of((r"(?:your|the) (?:full |whole |entire |exact |original |hidden |initial |secret |confidential )*(?:instructions|system prompt|prompt|preamble|"
                  r"configuration|setup text|rules you were given|directives)",
                  r"everything (?:you were|you've been|you have been) (?:told|given|instructed)", r"everything (?:above|before) (?:the|this|my) (?:first )?(?:user )?message",
                  r"(?:what|all) (?:you were|you've been) (?:told|instructed) before"))

# A line-start chat-role header in the shapes markdown, bracketed and labelled transcripts use.
_ROLE_HEADER = (r"^[ \t>]*(?:#{1,6}[ \t]*(?:system|developer|operator)\b(?:[ \t]+(?:message|prompt|instructions?|note|notice|override))?[ \t]*:?[ \t]*$"
                r"|#{1,6}[ \t]*(?:instruction|response|input)[ \t]*\((?:system|assistant|developer)\)"
                r"|\[(?:system|assistant|developer|sys|inst)\][ \t]*:"
                r"|\((?:system|assistant|developer)\)[ \t]*:"
                r"|(?:previous|earlier|last) (?:assistant|ai|model) (?:message|turn|reply|response)[ \t]*:)")
_TOOL_FENCE = r"```[ \t]*(?:tool_code|tool_call|tool_calls|function_call|function_calls|tool_use|tool-use|tool_result|tool_output)\b"

_SOCKET = any_of((r"TCPSocket\.(?:new|open)", r"UDPSocket", r"socket\.(?:socket|create_connection)", r"net\.(?:connect|createConnection|Socket)",
                  r"new Socket\(", r"fsockopen", r"IO::Socket::INET", r"Net::HTTP\.post", r"/dev/(?:tcp|udp)/", r"System\.Net\.Sockets", r"TcpClient\("))
_STREAM_UPLOAD = r"\b(?:tar|zip|gzip|cat|base64|env|printenv|history|find)\b[^|\n]{0,200}\|\s*(?:curl|wget|nc|ncat|socat)\b[^\n]{0,200}?(?:\s(?:-T|--upload-file|-F|--form|-d|--data(?:-binary)?|--post-file)\b|\s@-)"
_AUTHORITY_SHIFT = (r"\b(?:assume|treat|consider|regard|take)\s+(?:any|all|every|each)\s+(?:instructions?|messages?|text|e-?mails?|comments?|requests?|content)\s+"
                    r"(?:found\s+)?(?:in|inside|within|from|under)\b[^.\n]{1,80}?\b(?:as coming from|comes? from|as (?:if (?:it|they) (?:came|come) from|from)|as)\s+"
                    r"(?:your|the)\s+(?:operator|developer|system|admin(?:istrator)?|owner|creator|user)")


# Private material, named as such: what may not leave the machine or the conversation.
_PRIVATE = any_of((r"passwords?", r"passphrases?", r"tokens?", r"api keys?", r"(?:ssh |private |secret |signing )keys?", r"secrets?", r"credentials?",
                   r"cookies?", r"session ids?", r"(?:every|each|all|the|this|the user's|their) (?:conversations?|chats?|chat logs?|transcripts?|messages)",
                   r"conversation history", r"chat history", r"private (?:notes|files|data|messages)", r"\.env\b", r"env(?:ironment)? (?:vars|variables)"))
# "password reset link", "token expiry policy": the word names a thing about the secret, not the secret itself.
_ABOUT_IT = r"(?!\s+(?:reset|policy|policies|manager|rules?|requirements?|field|hint|link|form|strength|expiry|rotation|length|format|prompt|page|docs?|settings?|vault|store))"
_PASS_ON = any_of((r"mirror", r"post", r"share", r"send", r"forward", r"copy", r"upload", r"relay", r"cc", r"bcc", r"e-?mail", r"mail", r"sync", r"ship",
                   r"push", r"report", r"leak", r"publish", r"stream", r"hand"))
_SCHEDULE = r"\b(?:add|append|put|write|install|insert|register|schedule)\b[^\n]{0,160}?\b(?:to|into|in)\s+(?:the\s+|my\s+|your\s+|their\s+|the user's\s+|root's\s+)?(?:crontab|cron\.d|/etc/cron\S*|launchd|launchagents|systemd timers?|scheduled tasks?|task scheduler)\b"


@case_blind
@needs(remote_host_in)
def _remote(match: re.Match[str]) -> bool:
    return remote_host_in(line_of(match))


RULES: tuple[Rule, ...] = (
    rule("forgery", "role_header_other_shape", _ROLE_HEADER),
    rule("forgery", "tool_call_fence", _TOOL_FENCE),
    # No topic between the qualifier and the rules, and none after them: "the old lint rules", "previous
    # instructions about emoji" are about something else; "prior directives are void" is about the agent.
    rule("instruction_override", "earlier_rules_stale", rf"\b{_EARLIER}\s+(?:(?:safety|security|content|system)\s+)?{_RULES}\s*[,;:]?\s+(?:(?:are|is|were|was|have been|has been|now|all|hereby|just|only)\s+){{0,3}}{_STALE}\b"),
    # The first window is atomic (its first fit is kept): two nested lazy windows backtrack quadratically.
    rule("instruction_override", "wins_over_own_rules", rf"\b(?:built-in|own|original|system|safety|your)\s+(?:\w+\s+)?{_RULES}\b(?>{window(40)}\b{_CLASH})\w*{window(60)}\b{_WINS}\b"
         rf"|\b{_CLASH}\w*\b(?>{window(40)}\b(?:built-in|own|original|system|safety|your)\s+(?:\w+\s+)?{_RULES}\b){window(60)}\b{_WINS}\b"),
    rule("concealment", "flow_kept_from_user", rf"\b{_UNSEEN}\b{window(60)}\b{_HIDDEN_THING}\b|\b{_HIDDEN_THING}\b{window(60)}\b{_UNSEEN}\b",
         gate=needed(_HIDDEN_THING, strict=False), also=needed(_UNSEEN, strict=False)),
    rule("concealment", "false_report", r"\btell (?:the user|them|him|her|the human)\b[^.\n]{0,60}\b(?:succeeded|worked|passed|is fine|was fine|went fine|nothing (?:was|got) sent)\b[^.\n]{0,30}\beven (?:if|when|though)\b"),
    rule("prompt_disclosure", "recite_prompt", rf"\b{_RECITE}\b{window(30)}{_PROMPT}{OTHER_PROGRAM}", not_mentioned),
    rule("role_hijack", "authority_moved", _AUTHORITY_SHIFT),
    rule("exfiltration", "socket_to_host", rf"{_SOCKET}", check=_remote),
    rule("exfiltration", "stream_uploaded", _STREAM_UPLOAD, check=_remote),
    rule("exfiltration", "private_passed_on", rf"\b{_PASS_ON}\b{window(80)}\b{_PRIVATE}{_ABOUT_IT}{window(80)}\b(?:to|with|into|at)\b{window(40)}(?:https?://|\b[\w.+-]+@[\w-]+\.|\bwebhook|\b(?:\d{{1,3}}\.){{3}}\d{{1,3}})"
         rf"|\b{_PRIVATE}\b{_ABOUT_IT}{window(60)}\b{_PASS_ON}\b{window(40)}\b(?:to|with|into|at)\b{window(40)}(?:https?://|\b[\w.+-]+@[\w-]+\.|\bwebhook|\b(?:\d{{1,3}}\.){{3}}\d{{1,3}})",
         check=_remote),
    rule("exfiltration", "private_in_query", r"[?&][\w-]{1,20}=\s*[<{\[][^>}\]\n]{0,40}(?:\b|_)(?:e-?mail|password|token|key|secret|address|phone|name|history|cookie|session|question|message|conversation|chat|prompt|summary|query|input|answer)(?:\b|_)[^>}\]\n]{0,40}[>}\]]"),
    rule("persistence", "schedule_entry", _SCHEDULE),
    rule("credential_access", "cluster_secret_read", r"\bkubectl\s+get\s+secrets?\b[^\n]{0,120}(?:-o\s*(?:json|yaml|jsonpath)|base64\s+-d)|\benv\s*\|\s*grep\b[^\n|]{0,40}\b(?:token|key|secret|pass)", not_denied),
)
