"""AnthropicMessagesClient: the Messages API over httpx, with request middleware such as prompt caching."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.runtime.clients.anthropic_format import MessageStreamAssembler, build_body, parse_message
from hermes_core.runtime.clients.base import HttpModelClient, RequestCallback
from hermes_core.runtime.clients.errors import StreamError
from hermes_core.runtime.clients.protocol import TextCallback
from hermes_core.runtime.clients.response import ModelResponse
from hermes_core.runtime.clients.sanitize import sanitize_response
from hermes_core.runtime.clients.sse import iter_sse_events
from hermes_core.runtime.clients.transport import RetryPolicy
from hermes_core.runtime.clients.visible import VisibleTextStream, visible_text

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_BASE_URL = "https://api.anthropic.com"
#: The API requires max_tokens; used when the caller gives none.
DEFAULT_MAX_TOKENS = 8192

#: Middleware of kind ``anthropic_request``: takes the request body, returns the body to send.
RequestMiddleware = Callable[[dict[str, Any]], dict[str, Any]]


class AnthropicMessagesClient(HttpModelClient):
    """POST ``{base_url}/v1/messages``; ``base_url`` is the host without the version."""

    provider = "anthropic"
    api_mode = "anthropic_messages"
    key_env = "ANTHROPIC_API_KEY"
    endpoint = "/v1/messages"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        model: str = "",
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        request_middleware: Sequence[RequestMiddleware] = (),
        *,
        connect_timeout: float | None = None,
        retry: RetryPolicy | None = None,
        default_max_tokens: int = DEFAULT_MAX_TOKENS,
        extra_body: Mapping[str, Any] | None = None,
        extra_headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        """
        :param request_middleware: callables run in order on every request body before it is sent
            (the ``anthropic_request`` middleware plugins register, e.g. prompt caching).
        """
        if not model:
            raise ValueError("AnthropicMessagesClient needs a model name, e.g. model='claude-sonnet-4-5'")
        headers = {"anthropic-version": ANTHROPIC_VERSION, **(extra_headers or {})}
        if api_key:
            headers["x-api-key"] = api_key
        super().__init__(
            base_url=base_url, model=model, headers=headers, timeout=timeout, max_retries=max_retries,
            connect_timeout=connect_timeout, retry=retry, http_client=http_client,
        )
        self.request_middleware = tuple(request_middleware)
        self.default_max_tokens = default_max_tokens
        self.extra_body = dict(extra_body or {})

    def build_request(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        system: str | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
    ) -> dict[str, Any]:
        """The request body :meth:`complete` would send, middleware applied (not sanitized)."""
        body = build_body(
            self.model, messages, tools=tools, system=system, max_tokens=max_tokens or self.default_max_tokens,
            stream=stream, extra_body=self.extra_body,
        )
        return self.apply_middleware(body)

    def apply_middleware(self, body: dict[str, Any]) -> dict[str, Any]:
        """Run every request middleware on ``body`` in order.

        A middleware that raises or returns something other than a dict is skipped with a
        warning: losing, say, cache breakpoints for one call is better than losing the turn.
        """
        for middleware in self.request_middleware:
            try:
                result = middleware(body)
            except Exception:
                logger.warning("anthropic_request middleware %r failed; request sent without it", middleware, exc_info=True)
                continue
            if result is None:
                continue  # it edited the body in place
            if not isinstance(result, dict):
                logger.warning("anthropic_request middleware %r returned %s, not a dict; ignored", middleware, type(result).__name__)
                continue
            body = result
        return body

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        system: str | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
        on_text: TextCallback | None = None,
        on_request: RequestCallback | None = None,
    ) -> ModelResponse:
        """Run one model call; raises :class:`ModelAPIError` on any failure."""
        body = self.build_request(messages, tools=tools, system=system, max_tokens=max_tokens, stream=stream)
        record = self.request_record(body)
        if on_request is not None:
            on_request(record)
        if stream:
            reply, text, attempts = self._stream(body, on_text)
        else:
            reply, attempts = self._transport.post_json(self.endpoint, body)
            text = None
        try:
            fields = parse_message(reply)
        except ValueError as exc:
            raise self._bad_reply(str(exc), attempts) from None
        fields["text"] = visible_text(fields["text"]) if text is None else text
        return ModelResponse(**fields, raw=sanitize_response(reply), request=record, attempts=attempts)

    def _stream(self, body: dict[str, Any], on_text: TextCallback | None) -> tuple[dict[str, Any], str, int]:
        assembler = MessageStreamAssembler()
        visible = VisibleTextStream(on_text)
        with self._transport.post_stream(self.endpoint, body) as (lines, attempts):
            for event in iter_sse_events(lines):
                data = self._decode_event(event.data, attempts)
                try:
                    delta = assembler.feed(event.event, data)
                except StreamError as exc:
                    raise self._stream_failed(exc, attempts) from None
                if delta:
                    visible.feed(delta)
                if data.get("type") == "message_stop":
                    break
        if not assembler.events:
            raise self._bad_reply("the stream ended before any data", attempts)
        return assembler.reply(), visible.finish(), attempts
