"""The PostgreSQL store's maintenance: delete and prune sessions, re-index search, stats, integrity.

:class:`Maintenance` is a base of :class:`~.store.PostgresSessionStore`; it works through the
store's ``_read`` / ``_write`` transactions and its ``url``.
"""

from __future__ import annotations

import time
from typing import Any

from ..records import StoreStats
from .schema import current_version
from .impact import insert_postings
from .text import gram_array, to_text, word_index

__all__ = ["Maintenance"]


class Maintenance:
    """Whole-store operations of the PostgreSQL session store (``hermes sessions prune|stats|...``)."""

    def delete_session(self, session_id: str) -> bool:
        return self._write(lambda c: c.execute("DELETE FROM sessions WHERE id = %s", (to_text(session_id),)).rowcount > 0)

    def prune_sessions(self, older_than_s: float, *, now: float | None = None) -> int:
        """Delete idle sessions (see SessionStore.prune_sessions: live conversations are kept whole)."""
        cutoff = (time.time() if now is None else now) - older_than_s
        ids = [r[0] for r in self._read(lambda c: c.execute(
            """
            WITH RECURSIVE activity(id, parent, last) AS (
                SELECT s.id, s.parent_session_id, greatest(s.started_at, coalesce(s.ended_at, 0),
                    coalesce((SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id), 0))
                FROM sessions s
            ), kept(id) AS (
                SELECT parent FROM activity WHERE last >= %(cutoff)s AND parent IS NOT NULL
                UNION
                SELECT a.parent FROM activity a JOIN kept k ON a.id = k.id WHERE a.parent IS NOT NULL
            )
            SELECT id FROM activity WHERE last < %(cutoff)s AND id NOT IN (SELECT id FROM kept WHERE id IS NOT NULL)
            """, {"cutoff": cutoff}).fetchall())]
        return sum(1 for sid in ids if self.delete_session(sid))

    def rebuild_search_index(self, progress: Any = None) -> int:
        """Recompute every message's word vector, postings and gram array (after the token rules changed)."""
        ids = [r[0] for r in self._read(lambda c: c.execute("SELECT id FROM messages ORDER BY id").fetchall())]
        done = 0
        for start in range(0, len(ids), 1000):
            chunk = ids[start:start + 1000]

            def work(conn: Any) -> None:
                rows = conn.execute("SELECT id, search_text FROM messages WHERE id = ANY(%s)", (chunk,)).fetchall()
                with conn.cursor() as cur:  # the old postings, found through the old vector
                    cur.executemany("DELETE FROM message_words WHERE message_id = %s AND word = ANY("
                                    "tsvector_to_array((SELECT words FROM messages WHERE id = %s)))",
                                    [(mid, mid) for mid, _ in rows])
                entries = []
                for mid, text in rows:
                    vector, words, weights = word_index(text)
                    entries.append((mid, words, weights))
                    conn.execute("UPDATE messages SET words = %s::tsvector, grams = %s WHERE id = %s",
                                 (vector, gram_array(text) or None, mid))
                insert_postings(conn, entries)

            self._write(work)
            done += len(chunk)
            if progress is not None:
                progress(done, len(ids))
        return done

    def flush_search_index(self, progress: Any = None) -> int:
        """Nothing waits for indexing here: rows are indexed in the transaction that appends them."""
        return 0

    def wait_for_index(self, timeout: float | None = None) -> bool:
        """Always caught up: rows are indexed in the transaction that appends them."""
        return True

    def stats(self) -> StoreStats:
        def work(conn: Any) -> StoreStats:
            sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
            by_role = dict(conn.execute("SELECT role, count(*) FROM messages GROUP BY role").fetchall())
            size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
            objects = dict(conn.execute(
                "SELECT relname, pg_total_relation_size(oid) FROM pg_class WHERE relname IN "
                "('sessions', 'messages', 'messages_words', 'messages_grams', 'messages_session', 'message_words')").fetchall())
            return StoreStats(schema_version=current_version(conn, self.url), sessions=sessions,
                              messages=sum(by_role.values()), messages_by_role=by_role, db_bytes=int(size),
                              wal_bytes=0, object_bytes={k: int(v) for k, v in objects.items()})

        return self._read(work)

    def check_integrity(self) -> list[str]:
        """Rows whose counters or index columns disagree with their content ([] when healthy)."""
        problems: list[str] = []
        for sid, stored, actual in self._read(lambda c: c.execute(
                "SELECT s.id, s.message_count, count(m.id) FROM sessions s LEFT JOIN messages m "
                "ON m.session_id = s.id GROUP BY s.id HAVING s.message_count <> count(m.id)").fetchall()):
            problems.append(f"session {sid}: message_count {stored} but {actual} messages stored")
        postings, words = self._read(lambda c: c.execute(
            "SELECT (SELECT count(*) FROM message_words), (SELECT coalesce(sum(length(words)), 0) FROM messages)").fetchone())
        if postings != words:  # each distinct word of a message has one posting (impact.py)
            problems.append(f"search postings: {postings} stored but the messages hold {words} distinct words "
                            "-> run 'hermes sessions reindex'")
        return problems
