"""Batched upkeep of the two search indexes, driven by a high-water mark.

FTS5 writes a new index segment for every transaction that touches it, so
indexing each message in its own commit costs about as much as storing it
twice. Instead, appends only store the row; once BATCH_ROWS rows are waiting,
they are indexed together (one segment per batch) in a transaction of their own
that also advances ``state_meta.indexed_upto``: by the store's indexer thread
(indexer.py), or by an appender when the indexer has fallen MAX_WAITING rows
behind. Search covers the waiting rows separately (see tail.py), so nothing is
ever unsearchable, and a search never indexes.

The Python half of indexing a row (its word counts for the impact lists, its
grams) needs no lock: ``prepare`` does it from a read snapshot, and only
``apply_prepared`` runs inside the write transaction.

Message ids only grow (AUTOINCREMENT), so "waiting" is exactly "id > indexed_upto".
"""
from __future__ import annotations

import sqlite3
# the loop Counter counts with (in C on CPython, a Python fallback elsewhere): Counter(tokens)
# adds two Python calls and an ABC check to every row
from typing import Callable, Iterable, NamedTuple

try:
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # a private name: an interpreter without it counts in Python
    def _count_elements(mapping: dict[str, int], iterable: Iterable[str]) -> None:
        for element in iterable:
            mapping[element] = mapping.get(element, 0) + 1

from .grams import GRAMS_FORMAT, document_grams, needs_grams
from .impact_upkeep import rebuild_lists, update_lists
from .ranking import tokens

BATCH_ROWS = 32
#: Rows an appender lets wait before it indexes them itself: the bound on the index's lag
#: (and on what a search reads unindexed) should the indexer thread be starved.
MAX_WAITING = 4 * BATCH_ROWS
# Segment merging is done a slice at a time after each batch instead of by FTS5's
# automerge, which does it in bursts (64 x levels pages at once showed up as
# 30-70 ms appends). Same total work, no spikes.
MERGE_PAGES_PER_BATCH = 64
_CHUNK = 2000

ProgressCallback = Callable[[int, int], None]


def indexed_upto(conn: sqlite3.Connection) -> int:
    """Highest message id held by both indexes."""
    row = conn.execute("SELECT value FROM state_meta WHERE key = 'indexed_upto'").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _set_indexed_upto(conn: sqlite3.Connection, message_id: int) -> None:
    # an UPDATE rewrites the row's page only; REPLACE also rewrote the key's index page (one
    # more page to write and checkpoint per batch)
    if conn.execute("UPDATE state_meta SET value = ? WHERE key = 'indexed_upto'", (str(message_id),)).rowcount == 0:
        conn.execute("INSERT INTO state_meta(key, value) VALUES ('indexed_upto', ?)", (str(message_id),))


class PreparedRow(NamedTuple):
    """A waiting row with the lock-free half of its indexing done."""

    id: int
    text: str | None
    grams: str | None  # the gram index's tokens, for text in scripts without spaces
    length: int  # word tokens, as the impact lists weigh them
    counts: dict[str, int]  # word -> frequency, words in order of first occurrence (as Counter(tokens))


def prepare(rows: Iterable[tuple[int, str | None]], pause: Callable[[], None] | None = None) -> list[PreparedRow]:
    """Tokenize *rows* (id, search_text) for the impact lists and the gram index.

    *pause* is called between rows: the indexer thread passes one that lets the
    appending thread have the interpreter back while this runs.
    """
    out = []
    for mid, text in rows:
        toks = tokens(text)
        grams = document_grams(text) if needs_grams(text) else None
        counts: dict[str, int] = {}
        _count_elements(counts, toks)
        out.append(PreparedRow(mid, text, grams or None, len(toks), counts))
        if pause is not None:
            pause()
    return out


def waiting_after(conn: sqlite3.Connection, start: int, limit: int) -> list[tuple[int, str | None]]:
    """Up to *limit* waiting rows (id, search_text) above *start*, oldest first."""
    return conn.execute("SELECT id, search_text FROM messages WHERE id > ? ORDER BY id LIMIT ?",
                        (start, limit)).fetchall()


def remember(conn: sqlite3.Connection, upto: int) -> None:
    """Note the mark some writer committed: it only grows, so it is a lower bound later."""
    try:
        conn.indexed_seen = upto  # type: ignore[attr-defined]  # the store's connections carry it
    except AttributeError:
        pass  # a plain sqlite3 connection: the mark is read every time


