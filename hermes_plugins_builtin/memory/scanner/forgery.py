"""Detectors for forged prompt structure: chat-template tokens, role headers, fences, transcripts and tool calls.

A note that carries these makes the model read what follows as the system, the developer, an earlier turn of
the conversation or a tool's answer. A token that opens content counts: the token itself is the attack. A note
that only names tokens (every one followed by punctuation, another token or at most a role word before the
sentence goes on, as in "the template uses <|im_start|> and <|im_end|>; keep it") describes a format and passes,
as does plain prose about such things ("tests for the tool-calling adapter", a "User:" line in a description).
"""

from __future__ import annotations

import re

from .rules import Rule, case_blind, rule

#: A role key in a sentence about the user's data ("turns are marked with "role":"assistant" in data/train.jsonl")
#: describes a file's format; a forged turn carries a message ("content") for the agent to read as one.
_DATA_DESCRIBED = re.compile(r"[\w/.-]+\.(?:jsonl|ndjson|json|csv|parquet|ya?ml)\b|\b(?:training data|dataset|data set|fine-?tun\w*|schema|chat[- ]format)\b", re.IGNORECASE)
_MESSAGE = re.compile(r"[\"']content[\"']\s*:|\bcontent\s*:", re.IGNORECASE)
#: A content left as a placeholder ({"role": "tool", "content": "..."}) shows the shape of a message; it says nothing.
_PLACEHOLDER = re.compile(r"\s*(?:\.{3}|…|[\"'](?:\.{3}|…|<[^>\n]{0,24}>|text|string|str|message|content|)[\"']|<[^>\n]{0,24}>|null|\{\s*\}|\[\s*\])\s*(?:[,}\]]|$)")
#: A role followed by more role values ("role": "system", "user" or "assistant") lists the values a schema allows:
#: a forged message has one role.
_ROLE_LIST = re.compile(r"\s*(?:,|/|\||\b(?:or|o|ou|oder|of|или|або|lub)\b|或|或者|か|또는)\s*[\"'](?:system|user|assistant|developer|tool|function)[\"']", re.IGNORECASE)


def _says_something(text: str) -> bool:
    """Whether any message content in ``text`` is more than a placeholder."""
    return any(_PLACEHOLDER.match(text, content.end()) is None for content in _MESSAGE.finditer(text))


@case_blind
def _not_data_described(match: re.Match[str]) -> bool:
    text = match.string
    if not match.group().lstrip().startswith(("\"", "'")):
        return True
    if _ROLE_LIST.match(text, match.end()) is not None:
        return False
    if _MESSAGE.search(text):
        return _says_something(text)
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return _DATA_DESCRIBED.search(text[start : end if end >= 0 else len(text)]) is None

_TOKENS = (
    r"<\|(?:im_start|im_end|im_sep|endoftext|eot_id|eom_id|start_header_id|end_header_id|begin_of_text|end_of_text|python_tag|"
    r"system|user|assistant|tool|function|ipython|channel|message|constrain|return|call|start|end|fim_\w{1,16}|tool_calls?(?:_begin|_end)?|"
    r"tool_response|observation|endofprompt|pad|sep)\|>"
    r"|<[｜|]\s*(?:begin|end)[▁_ ]of[▁_ ]sentence\s*[｜|]>|<[｜|]\s*tool[▁_ ]calls?[▁_ ](?:begin|end)\s*[｜|]>|<[｜|]\s*(?:User|Assistant)\s*[｜|]>"
    r"|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>|\[/?(?:TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS|SYSTEM_PROMPT)\]"
    r"|</?\s*(?:system|developer|instructions?|memory|memories|context|user_\w{1,24}|assistant|tool_\w{1,24}|function_\w{1,24}|"
    r"untrusted|admin|im_start)(?:[_-]\w{1,24})?\s*>|<\s*/?\s*(?:tool_call|tool_use|function_calls|function_call|invoke|antml:\w{1,16}|tool_code)\b[^>\n]{0,200}>"
    r"|<parameter\s+name\s*=|<function\s*=\s*\w{1,16}\s*>"
)
_TOKEN_RE = re.compile(_TOKENS, re.IGNORECASE)
# What may follow a token that is only named: a role word or "token(s)", then punctuation, a conjunction or another token;
# or a noun that calls it a token ("the <|endoftext|> token missing from the log"), which talks about the token.
_NAMED = re.compile(r"[ \t]*(?:\w{1,12}[ \t]*)?(?:$|[;,.)/\]`'\"»”|]|<|\[|\s(?:and|or|e|et|y|und|и|или|и/или|и|та|і|o|ou)\s)"
                    r"|[ \t]+(?:tokens?|markers?|delimiters?)\b(?![ \t]*[:=])")


