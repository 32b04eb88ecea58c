"""OpenAI-format tool calls: the one shape the runtime sees, whatever the provider sent."""

from __future__ import annotations

import json
import uuid
from typing import Any


def new_call_id() -> str:
    """An id for a tool call the server sent without one (some local servers do), so its result can refer to it."""
    return f"call_{uuid.uuid4().hex[:24]}"


def tool_call(call_id: str | None, name: str, arguments: Any) -> dict[str, Any]:
    """``{"id", "type": "function", "function": {"name", "arguments"}}`` with ``arguments`` as a JSON string."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
    return {"id": call_id or new_call_id(), "type": "function", "function": {"name": name, "arguments": arguments}}


def normalise_tool_calls(calls: Any) -> list[dict[str, Any]]:
    """Tool calls as a server returned them (possibly missing ids or with object arguments), normalised."""
    result: list[dict[str, Any]] = []
    for call in calls or []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") or {}
        name = function.get("name") or call.get("name") or ""
        arguments = function.get("arguments", call.get("arguments", ""))
        result.append(tool_call(call.get("id"), name, "" if arguments is None else arguments))
    return result


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict; ``{}`` when they are empty or not a JSON object.

    Used where a provider insists on an object (Anthropic's tool_use ``input``): malformed
    arguments already earned the model an error result when the tool ran, so the call itself
    is replayed as an empty object rather than breaking every later request.
    """
    if isinstance(arguments, dict):
        return arguments
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}