def waiting_estimate(conn: sqlite3.Connection, last_id: int) -> int:
    """How many rows up to *last_id* wait, read from state_meta only when a batch may be full.

    indexed_upto only grows, so the value this connection last saw is a lower bound:
    while *last_id* is within a batch of it no batch can be full, and most appends
    skip the read.
    """
    if last_id - getattr(conn, "indexed_seen", 0) < BATCH_ROWS:
        return last_id - getattr(conn, "indexed_seen", 0)
    upto = indexed_upto(conn)
    remember(conn, upto)
    return last_id - upto


def has_rank_lists(conn: sqlite3.Connection) -> bool:
    """Whether the file has the impact lists (schema 5 and later; once there, they stay:
    a store's connection remembers it rather than asking at every batch)."""
    if getattr(conn, "has_rank_lists", False):
        return True
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'rank_lists'").fetchone() is not None
    if found:
        try:
            conn.has_rank_lists = True  # type: ignore[attr-defined]  # the store's connections carry it
        except AttributeError:
            pass  # a plain sqlite3 connection: asked every time
    return found


def index_pending(conn: sqlite3.Connection, progress: ProgressCallback | None = None, *,
                  lists: bool = True, start: int | None = None) -> int:
    """Index every waiting row (caller holds the write lock); returns how many.

    With *lists* the rows are also folded into the impact lists (a rebuild does
    that in one pass afterwards instead). *start* is indexed_upto when the caller
    has just read it.
    """
    start = indexed_upto(conn) if start is None else start
    total = conn.execute("SELECT count(*) FROM messages WHERE id > ?", (start,)).fetchone()[0] if progress else 0
    done, upto, grams_added = 0, start, False
    while True:
        rows = prepare(waiting_after(conn, upto, _CHUNK))
        if not rows:
            break
        grams_added |= _index_rows(conn, rows, lists=lists)
        upto = rows[-1].id
        done += len(rows)
        if progress:
            progress(done, total)
        if len(rows) < _CHUNK:
            break  # that was the last of them
    if done:
        _set_indexed_upto(conn, upto)
        merge_step(conn, grams=grams_added)
    remember(conn, upto)
    return done


def apply_prepared(conn: sqlite3.Connection, rows: list[PreparedRow], start: int) -> int:
    """Index *rows*, prepared from a snapshot whose mark was *start* (caller holds the write lock).

    Another writer may have indexed some of them since, or deleted their session:
    only rows above the mark now, and still stored, are indexed. Should the mark
    have moved back (a rebuild), the waiting rows are read again here. Returns the
    number of rows indexed.
    """
    upto = indexed_upto(conn)
    if upto < start:
        return index_pending(conn, start=upto)
    rows = [r for r in rows if r.id > upto]
    if not rows:
        remember(conn, upto)
        return 0
    stored = {r[0] for r in conn.execute("SELECT id FROM messages WHERE id > ? AND id <= ?", (upto, rows[-1].id))}
    if len(stored) != len(rows):
        rows = [r for r in rows if r.id in stored]
    if not rows:
        return 0
    grams_added = _index_rows(conn, rows, lists=True)
    _set_indexed_upto(conn, rows[-1].id)
    merge_step(conn, grams=grams_added)
    remember(conn, rows[-1].id)
    return len(rows)


def _index_rows(conn: sqlite3.Connection, rows: list[PreparedRow], *, lists: bool) -> bool:
    """Both indexes and (with *lists*) the impact lists; returns whether any grams were added."""
    conn.executemany("INSERT INTO messages_fts(rowid, search_text) VALUES (?, ?)", [(r.id, r.text) for r in rows])
    gram_rows = [(r.id, r.grams) for r in rows if r.grams]
    if gram_rows:
        conn.executemany("INSERT INTO messages_grams(rowid, grams) VALUES (?, ?)", gram_rows)
    if lists and has_rank_lists(conn):
        update_lists(conn, rows)
    return bool(gram_rows)


def merge_step(conn: sqlite3.Connection, *, grams: bool) -> None:
    """A bounded slice of FTS segment merging (a no-op when nothing needs merging)."""
    conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('merge', ?)", (MERGE_PAGES_PER_BATCH,))
    if grams:
        conn.execute("INSERT INTO messages_grams(messages_grams, rank) VALUES ('merge', ?)",
                     (MERGE_PAGES_PER_BATCH,))


