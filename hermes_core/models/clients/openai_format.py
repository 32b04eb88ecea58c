"""The OpenAI chat-completions wire format: request bodies, replies, stream chunks and usage."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from hermes_core.models.clients.errors import StreamError
from hermes_core.models.clients.response import empty_usage, usage_count
from hermes_core.models.clients.tool_calls import new_call_id, normalise_tool_calls

# Keys a chat-completions message may carry; stored messages have more (timestamps, token
# counts, reasoning) and strict servers answer 400 to anything unknown.
MESSAGE_KEYS: frozenset[str] = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})

_FINISH: dict[str, str] = {
    "stop": "stop",
    "eos": "stop",
    "eos_token": "stop",
    "end_turn": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "content_filter",
}


def api_messages(messages: Sequence[dict[str, Any]], system: str | None) -> list[dict[str, Any]]:
    """The ``messages`` array: ``system`` first when given, each message reduced to the keys the API knows."""
    result: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        result.append({key: value for key, value in message.items() if key in MESSAGE_KEYS})
    return result


def build_body(
    model: str,
    messages: Sequence[dict[str, Any]],
    *,
    tools: Sequence[dict[str, Any]] | None,
    system: str | None,
    max_tokens: int | None,
    stream: bool,
    max_tokens_param: str = "max_tokens",
    stream_usage: bool = True,
    extra_body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``/chat/completions`` request body."""
    body: dict[str, Any] = {"model": model, "messages": api_messages(messages, system)}
    if tools:
        body["tools"] = [dict(tool) for tool in tools]
    if max_tokens is not None:
        body[max_tokens_param] = max_tokens
    if stream:
        body["stream"] = True
        if stream_usage:
            # Without this, streamed replies carry no token counts at all.
            body["stream_options"] = {"include_usage": True}
    if extra_body:
        body.update({key: value for key, value in extra_body.items() if key not in body})
    return body


def normalise_finish_reason(value: Any, has_tool_calls: bool) -> str:
    """Map a server's finish reason onto stop|tool_calls|length|content_filter (others pass through)."""
    reason = _FINISH.get(str(value).lower(), str(value)) if value else "stop"
    # Some local servers report "stop" even when the reply is a tool call; the calls are what matter.
    if has_tool_calls and reason == "stop":
        return "tool_calls"
    return reason


def map_usage(usage: Any) -> dict[str, int]:
    """Chat-completions usage as hermes counters; cached prompt tokens are taken out of ``input_tokens``."""
    result = empty_usage()
    if not isinstance(usage, dict):
        return result
    details = usage.get("prompt_tokens_details") or {}
    prompt = usage_count(usage.get("prompt_tokens"))
    # cached_tokens is OpenAI's name; prompt_cache_hit_tokens is used by some compatible providers.
    cached = usage_count(details.get("cached_tokens")) or usage_count(usage.get("prompt_cache_hit_tokens"))
    written = usage_count(details.get("cache_write_tokens"))
    result["input_tokens"] = max(0, prompt - cached - written)
    result["output_tokens"] = usage_count(usage.get("completion_tokens"))
    result["cache_read_tokens"] = cached
    result["cache_write_tokens"] = written
    completion_details = usage.get("completion_tokens_details") or {}
    if isinstance(completion_details, dict) and completion_details.get("reasoning_tokens") is not None:
        result["reasoning_tokens"] = usage_count(completion_details.get("reasoning_tokens"))
    return result


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def parse_completion(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a ``chat.completion`` object: text, tool_calls, finish_reason, usage, model, reasoning.

    Raises ``ValueError`` when there is no choice to read.
    """
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("no 'choices' in the reply")
    choice = choices[0]
    message = choice.get("message") or {}
    tool_calls = normalise_tool_calls(message.get("tool_calls"))
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    return {
        "text": _text(message.get("content")),
        "tool_calls": tool_calls,
        "finish_reason": normalise_finish_reason(choice.get("finish_reason"), bool(tool_calls)),
        "usage": map_usage(data.get("usage")),
        "response_model": data.get("model"),
        "reasoning": reasoning if isinstance(reasoning, str) and reasoning else None,
    }


class ChatStreamAssembler:
    """Builds the equivalent non-streamed ``chat.completion`` object from stream chunks."""

    def __init__(self) -> None:
        self.id: str | None = None
        self.model: str | None = None
        self.created: int | None = None
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None
        #: Chunks taken so far; 0 at the end means the server sent an empty stream.
        self.received = 0

    def feed(self, chunk: dict[str, Any]) -> str:
        """Take one chunk; return its text delta (``""`` when it has none)."""
        self.received += 1
        if "error" in chunk and not chunk.get("choices"):
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else str(error)
            raise StreamError(message or "the server reported an error mid-stream")
        self.id = self.id or chunk.get("id")
        self.model = self.model or chunk.get("model")
        self.created = self.created or chunk.get("created")
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        text = ""
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # n > 1 is never requested; ignore stray alternatives
            delta = choice.get("delta") or {}
            piece = delta.get("content")
            if isinstance(piece, str) and piece:
                self._content.append(piece)
                text += piece
            thought = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thought, str):
                self._reasoning.append(thought)
            for call_delta in delta.get("tool_calls") or []:
                if isinstance(call_delta, dict):
                    self._add_call_delta(call_delta)
            if choice.get("finish_reason"):
                self._finish = choice["finish_reason"]
        return text

    def _add_call_delta(self, delta: dict[str, Any]) -> None:
        index = delta.get("index")
        if not isinstance(index, int):
            # A few servers leave out the index: a new id starts a new call, anything else continues the last.
            known_ids = {call["id"] for call in self._calls.values()}
            if not self._calls or (delta.get("id") and delta["id"] not in known_ids):
                index = len(self._calls)
            else:
                index = max(self._calls)
        call = self._calls.setdefault(index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
        if delta.get("id"):
            call["id"] = delta["id"]
        function = delta.get("function") or {}
        name = function.get("name")
        # The name normally arrives once; some servers repeat it in every chunk.
        if name and name != call["function"]["name"]:
            call["function"]["name"] += name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call["function"]["arguments"] += arguments
        elif isinstance(arguments, dict):
            call["function"]["arguments"] += json.dumps(arguments, ensure_ascii=False)

    def reply(self) -> dict[str, Any]:
        """The assembled ``chat.completion`` object."""
        calls = [self._calls[i] for i in sorted(self._calls)]
        for call in calls:
            call["id"] = call["id"] or new_call_id()
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._content) or None}
        if calls:
            message["tool_calls"] = calls
        if self._reasoning:
            message["reasoning_content"] = "".join(self._reasoning)
        result: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created or int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish}],
        }
        if self._usage is not None:
            result["usage"] = self._usage
        return result
