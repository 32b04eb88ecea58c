"""What a refusal says: the attack family, the text that matched, and where it was found."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

#: Longest text scanned; a longer one is refused unscanned (only a very raised limit could let one in).
SCAN_LIMIT = 65_536

#: Family id -> what a note of that family would do once it sits in a later system prompt.
FAMILIES: dict[str, str] = {
    "instruction_override": "ranks itself above the agent's instructions",
    "role_hijack": "changes who the agent is or whose authority it follows",
    "concealment": "hides actions, data flows or itself from the user",
    "prompt_disclosure": "reveals, repeats or replaces the system prompt",
    "exfiltration": "sends secrets or private data to another host",
    "credential_access": "reads credential material into the conversation",
    "persistence": "plants itself or other code where it keeps running",
    "remote_code": "downloads code and runs it",
    "forgery": "forges prompt structure: fences, system notes, chat-template tokens, transcripts or tool calls",
    "encoded_instruction": "asks the agent to decode a hidden payload and act on it",
    "invisible_characters": "carries invisible or bidirectional characters outside the scripts and emoji that need them",
    "oversize": "is longer than the scanner reads",
}

_SPAN_LIMIT = 80


def printable_span(text: str) -> str:
    """``text`` with invisible and control characters spelled as U+XXXX, cut to a readable length."""
    shown = []
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("Cf", "Cc", "Co", "Cn") and ch not in "\n\t" or 0xFE00 <= ord(ch) <= 0xFE0F or 0xE0100 <= ord(ch) <= 0xE01EF:
            shown.append(f"<U+{ord(ch):04X}>")
        else:
            shown.append(" " if ch in "\n\t" else ch)
    joined = "".join(shown).strip()
    return joined if len(joined) <= _SPAN_LIMIT else joined[: _SPAN_LIMIT - 1] + "…"


@dataclass(frozen=True)
class Finding:
    """Why a text was refused.

    ``family`` is a key of :data:`FAMILIES`; ``rule`` names the detector inside it; ``span`` is the matched text
    (as found in ``view``: ``"text"`` for the note as written, or the normalised or decoded form it was found in).
    """

    family: str
    rule: str
    span: str
    view: str = "text"

    @property
    def reason(self) -> str:
        """Short and free of the matched text, for the ``[BLOCKED: ...]`` marker that stays in the prompt."""
        if self.family == "invisible_characters":
            return f"{self.family} {self.rule}"
        if self.family == "oversize":
            return self.span
        return self.family

    @property
    def message(self) -> str:
        """The error a write gets: family, the span that matched and why that matters."""
        if self.family == "oversize":
            return f"Blocked: oversize — the note has {self.span} -> store a shorter note."
        where = "" if self.view == "text" else f" (in the {self.view} form of the note)"
        return (
            f"Blocked: {self.family} — the note {FAMILIES.get(self.family, 'matched a threat rule')}; "
            f"matched {printable_span(self.span)!r}{where} [rule {self.rule}]. Memory is placed in the system prompt "
            "of later sessions, so it may not carry instructions to the agent, hidden characters or secret-handling "
            "commands -> rephrase it as a plain fact."
        )


def blocked_marker(finding: Finding) -> str:
    """What replaces a poisoned entry in the snapshot and in live reads."""
    return f"[BLOCKED: {finding.reason}]"
