"""The on-disk entry format: entries joined by a line holding only "§", and usage figures."""

from __future__ import annotations

import re

#: What separates two entries in MEMORY.md / USER.md.
ENTRY_DELIMITER = "\n§\n"
# Hand-edited files get stray spaces and CRLF around the separator; accept them when reading.
_SPLIT = re.compile(r"\r?\n[ \t]*§[ \t]*\r?\n")
_SEPARATOR_LINE = re.compile(r"^[ \t\r]*§[ \t\r]*$", re.MULTILINE)


def parse_entries(text: str) -> list[str]:
    """Split a file's text into entries: stripped, empty ones dropped, duplicates dropped (first kept)."""
    # A file saved by a Windows editor starts with a byte-order mark: it marks the encoding, it is not
    # part of the first entry (kept, the scanner would block that entry as an invisible character).
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    # A file may start or end with a separator line after hand-editing; pad so both split cleanly.
    stripped = (part.strip() for part in _SPLIT.split("\n" + text + "\n"))
    # dict.fromkeys drops repeats and keeps first-seen order.
    return list(dict.fromkeys(entry for entry in stripped if entry and entry != "§"))


def join_entries(entries: list[str]) -> str:
    """The file text for ``entries`` (no trailing newline, so its length is the counted length)."""
    return ENTRY_DELIMITER.join(entries)


def char_count(entries: list[str]) -> int:
    """The characters the limit counts: those of the joined entries."""
    return len(join_entries(entries))


def holds_separator(content: str) -> bool:
    """Whether ``content`` has a line that would read back as an entry separator."""
    return bool(_SEPARATOR_LINE.search(content))


def usage_text(count: int, limit: int) -> str:
    """``"NN% — cur/limit chars"``; above 100% when a lowered limit left the file over it."""
    percent = round(100 * count / limit) if limit > 0 else 100
    return f"{percent}% — {count}/{limit} chars"
