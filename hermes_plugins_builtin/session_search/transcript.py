"""A stored conversation as plain text a summary model can read, tool calls and their arguments included."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any


def iso_time(timestamp: Any) -> str | None:
    """Epoch seconds as ISO 8601 UTC ('2025-05-01T09:30:00+00:00'), or None when absent."""
    if not isinstance(timestamp, (int, float)) or isinstance(timestamp, bool):
        return None
    try:
        return datetime.fromtimestamp(float(timestamp), tz=timezone.utc).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None


def _call_line(call: Any) -> str:
    """One tool call as 'name(arguments)'; arguments stay verbatim because matches often sit in them."""
    if not isinstance(call, Mapping):
        return str(call)
    function = call.get("function") if isinstance(call.get("function"), Mapping) else call
    name = function.get("name") or "?"
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return f"{name}({arguments})"


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal parts: keep the text ones
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("text"))
    return str(content)


def format_message(message: Mapping[str, Any]) -> str:
    """One message as '[ROLE] text', tool calls as '[ASSISTANT -> tool] name(args)'."""
    role = str(message.get("role") or "unknown")
    lines: list[str] = []
    text = _content_text(message.get("content")).strip()
    if role == "tool":
        label = f"[TOOL {message['tool_name']}]" if message.get("tool_name") else "[TOOL]"
        lines.append(f"{label} {text}".rstrip())
    elif text:
        lines.append(f"[{role.upper()}] {text}")
    calls = message.get("tool_calls")
    if isinstance(calls, str):  # stored by something that did not write JSON
        calls = [calls]
    for call in calls or []:
        lines.append(f"[{role.upper()} -> tool] {_call_line(call)}")
    return "\n".join(lines)


def format_conversation(messages: Iterable[Mapping[str, Any]]) -> str:
    """The whole conversation, one block per message, blank lines between them."""
    blocks = (format_message(m) for m in messages)
    return "\n\n".join(b for b in blocks if b)
