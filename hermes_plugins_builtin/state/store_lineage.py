"""The stores' lineage methods: parents, children, compression chains and the chain-aware listing.

Both session stores share them: the rules live in :mod:`.lineage` and :mod:`.listing` as portable
SQL, and each store says only how to run a read (:meth:`SessionLineage._read_lineage`): the SQLite
store under its lock, the PostgreSQL store on a pooled connection seen through sqlite3's placeholders.
"""
from __future__ import annotations

import sqlite3
import threading
from typing import Any, Callable, Iterable, TypeVar

from . import lineage
from .connection import read_transaction
from .listing import list_sessions_rich
from .records import SELECT_SESSION_SQL, decode_session

T = TypeVar("T")


class SessionLineage:
    """How sessions relate: compression continues one, delegation starts a child."""

    get_session: Callable[[str], dict[str, Any] | None]

    def _read_lineage(self, work: Callable[[Any], T], *, snapshot: bool = False) -> T:
        """``work(conn)`` on a connection that takes sqlite3-style SQL; ``snapshot``: all its reads see one state."""
        raise NotImplementedError

    def get_parent(self, session_id: str) -> str | None:
        """The parent session id (compression or delegation), if any."""
        session = self.get_session(session_id)
        return session["parent_session_id"] if session else None

    def get_children(self, session_id: str) -> list[dict[str, Any]]:
        """Child sessions, oldest first, each with ``kind`` 'continuation' or 'delegation'."""
        parent = self.get_session(session_id)
        if parent is None:
            return []
        rows = self._read_lineage(lambda conn: conn.execute(
            f"{SELECT_SESSION_SQL} WHERE s.parent_session_id = ? ORDER BY s.started_at, s.id", (session_id,)).fetchall())
        children = [decode_session(r) for r in rows]
        for child in children:
            child["kind"] = "continuation" if lineage.is_continuation(parent, child) else "delegation"
        return children

    def get_compression_tip(self, session_id: str) -> str:
        """The newest session of the compression chain through *session_id* (<= 100 hops)."""
        return self._read_lineage(lambda conn: lineage.compression_tip(conn, session_id))

    def get_compression_tips(self, session_ids: Iterable[str]) -> dict[str, str]:
        """{id: tip of its compression chain} for each id; the tip identifies the conversation."""
        ids = list(session_ids)
        return self._read_lineage(lambda conn: lineage.compression_tips(conn, ids), snapshot=True)

    def get_compression_chain(self, session_id: str) -> list[str]:
        """Ids of the whole compression chain through *session_id*, oldest first."""
        return self._read_lineage(lambda conn: lineage.compression_chain(conn, session_id))

    def lineage_ids(self, session_id: str) -> set[str]:
        """The session's whole tree (root ancestor plus all descendants)."""
        return self._read_lineage(lambda conn: lineage.lineage_ids(conn, session_id))

    def list_sessions_rich(self, *, limit: int = 20, offset: int = 0, source: str | None = None,
                           project_compression: bool = True) -> list[dict[str, Any]]:
        """Sessions, most recently active first, one entry per compression chain by default.

        Each entry is the chain's tip with extra keys: ``chain`` (ids oldest first),
        ``chain_message_count``, ``last_active``, ``preview`` (first user message of
        the chain) and ``kind`` ('root', 'continuation' or 'delegation'). A *limit* too
        large for SQL, or a negative one, lists them all; a negative *offset* is 0.
        """
        return self._read_lineage(lambda conn: list_sessions_rich(
            conn, limit=limit, offset=offset, source=source, project_compression=project_compression))


class LineageMixin(SessionLineage):
    """The SQLite store's lineage: every read under the store's lock."""

    _conn: sqlite3.Connection
    _lock: threading.RLock

    def _read_lineage(self, work: Callable[[Any], T], *, snapshot: bool = False) -> T:
        with self._lock:
            if not snapshot:
                return work(self._conn)
            with read_transaction(self._conn) as conn:
                return work(conn)
