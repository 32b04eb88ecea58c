"""The Anthropic Messages wire format: OpenAI-format conversations in, Messages replies and streams out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_core.models.clients.errors import StreamError
from hermes_core.models.clients.response import empty_usage, usage_count
from hermes_core.models.clients.tool_calls import parse_arguments, tool_call

_STOP_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


# --- request -----------------------------------------------------------------


def convert_tools(tools: Sequence[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """OpenAI function tools as ``{name, description, input_schema}``; tools already in that shape pass through."""
    result: list[dict[str, Any]] = []
    for tool in tools or []:
        function = tool.get("function") if tool.get("type") == "function" else None
        if not isinstance(function, dict):
            result.append(dict(tool))
            continue
        converted: dict[str, Any] = {"name": function["name"]}
        if function.get("description"):
            converted["description"] = function["description"]
        converted["input_schema"] = function.get("parameters") or {"type": "object", "properties": {}}
        result.append(converted)
    return result


def _image_block(url: str) -> dict[str, Any]:
    if url.startswith("data:") and ";base64," in url:
        header, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": header or "image/png", "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _blocks(content: Any) -> list[dict[str, Any]]:
    """OpenAI content parts as Anthropic blocks; blocks that are already Anthropic-shaped (and their cache_control) pass through."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, str):
            if part:
                blocks.append({"type": "text", "text": part})
        elif part.get("type") == "image_url":
            image = part.get("image_url")
            url = image.get("url", "") if isinstance(image, dict) else str(image or "")
            block = _image_block(url)
            if "cache_control" in part:
                block["cache_control"] = part["cache_control"]
            blocks.append(block)
        elif part.get("type") == "text" and not part.get("text"):
            continue  # the API refuses empty text blocks
        else:
            blocks.append(dict(part))
    return blocks


def _content(content: Any) -> str | list[dict[str, Any]]:
    """A string stays a string (byte for byte, which keeps cached prefixes stable); a list becomes blocks."""
    if isinstance(content, str):
        return content
    return _blocks(content)


def _system(parts: list[Any]) -> str | list[dict[str, Any]] | None:
    if not parts:
        return None
    if all(isinstance(part, str) for part in parts):
        return "\n\n".join(parts)
    blocks: list[dict[str, Any]] = []
    for part in parts:
        blocks.extend(_blocks(part))
    return blocks


def convert_messages(
    messages: Sequence[dict[str, Any]], system: Any = None
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """OpenAI chat messages as ``(system, messages)`` for the Messages API.

    System messages join ``system``; assistant ``tool_calls`` become ``tool_use`` blocks; ``tool``
    messages become ``tool_result`` blocks of a user message, consecutive results sharing one
    message as the API requires. An assistant message with neither text nor tool calls is dropped,
    since the API refuses empty content.
    """
    system_parts: list[Any] = [system] if system else []
    converted: list[dict[str, Any]] = []
    previous_was_tool = False
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            if content:
                system_parts.append(content)
            continue
        if role == "tool":
            result = {
                "type": "tool_result",
                "tool_use_id": message.get("tool_call_id", ""),
                "content": _content(content if content is not None else ""),
            }
            if previous_was_tool:
                converted[-1]["content"].append(result)
            else:
                converted.append({"role": "user", "content": [result]})
            previous_was_tool = True
            continue
        previous_was_tool = False
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not calls:
                if content:
                    converted.append({"role": "assistant", "content": _content(content)})
                continue
            blocks = _blocks(content)
            for call in calls:
                function = call.get("function") or {}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.get("id", ""),
                        "name": function.get("name", ""),
                        "input": parse_arguments(function.get("arguments")),
                    }
                )
            converted.append({"role": "assistant", "content": blocks})
        else:
            converted.append({"role": "user", "content": _content(content if content is not None else "")})
    return _system(system_parts), converted