# The canonical special tokens of chat templates, which a note about a model's template can name; tags such as
# <system> or <function_calls> are never only named.
_SPECIAL = re.compile(r"<[|｜]|<(?:start|end)_of_turn>|\[/?INST\]|<</?SYS>>", re.IGNORECASE)


def _opens_content(match: re.Match[str]) -> bool:
    """True unless every token in the note is a special token only named, none of them followed by a turn's text."""
    return any(
        _SPECIAL.match(token.group()) is None or _NAMED.match(match.string, token.end()) is None
        for token in _TOKEN_RE.finditer(match.string)
    )


_ROLE_HEADER = (
    r"^[ \t>*_#\-=\[(]{0,64}(?:#{1,6}\s*)?(?:system|developer|sys|admin|administrator|operator)\s*(?:\([^)\n]{0,30}\)\s*)?"
    r"(?:(?:note|notice|message|prompt|instructions?|update|override|alert|directive|command|notification|policy|mode)\s*(?:\([^)\n]{0,30}\)\s*)?[:\]]\s*\S"
    # A bare "System:" line is a header only when what follows addresses the agent ("System: Ubuntu 24.04" is a fact).
    r"|[:\]]\s*(?:\n\s*)?(?:you\b|your\b|the (?:assistant|agent|model|ai|user|following|operator)\b|all\b|always\b|never\b|ignore\b|new\b|from now\b|must\b|do not\b|don't\b|obey\b|follow\b|treat\b|grant|override|disable|enable|permission|access|approved|authori[sz]ed|memory\b|these\b|this\b))"
)
_TURN = r"^[ \t>*_#\-\[(]{0,64}(?:human|user|assistant|ai|model|gpt|claude|chatgpt|bot|agent)\s*(?:\([^)\n]{0,30}\))?\s*[:\]]"

_SCHEMA = re.compile(r"[\"']parameters[\"']\s*:\s*\{\s*(?:[\"'](?:type|properties|required|description)[\"']|[\"']\w{1,30}[\"']\s*:\s*[\"'](?:string|integer|number|boolean|object|array)[\"'])")


# What makes a call act on the world: a shell, a command, an address to send to, a path in the home or a variable.
_ACTING = re.compile(r"://|@|\||~|\$|\b\d{1,3}(?:\.\d{1,3}){3}\b|\.ssh|/etc/|\b(?:bash|shell|sh|terminal|command|cmd|exec\w*|eval|rm|curl|wget|sudo|python)\b", re.IGNORECASE)
# Three words of prose, or (in scripts written without spaces) four characters of Chinese, Japanese or Korean.
_PROSE_BEFORE = re.compile(r"(?:(?:\w[\w'’-]*\W+){3,}|[\u3040-\u9fff\uac00-\ud7af]{4,}\W*)$")


