"""Recall for each turn: which layers are due (cadences), fetched ahead in the background, cached.

``queue_prefetch`` after turn N fetches what turn N+1 needs on a background thread; ``prefetch``
at turn N+1 then answers from the cache at once. Without a cached answer (the first turn, or
the background fetch still running) it fetches now, bounded by the client's timeout. A failure
keeps the last good layers, so a Honcho outage costs recall freshness, never the turn.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from .client import HonchoCallError
from .config import HonchoConfig
from .recall import DialecticRun, due, join_layers, pass_levels, run_dialectic

logger = logging.getLogger("hermes.plugins.honcho")


@dataclass
class LayerState:
    base: str = ""
    dialectic: str = ""
    last_base_turn: int | None = None
    last_dialectic_turn: int | None = None
    #: turn -> joined text, for the turn it was prepared for
    ready: dict[int, str] = field(default_factory=dict)
    #: what each firing did, for tests and ``hermes honcho status``
    base_turns: list[int] = field(default_factory=list)
    dialectic_runs: list[tuple[int, DialecticRun]] = field(default_factory=list)


class Prefetcher:
    """``fetch_base() -> str`` and ``ask(query, level) -> str`` talk to Honcho; this decides when."""

    def __init__(self, config: HonchoConfig, fetch_base: Callable[[], str], ask: Callable[[str, str], str]) -> None:
        self.config = config
        self._fetch_base = fetch_base
        self._ask = ask
        self.state = LayerState()
        self._lock = threading.Lock()
        self._inflight: dict[int, threading.Event] = {}
        self.last_error = ""

    def injects_on(self, turn: int) -> bool:
        if self.config.recallMode == "tools":
            return False
        return self.config.injectionFrequency == "every-turn" or turn <= 1

    def for_turn(self, turn: int, message: str) -> str:
        """The recalled block for ``turn``: cached when a background fetch prepared it, else fetched now."""
        if not self.injects_on(turn):
            return ""
        with self._lock:
            pending = self._inflight.get(turn)
        if pending is not None:  # a layer that times out still leaves time for the other one
            pending.wait(self.config.timeout * 2)
        with self._lock:
            if turn in self.state.ready:
                return self.state.ready.pop(turn)
            if pending is not None:  # still fetching: answer with what is known
                return join_layers(self.state.base, self.state.dialectic, self.config.contextTokens)
        return self._prepare(turn, message)

    def prepare_in_background(self, turn: int, message: str) -> threading.Thread | None:
        """Start fetching what ``turn`` needs; ``None`` when nothing is to be injected then or it is already running."""
        if not self.injects_on(turn):
            return None
        with self._lock:
            if turn in self._inflight or turn in self.state.ready:
                return None
            event = self._inflight[turn] = threading.Event()

        def work() -> None:
            try:
                text = self._prepare(turn, message)
                with self._lock:
                    self.state.ready = {turn: text}  # only the next turn matters; older entries are stale
            finally:
                with self._lock:
                    self._inflight.pop(turn, None)
                event.set()

        thread = threading.Thread(target=work, name="honcho-prefetch", daemon=True)
        thread.start()
        return thread

    def _prepare(self, turn: int, message: str) -> str:
        config, state = self.config, self.state
        if due(turn, state.last_base_turn, config.contextCadence):
            try:
                state.base = self._fetch_base()
                state.last_base_turn = turn
                state.base_turns.append(turn)
            except HonchoCallError as exc:
                self._failed("base context", exc)
        if due(turn, state.last_dialectic_turn, config.dialecticCadence):
            levels = pass_levels(config.dialecticDepth, config.dialecticReasoningLevel, config.dialecticDepthLevels, config.reasoningLevelCap)
            try:
                run = run_dialectic(
                    self._ask, depth=config.dialecticDepth, levels=levels, cold=not state.base.strip(), current_message=message,
                    max_input_chars=config.dialecticMaxInputChars, max_chars=config.dialecticMaxChars,
                )
                state.dialectic = run.answer
                state.last_dialectic_turn = turn
                state.dialectic_runs.append((turn, run))
            except HonchoCallError as exc:
                self._failed("dialectic", exc)
        return join_layers(state.base, state.dialectic, config.contextTokens)

    def _failed(self, layer: str, exc: HonchoCallError) -> None:
        message = f"honcho: {layer} not refreshed: {exc}; the turn goes on with what was recalled before"
        if message != self.last_error:
            logger.warning(message)
        else:
            logger.debug(message)
        self.last_error = message

    def reset(self) -> None:
        """A new conversation: cadences start over, nothing stale is injected."""
        with self._lock:
            self.state = LayerState()
