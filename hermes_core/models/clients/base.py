"""What the bundled HTTP clients share: the call loop, streaming, the transport, and the hook-ready request record.

One model call is the same for every wire format: build the body, report it, POST it
(or stream it), parse the reply, strip what the user must not see. The two clients
differ only in the format, which each supplies through four small methods:
``build_request``, ``parse_reply``, ``new_assembler`` and ``feed_event``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self

from hermes_core.models.clients.errors import ModelAPIError, StreamError
from hermes_core.models.clients.protocol import TextCallback
from hermes_core.models.clients.response import ModelResponse
from hermes_core.models.clients.sanitize import sanitize_request, sanitize_response
from hermes_core.models.clients.sse import SSEEvent, iter_sse_events
from hermes_core.models.clients.transport import HttpTransport, RetryPolicy
from hermes_core.models.clients.visible import VisibleTextStream, visible_text

if TYPE_CHECKING:
    import httpx

#: Called with the sanitized ``{"method", "url", "body"}`` just before the request goes out.
RequestCallback = Callable[[dict[str, Any]], None]


class StreamAssembler(Protocol):
    """Builds the whole reply from a stream's events; ``received`` counts the events it took."""

    received: int

    def reply(self) -> dict[str, Any]: ...


class HttpModelClient:
    """Base of :class:`OpenAIChatClient` and :class:`AnthropicMessagesClient`; usable as a context manager."""

    #: Short provider name used in errors and hook kwargs.
    provider: str = ""
    #: The ``api_mode`` hook kwarg.
    api_mode: str = ""
    #: Environment variable that holds this provider's key, named in authentication errors.
    key_env: str = ""
    #: Path appended to ``base_url``.
    endpoint: str = ""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        headers: Mapping[str, str],
        timeout: float,
        max_retries: int,
        connect_timeout: float | None,
        retry: RetryPolicy | None,
        http_client: httpx.Client | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        # max_retries is the documented knob; a policy passed in supplies the waits, not the count.
        policy = dataclasses.replace(retry or RetryPolicy(), max_retries=max_retries)
        self.retry = policy
        self._transport = HttpTransport(
            provider=self.provider,
            base_url=self.base_url,
            model=model,
            key_env=self.key_env,
            headers=headers,
            timeout=timeout,
            connect_timeout=connect_timeout,
            retry=policy,
            http_client=http_client,
        )

    @property
    def url(self) -> str:
        """The endpoint every request is POSTed to."""
        return self._transport.url(self.endpoint)

    def close(self) -> None:
        """Close the HTTP connection pool (not a client passed in as ``http_client``)."""
        self._transport.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the wire format, supplied by each client ------------------------------------
    def build_request(self, messages: Sequence[dict[str, Any]], *, tools: Sequence[dict[str, Any]] | None = None,
                      system: str | None = None, max_tokens: int | None = None, stream: bool = False) -> dict[str, Any]:
        """The request body :meth:`complete` would send (not sanitized)."""
        raise NotImplementedError

    def parse_reply(self, reply: dict[str, Any]) -> dict[str, Any]:
        """A whole reply as :class:`ModelResponse` fields; ValueError when it is malformed."""
        raise NotImplementedError

    def new_assembler(self) -> StreamAssembler:
        raise NotImplementedError

    def feed_event(self, assembler: Any, event: SSEEvent, attempts: int) -> tuple[str, bool]:
        """Feed one stream event: (visible text it adds, whether the stream is over)."""
        raise NotImplementedError

    # -- one call ----------------------------------------------------------------------
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
            fields = self.parse_reply(reply)
        except ValueError as exc:
            raise self._bad_reply(str(exc), attempts) from None
        fields["text"] = visible_text(fields["text"]) if text is None else text
        return ModelResponse(**fields, raw=sanitize_response(reply), request=record, attempts=attempts)

    def _stream(self, body: dict[str, Any], on_text: TextCallback | None) -> tuple[dict[str, Any], str, int]:
        assembler = self.new_assembler()
        visible = VisibleTextStream(on_text)
        with self._transport.post_stream(self.endpoint, body) as (lines, attempts):
            for event in iter_sse_events(lines):
                try:
                    delta, done = self.feed_event(assembler, event, attempts)
                except StreamError as exc:
                    raise self._stream_failed(exc, attempts) from None
                if delta:
                    visible.feed(delta)
                if done:
                    break
        if not assembler.received:
            raise self._bad_reply("the stream ended before any data", attempts)
        return assembler.reply(), visible.finish(), attempts

    def request_record(self, body: dict[str, Any]) -> dict[str, Any]:
        """``{"method", "url", "body"}`` with secrets removed: the ``request`` of the API hooks."""
        return {"method": "POST", "url": self.url, "body": sanitize_request(body)}

    def _decode_event(self, data: str, attempts: int) -> dict[str, Any]:
        try:
            decoded = json.loads(data)
        except ValueError:
            raise self._bad_reply(f"a stream event is not JSON: {data[:80]!r}", attempts) from None
        if not isinstance(decoded, dict):
            raise self._bad_reply("a stream event is not a JSON object", attempts)
        return decoded

    def _bad_reply(self, detail: str, attempts: int) -> ModelAPIError:
        return self._transport.bad_response(self.url, detail, attempts)

    def _stream_failed(self, error: StreamError, attempts: int) -> ModelAPIError:
        overloaded = error.kind in {"overloaded_error", "rate_limit_error", "api_error"}
        return ModelAPIError(
            f"{self.provider} stream from {self.url} reported an error: {error} -> "
            + ("the provider is overloaded; try again shortly" if overloaded else "try again; if it persists, try without streaming"),
            provider=self.provider,
            reason="server_error",
            base_url=self.base_url,
            model=self.model,
            retryable=overloaded,
            attempts=attempts,
            provider_message=str(error),
        )
