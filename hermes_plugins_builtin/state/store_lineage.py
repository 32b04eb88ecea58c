"""SessionStore's lineage methods: parents, children, compression chains and the chain-aware listing."""
from __future__ import annotations

import sqlite3
import threading
from typing import Any, Callable, Iterable

from . import lineage
from .connection import read_transaction
from .listing import list_sessions_rich
from .records import SELECT_SESSION_SQL, decode_session


class LineageMixin:
    """How sessions relate: compression continues one, delegation starts a child."""

    _conn: sqlite3.Connection
    _lock: threading.RLock

    get_session: Callable[[str], dict[str, Any] | None]

    def get_parent(self, session_id: str) -> str | None:
        """The parent session id (compression or delegation), if any."""
        session = self.get_session(session_id)
        return session["parent_session_id"] if session else None

    def get_children(self, session_id: str) -> list[dict[str, Any]]:
        """Child sessions, oldest first, each with ``kind`` 'continuation' or 'delegation'."""
        parent = self.get_session(session_id)
        if parent is None:
            return []
        with self._lock:
            rows = self._conn.execute(f"{SELECT_SESSION_SQL} WHERE s.parent_session_id = ? "
                                      "ORDER BY s.started_at, s.id", (session_id,)).fetchall()
        children = [decode_session(r) for r in rows]
        for child in children:
            child["kind"] = "continuation" if lineage.is_continuation(parent, child) else "delegation"
        return children

    def get_compression_tip(self, session_id: str) -> str:
        """The newest session of the compression chain through *session_id* (<= 100 hops)."""
        with self._lock:
            return lineage.compression_tip(self._conn, session_id)

    def get_compression_tips(self, session_ids: Iterable[str]) -> dict[str, str]:
        """{id: tip of its compression chain} for each id; the tip identifies the conversation."""
        with self._lock, read_transaction(self._conn) as conn:
            return lineage.compression_tips(conn, session_ids)

    def get_compression_chain(self, session_id: str) -> list[str]:
        """Ids of the whole compression chain through *session_id*, oldest first."""
        with self._lock:
            return lineage.compression_chain(self._conn, session_id)

    def lineage_ids(self, session_id: str) -> set[str]:
        """The session's whole tree (root ancestor plus all descendants)."""
        with self._lock:
            return lineage.lineage_ids(self._conn, session_id)

    def list_sessions_rich(self, *, limit: int = 20, offset: int = 0, source: str | None = None,
                           project_compression: bool = True) -> list[dict[str, Any]]:
        """Sessions, most recently active first, one entry per compression chain by default.

        Each entry is the chain's tip with extra keys: ``chain`` (ids oldest first),
        ``chain_message_count``, ``last_active``, ``preview`` (first user message of
        the chain) and ``kind`` ('root', 'continuation' or 'delegation').
        """
        with self._lock:
            return list_sessions_rich(self._conn, limit=limit, offset=offset, source=source,
                                      project_compression=project_compression)