def build_body(
    model: str,
    messages: Sequence[dict[str, Any]],
    *,
    tools: Sequence[dict[str, Any]] | None,
    system: Any,
    max_tokens: int,
    stream: bool,
    extra_body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``/v1/messages`` request body (before middleware)."""
    system_out, converted = convert_messages(messages, system)
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if system_out:
        body["system"] = system_out
    body["messages"] = converted
    if tools:
        body["tools"] = convert_tools(tools)
    if stream:
        body["stream"] = True
    if extra_body:
        body.update({key: value for key, value in extra_body.items() if key not in body})
    return body


# --- response ----------------------------------------------------------------


def map_usage(usage: Any) -> dict[str, int]:
    """Messages usage as hermes counters (Anthropic's input_tokens already excludes cache reads and writes)."""
    result = empty_usage()
    if not isinstance(usage, dict):
        return result
    result["input_tokens"] = usage_count(usage.get("input_tokens"))
    result["output_tokens"] = usage_count(usage.get("output_tokens"))
    result["cache_read_tokens"] = usage_count(usage.get("cache_read_input_tokens"))
    result["cache_write_tokens"] = usage_count(usage.get("cache_creation_input_tokens"))
    return result


def normalise_stop_reason(value: Any, has_tool_calls: bool) -> str:
    """Map ``stop_reason`` onto stop|tool_calls|length|content_filter (others, e.g. pause_turn, pass through)."""
    if not value:
        return "tool_calls" if has_tool_calls else "stop"
    return _STOP_REASONS.get(str(value), str(value))


def parse_message(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a Messages reply: text, tool_calls, finish_reason, usage, model, reasoning.

    Raises ``ValueError`` when ``content`` is missing.
    """
    content = data.get("content")
    if not isinstance(content, list):
        raise ValueError("no 'content' list in the reply")
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind == "tool_use":
            calls.append(tool_call(block.get("id"), block.get("name") or "", block.get("input") or {}))
        elif kind == "thinking":
            thoughts.append(block.get("thinking") or "")
    return {
        "text": "".join(texts),
        "tool_calls": calls,
        "finish_reason": normalise_stop_reason(data.get("stop_reason"), bool(calls)),
        "usage": map_usage(data.get("usage")),
        "response_model": data.get("model"),
        "reasoning": "".join(thoughts) or None,
    }


class MessageStreamAssembler:
    """Builds the equivalent non-streamed Messages reply from stream events."""

    def __init__(self) -> None:
        self.message: dict[str, Any] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self._partial_json: dict[int, str] = {}
        self.received = 0

    def feed(self, event: str, data: dict[str, Any]) -> str:
        """Take one event; return its text delta (``""`` when it has none)."""
        self.received += 1
        kind = data.get("type", event)
        if kind == "error":
            error = data.get("error") or {}
            raise StreamError(error.get("message") or "the server reported an error mid-stream", kind=error.get("type"))
        if kind == "message_start":
            self.message = dict(data.get("message") or {})
            self.message["usage"] = dict(self.message.get("usage") or {})
        elif kind == "content_block_start":
            index = data.get("index", len(self._blocks))
            self._blocks[index] = dict(data.get("content_block") or {})
            if self._blocks[index].get("type") == "tool_use":
                self._partial_json[index] = ""
        elif kind == "content_block_delta":
            return self._delta(data.get("index", 0), data.get("delta") or {})
        elif kind == "content_block_stop":
            index = data.get("index", 0)
            if index in self._partial_json:
                raw = self._partial_json.pop(index)
                self._blocks[index]["input"] = parse_arguments(raw) if raw.strip() else self._blocks[index].get("input") or {}
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            for key in ("stop_reason", "stop_sequence"):
                if key in delta:
                    self.message[key] = delta[key]
            # Counts here are cumulative; they replace what message_start said.
            usage = data.get("usage") or {}
            self.message.setdefault("usage", {}).update({k: v for k, v in usage.items() if v is not None})
        return ""

    def _delta(self, index: int, delta: dict[str, Any]) -> str:
        block = self._blocks.setdefault(index, {"type": "text", "text": ""})
        kind = delta.get("type")
        if kind == "text_delta":
            piece = delta.get("text") or ""
            block["text"] = (block.get("text") or "") + piece
            return piece
        if kind == "input_json_delta":
            self._partial_json[index] = self._partial_json.get(index, "") + (delta.get("partial_json") or "")
        elif kind == "thinking_delta":
            block["thinking"] = (block.get("thinking") or "") + (delta.get("thinking") or "")
        elif kind == "signature_delta":
            block["signature"] = (block.get("signature") or "") + (delta.get("signature") or "")
        return ""

    def reply(self) -> dict[str, Any]:
        """The assembled Messages reply."""
        for index, raw in list(self._partial_json.items()):
            # A stream that ended without content_block_stop: use what arrived.
            self._blocks[index]["input"] = parse_arguments(raw)
        self._partial_json.clear()
        reply = dict(self.message)
        reply.setdefault("type", "message")
        reply.setdefault("role", "assistant")
        reply["content"] = [self._blocks[i] for i in sorted(self._blocks)]
        return reply
