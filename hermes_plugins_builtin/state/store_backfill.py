"""SessionStore's side of a memory backfill: checkpoints, and the stored turns to replay."""
from __future__ import annotations

import sqlite3
import threading
from typing import Any, Iterable

from . import replay
from .backfill_ledger import BackfillLedger
from .connection import read_transaction, write_transaction


class BackfillMixin:
    """Reads the stored conversations a provider is backfilled from (see backfill_ledger.py, replay.py)."""

    _conn: sqlite3.Connection
    _lock: threading.RLock

    def memory_backfill_ledger(self, provider: str) -> BackfillLedger:
        """The backfill checkpoints of the memory provider *provider*."""
        def read(work: Any) -> Any:
            with self._lock, read_transaction(self._conn) as conn:
                return work(conn)

        def write(work: Any) -> Any:
            with self._lock, write_transaction(self._conn) as conn:
                return work(conn)

        return BackfillLedger(read, write, provider)

    def max_message_id(self) -> int:
        """The id of the newest message (0 for an empty store)."""
        with self._lock:
            return replay.max_message_id(self._conn)

    def replay_sessions(self, *, upto_message_id: int, exclude_sources: Iterable[str] = (),
                        since: float | None = None, last: int | None = None) -> list[dict[str, Any]]:
        """Sessions to replay into a memory provider, oldest first (see replay.replay_sessions)."""
        with self._lock, read_transaction(self._conn) as conn:
            return replay.replay_sessions(conn, upto_message_id=upto_message_id, exclude_sources=exclude_sources,
                                          since=since, last=last)

    def replay_messages(self, session_id: str, *, upto_message_id: int, full: bool = True) -> list[dict[str, Any]]:
        """One session's messages with id <= *upto_message_id*, in conversation order (``full=False``: id, role, content, timestamp)."""
        with self._lock:
            return replay.session_messages(self._conn, session_id, upto_message_id, full=full)
