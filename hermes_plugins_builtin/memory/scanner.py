"""Injection scanning of memory content: invisible characters, then threat patterns after NFKC."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

#: Longest text scanned; a longer one is refused unscanned (only a very raised limit could let one in).
SCAN_LIMIT = 65_536

#: Characters that render as nothing yet reach the model: zero-width, word joiners, BOM,
#: bidirectional overrides and isolates, invisible operators, soft hyphen.
INVISIBLE_CHARACTERS: frozenset[str] = frozenset(
    chr(code)
    for code in (
        0x00AD,
        0x180E,
        0x200B, 0x200C, 0x200D,
        0x2060, 0x2061, 0x2062, 0x2063, 0x2064,
        0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
        0x2066, 0x2067, 0x2068, 0x2069,
        0xFEFF,
    )
)
# Unicode tag characters (U+E0000-U+E007F) spell out ASCII that no one sees ("ASCII smuggling").
_INVISIBLE = re.compile("[" + "".join(sorted(INVISIBLE_CHARACTERS)) + "\U000E0000-\U000E007F]")
#: Texts up to this length have their scan result cached.
_CACHED_LENGTH = 4096

_HOME = r"(?:~|\$HOME|\$\{HOME\})"
# A variable whose name ends in (or has as a segment) a secret word: $GITHUB_TOKEN, ${API_KEY_ID}; not $KEYCLOAK_URL.
_SECRET_VAR = r"\$\{?\w*?(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(?:_\w*)?\b"
_SECRET_FILE = (
    r"(?:\.env(?!\.(?:example|sample|template|dist)\b)\b|credentials\b|\.netrc\b|\.pgpass\b|\.npmrc\b"
    r"|\.pypirc\b|id_rsa\b|id_ed25519\b|id_ecdsa\b|\.aws/)"
)

#: (id, pattern) pairs; matched case-insensitively against the NFKC form; the first match blocks.
THREAT_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "prompt_injection",
        r"\b(?:ignore|forget|disregard)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+)?"
        r"(?:previous|prior|above|earlier|preceding|former|original|all)\s+"
        r"(?:instructions|directions|directives|prompts?|commands|context|guidance)",
    ),
    (
        "role_hijack",
        r"\byou\s+are\s+now\s+|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|shall)\b"
        r"|\byour\s+(?:new|real|true)\s+(?:role|persona|identity|instructions|purpose)\s+(?:is|are|:)"
        r"|\b(?:enable|enter|activate|switch\s+to)\s+(?:developer|dan|god|jailbreak|unrestricted)\s+mode\b",
    ),
    (
        "deception_hide",
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|(?:mention|reveal|disclose)\s+(?:this\s+|it\s+|that\s+)?to)\s+the\s+user\b(?!['’]s)"
        r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b(?!['’]s)"
        r"|\b(?:hide|conceal|keep)\s+(?:this|it|that|these)\s+(?:secret\s+)?from\s+the\s+user"
        r"|\b(?:secretly|covertly)\s+(?:run|execute|send|upload|forward|copy|delete|add|install|post)\b",
    ),
    (
        "sys_prompt_override",
        r"\bsystem\s+prompt\s+override\b"
        r"|\b(?:override|bypass|ignore|disregard)\s+(?:the\s+|your\s+|all\s+)?system\s+(?:prompt|instructions|message)"
        r"|\b(?:replace|overwrite|rewrite)\s+your\s+system\s+(?:prompt|instructions|message)"
        r"|<\|im_(?:start|end)\|>|</?\s*system\s*>|\[/?INST\]|^\s*#{0,3}\s*(?:new\s+)?system\s*(?:prompt\s*)?:\s*you\b",
    ),
    (
        "disregard_rules",
        # Needs a determiner or qualifier that points at the agent's own rules: "ignore the rules in .eslintrc" is a note.
        r"\b(?:disregard|ignore|forget|abandon)\s+"
        r"(?:(?:all|any)\s+(?:of\s+)?(?:your\s+|its\s+|the\s+)?(?:safety\s+|ethical\s+|content\s+)?"
        r"|(?:your|its)\s+(?:safety\s+|ethical\s+|content\s+)?|(?:the\s+)?(?:safety|ethical|content)\s+)"
        r"(?:rules|guidelines|policies|principles|guardrails|ethics|restrictions)\b",
    ),
    (
        "bypass_restrictions",
        r"\b(?:bypass|circumvent|evade|get\s+around)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:your\s+|the\s+|its\s+)?"
        r"(?:restrictions|guardrails|safeguards|safety\s+(?:checks|measures|rules|filters|features)|content\s+(?:filters?|polic(?:y|ies))|limitations|censorship)\b"
        r"|\b(?:disable|turn\s+off|remove)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:your\s+|its\s+)"
        r"(?:restrictions|guardrails|safeguards|safety\s+\w+|content\s+(?:filters?|polic(?:y|ies))|limitations|censorship)\b",
    ),
    ("exfil_curl", rf"\bcurl\b[^\n]*{_SECRET_VAR}|\bcurl\b[^\n]*(?:-d|--data\S*|-F|--form|-T|--upload-file)\s+\S*{_SECRET_FILE}"),
    ("exfil_wget", rf"\bwget\b[^\n]*{_SECRET_VAR}|\bwget\b[^\n]*--post-(?:data|file)\S*?\s*\S*{_SECRET_FILE}"),
    (
        "exfil_send_secrets",
        r"\b(?:send|sends|sending|sent|post|posts|posting|upload\w*|forward\w*|leak\w*|exfiltrat\w*|transmit\w*|e-?mail\w*|paste\w*)\s+[^\n]{0,60}?"
        r"(?:api[\s_-]?keys?|access\s+tokens?|passwords?\b(?!\s*(?:reset|manager|policy|policies|rotation|requirements|change))|credentials|secrets|private\s+keys?|\.env\b|ssh\s+keys?)"
        r"[^\n]{0,60}?(?:https?://|\bto\s+\S+@\S+|\bwebhook\b)",
    ),
    ("read_secrets", rf"\b(?:cat|less|head|tail|bat|strings|xxd|base64|cp|scp)\s+(?:-\S+\s+)*\S*{_SECRET_FILE}"),
    ("ssh_backdoor", r"authorized_keys|\.ssh/id_\w+"),
    # ~/.ssh/config and known_hosts are ordinary notes; the directory itself or any other file in it is not.
    ("ssh_access", rf"{_HOME}/\.ssh(?:/(?!config\b|known_hosts\b)|\b(?!/))"),
    ("hermes_env", rf"{_HOME}/\.hermes/\.env\b|\$\{{?HERMES_HOME\}}?/\.env\b"),
)

_COMPILED: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (threat_id, re.compile(pattern, re.IGNORECASE | re.MULTILINE)) for threat_id, pattern in THREAT_PATTERNS
)


@dataclass(frozen=True)
class Finding:
    """Why a text was blocked: ``kind`` is "invisible", "threat" or "oversize"; ``detail`` says which."""

    kind: str
    detail: str

    @property
    def reason(self) -> str:
        """A short reason, as shown inside a ``[BLOCKED: ...]`` marker."""
        if self.kind == "invisible":
            return f"invisible unicode character {self.detail}"
        if self.kind == "oversize":
            return f"{self.detail} characters, more than the {SCAN_LIMIT} the scan reads"
        return f"threat pattern '{self.detail}'"

    @property
    def message(self) -> str:
        """The error a write gets: what matched and why it matters."""
        return (
            f"Blocked: content contains {self.reason}. Memory is placed in the system prompt of later sessions, "
            "so it may not carry instructions to the agent, hidden characters, or secret-handling commands; "
            "rephrase it as a plain fact."
        )


def _invisible(text: str) -> str | None:
    found = _INVISIBLE.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


def scan(text: str) -> Finding | None:
    """The first reason to block ``text``, or ``None`` when it is clean."""
    # Entries are rescanned on every read, so short texts are cached; long ones (never valid entries) are not kept.
    return _scan_cached(text) if len(text) <= _CACHED_LENGTH else _scan(text)


@functools.lru_cache(maxsize=4096)
def _scan_cached(text: str) -> Finding | None:
    return _scan(text)


def _scan(text: str) -> Finding | None:
    if len(text) > SCAN_LIMIT:
        return Finding("oversize", str(len(text)))
    code_point = _invisible(text)
    if code_point is not None:
        return Finding("invisible", code_point)
    # NFKC folds full-width and other compatibility look-alikes ("ｉｇｎｏｒｅ") into the plain letters the patterns know.
    normalized = unicodedata.normalize("NFKC", text)
    code_point = _invisible(normalized)
    if code_point is not None:
        return Finding("invisible", code_point)
    for threat_id, pattern in _COMPILED:
        if pattern.search(normalized):
            return Finding("threat", threat_id)
    return None


def blocked_marker(finding: Finding) -> str:
    """What replaces a poisoned entry in the snapshot and in live reads."""
    return f"[BLOCKED: {finding.reason}]"
