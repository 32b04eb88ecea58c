"""ModelAPIError and the wording of every model-call failure: what went wrong, where, and what to do."""

from __future__ import annotations

from hermes_core.errors import HermesError

#: Statuses worth another attempt: rate limits, and server-side trouble (529 is Anthropic's "overloaded").
RETRYABLE_STATUSES: frozenset[int] = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


class ModelAPIError(HermesError):
    """A model call failed; ``str(error)`` names the cause and the fix.

    ``reason`` is a short code for hooks and callers: ``auth``, ``not_found``, ``bad_request``,
    ``rate_limited``, ``server_error``, ``http_error``, ``timeout``, ``connection``, ``bad_response``,
    ``not_configured``.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        reason: str,
        status: int | None = None,
        base_url: str | None = None,
        model: str | None = None,
        retryable: bool = False,
        attempts: int = 0,
        provider_message: str | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.reason = reason
        self.status = status
        self.base_url = base_url
        self.model = model
        #: Whether the failure was of a kind that is retried (it was, up to the limit, before this was raised).
        self.retryable = retryable
        #: HTTP attempts made before giving up (0: nothing was sent).
        self.attempts = attempts
        #: The error text the provider put in its response body, if any.
        self.provider_message = provider_message

    @property
    def retry_count(self) -> int:
        """Attempts after the first one."""
        return max(0, self.attempts - 1)


_LABELS = {"openai": "the OpenAI-compatible server", "anthropic": "the Anthropic Messages API"}


def _label(provider: str) -> str:
    return _LABELS.get(provider, provider)


def _tries(attempts: int) -> str:
    return f" after {attempts} attempts" if attempts > 1 else ""


def http_error(
    status: int,
    *,
    provider: str,
    url: str,
    base_url: str,
    model: str,
    key_env: str,
    provider_message: str | None,
    attempts: int,
    retry_after: float | None = None,
) -> ModelAPIError:
    """The error for a non-2xx answer, worded for ``status``."""
    said = f": {provider_message}" if provider_message else ""
    where = f"{_label(provider)} at {url}"
    if status in (401, 403):
        reason = "auth"
        fix = (
            f"check the API key: set {key_env} (in the environment or $HERMES_HOME/.env) or model.api_key in "
            "config.yaml, and check that it belongs to this provider"
        )
        what = "rejected the API key" if status == 401 else "refused access"
    elif status == 404:
        reason = "not_found"
        what = f"has no model {model!r} or no such endpoint"
        url_hint = (
            "the Anthropic base URL is the host alone, without /v1 (e.g. https://api.anthropic.com)"
            if provider == "anthropic"
            else "OpenAI-compatible servers usually expect a base URL ending in /v1"
        )
        fix = f"check model.name ({model!r}) and model.base_url ({base_url!r}); {url_hint}"
    elif status == 429:
        reason = "rate_limited"
        what = "is rate-limiting requests" + _tries(attempts)
        later = f" (it asked to wait {retry_after:g} s)" if retry_after is not None else ""
        fix = f"wait and try again{later}, or raise the rate limit / quota of this API key"
    elif status == 408:
        reason = "timeout"
        what = f"timed out waiting for the request{_tries(attempts)}"
        fix = "try again; if it keeps happening, check the network between here and the server"
    elif status >= 500:
        reason = "server_error"
        what = f"failed with a server error{_tries(attempts)}"
        fix = "the provider or server is having trouble; try again later or check the server's log"
    elif status in (400, 413, 422):
        reason = "bad_request"
        what = "rejected the request"
        fix = (
            "the message says what it disliked; a conversation too long for the model's context needs "
            "compression (/compress), and an unknown parameter may mean the server is not fully compatible"
        )
    else:
        reason = "http_error"
        what = "answered with an unexpected status"
        fix = f"check model.base_url ({base_url!r}) points at a {provider} API"
    return ModelAPIError(
        f"{where} {what} (HTTP {status}){said} -> {fix}",
        provider=provider,
        reason=reason,
        status=status,
        base_url=base_url,
        model=model,
        retryable=status in RETRYABLE_STATUSES,
        attempts=attempts,
        provider_message=provider_message,
    )


def timeout_error(
    *, provider: str, url: str, base_url: str, model: str, timeout: float, phase: str, attempts: int
) -> ModelAPIError:
    """The error for a connect or read timeout."""
    if phase == "connect":
        what = f"could not connect to {base_url} within {timeout:g} s{_tries(attempts)}"
        fix = f"is the server running at {base_url}, and reachable from here?"
    else:
        what = f"{_label(provider)} at {url} sent no response within {timeout:g} s"
        fix = "the model may be overloaded or the request very large; raise model.timeout or try again"
    return ModelAPIError(
        f"{what} -> {fix}",
        provider=provider,
        reason="timeout",
        base_url=base_url,
        model=model,
        retryable=phase == "connect",
        attempts=attempts,
    )


def connection_error(*, provider: str, base_url: str, model: str, detail: str, attempts: int) -> ModelAPIError:
    """The error for a refused, reset or dropped connection."""
    return ModelAPIError(
        f"cannot reach {_label(provider)} at {base_url} ({detail}){_tries(attempts)} -> is the server running at "
        f"{base_url}? Check model.base_url (or HERMES_BASE_URL) and your network",
        provider=provider,
        reason="connection",
        base_url=base_url,
        model=model,
        retryable=True,
        attempts=attempts,
    )


def bad_response_error(*, provider: str, url: str, base_url: str, model: str, detail: str, attempts: int) -> ModelAPIError:
    """The error for a 2xx answer that is not the protocol we expect."""
    return ModelAPIError(
        f"{_label(provider)} at {url} sent a response hermes cannot read ({detail}) -> check model.base_url "
        f"({base_url!r}) points at a {provider}-compatible API",
        provider=provider,
        reason="bad_response",
        base_url=base_url,
        model=model,
        attempts=attempts,
    )


class StreamError(Exception):
    """A provider reported an error inside a successful (2xx) stream; clients turn it into ModelAPIError."""

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
