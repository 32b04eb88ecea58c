"""Reaching mem0: the backend opened on first use, and every call to it through the circuit breaker.

A failed open or call is counted by the breaker, recorded in the status file (``hermes memory
status`` shows it from another process) and logged; none is raised to the turn. While the breaker
is open, calls are skipped with the reason instead of waiting on a dead endpoint.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from .backend import Backend, BackendError, open_backend
from .resilience import CircuitBreaker, StatusFile
from .settings import Mem0Settings

logger = logging.getLogger("hermes.plugins.memory.mem0")


class BackendAccess:
    """The one way the provider talks to mem0. ``in_session()`` says whether a session runs: its
    open failures are warned about (once per cause); status and inspection log them quietly."""

    def __init__(self, in_session: Callable[[], bool]) -> None:
        self._in_session = in_session
        self.settings: Mem0Settings | None = None
        self.breaker = CircuitBreaker(5, 120.0)
        self.status: StatusFile | None = None
        self.backend: Backend | None = None
        #: Why the backend cannot be opened (``""`` once it is).
        self.backend_error = ""
        #: ``operation: message`` of the latest failure.
        self.last_error = ""
        #: Set once the first open attempt finished, whatever its outcome (the first recall waits on it).
        self.opened = threading.Event()
        self._open_lock = threading.Lock()

    def configure(self, settings: Mem0Settings) -> None:
        self.settings = settings
        self.breaker = CircuitBreaker(settings.breaker_threshold, settings.breaker_cooldown)
        self.status = StatusFile(settings.data_dir)

    def open(self) -> Backend | None:
        """The backend, opened on first use; ``None`` (with the reason recorded) while it cannot be.

        A failed open counts as a failure for the circuit breaker and is tried again once the
        breaker allows: an endpoint that comes back, or a store another process released, is
        picked up without restarting the session.
        """
        with self._open_lock:
            if self.backend is not None or self.settings is None:
                self.opened.set()
                return self.backend
            if self.backend_error and not self.breaker.allows():
                return None
            try:
                self.backend = open_backend(self.settings)
            except Exception as exc:  # BackendError names cause and fix; anything else is mem0's own start failure
                message = str(exc) if isinstance(exc, BackendError) else f"mem0 could not start: {type(exc).__name__}: {exc}"
                repeated = message == self.backend_error
                self.backend_error = message
                self.record_error("open", message)
                self.breaker.failed()
                # A session warns once per cause; status (no worker) shows it in its own output instead.
                logger.log(logging.WARNING if self._in_session() and not repeated else logging.DEBUG, "mem0: %s", message)
            else:
                self.backend_error = ""
                self.breaker.succeeded()
            self.opened.set()
            return self.backend

    def close(self) -> None:
        with self._open_lock:
            if self.backend is not None:
                try:
                    self.backend.close()
                except Exception as exc:
                    logger.debug("mem0: close failed: %s", exc)
                self.backend = None

    def attempt(self, operation: str, action: Callable[[Backend], Any]) -> tuple[Any, str]:
        """``(result, "")``, or ``(None, why it was not done)``; failures are counted and recorded, never raised."""
        if not self.breaker.allows():
            return None, f"paused after {self.breaker.failures} consecutive failures (last: {self.last_error})"
        backend = self.open()
        if backend is None:
            return None, self.backend_error or "mem0 is not open"
        try:
            result = action(backend)
        except Exception as exc:  # mem0, openai, httpx and qdrant errors alike
            self._failed(operation, exc)
            return None, f"{type(exc).__name__}: {exc}"
        self.breaker.succeeded()
        return result, ""

    def _failed(self, operation: str, exc: BaseException) -> None:
        message = f"{type(exc).__name__}: {exc}"
        self.record_error(operation, message)
        if self.breaker.failed():
            logger.warning(
                "mem0: %d consecutive failures (last: %s); calls paused for %g s, writes are queued meanwhile",
                self.breaker.failures, message, self.breaker.cooldown,
            )
        else:
            logger.info("mem0 %s failed: %s", operation, message)

    def record_error(self, operation: str, message: str) -> None:
        self.last_error = f"{operation}: {message}"
        if self.status is not None:
            self.status.record_error(operation, message)

    def breaker_message(self) -> str:
        return (
            f"Mem0 is paused after {self.breaker.failures} consecutive failures (last: {self.last_error}); "
            f"it is retried in {self.breaker.seconds_left():.0f} s"
        )
