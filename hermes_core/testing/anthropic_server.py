"""Scripted servers speaking the Anthropic Messages protocol, one of them simulating prompt caching."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .model_server import ScriptedModelServer, _pieces
from .prefix_cache import PrefixCache, _tokens, anthropic_prompt_blocks
from .replies import (
    DEFAULT_CHARS_PER_TOKEN,
    RecordedRequest,
    Reply,
    ScriptItem,
    error_reply,
)

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
    413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error",
}


class AnthropicServer(ScriptedModelServer):
    """Speaks ``POST /v1/messages``; :attr:`base_url` is the origin (clients append ``/v1/messages``).

    Usage is estimated at ``chars_per_token``; pass ``prefix_cache`` (or use
    :class:`CachingAnthropicServer`) to have cache reads and writes simulated as well.
    """

    protocol = "anthropic"

    def __init__(
        self,
        script: Iterable[ScriptItem] | Callable[[RecordedRequest], Reply] = (),
        *,
        prefix_cache: PrefixCache | None = None,
        **options: Any,
    ) -> None:
        super().__init__(script, **options)
        self.prefix_cache = prefix_cache

    def _refuse(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or request.path.rstrip("/") != "/v1/messages":
            return error_reply(404, f"no route for {request.method} {request.path}")
        if self.api_key is not None and request.headers.get("x-api-key") != self.api_key:
            return error_reply(401, "invalid x-api-key")
        if not request.headers.get("anthropic-version"):
            return error_reply(400, "anthropic-version: header is required")
        body = request.body
        if not isinstance(body, dict):
            return error_reply(400, "the body must be a JSON object")
        if self.models is not None and body.get("model") not in self.models:
            return error_reply(404, f"model: {body.get('model')}")
        problem = validate_anthropic_body(body)
        return error_reply(400, problem) if problem else None

    def _error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        kind = error_type or _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def _usage(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        if reply.usage is not None:
            return dict(reply.usage)
        if self.prefix_cache is not None:
            usage: dict[str, Any] = self.prefix_cache.process(request.body)
        else:
            blocks = anthropic_prompt_blocks(request.body)
            total = sum(_tokens(block.chars, self.chars_per_token) for block in blocks)
            usage = {"input_tokens": total, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        usage["output_tokens"] = self._output_tokens(reply)
        return usage

    def _stop(self, reply: Reply) -> str:
        return reply.finish_reason or ("tool_use" if reply.tool_calls else "end_turn")

    def _content(self, reply: Reply) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        for call in reply.tool_calls:
            arguments = json.loads(call.arguments_json()) if call.arguments_json().strip() else {}
            content.append({"type": "tool_use", "id": self._call_id(call, "toolu_"), "name": call.name, "input": arguments})
        return content

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        return {
            "id": f"msg_{self._next_id():06d}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or request.body.get("model") or self.model,
            "content": self._content(reply),
            "stop_reason": self._stop(reply),
            "stop_sequence": None,
            "usage": self._usage(request, reply),
        }

    def _stream_events(self, request: RecordedRequest, reply: Reply) -> Iterator[str]:
        def event(name: str, data: dict[str, Any]) -> str:
            return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"

        usage = self._usage(request, reply)
        start_usage = {**usage, "output_tokens": 1}
        yield event("message_start", {"message": {
            "id": f"msg_{self._next_id():06d}", "type": "message", "role": "assistant",
            "model": reply.model or request.body.get("model") or self.model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}})
        yield event("ping", {})
        index = 0
        if reply.text:
            yield event("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
            for piece in self._text_chunks(reply):
                yield event("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}})
            if reply.stream_error is not None:
                yield event("error", {"error": {"type": "overloaded_error", "message": reply.stream_error}})
                return
            yield event("content_block_stop", {"index": index})
            index += 1
        elif reply.stream_error is not None:
            yield event("error", {"error": {"type": "overloaded_error", "message": reply.stream_error}})
            return
        for block in self._content(reply)[index:]:
            yield event("content_block_start", {"index": index, "content_block": {**block, "input": {}}})
            for piece in _pieces(json.dumps(block["input"]), 7):
                yield event("content_block_delta", {"index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})
            yield event("content_block_stop", {"index": index})
            index += 1
        yield event("message_delta", {"delta": {"stop_reason": self._stop(reply), "stop_sequence": None},
                                      "usage": {"output_tokens": usage.get("output_tokens", 0)}})
        yield event("message_stop", {})


class CachingAnthropicServer(AnthropicServer):
    """An :class:`AnthropicServer` whose usage comes from a :class:`PrefixCache` (see there for the rules)."""

    def __init__(
        self,
        script: Iterable[ScriptItem] | Callable[[RecordedRequest], Reply] = (),
        *,
        min_cache_tokens: int = 1024,
        lookback_blocks: int = 20,
        chars_per_token: int = DEFAULT_CHARS_PER_TOKEN,
        **options: Any,
    ) -> None:
        cache = PrefixCache(chars_per_token=chars_per_token, min_tokens=min_cache_tokens, lookback_blocks=lookback_blocks)
        super().__init__(script, prefix_cache=cache, chars_per_token=chars_per_token, **options)

    @property
    def cache(self) -> PrefixCache:
        assert self.prefix_cache is not None
        return self.prefix_cache

def validate_anthropic_body(body: dict[str, Any]) -> str | None:
    """Why the Messages API would refuse ``body``, or None."""
    if not isinstance(body.get("max_tokens"), int):
        return "max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    breakpoints = sum(1 for block in anthropic_prompt_blocks(body) if block.breakpoint)
    if breakpoints > 4:
        return f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}."
    pending: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{index}.role: Input should be 'user' or 'assistant'"
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or not blocks:
            return f"messages.{index}: content must not be empty"
        for block in blocks:
            if block.get("type") == "text" and not block.get("text"):
                return f"messages.{index}: text content blocks must be non-empty"
        answered = {block.get("tool_use_id") for block in blocks if block.get("type") == "tool_result"}
        if pending:
            if role != "user" or not pending <= answered:
                return (f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{', '.join(sorted(pending - answered))}")
        elif answered:
            return f"messages.{index}: unexpected `tool_use_id` found in `tool_result` blocks: {', '.join(sorted(answered))}"
        pending = {block.get("id") for block in blocks if block.get("type") == "tool_use"} if role == "assistant" else set()
    return None

