"""The honcho-ai SDK, imported only here and only when Honcho is used, behind a small facade.

Every SDK failure becomes :class:`HonchoCallError` with a message that says what happened and
what to do (``describe_error``), with the API key redacted. Reads use no retries so a turn is
never held up; writes retry (see writer.py).
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from .config import HonchoConfig

INSTALL_HINT = "the honcho-ai library is not installed -> pip install 'hermes-host[honcho]' (or pip install 'honcho-ai>=2.7,<2.8')"


class HonchoCallError(RuntimeError):
    """A Honcho call that failed; ``retryable`` is true for faults that may pass (network, 429, 5xx)."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status


def sdk_installed() -> bool:
    """Whether honcho-ai can be imported, without importing it."""
    if "honcho" in sys.modules:  # imported already, or blocked (None)
        return sys.modules["honcho"] is not None
    try:
        return importlib.util.find_spec("honcho") is not None
    except (ImportError, ValueError):
        return False


def describe_error(exc: BaseException, config: HonchoConfig) -> HonchoCallError:
    """The user's version of an SDK failure: cause and fix, secrets redacted."""
    import honcho

    url = config.baseUrl or ("http://localhost:8000" if config.environment == "local" else "https://api.honcho.dev")
    status = getattr(exc, "status", None) or None  # the SDK gives network errors status 0
    text = config.redact(str(exc))
    if isinstance(exc, honcho.TimeoutError):
        return HonchoCallError(f"Honcho at {url} did not answer within {config.timeout} s -> check the server, or raise 'timeout' in honcho.json", retryable=True)
    if isinstance(exc, honcho.ConnectionError) and status is None:
        if "Expecting" in text or "JSON" in text or "decode" in text.lower():
            return HonchoCallError(f"Honcho at {url} sent a reply that is not valid JSON ({text}) -> is baseUrl a Honcho server?", retryable=True)
        return HonchoCallError(f"Honcho unreachable at {url} ({text}) -> start the server or fix baseUrl in honcho.json", retryable=True)
    if status == 401 or status == 403:
        return HonchoCallError(f"Honcho at {url} refused the API key (HTTP {status}) -> set a valid apiKey (hermes honcho setup) or HONCHO_API_KEY", retryable=False, status=status)
    if status == 404:
        return HonchoCallError(f"Honcho at {url} has no such resource ({text}); workspace '{config.workspace}' may not exist there -> check workspace and baseUrl in honcho.json", retryable=False, status=status)
    if status == 429:
        return HonchoCallError(f"Honcho at {url} is rate-limiting requests (HTTP 429) -> lower the cadences (contextCadence, dialecticCadence) or wait", retryable=True, status=status)
    if isinstance(status, int) and status >= 500:
        return HonchoCallError(f"Honcho at {url} failed with HTTP {status} ({text}) -> retry later; check the server's logs", retryable=True, status=status)
    if isinstance(status, int):
        return HonchoCallError(f"Honcho at {url} rejected the request with HTTP {status} ({text})", retryable=False, status=status)
    if isinstance(exc, honcho.HonchoError):
        return HonchoCallError(f"Honcho call failed: {text}", retryable=True)
    # pydantic validation of a reply, or anything else the SDK let through
    return HonchoCallError(f"Honcho at {url} sent an unexpected reply ({type(exc).__name__}: {text[:200]}) -> check that baseUrl is a Honcho v3 server", retryable=True)


class HonchoBackend:
    """One workspace of one Honcho server, as the provider uses it. Thread-safe as the SDK is."""

    def __init__(self, config: HonchoConfig, *, retries: int = 0) -> None:
        if not sdk_installed():
            raise HonchoCallError(INSTALL_HINT, retryable=False)
        import honcho

        self.config = config
        api_key = config.api_key
        kwargs: dict[str, Any] = {"workspace_id": config.workspace, "timeout": float(config.timeout), "max_retries": retries}
        if config.baseUrl:
            kwargs["base_url"] = config.baseUrl
        else:
            kwargs["environment"] = config.environment
        # Local servers run without auth; a placeholder keeps the SDK from reading HONCHO_API_KEY itself.
        kwargs["api_key"] = api_key or ("local" if config.is_local else None)
        self.client = honcho.Honcho(**kwargs)

    def call(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        """Run an SDK call; any failure is raised as :class:`HonchoCallError`."""
        try:
            return function(*args, **kwargs)
        except HonchoCallError:
            raise
        except Exception as exc:  # SDK errors, pydantic validation of a bad reply, httpx leftovers
            raise describe_error(exc, self.config) from None

    def call_all(self, *calls: tuple[Any, dict[str, Any]]) -> list[Any]:
        """Several independent calls at once (``(function, kwargs)`` each): one round-trip of waiting, not three."""
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="honcho-read") as pool:
            futures = [pool.submit(self.call, function, **kwargs) for function, kwargs in calls]
            return [future.result() for future in futures]  # the first failure is raised, as HonchoCallError

    # -- building blocks --

    def peer(self, peer_id: str) -> Any:
        return self.call(self.client.peer, peer_id)

    def session(self, session_id: str, peers: dict[str, dict[str, Any]]) -> Any:
        """Get or create the session with both peers and their observation settings."""
        from honcho.api_types import SessionPeerConfig

        configured = [(peer_id, SessionPeerConfig(**flags)) for peer_id, flags in peers.items()]
        return self.call(self.client.session, session_id, peers=configured)

    def add_messages(self, session: Any, messages: list[tuple[str, str, dict[str, Any], str | None]]) -> None:
        """``messages``: ``(peer_id, content, metadata, created_at)`` in order; at most 100 per request."""
        from honcho.api_types import MessageCreateParams

        for start in range(0, len(messages), 100):
            batch = [
                MessageCreateParams(peer_id=p, content=c, metadata=m or None, created_at=t)  # type: ignore[arg-type]
                for p, c, m, t in messages[start : start + 100]
            ]
            self.call(session.add_messages, batch)

    def marked_metadata(self, session: Any, filters: dict[str, object]) -> list[dict[str, Any]]:
        """The metadata of every message of ``session`` that matches ``filters`` (all pages)."""

        def collect() -> list[dict[str, Any]]:
            return [dict(message.metadata or {}) for message in session.messages(filters=filters, size=100)]

        return list(self.call(collect))
