"""A scripted server speaking the OpenAI chat-completions protocol."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from .model_server import ScriptedModelServer, _pieces
from .prefix_cache import _tokens
from .replies import RecordedRequest, Reply, error_reply


class OpenAIServer(ScriptedModelServer):
    """Speaks ``POST /v1/chat/completions``; :attr:`base_url` ends in ``/v1``."""

    protocol = "openai"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def _refuse(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or not request.path.rstrip("/").endswith("/v1/chat/completions"):
            return error_reply(404, f"no route for {request.method} {request.path}", error_type="not_found")
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return error_reply(401, "Incorrect API key provided.", error_type="invalid_api_key")
        body = request.body
        if not isinstance(body, dict):
            return error_reply(400, "the body must be a JSON object")
        if self.models is not None and body.get("model") not in self.models:
            return error_reply(404, f"The model `{body.get('model')}` does not exist.", error_type="model_not_found")
        problem = validate_openai_messages(body.get("messages"))
        return error_reply(400, problem, error_type="invalid_request_error") if problem else None

    def _error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        kind = error_type or ("rate_limit_exceeded" if status == 429 else "server_error" if status >= 500 else "invalid_request_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}

    def _usage(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        if reply.usage is not None:
            return reply.usage
        body = request.body
        prompt_chars = len(json.dumps(body.get("messages"), ensure_ascii=False)) + len(json.dumps(body.get("tools") or []))
        prompt = _tokens(prompt_chars, self.chars_per_token)
        completion = self._output_tokens(reply)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _finish(self, reply: Reply) -> str:
        return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")

    def _model(self, request: RecordedRequest, reply: Reply) -> str:
        return reply.model or request.body.get("model") or self.model

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": self._call_id(call, "call_"), "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments_json()}}
                for call in reply.tool_calls
            ]
        return {
            "id": f"chatcmpl-{self._next_id()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self._model(request, reply),
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish(reply)}],
            "usage": self._usage(request, reply),
        }

    def _stream_events(self, request: RecordedRequest, reply: Reply) -> Iterator[str]:
        base = {"id": f"chatcmpl-{self._next_id()}", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": self._model(request, reply)}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            return "data: " + json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"

        yield chunk({"role": "assistant", "content": ""})
        for piece in self._text_chunks(reply):
            yield chunk({"content": piece})
        if reply.stream_error is not None:
            yield "data: " + json.dumps({"error": {"message": reply.stream_error, "type": "server_error"}}) + "\n\n"
            return
        for index, call in enumerate(reply.tool_calls):
            yield chunk({"tool_calls": [{"index": index, "id": self._call_id(call, "call_"), "type": "function",
                                         "function": {"name": call.name, "arguments": ""}}]})
            for piece in _pieces(call.arguments_json(), 7):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, self._finish(reply))
        options = request.body.get("stream_options") or {}
        if options.get("include_usage"):
            yield "data: " + json.dumps({**base, "choices": [], "usage": self._usage(request, reply)}) + "\n\n"
        yield "data: [DONE]\n\n"

# --- request validation (what the real APIs refuse) -------------------------------


def validate_openai_messages(messages: Any) -> str | None:
    """Why the chat-completions API would refuse ``messages``, or None."""
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    open_calls: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            return f"messages[{index}].role {role!r} is not one of system, user, assistant, tool"
        if role == "tool":
            if message.get("tool_call_id") not in open_calls:
                return (f"messages[{index}]: a message with role 'tool' must be a response to a preceding message "
                        f"with 'tool_calls' (tool_call_id {message.get('tool_call_id')!r})")
            open_calls.discard(message["tool_call_id"])
            continue
        if open_calls:
            return f"messages[{index}]: tool_calls {sorted(open_calls)} have no tool messages answering them"
        if role == "assistant":
            open_calls = {call.get("id") for call in message.get("tool_calls") or []}
    return None

