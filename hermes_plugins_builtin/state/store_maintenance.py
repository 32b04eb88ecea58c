"""SessionStore's maintenance: delete and prune sessions, rebuild or flush the search indexes, stats, integrity."""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from . import indexing, maintenance
from .connection import write_transaction
from .records import StoreStats


class MaintenanceMixin:
    """Work on the whole store that ``hermes sessions prune|stats|reindex`` and doctor run."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    path: Path
    schema_version: int

    def delete_session(self, session_id: str) -> bool:
        """Delete a session and its messages; children keep living with no parent."""
        with self._lock, write_transaction(self._conn) as conn:
            return maintenance.delete_session_rows(conn, session_id)

    def prune_sessions(self, older_than_s: float, *, now: float | None = None) -> int:
        """Delete sessions whose last activity is older than *older_than_s* seconds.

        A session some recently active session descends from (the start of a
        compression chain still in use, the parent of a live sub-agent) is kept:
        a conversation goes only when all of it is idle. Each session goes in its
        own short transaction, so concurrent writers are never held up for long.
        Returns the number deleted.
        """
        cutoff = (time.time() if now is None else now) - older_than_s
        with self._lock:
            ids = [r[0] for r in self._conn.execute(
                """
                WITH RECURSIVE activity(id, parent, last) AS (
                    SELECT s.id, s.parent_session_id, max(s.started_at, coalesce(s.ended_at, 0),
                        coalesce((SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id), 0))
                    FROM sessions s
                ), kept(id) AS (
                    SELECT parent FROM activity WHERE last >= :cutoff AND parent IS NOT NULL
                    UNION
                    SELECT a.parent FROM activity a JOIN kept k ON a.id = k.id WHERE a.parent IS NOT NULL
                )
                SELECT id FROM activity WHERE last < :cutoff AND id NOT IN (SELECT id FROM kept)
                """,
                {"cutoff": cutoff})]
        return sum(1 for sid in ids if self.delete_session(sid))

    def rebuild_search_index(self, progress: indexing.ProgressCallback | None = None) -> int:
        """Rebuild both search indexes from the messages table (one transaction).

        *progress* is called as progress(rows_done, rows_total). Returns rows indexed.
        """
        with self._lock, write_transaction(self._conn) as conn:
            return indexing.rebuild(conn, progress)

    def flush_search_index(self, progress: indexing.ProgressCallback | None = None) -> int:
        """Index every row still waiting for its batch now; returns how many."""
        with self._lock, write_transaction(self._conn) as conn:
            return indexing.index_pending(conn, progress)

    def stats(self) -> StoreStats:
        """Counts, file sizes and bytes per table / index."""
        with self._lock:
            return maintenance.collect_stats(self._conn, str(self.path), self.schema_version)

    def check_integrity(self) -> list[str]:
        """Problems found by SQLite's and FTS5's checks and by the index bookkeeping ([] when healthy).

        Runs under the write lock so that the rows and both indexes hold still while compared.
        """
        with self._lock, write_transaction(self._conn) as conn:
            problems = [r[0] for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"]
            problems += indexing.bookkeeping_problems(conn)
            # the word index is also compared with the rows it was built from, which
            # is only meaningful when no row is waiting for its batch
            content_check = 1 if self._waiting() == 0 else 0
            for table, rank in (("messages_fts", content_check), ("messages_grams", 0)):
                try:
                    conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', ?)", (rank,))
                except sqlite3.DatabaseError as exc:
                    problems.append(f"{table}: {exc}")
            return problems

    def _waiting(self) -> int:
        row = self._conn.execute("SELECT count(*) FROM messages WHERE id > ?",
                                 (indexing.indexed_upto(self._conn),)).fetchone()
        return int(row[0])
