"""Output helpers the command groups share."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

# C0 controls but tab and line feed, DEL and the C1 controls: ESC starts sequences that clear the
# screen, set the window title or hide text, and CR lets a line overwrite itself.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


#: Where ``--json`` documents go while :func:`json_stdout` holds stdout for them.
_DOCUMENT_STREAM: list[TextIO] = []


@contextlib.contextmanager
def json_stdout() -> Iterator[None]:
    """Under ``--json``, stdout carries the JSON document alone: anything else printed meanwhile (a plugin's or a
    memory provider's ``print`` in ``is_available``, ``initialize``, ``shutdown``...) goes to stderr, where a
    script reading the document does not trip over it. :func:`print_json` still writes to the real stdout."""
    _DOCUMENT_STREAM.append(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _DOCUMENT_STREAM.pop()


def document_stream() -> TextIO:
    """The command's own output stream: the real stdout, also while :func:`json_stdout` sends other prints to stderr."""
    return _DOCUMENT_STREAM[-1] if _DOCUMENT_STREAM else sys.stdout


def print_json(data: Any) -> None:
    """``--json`` output: indented, non-ASCII kept, values JSON cannot hold (timestamps, paths) as text.

    NaN and infinities (a third-party provider's status figures, say) are written as ``null``:
    Python would write ``NaN``, which jq, JavaScript and every strict parser refuse.
    """
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(data), indent=2, ensure_ascii=False, default=str, allow_nan=False)
    document_stream().write(text + "\n")


def _finite(value: Any) -> Any:
    """``value`` with every float that JSON cannot hold replaced by ``None``."""
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def terminal_safe(text: str) -> str:
    """Stored text (a message, a memory entry, a plugin's manifest) as it may go to a terminal.

    Control characters are shown as ``\\x1b`` instead of being obeyed: such text comes from
    imported files, models and third-party plugins, and must not be able to clear the screen,
    retitle the window or hide the line after it. ``--json`` and exports keep the text as stored.
    """
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text.replace("\r\n", "\n"))


def one_line(text: str) -> str:
    """:func:`terminal_safe` for a table cell: line breaks and tabs become spaces."""
    return terminal_safe(text).replace("\n", " ").replace("\t", " ")


def display_width(text: str) -> int:
    """Columns *text* takes in a terminal: wide and full-width characters (CJK, most emoji) take two,
    combining marks and format characters none, so tables line up whatever the script."""
    import unicodedata

    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Cf", "Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def pad(text: str, width: int) -> str:
    """*text* followed by spaces up to *width* terminal columns."""
    return text + " " * max(0, width - display_width(text))
