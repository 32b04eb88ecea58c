"""What the bundled HTTP clients share: their transport, closing, and the hook-ready request record."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Self

from hermes_core.runtime.clients.errors import ModelAPIError, StreamError
from hermes_core.runtime.clients.sanitize import sanitize_request
from hermes_core.runtime.clients.transport import HttpTransport, RetryPolicy

if TYPE_CHECKING:
    import httpx

#: Called with the sanitized ``{"method", "url", "body"}`` just before the request goes out.
RequestCallback = Callable[[dict[str, Any]], None]


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