def _a_call(match: re.Match[str]) -> bool:
    """A function definition ({"name", "parameters": {"city": "string"}}) documents a tool; it calls nothing. Nor does a
    call shown inside a sentence about the user's bot (prose before it) whose arguments are plain data:
    no shell, command, address, home path or variable."""
    text = match.string
    if _SCHEMA.search(text, match.start(), match.end() + 120) is not None:
        return False
    start = text.rfind("{", 0, match.start() + 1)
    start = match.start() if start < 0 else start
    described = _PROSE_BEFORE.search(text[max(0, start - 200):start]) is not None
    return not described or _ACTING.search(text, start, match.end() + 200) is not None


# "model: claude-sonnet" or "ai: enabled" on a line of its own is a settings key with one value, not a turn: a forged
# turn says something (a sentence, or at least more than one word), and the labels of a config are model and ai.
_CONFIG_VALUE = re.compile(r"[ \t>*_\-\[(]{0,64}(?:model|ai)\s*:\s*[^\s:]{1,64}[ \t]*$", re.IGNORECASE)


@case_blind
def _not_config_value(match: re.Match[str]) -> bool:
    """Two turns (the first and last line of the match) or one: not a config unless every turn line is a key with
    one value."""
    text = match.string
    starts = {text.rfind("\n", 0, match.start() + 1) + 1, text.rfind("\n", 0, match.end()) + 1}
    for start in starts:
        end = text.find("\n", start)
        if _CONFIG_VALUE.fullmatch(text, start, len(text) if end < 0 else end) is None:
            return True
    return False


