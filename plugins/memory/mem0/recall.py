"""Recall for a turn: the search started in the background after the previous turn, else a bounded one now."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from hermes_core.memory.provider import is_trivial_prompt

from .tools import format_recall

logger = logging.getLogger("hermes.plugins.memory.mem0")


class Recall:
    """One background search at a time; its result is used once, by the next turn.

    :param search: the results for a query, or ``None`` when the search failed (already recorded).
    :param opened: set once the backend was opened (or failed to); searches wait for it.
    """

    def __init__(self, search: Callable[[str], list[dict[str, Any]] | None], opened: threading.Event, open_timeout: float, search_timeout: float) -> None:
        self._search = search
        self._opened = opened
        self.open_timeout = open_timeout
        self.search_timeout = search_timeout
        self._lock = threading.Lock()
        self._ready: str | None = None
        self._thread: threading.Thread | None = None
        self.last_count = 0

    def _text(self, query: str) -> str:
        results = self._search(query)
        if results is None:
            return ""
        self.last_count = len(results)
        return format_recall(results)

    def for_turn(self, query: str) -> str:
        # A background search still running (the next message came quickly) already left the turn's
        # path once; finishing it is bounded, and cheaper than a turn without recall.
        self.wait(self.search_timeout)
        with self._lock:
            ready, self._ready = self._ready, None
        if ready is not None:
            return ready
        if is_trivial_prompt(query):
            return ""
        # No background result: the first turn, or the previous turn's search was never started (a
        # trivial prompt, or a message sent before the host handed that turn over). Search now, bounded.
        return self._bounded(query)

    def _bounded(self, query: str) -> str:
        box: dict[str, str] = {}

        def run() -> None:
            if self._opened.wait(self.open_timeout):
                box["text"] = self._text(query)

        thread = threading.Thread(target=run, name="mem0-recall", daemon=True)
        thread.start()
        limit = self.open_timeout + self.search_timeout
        thread.join(limit)
        if thread.is_alive():
            logger.info("mem0: recall took longer than %g s; the turn went on without it", limit)
        return box.get("text", "")

    def start(self, query: str) -> None:
        """Search for ``query`` in the background; the next turn picks the result up."""
        if is_trivial_prompt(query):
            return
        previous = self._thread
        if previous is not None and previous.is_alive():
            return  # one search at a time; a slow backend must not pile threads up

        def run() -> None:
            self._opened.wait(self.open_timeout)
            text = self._text(query)
            with self._lock:
                self._ready = text

        thread = threading.Thread(target=run, name="mem0-prefetch", daemon=True)
        thread.start()  # before it is published: the next turn may join it at once
        self._thread = thread

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background search; ``False`` if it still runs."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def forget(self) -> None:
        """Drop a result nobody used (a new conversation began)."""
        with self._lock:
            self._ready = None
