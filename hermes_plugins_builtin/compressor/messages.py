"""Read-only accessors for chat messages in the OpenAI shape (role, content, tool_calls, tool_call_id)."""

from __future__ import annotations

import json
from typing import Any

Message = dict[str, Any]

#: Content-part types that carry an image rather than text.
IMAGE_PART_TYPES = frozenset({"image", "image_url", "input_image"})


def role_of(message: Message) -> str:
    return str(message.get("role") or "")


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return "\n".join(texts)
    return "" if content is None else str(content)


def image_count(content: Any) -> int:
    if not isinstance(content, list):
        return 0
    return sum(1 for part in content if isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES)


def tool_calls_of(message: Message) -> list[dict[str, Any]]:
    """The tool calls an assistant message made (empty for every other message)."""
    if role_of(message) != "assistant":
        return []
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [call for call in calls if isinstance(call, dict)]


def call_id(call: dict[str, Any]) -> str | None:
    value = call.get("id")
    return str(value) if value is not None else None


def call_name(call: dict[str, Any]) -> str:
    function = call.get("function")
    if isinstance(function, dict) and function.get("name"):
        return str(function["name"])
    return str(call.get("name") or "tool")


def call_arguments(call: dict[str, Any]) -> str:
    """The arguments as the model sent them (a JSON string), whatever shape they were stored in."""
    function = call.get("function")
    raw = function.get("arguments") if isinstance(function, dict) else call.get("arguments")
    if raw is None:
        return ""
    if isinstance(raw, str):
        return raw
    return json.dumps(raw, sort_keys=True, ensure_ascii=False)


def is_tool_result(message: Message) -> bool:
    return role_of(message) == "tool"


def result_call_id(message: Message) -> str | None:
    value = message.get("tool_call_id")
    return str(value) if value is not None else None


def with_content(message: Message, content: Any) -> Message:
    """A copy of ``message`` with new content; the caller's dict is never modified."""
    updated = dict(message)
    updated["content"] = content
    return updated
