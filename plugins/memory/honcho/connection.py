"""One provider session's link to Honcho: its two peers, the Honcho sessions it writes to, and the
three kinds of request a turn makes (send messages, fetch the base context, ask the dialectic).

Peers and sessions are created on first use and kept. After a connection failure that may pass,
requests give up at once for :data:`RECONNECT_BACKOFF_S` instead of waiting on a dead server each turn.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .client import HonchoBackend, HonchoCallError
from .config import HonchoConfig
from .held import HERMES_FILTER, HeldTurns
from .recall import format_base_context
from .sessions import observation_flags, session_peer_configs
from .writer import PendingMessage

#: After a failed connection, calls give up at once for this long instead of waiting on a dead server each turn.
RECONNECT_BACKOFF_S = 5.0


class HonchoConnection:
    """The peers ``user_peer`` and ``ai_peer`` on ``backend``; ``config()`` gives the current settings."""

    def __init__(self, backend: HonchoBackend, config: Callable[[], HonchoConfig], user_peer: str, ai_peer: str) -> None:
        self.backend = backend
        self._config = config
        self.user_peer = user_peer
        self.ai_peer = ai_peer
        #: What each Honcho session already holds, learnt when a write that may have landed is sent.
        self.held = HeldTurns(lambda session: backend.marked_metadata(session, HERMES_FILTER))
        self._lock = threading.RLock()
        #: One send at a time: the journal replay and the writer may carry the same turn (a backfill resending
        #: what a failed run journalled); the held-turns check and the write must not interleave.
        self._send_lock = threading.Lock()
        self._links: dict[str, Any] = {}
        self._peers: dict[str, Any] = {}
        self._down_until = 0.0
        self._down_cause = ""

    def connected(self, session_name: str) -> tuple[Any, Any, Any]:
        """``(user peer, ai peer, session)``, created on first use; fails fast for a while after a failed attempt."""
        with self._lock:
            if time.monotonic() < self._down_until:
                raise HonchoCallError(f"{self._down_cause} (not tried again for {RECONNECT_BACKOFF_S:g} s)", retryable=True)
            try:
                for peer_id in (self.user_peer, self.ai_peer):
                    if peer_id not in self._peers:
                        self._peers[peer_id] = self.backend.peer(peer_id)
                if session_name not in self._links:
                    configs = session_peer_configs(self._config())
                    self._links[session_name] = self.backend.session(
                        session_name, {self.user_peer: configs["user"], self.ai_peer: configs["ai"]}
                    )
            except HonchoCallError as exc:
                if exc.retryable:
                    self._down_until, self._down_cause = time.monotonic() + RECONNECT_BACKOFF_S, str(exc)
                raise
            return self._peers[self.user_peer], self._peers[self.ai_peer], self._links[session_name]

    def send(self, messages: list[PendingMessage]) -> None:
        """Write ``messages`` to their Honcho sessions, leaving out what a session holds already."""
        by_session: dict[str, list[PendingMessage]] = {}
        for message in messages:
            by_session.setdefault(message.session, []).append(message)
        for name, batch in by_session.items():
            session = self.connected(name)[2]
            with self._send_lock:
                batch = self.held.unsent(name, session, batch)
                if batch:
                    self.backend.add_messages(session, [(m.peer, m.content, m.metadata, m.created_at) for m in batch])
                    self.held.remember(name, batch)

    def fetch_base(self, session_name: str) -> str:
        """The base context layer: the session summary and both peers' representations and cards."""
        user, ai, session = self.connected(session_name)
        context, user_view, ai_view = self.backend.call_all(
            (session.context, {"summary": True, "tokens": self._config().contextTokens}), (user.context, {}), (ai.context, {})
        )
        return format_base_context(
            summary=context.summary.content if context.summary else None,
            user_representation=user_view.representation, user_card=user_view.peer_card,
            ai_representation=ai_view.representation, ai_card=ai_view.peer_card,
        )

    def ask(self, session_name: str, query: str, level: str) -> str:
        """The dialectic layer: Honcho's answer to ``query`` about the user, at reasoning ``level``."""
        user, ai, _ = self.connected(session_name)
        if observation_flags(self._config())["ai"]["observeOthers"]:  # what the AI peer has learned about the user
            answer = self.backend.call(ai.chat, query, target=self.user_peer, reasoning_level=level)
        else:
            answer = self.backend.call(user.chat, query, reasoning_level=level)
        return answer if isinstance(answer, str) else ""
