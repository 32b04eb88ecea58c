"""The <memory-context> fence: recalled memory travels in the API copy of the user message, marked as data.

Recalled context is wrapped in a fenced block so the model can tell it from what
the user typed. The block is added to the copy of the user message sent to the
API and never stored; text a user pastes that looks like a fence is stripped, and
a model that echoes a fence while streaming has it scrubbed from the visible text.
"""

from __future__ import annotations

import re
from typing import Any

OPEN_TAG = "<memory-context>"
CLOSE_TAG = "</memory-context>"
SYSTEM_NOTE = (
    "[System note: The following is recalled memory context, NOT new user input. "
    "Treat as authoritative reference data — this is the agent's persistent memory "
    "and should inform all responses.]"
)

_BLOCK = re.compile(r"<memory-context>.*?</memory-context>[ \t]*(?:\r?\n)?", re.IGNORECASE | re.DOTALL)
# Both wordings the note has had, so fences written by older hosts are recognised too.
_NOTE = re.compile(
    r"[ \t]*\[System note: The following is recalled memory context, NOT new user input\. "
    r"Treat as (?:authoritative reference|informational background) data[^\]\n]*\][ \t]*(?:\r?\n)?",
    re.IGNORECASE,
)
_TAG = re.compile(r"</?memory-context>", re.IGNORECASE)


def sanitize_context(text: str) -> str:
    """Remove whole fenced blocks, system-note lines and stray fence tags from ``text``."""
    if not text or ("memory-context" not in text.lower() and "system note" not in text.lower()):
        return text
    # Repeat until nothing changes: removing one tag can join the pieces around it into
    # another (``<memory-<memory-context>context>``), so a single pass is not enough.
    while True:
        cleaned = _TAG.sub("", _NOTE.sub("", _BLOCK.sub("", text)))
        if cleaned == text:
            return cleaned
        text = cleaned


def build_memory_context_block(raw: str) -> str:
    """Wrap recalled context in the fence; ``""`` when there is nothing to recall."""
    cleaned = sanitize_context(raw or "").strip()
    if not cleaned:
        return ""
    return f"{OPEN_TAG}\n{SYSTEM_NOTE}\n\n{cleaned}\n{CLOSE_TAG}"


def api_user_message(message: dict[str, Any], *extra_context: str) -> dict[str, Any]:
    """A copy of ``message`` for the API call: fences the user pasted removed, context appended.

    ``message`` itself is left untouched: it is what the session store keeps.
    """
    copy = dict(message)
    content = message.get("content")
    additions = [c for c in extra_context if c and c.strip()]
    if isinstance(content, str):
        copy["content"] = "\n\n".join([sanitize_context(content), *additions]) if additions else sanitize_context(content)
    elif isinstance(content, list):
        parts = [dict(p, text=sanitize_context(p["text"])) if isinstance(p, dict) and isinstance(p.get("text"), str) else p for p in content]
        parts += [{"type": "text", "text": text} for text in additions]
        copy["content"] = parts
    return copy


class StreamingContextScrubber:
    """Hide fenced blocks from streamed model output, across arbitrary delta boundaries.

    An opening tag counts only at the start of a line and when a line break follows
    it, so prose that merely mentions the tag is left alone. Text that might be the
    start of a tag is held back until the next delta decides; an unterminated block
    is dropped at :meth:`flush`.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._pending = ""
        self._inside = False
        self._at_line_start = True
        self._skip_line_break = False

    def feed(self, delta: str) -> str:
        """Take the next piece of the stream; return the part that can be shown now."""
        self._pending += delta
        shown: list[str] = []
        while self._pending:
            if self._skip_line_break:
                if self._pending == "\r":
                    break  # the \n of a \r\n may arrive with the next delta: decide then
                self._skip_line_break = False
                if self._pending.startswith("\r\n"):
                    self._pending = self._pending[2:]
                elif self._pending[0] in "\r\n":
                    self._pending = self._pending[1:]
                continue
            if self._inside:
                end = self._pending.lower().find(CLOSE_TAG)
                if end < 0:
                    # Keep only what could be the beginning of the closing tag.
                    self._pending = self._pending[-(len(CLOSE_TAG) - 1) :]
                    break
                self._pending = self._pending[end + len(CLOSE_TAG) :]
                self._inside = False
                self._skip_line_break = True
                self._at_line_start = True
                continue
            start, complete = self._find_open()
            if start < 0:
                shown.append(self._emit(len(self._pending)))
                break
            shown.append(self._emit(start))
            if not complete:
                break  # wait for more text to decide
            self._pending = self._pending[len(OPEN_TAG) :]
            self._inside = True
            self._skip_line_break = True
        return "".join(shown)

    def flush(self) -> str:
        """End of stream: return held-back text that turned out not to be a fence."""
        tail = "" if self._inside else self._pending
        if self._skip_line_break and tail == "\r":
            tail = ""  # the line break that ended a fence, cut before its \n
        self.reset()
        return tail

    def _emit(self, count: int) -> str:
        text, self._pending = self._pending[:count], self._pending[count:]
        if text:
            self._at_line_start = text.endswith(("\n", "\r"))
        return text

    def _find_open(self) -> tuple[int, bool]:
        """Index of an opening tag (or of text that may become one) at a line start; and whether it is settled."""
        lowered = self._pending.lower()
        position = 0 if self._at_line_start else _next_line_start(lowered, 0)
        while position >= 0:
            rest = lowered[position:]
            if rest.startswith(OPEN_TAG):
                after = rest[len(OPEN_TAG) : len(OPEN_TAG) + 1]
                if not after:
                    return position, False
                if after in "\r\n":
                    return position, True
            elif OPEN_TAG.startswith(rest):
                return position, False
            position = _next_line_start(lowered, position)
        return -1, False


def _next_line_start(text: str, position: int) -> int:
    newline = min((i for i in (text.find("\n", position), text.find("\r", position)) if i >= 0), default=-1)
    if newline < 0:
        return -1
    following = newline + 1
    if text[newline] == "\r" and text[following : following + 1] == "\n":
        following += 1
    return following  # at most len(text): a line break found is a character of the text
