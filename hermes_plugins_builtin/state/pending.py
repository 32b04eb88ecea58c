"""Search coverage for rows the main indexes do not hold yet (id > indexed_upto).

At most a batch of rows is ever waiting (see indexing.py). The writer that
appends them also adds them, in the same transaction, to two small persistent
FTS5 tables (``messages_recent`` and ``messages_recent_grams``) built with the
same tokenizers; when the batch is moved into the main indexes the small tables
are emptied. A search only reads: it runs the same query against both pairs of
tables and never indexes anything itself, so concurrent writers cost it nothing
but the CPU they take. Scores from the recent tables are BM25 over those few rows,
which is good enough to interleave the newest messages.
"""
from __future__ import annotations

import sqlite3
from typing import NamedTuple

from .grams import document_grams, needs_grams


class IndexTables(NamedTuple):
    """Names of a word index and its gram index, queried together."""

    word: str
    grams: str


PERSISTENT = IndexTables("messages_fts", "messages_grams")
RECENT = IndexTables("messages_recent", "messages_recent_grams")


def has_recent_tables(conn: sqlite3.Connection) -> bool:
    """Whether the file has the recent tables (schema 4 and later)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages_recent'").fetchone() is not None


def add_recent(conn: sqlite3.Connection, first_id: int, last_id: int) -> None:
    """Index rows *first_id*..*last_id* (just appended, above indexed_upto) in the recent tables."""
    rows = conn.execute("SELECT id, search_text FROM messages WHERE id BETWEEN ? AND ?", (first_id, last_id)).fetchall()
    _insert(conn, rows)


def refill_recent(conn: sqlite3.Connection, upto: int) -> None:
    """Make the recent tables hold exactly the rows above *upto* (after deletes, raw inserts)."""
    clear_recent(conn)
    _insert(conn, conn.execute("SELECT id, search_text FROM messages WHERE id > ?", (upto,)).fetchall())


def recent_in_step(conn: sqlite3.Connection, upto: int) -> bool:
    """Whether the recent word table holds exactly the rows above *upto* (cheap: ids only)."""
    held = [r[0] for r in conn.execute("SELECT id FROM messages_recent_docsize ORDER BY id")]
    waiting = [r[0] for r in conn.execute("SELECT id FROM messages WHERE id > ? ORDER BY id", (upto,))]
    return held == waiting


def clear_recent(conn: sqlite3.Connection) -> None:
    """Empty both recent tables (their rows have moved into the main indexes)."""
    conn.execute("INSERT INTO messages_recent(messages_recent) VALUES ('delete-all')")
    conn.execute("INSERT INTO messages_recent_grams(messages_recent_grams) VALUES ('delete-all')")


def _insert(conn: sqlite3.Connection, rows: list[tuple[int, str | None]]) -> None:
    if not rows:
        return
    conn.executemany("INSERT INTO messages_recent(rowid, search_text) VALUES (?, ?)", rows)
    grams = [(mid, g) for mid, text in rows if needs_grams(text) and (g := document_grams(text))]
    if grams:
        conn.executemany("INSERT INTO messages_recent_grams(rowid, grams) VALUES (?, ?)", grams)