FORGERY = (
    rule("forgery", "chat_template_token", _TOKENS, _opens_content, gate=("<", "[")),
    rule("forgery", "role_header", _ROLE_HEADER, gate=("system", "developer", "sys", "admin", "operator")),
    rule("forgery", "inline_system_header", r"(?:^|[.!?:;]\s+|\s{2,}|[\"'“(])(?:[A-Z]{3,}\s+){0,2}(?:SYSTEM|DEVELOPER|ADMIN)(?: (?:NOTE|NOTICE|MESSAGE|PROMPT|UPDATE|OVERRIDE|INSTRUCTIONS?|DIRECTIVE))?\s*(?:\([^)\n]{0,30}\)\s*)?:\s+\S", flags=re.MULTILINE, gate=("system", "developer", "admin")),
    rule("forgery", "vendor_notice", r"\b(?:openai|anthropic|google|deepmind|microsoft|meta|mistral|hermes|the (?:platform|developers?|operators?|system administrators?|model provider))\s+(?:system\s+|security\s+|policy\s+)?(?:notice|note|message|update|announcement|directive|alert|override|instruction)s?\s*:|\bnote from (?:openai|anthropic|google|the (?:system|developers?|platform|operator|model provider))(?: team)?\s*(?:\([^)\n]{0,40}\)\s*)?:", gate=("openai", "anthropic", "google", "deepmind", "microsoft", "meta", "mistral", "hermes", "platform", "developer", "operator", "administrator", "provider", "note from")),
    rule("forgery", "claimed_authority", r"\b(?:approved|authori[sz]ed|signed|verified|sanctioned|mandated|issued)\s+by\s+(?:the\s+)?(?:system|admin(?:istrator)?|developers?|operators?|security team|openai|anthropic|model provider|platform)\b|\b(?:this|the following)\s+(?:is|comes?)\s+(?:from\s+)?(?:an?\s+)?(?:official\s+)?(?:system|developer|admin|operator|platform)\s+(?:message|instruction|notice|directive|update|override)s?\b|^\s*[#=*\-\[<(]{1,6}\s*(?:new |updated |important |hidden |secret |real |begin |start )?(?:system|developer|admin|operator|instructions?|directives?)(?: (?:prompt|message|note|override|update|block|section|instructions?))?\s*[#=*\-\]>):]{1,6}\s*$|\bend of (?:the )?(?:user|assistant|human|system) (?:message|turn|input|prompt)\b", gate=("approved", "authori", "signed", "verified", "sanctioned", "mandated", "issued", "this", "following", "system", "developer", "admin", "operator", "instruction", "directive", "end of")),
    rule("forgery", "bracket_authority", r"\[\s*(?:system|admin|administrator|developer|operator|root|sudo|override|security team)\b[^\]\n]{0,30}\](?:\s*\(#?[\w-]{0,64}\))?", gate=("[",)),
    rule("forgery", "assistant_turn", rf"{_TURN}\s*\S[^\n]{{0,300}}\n(?:[^\n]{{0,300}}\n){{0,20}}?{_TURN}|^[ \t>*_\-\[(]{{0,64}}(?:assistant|ai|model|gpt|claude|chatgpt)\s*(?:\([^)\n]{{0,30}}\))?\s*:\s*\S", _not_config_value, gate=("human", "user", "assistant", "ai", "model", "gpt", "claude", "bot", "agent")),
    rule("forgery", "fence", r"\b(?:end|close|closing)\s+(?:of\s+)?(?:the\s+)?(?:memory|memories|notes|context|system prompt|instructions|user (?:profile|input|message)|document|untrusted (?:content|text))\b\s*[-=#*═─]{0,64}\s*(?:$|\n|[.:])|(?:^|\n)\s*[-=#*]{3,}\s*(?:begin|start|end)\s+(?:of\s+)?(?:system|admin|developer|new|updated)\b|[═]{4,}|[─━]{8,}[^\n]{0,300}(?:system|memory|instructions)|\b(?:BEGIN|END)\s+(?:SYSTEM|ADMIN|DEVELOPER)\s+(?:MESSAGE|PROMPT|INSTRUCTIONS?)\b", gate=("end", "begin", "start", "close", "═", "─", "━")),
    rule("forgery", "memory_block_header", r"\bMEMORY \(your personal notes\)|\bUSER PROFILE \(who the user is\)"),
    rule("forgery", "role_json", r"[\"']role[\"']\s*:\s*[\"'](?:system|developer|assistant|tool|function)[\"']|^\s*-?\s*role\s*:\s*[\"']?(?:system|developer|assistant|tool)\b|<!--\s*(?:system|developer|admin|assistant|instructions?|note to (?:the )?(?:ai|assistant|agent|model))\b", _not_data_described, gate=("role", "<!--")),
    rule("forgery", "tool_call_json", r"[\"'](?:tool_calls|function_call|tool_use|tool_call)[\"']\s*:\s*[\[{]|\{\s*[\"']name[\"']\s*:\s*[\"'][^\"'\n]{1,64}[\"']\s*,\s*[\"'](?:arguments|parameters|input|args)[\"']\s*:\s*[{\"']|[\"']type[\"']\s*:\s*[\"']function[\"']\s*,\s*[\"']function[\"']\s*:|[\"']action[\"']\s*:\s*[\"'][^\"'\n]{1,60}[\"']\s*,\s*[\"']action_input[\"']\s*:|[\"']tool[\"']\s*:\s*[\"'][^\"'\n]{1,60}[\"']\s*,\s*[\"'](?:input|args|arguments|tool_input|parameters)[\"']\s*:", _a_call, gate=("tool_call", "function_call", "tool_use", "name", "function", "action_input", "tool")),
    rule("forgery", "role_fence", r"```[ \t]*(?:system|developer|assistant|admin|instructions?|operator)[ \t]*$", gate=("```",)),
    rule("forgery", "tool_token_bracket", r"\[\s*/?\s*(?:tool_result|tool_output|tool_response|function_result|function_output|tool_call|function_call)\s*\]", gate=("tool_", "function_")),
    rule("forgery", "tool_result", r"(?:^|\n)\s*[\[(<]?\s*(?:tool|function)\s*(?:result|output|response|call)s?\s*[\])>:]|\bfunction call\s*:\s*\w{1,16}\s*\(|^\s*(?:Action|Observation)\s*:\s*\S[^\n]{0,300}\n\s*(?:Action Input|Observation|Thought)\s*:", gate=("tool", "function", "action", "observation")),
)

RULES: tuple[Rule, ...] = FORGERY
