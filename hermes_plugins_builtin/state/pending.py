"""Search coverage for rows the persistent indexes do not hold yet (id > indexed_upto).

At most a batch of rows is ever waiting (see indexing.py). Before a search, this
connection copies them into two small TEMP FTS5 tables built with the same
tokenizers, and the same query runs against those too. TEMP tables live in this
connection's private temp database, so a search never writes to state.db and
never waits for the write lock. Scores from the tail are BM25 over the tail
alone, which is good enough to interleave the newest few rows.
"""
from __future__ import annotations

import sqlite3
from typing import NamedTuple

from .grams import document_grams, needs_grams
from .schema import GRAM_TOKENIZER, WORD_TOKENIZER


class IndexTables(NamedTuple):
    """Names of a word index and its gram index, queried together."""

    word: str
    grams: str


PERSISTENT = IndexTables("messages_fts", "messages_grams")
TAIL = IndexTables("pending_fts", "pending_grams")


class PendingTail:
    """Keeps the TEMP tail tables of one connection in step with the waiting rows."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._loaded: tuple[int, int, int] | None = None
        self._created = False

    def refresh(self, upto: int) -> bool:
        """Load rows with id > *upto* into the tail tables; False when there are none."""
        conn = self._conn
        last, count = conn.execute("SELECT max(id), count(*) FROM messages WHERE id > ?", (upto,)).fetchone()
        if not count:
            return False
        key = (upto, last, count)
        if key == self._loaded:
            return True
        self._create()
        conn.execute("DELETE FROM temp.pending_fts")
        conn.execute("DELETE FROM temp.pending_grams")
        rows = conn.execute("SELECT id, search_text FROM messages WHERE id > ?", (upto,)).fetchall()
        conn.executemany("INSERT INTO temp.pending_fts(rowid, search_text) VALUES (?, ?)", rows)
        conn.executemany("INSERT INTO temp.pending_grams(rowid, grams) VALUES (?, ?)",
                         [(mid, g) for mid, text in rows if needs_grams(text) and (g := document_grams(text))])
        self._loaded = key
        return True

    def _create(self) -> None:
        if self._created:
            return
        self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pending_fts "
                           f"USING fts5(search_text, tokenize=\"{WORD_TOKENIZER}\")")
        self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pending_grams "
                           f"USING fts5(grams, tokenize=\"{GRAM_TOKENIZER}\")")
        self._created = True
