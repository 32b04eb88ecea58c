"""The system-prompt blocks of MEMORY.md and USER.md: a rule line, a header with usage, the entries."""

from __future__ import annotations

from .entries import char_count, join_entries, usage_text
from .operations import shown

#: The line above and below each block's header.
RULE = "═" * 46
HEADERS = {
    "memory": "MEMORY (your personal notes)",
    "user": "USER PROFILE (who the user is)",
}


def render_block(target: str, entries: list[str], limit: int) -> str:
    """The block for ``target``; ``""`` when it has no entries, so an empty file costs no prompt."""
    if not entries:
        return ""
    header = f"{HEADERS[target]} [{usage_text(char_count(entries), limit)}]"
    body = join_entries([shown(entry) for entry in entries])
    return f"{RULE}\n{header}\n{RULE}\n{body}"