def unindex_grams(conn: sqlite3.Connection, rows: list[tuple[int, str | None]]) -> None:
    """Remove rows from the gram index before they are deleted.

    A contentless FTS5 table forgets a row only when given the exact tokens it
    indexed; they are recomputed from the row (GRAMS_FORMAT pins the rules), and
    only for rows the index actually holds.
    """
    for message_id, search_text in rows:
        if not needs_grams(search_text):
            continue
        if conn.execute("SELECT 1 FROM messages_grams_docsize WHERE id = ?", (message_id,)).fetchone() is None:
            continue
        conn.execute("INSERT INTO messages_grams(messages_grams, rowid, grams) VALUES ('delete', ?, ?)",
                     (message_id, document_grams(search_text)))


def rebuild(conn: sqlite3.Connection, progress: ProgressCallback | None = None) -> int:
    """Empty both indexes and index every row again; returns rows indexed."""
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('delete-all')")
    conn.execute("INSERT INTO messages_grams(messages_grams) VALUES ('delete-all')")
    _set_indexed_upto(conn, 0)
    done = index_pending(conn, progress, lists=False)
    if has_rank_lists(conn):
        rebuild_lists(conn)
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
    conn.execute("INSERT INTO messages_grams(messages_grams) VALUES ('optimize')")
    conn.execute("INSERT OR REPLACE INTO state_meta(key, value) VALUES ('grams_format', ?)", (GRAMS_FORMAT,))
    return done


def rebuild_grams(conn: sqlite3.Connection, progress: ProgressCallback | None = None) -> int:
    """Make the gram index again under the current GRAMS_FORMAT and tokenizer (caller holds the
    write lock); returns rows given grams. The word index is untouched: only the gram rules changed,
    and only rows with non-ASCII text have grams, so this is a fraction of a full rebuild."""
    from .schema import GRAMS_TABLE_DDL, run_script  # schema imports this module

    conn.execute("DROP TABLE IF EXISTS messages_grams")  # its tokenizer may be an older one
    run_script(conn, GRAMS_TABLE_DDL)
    upto = indexed_upto(conn)
    total = conn.execute("SELECT count(*) FROM messages WHERE id <= ?", (upto,)).fetchone()[0] if progress else 0
    done, after, given = 0, 0, 0
    while True:
        rows = conn.execute("SELECT id, search_text FROM messages WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
                            (after, upto, _CHUNK)).fetchall()
        if not rows:
            break
        gram_rows = [(mid, g) for mid, text in rows if needs_grams(text) and (g := document_grams(text))]
        conn.executemany("INSERT INTO messages_grams(rowid, grams) VALUES (?, ?)", gram_rows)
        given += len(gram_rows)
        after, done = rows[-1][0], done + len(rows)
        if progress:
            progress(done, total)
    conn.execute("INSERT INTO messages_grams(messages_grams) VALUES ('optimize')")
    conn.execute("INSERT OR REPLACE INTO state_meta(key, value) VALUES ('grams_format', ?)", (GRAMS_FORMAT,))
    return given


def bookkeeping_problems(conn: sqlite3.Connection) -> list[str]:
    """Rows the indexes hold but should not, or should hold but do not."""
    upto = indexed_upto(conn)
    problems = []
    checks = (
        ("messages_fts holds rows that no longer exist",
         "SELECT count(*) FROM messages_fts_docsize d LEFT JOIN messages m ON m.id = d.id WHERE m.id IS NULL"),
        ("messages_fts is missing rows at or below indexed_upto",
         "SELECT count(*) FROM messages m LEFT JOIN messages_fts_docsize d ON d.id = m.id "
         "WHERE m.id <= ? AND d.id IS NULL"),
        ("messages_fts holds rows above indexed_upto",
         "SELECT count(*) FROM messages_fts_docsize WHERE id > ?"),
        ("messages_grams holds rows that no longer exist",
         "SELECT count(*) FROM messages_grams_docsize d LEFT JOIN messages m ON m.id = d.id WHERE m.id IS NULL"),
    )
    for label, sql in checks:
        count = conn.execute(sql, (upto,) if "?" in sql else ()).fetchone()[0]
        if count:
            problems.append(f"{label}: {count}")
    return problems


def grams_format_current(conn: sqlite3.Connection) -> bool:
    """Whether the gram index was built by the current GRAMS_FORMAT (else: rebuild)."""
    row = conn.execute("SELECT value FROM state_meta WHERE key = 'grams_format'").fetchone()
    return row is not None and row[0] == GRAMS_FORMAT
