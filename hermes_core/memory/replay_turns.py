"""Stored conversations as the turns a memory provider's ``sync_turn`` would have seen.

A turn is a user message and everything up to the next one; what the provider got live was the
user's text and the assistant's final text (the last assistant message of the turn). A part of a
compression chain starts with copies of the messages its predecessor kept; those turns were
already replayed with the earlier part, so they are recognised (same role, same text, counted)
and left out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: Session sources that are not conversations with the user: sub-agent work, background
#: reviews, tool and board sessions. Session search hides the same ones.
NON_CONVERSATION_SOURCES = frozenset({"subagent", "review", "tool", "kanban"})
#: The roles whose copies a compression carries into the next part of a chain.
_COPIED_ROLES = ("user", "assistant")

TextFilter = Callable[[str], str]


@dataclass(frozen=True)
class ReplayTurn:
    """One completed turn of a stored session."""

    session_id: str
    message_id: int  # the user message's id: what names the turn in checkpoints
    user: str
    assistant: str
    timestamp: float  # when the turn completed (its last message)
    end: int  # how many of the session's messages the turn ends after

    @property
    def item(self) -> str:
        return f"turn:{self.message_id}"

    @property
    def source(self) -> str:
        return f"session:{self.session_id}:message:{self.message_id}"


def content_text(content: Any) -> str:
    """The text of a stored content: plain text, or the text parts of a list of parts (kept as JSON)."""
    if content is None:
        return ""
    parts = content
    if isinstance(content, str):
        if not content.startswith("["):
            return content
        try:
            parts = json.loads(content)
        except ValueError:
            return content
    if not isinstance(parts, list):
        return content if isinstance(content, str) else ""
    texts = [p.get("text", "") for p in parts if isinstance(p, dict) and p.get("type") in ("text", "input_text", "output_text")]
    if not texts and not all(isinstance(p, dict) and "type" in p for p in parts):
        return content if isinstance(content, str) else ""  # a text that only looks like JSON
    return "\n".join(t for t in texts if isinstance(t, str))


def copies_of(earlier_parts: Sequence[Sequence[dict[str, Any]]], clean: TextFilter) -> Counter[tuple[str, str]]:
    """(role, text) of every user and assistant message of the earlier parts of a chain, counted."""
    counts: Counter[tuple[str, str]] = Counter()
    for messages in earlier_parts:
        for message in messages:
            if message.get("role") in _COPIED_ROLES:
                counts[(message["role"], clean(content_text(message.get("content"))))] += 1
    return counts


def session_turns(session_id: str, messages: Sequence[dict[str, Any]], *, copies: Counter[tuple[str, str]] | None = None,
                  clean: TextFilter = str.strip, since: float | None = None) -> list[ReplayTurn]:
    """The turns of one session's messages (in order), without copies and without empty user texts."""
    copies = Counter(copies or ())
    turns: list[ReplayTurn] = []
    current: dict[str, Any] | None = None

    def close() -> None:
        if current is not None and not current["copy"] and current["user"] and (since is None or current["started"] >= since):
            turns.append(ReplayTurn(session_id, current["id"], current["user"], current["assistant"], current["timestamp"], current["end"]))

    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in _COPIED_ROLES:
            if current is not None:
                current["end"], current["timestamp"] = index + 1, float(message.get("timestamp") or current["timestamp"])
            continue
        text = clean(content_text(message.get("content")))
        copied = copies[(role, text)] > 0
        if copied:
            copies[(role, text)] -= 1
        stamp = float(message.get("timestamp") or 0.0)
        if role == "user":
            close()
            current = {"id": int(message["id"]), "user": text, "assistant": "", "timestamp": stamp, "started": stamp, "end": index + 1, "copy": copied}
        elif current is not None:
            current.update(assistant=text, timestamp=stamp, end=index + 1)
    close()
    return turns


def wire_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages as the runtime hands them to ``sync_turn(messages=...)``: role, content and tool fields."""
    wire = []
    for message in messages:
        entry = {"role": message.get("role"), "content": message.get("content")}
        for key in ("tool_calls", "tool_call_id", "tool_name"):
            if message.get(key):
                entry[key] = message[key]
        wire.append(entry)
    return wire
