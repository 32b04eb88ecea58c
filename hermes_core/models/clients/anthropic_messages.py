"""AnthropicMessagesClient: the Messages API over httpx, with request middleware such as prompt caching."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.models.clients.anthropic_format import MessageStreamAssembler, build_body, parse_message
from hermes_core.models.clients.base import HttpModelClient
from hermes_core.models.clients.sse import SSEEvent
from hermes_core.models.clients.transport import RetryPolicy

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

    def parse_reply(self, reply: dict[str, Any]) -> dict[str, Any]:
        return parse_message(reply)

    def new_assembler(self) -> MessageStreamAssembler:
        return MessageStreamAssembler()

    def feed_event(self, assembler: MessageStreamAssembler, event: SSEEvent, attempts: int) -> tuple[str, bool]:
        data = self._decode_event(event.data, attempts)
        return assembler.feed(event.event, data), data.get("type") == "message_stop"
