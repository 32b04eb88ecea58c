"""Writes in the order they happened: made at once when mem0 answers, else queued in the outbox and retried first."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from . import tools
from .backend import Backend
from .resilience import Outbox

logger = logging.getLogger("hermes.plugins.memory.mem0")

#: ``attempt(operation, action)`` -> ``(result, "")`` or ``(None, why it was not done)``.
Attempt = Callable[[str, Callable[[Backend], Any]], tuple[Any, str]]


def apply(backend: Backend, write: dict[str, Any]) -> None:
    """Make one write record: a turn (``add``) or a built-in memory edit (``mirror``)."""
    op = write.get("op")
    user_id, agent_id = write["user_id"], write["agent_id"]
    if op == "add":
        messages, infer = write["messages"], bool(write.get("infer"))
        turn = (write.get("metadata") or {}).get("turn")
        held = backend.turn_memories(user_id, turn) if turn else []
        if held:  # sent before (a retry, a resumed backfill): store only what is missing
            if infer:
                return  # extraction already ran for this turn
            stored = {(m.get("role"), m.get("memory")) for m in held}
            messages = [m for m in messages if (m["role"], m["content"]) not in stored]
            if not messages:
                return
        backend.add(messages, user_id=user_id, agent_id=agent_id, infer=infer, metadata=write.get("metadata"))
    elif op == "mirror":
        tools.mirror(backend, write, user_id=user_id, agent_id=agent_id)
    else:
        raise ValueError(f"unknown queued write {op!r}")


class WriteQueue:
    def __init__(self, outbox: Outbox, attempt: Attempt, allowed: Callable[[], bool]) -> None:
        self.outbox = outbox
        self._attempt = attempt
        self._allowed = allowed

    def _make(self, write: dict[str, Any]) -> str:
        return self._attempt(f"write ({write.get('op')})", lambda backend: apply(backend, write))[1]

    def make(self, write: dict[str, Any]) -> None:
        """Make ``write`` now, or queue it with the reason; earlier queued writes always go first."""
        if self.outbox.pending():
            self.outbox.put(write, "queued behind earlier writes that are waiting")
            self.replay()
            return
        reason = self._make(write)
        if reason:
            self.outbox.put(write, reason)

    def replay(self) -> None:
        """Retry queued writes in order until one fails (or the breaker opens)."""

        def make(record: dict[str, Any]) -> None:
            reason = self._make(record)
            if reason:
                raise RuntimeError(reason)

        made, _ = self.outbox.replay(make, self._allowed)
        if made:
            logger.info("mem0: %d queued write(s) made", made)
