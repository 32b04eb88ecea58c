"""HTTP for model clients: one httpx.Client, timeouts, retries with backoff, errors as ModelAPIError."""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from hermes_core.models.clients.errors import (
    ModelAPIError,
    bad_response_error,
    connection_error,
    http_error,
    timeout_error,
)


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before trying a failed request again.

    Retried: 429, 5xx (and 408/409/425/529), refused or dropped connections and connect timeouts.
    Not retried: read timeouts — the server got the request and may still be generating, so a resend
    would double the cost after the user already waited ``timeout`` seconds.
    """

    max_retries: int = 3
    #: First backoff in seconds; doubled on every retry, then scaled by a random factor in [0.5, 1).
    backoff_base: float = 0.5
    #: One backoff wait at most (a server's Retry-After may ask for longer, within ``max_total_wait``).
    backoff_max: float = 20.0
    #: All waits of one call together; a Retry-After beyond what is left ends the retries.
    max_total_wait: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    random: Callable[[], float] = field(default=random.random, repr=False)

    def backoff(self, retry_index: int) -> float:
        """Wait before retry number ``retry_index`` (0-based) when the server gave no Retry-After."""
        # Jitter spreads out clients that failed together so they do not retry in lockstep.
        return min(self.backoff_max, self.backoff_base * (2**retry_index)) * (0.5 + 0.5 * self.random())


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or an HTTP date."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def provider_error_message(body: bytes) -> str | None:
    """The human-readable error a provider put in its body (OpenAI, Anthropic and most local servers)."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300]
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict):
            for key in ("message", "detail", "error"):
                if isinstance(error.get(key), str):
                    return error[key][:500]
        if isinstance(error, str):
            return error[:500]
        for key in ("message", "detail"):
            if isinstance(data.get(key), str):
                return data[key][:500]
    return text[:300]


def _connection_detail(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    if "refused" in lowered:
        return "connection refused"
    if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered:
        return "host name not found"
    if "disconnected" in lowered:
        return "the server closed the connection without answering"
    return text


class HttpTransport:
    """POSTs JSON to one provider, retrying what is worth retrying, and raises only :class:`ModelAPIError`."""

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        model: str,
        key_env: str,
        headers: Mapping[str, str],
        timeout: float,
        connect_timeout: float | None,
        retry: RetryPolicy,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.provider = provider
        self.base_url = base_url
        self.model = model
        self.key_env = key_env
        self.timeout = timeout
        # A server that does not accept a connection within seconds is not coming; don't wait a full read timeout.
        self.connect_timeout = min(timeout, 10.0) if connect_timeout is None else connect_timeout
        self.retry = retry
        self._headers = {"content-type": "application/json", "accept": "application/json", **headers}
        self._owns_client = http_client is None
        if http_client is None:
            # Redirects are never followed, so a plain-http base URL (a local server) never speaks TLS;
            # skipping the certificate bundle there saves ~50 ms per client. https always verifies.
            http_client = httpx.Client(
                timeout=httpx.Timeout(timeout, connect=self.connect_timeout),
                verify=not base_url.startswith("http://"),
                follow_redirects=False,
            )
        self._client = http_client

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    def post_json(self, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """POST ``body``; return the decoded JSON object and the number of attempts made."""
        url = self.url(path)
        response, attempts = self._send(url, body, stream=False)
        try:
            data = response.json()
        except ValueError:
            raise self.bad_response(url, "the body is not JSON", attempts) from None
        if not isinstance(data, dict):
            raise self.bad_response(url, f"expected a JSON object, got {type(data).__name__}", attempts)
        return data, attempts

    @contextmanager
    def post_stream(self, path: str, body: dict[str, Any]) -> Iterator[tuple[Iterator[str], int]]:
        """POST ``body`` and yield the body's lines as they arrive, with the attempts made.

        Retries happen only before the first byte of a successful response; a stream that
        breaks later raises, since its text may already be on the user's screen.
        """
        url = self.url(path)
        response, attempts = self._send(url, body, stream=True)
        try:
            yield self._lines(response, url, attempts), attempts
        finally:
            response.close()

    def _lines(self, response: httpx.Response, url: str, attempts: int) -> Iterator[str]:
        try:
            yield from response.iter_lines()
        except httpx.TimeoutException:
            raise timeout_error(
                provider=self.provider, url=url, base_url=self.base_url, model=self.model,
                timeout=self.timeout, phase="read", attempts=attempts,
            ) from None
        except httpx.TransportError as exc:
            raise connection_error(
                provider=self.provider, base_url=self.base_url, model=self.model,
                detail=f"the stream broke off: {_connection_detail(exc)}", attempts=attempts,
            ) from None

    def bad_response(self, url: str, detail: str, attempts: int) -> ModelAPIError:
        return bad_response_error(
            provider=self.provider, url=url, base_url=self.base_url, model=self.model, detail=detail, attempts=attempts
        )

    def _send(self, url: str, body: dict[str, Any], *, stream: bool) -> tuple[httpx.Response, int]:
        # Encoded once, so every retry sends the same bytes that on_request/pre_api_request saw.
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempts = 0
        waited = 0.0
        while True:
            attempts += 1
            retry_after: float | None = None
            try:
                request = self._client.build_request("POST", url, content=payload, headers=self._headers)
                response = self._client.send(request, stream=stream)
            except httpx.ConnectTimeout:
                error = timeout_error(
                    provider=self.provider, url=url, base_url=self.base_url, model=self.model,
                    timeout=self.connect_timeout, phase="connect", attempts=attempts,
                )
            except httpx.TimeoutException:
                raise timeout_error(
                    provider=self.provider, url=url, base_url=self.base_url, model=self.model,
                    timeout=self.timeout, phase="read", attempts=attempts,
                ) from None
            except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
                error = connection_error(
                    provider=self.provider, base_url=self.base_url, model=self.model,
                    detail=_connection_detail(exc), attempts=attempts,
                )
            else:
                if response.is_success:
                    return response, attempts
                try:
                    raw = response.read()
                except httpx.TransportError:
                    raw = b""
                finally:
                    response.close()
                retry_after = parse_retry_after(response.headers)
                error = http_error(
                    response.status_code, provider=self.provider, url=url, base_url=self.base_url,
                    model=self.model, key_env=self.key_env, provider_message=provider_error_message(raw),
                    attempts=attempts, retry_after=retry_after,
                )
            if not error.retryable or attempts > self.retry.max_retries:
                raise error
            wait = self._next_wait(attempts - 1, retry_after, waited)
            if wait is None:
                raise error
            if wait > 0:
                self.retry.sleep(wait)
            waited += wait

    def _next_wait(self, retry_index: int, retry_after: float | None, waited: float) -> float | None:
        """Seconds to wait before the next attempt, or None when the wait budget does not allow one."""
        left = self.retry.max_total_wait - waited
        if retry_after is not None:
            # The server knows when it will take us again; an earlier retry would only be refused.
            return retry_after if retry_after <= left else None
        if left <= 0:
            return None
        return min(self.retry.backoff(retry_index), left)
