"""What searches read from indexed rows, kept per connection from one search to the next.

With writers committing, every search finds the database changed and SQLite drops
the connection's whole page cache, so each page a search touches is fetched and
parsed again, which about doubles its cost. But nothing at or below the
``indexed_upto`` mark ever changes except by deletion: messages are never edited,
and each indexing batch only adds rows above the old mark. So what a search
derives from those rows (their text and length, a query's match count, a gram
phrase's postings) stays true while the mark only moves up and nothing is
deleted, and only rows above the mark an entry was made at need reading.

Each search first compares a cheap key: the mark, the two indexes' totals records
(documents and tokens, the same record bm25() reads), the impact lists' version
and the gram rules. When the mark moved, the totals must have grown by exactly
the documents and tokens of the rows indexed since (a range read of the docsize
tables); anything else (a deleted session, a pruned store, a rebuilt index, a
second process's delete) drops everything. A search never writes.
"""
from __future__ import annotations

import sqlite3
from typing import Callable, NamedTuple, TypeVar

from .ranking import document_length, fold

MAX_ROWS = 8_000         # cached message rows (a few kB each at most: the text, and folded if different)
MAX_COUNTS = 1_024       # cached match counts
MAX_RECENT_ROWS = 4_096  # newly indexed rows kept for bringing cached phrases forward
# rows indexed since the last search past which the cache is dropped rather than checked
# (checking reads each one's docsize record; a connection idle that long rebuilds instead)
MAX_CHECKED_ROWS = 20_000


class IndexState(NamedTuple):
    """The cheap key read at the start of every search."""

    upto: int
    words: bytes | None        # messages_fts averages record: documents, tokens
    grams: bytes | None        # messages_grams averages record
    rank_version: str | None
    grams_format: str | None


class CachedRow(NamedTuple):
    """One indexed message as the Python scorers need it."""

    role: str
    session_id: str
    text: str
    folded: str
    length: int | None         # tokens FTS5 stored for it (None: not in the word index)
    timestamp: float


class CachedCount:
    """How many index rows matched an expression, counted up to a cap, as of mark *upto*."""

    __slots__ = ("upto", "found", "cap")

    def __init__(self, upto: int, found: int, cap: int) -> None:
        self.upto, self.found, self.cap = upto, found, cap  # found > cap means "more than cap"


def varints(blob: bytes | None) -> list[int]:
    """SQLite's big-endian base-128 varints (FTS5's averages and docsize records)."""
    out, value = [], 0
    for byte in blob or b"":
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def index_totals(record: bytes | None) -> tuple[int, int]:
    """(documents, tokens) of an FTS5 averages record (single-column tables)."""
    values = varints(record)
    return (values[0], values[1]) if len(values) >= 2 else (0, 0)


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM state_meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def _record(conn: sqlite3.Connection, table: str) -> bytes | None:
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return None if row is None else bytes(row[0])


def read_state(conn: sqlite3.Connection, upto: int) -> IndexState:
    """The key for mark *upto* (read inside the search's transaction)."""
    return IndexState(upto, _record(conn, "messages_fts"), _record(conn, "messages_grams"),
                      _meta(conn, "rank_version"), _meta(conn, "grams_format"))


def _grown_by_new_rows(conn: sqlite3.Connection, table: str, before: bytes | None, after: bytes | None,
                       old_upto: int, new_upto: int) -> bool:
    """Whether *table*'s totals went from *before* to *after* by indexing rows old_upto..new_upto alone."""
    docs0, tokens0 = index_totals(before)
    docs1, tokens1 = index_totals(after)
    added_docs = added_tokens = 0
    for (size,) in conn.execute(f"SELECT sz FROM {table}_docsize WHERE id > ? AND id <= ?", (old_upto, new_upto)):
        added_docs += 1
        added_tokens += sum(varints(size))
    return docs1 - docs0 == added_docs and tokens1 - tokens0 == added_tokens


class ReadCache:
    """Per-connection cache of what searches derived from rows at or below the mark.

    (Plain classes here and in postings.py, not dataclasses: the first search of a
    one-shot command imports these modules, and dataclass creation costs milliseconds.)
    """

    def __init__(self) -> None:
        self.state: IndexState | None = None
        self.rows: dict[int, CachedRow] = {}
        self.counts: dict[tuple[str, tuple[object, ...]], CachedCount] = {}
        # the same, for the ids themselves: (mark, ids or None when more than the cap, the cap)
        self.id_lists: dict[tuple[str, tuple[object, ...]], tuple[int, list[int] | None, int]] = {}
        self.postings: dict[tuple[str, str], object] = {}  # (index, phrase) -> postings.py's
        self.derived: dict[tuple[object, ...], object] = {}  # what postings.py derives from them
        self.asked: dict[object, int] = {}  # groups postings could serve -> times asked for
        self.drops = 0             # times everything was dropped (tests read it)
        self.searches = 0          # searches this connection has run
        self.recent: dict[int, tuple[str, str, int | None]] = {}  # newly indexed rows: text, folded, length
        self.recent_span = (0, 0)  # every row with low < id <= high is in recent

    def asked_before(self, group_key: object) -> bool:
        """Count a request for *group_key* (hashable); whether it was asked for before."""
        if len(self.asked) >= MAX_COUNTS * 4:
            self.asked.clear()
        times = self.asked[group_key] = self.asked.get(group_key, 0) + 1
        return times > 1

    def clear(self) -> None:
        self.rows.clear()
        self.recent.clear()
        self.recent_span = (0, 0)
        self.counts.clear()
        self.id_lists.clear()
        self.postings.clear()
        self.derived.clear()
        self.drops += 1

    def refresh(self, conn: sqlite3.Connection, upto: int) -> None:
        """Bring the key up to date, dropping everything unless only new rows were indexed since."""
        self.searches += 1
        now = read_state(conn, upto)
        old = self.state
        self.state = now
        if old is None or now == old:
            return
        extended = (old.upto <= now.upto <= old.upto + MAX_CHECKED_ROWS and now.grams_format == old.grams_format
                    and _grown_by_new_rows(conn, "messages_fts", old.words, now.words, old.upto, now.upto)
                    and _grown_by_new_rows(conn, "messages_grams", old.grams, now.grams, old.upto, now.upto))
        if not extended:
            self.clear()

    # -- message rows ---------------------------------------------------------
    def indexed_between(self, conn: sqlite3.Connection, after: int,
                        upto: int) -> list[tuple[int, str, str, int | None]]:
        """(id, text, folded text, word count FTS5 stored) of the rows after..upto, read once per
        connection: every cached phrase brought forward over those rows, and every prefix
        checked for a new word, reads them from here."""
        low, high = self.recent_span
        if not low <= after <= high:  # not adjoining what is held: start over from *after*
            self.recent.clear()
            low = high = after
        if upto > high:
            for mid, text, size in conn.execute(
                    "SELECT m.id, m.search_text, d.sz FROM messages m LEFT JOIN messages_fts_docsize d ON d.id = m.id "
                    "WHERE m.id > ? AND m.id <= ? ORDER BY m.id", (high, upto)):
                text = text or ""
                folded = fold(text)
                self.recent[mid] = (text, text if folded == text else folded, document_length(size))
            high = upto
        if len(self.recent) > MAX_RECENT_ROWS:  # keep the newest half
            keep = sorted(self.recent)[-(MAX_RECENT_ROWS // 2):]
            low = max(low, keep[0] - 1)
            self.recent = {mid: self.recent[mid] for mid in keep}
        self.recent_span = (low, high)
        # held in ascending id order: the rows wanted are at the end, read from there (the rest
        # can be thousands of rows, and this runs for every phrase brought forward)
        wanted = []
        for mid in reversed(self.recent):
            if mid <= after:
                break
            if mid <= upto:
                wanted.append((mid, *self.recent[mid]))
        wanted.reverse()
        return wanted

    def fetch_rows(self, conn: sqlite3.Connection, ids: list[int], upto: int) -> dict[int, CachedRow]:
        """The rows of *ids* at or below *upto* that exist, from the cache where it has them."""
        rows = self.rows
        found = {i: rows[i] for i in ids if i in rows}
        missing = [i for i in ids if i not in found and i <= upto]
        if len(rows) + len(missing) > MAX_ROWS:
            rows.clear()
        for start in range(0, len(missing), 900):
            chunk = missing[start:start + 900]
            for mid, role, session_id, text, size, timestamp in conn.execute(
                    f"SELECT m.id, m.role, m.session_id, m.search_text, d.sz, m.timestamp FROM messages m "
                    f"LEFT JOIN messages_fts_docsize d ON d.id = m.id WHERE m.id IN ({','.join('?' * len(chunk))})",
                    chunk):
                text = text or ""
                folded = fold(text)
                row = CachedRow(role, session_id, text, text if folded == text else folded, document_length(size),
                                timestamp)
                rows[mid] = found[mid] = row
        return found

    # -- match counts -------------------------------------------------------------
    def count(self, conn: sqlite3.Connection, source: str, params: tuple[object, ...], cap: int, upto: int,
              rowid: str) -> int:
        """Rows of ``SELECT 1 {source}`` (an FTS5 match, maybe joined and filtered on the row,
        whose ids are *rowid*), counting at most cap + 1. A row's content, role and session
        never change, so the count at an earlier mark plus the rows indexed since is the count
        now."""
        key = (source, params)
        known = self.counts.get(key)
        if known is not None and known.found > known.cap:  # more than its cap then, so still now
            if cap <= known.cap:
                return cap + 1
            known = None
        if known is None:
            found, done = _count(conn, source, params, cap + 1, rowid, after=None, upto=upto), cap
            if len(self.counts) >= MAX_COUNTS:
                self.counts.clear()
        else:  # exact at its mark: add the matches among rows indexed since
            done = max(cap, known.cap)
            found = known.found
            if known.upto < upto:
                found += _count(conn, source, params, done - found + 1, rowid, after=known.upto, upto=upto)
        self.counts[key] = CachedCount(upto, found, done)
        return min(found, cap + 1)


    def matching_ids(self, conn: sqlite3.Connection, source: str, params: tuple[object, ...], most: int, upto: int,
                     rowid: str) -> list[int] | None:
        """Every row of ``SELECT {rowid} {source}``, ascending, when there are at most *most*
        (else None), kept and brought forward like the counts."""
        key = (source, params)
        known = self.id_lists.get(key)
        if known is None or (known[1] is None and most > known[2]):
            found = _ids(conn, source, params, most, rowid, after=None, upto=upto)
        elif known[1] is None:  # more than its cap then, so still now
            return None
        else:
            found = known[1]
            if known[0] < upto:
                fresh = _ids(conn, source, params, most - len(found), rowid, after=known[0], upto=upto)
                found = None if fresh is None else found + fresh
            if found is not None and len(found) > most:
                found = None
        if known is None and len(self.id_lists) >= MAX_COUNTS:
            self.id_lists.clear()
        self.id_lists[key] = (upto, found, most if found is None else max(most, known[2] if known else 0))
        return found


def _ids(conn: sqlite3.Connection, source: str, params: tuple[object, ...], most: int, rowid: str, *,
         after: int | None, upto: int) -> list[int] | None:
    bounds = f" AND {rowid} > {int(after)} AND {rowid} <= {int(upto)}" if after is not None else ""
    found = [r[0] for r in conn.execute(f"SELECT {rowid} {source}{bounds} ORDER BY {rowid} LIMIT ?",
                                        (*params, max(most, 0) + 1))]
    return found if len(found) <= most else None


def _count(conn: sqlite3.Connection, source: str, params: tuple[object, ...], limit: int, rowid: str, *,
           after: int | None, upto: int) -> int:
    bounds = f" AND {rowid} > {int(after)} AND {rowid} <= {int(upto)}" if after is not None else ""
    return int(conn.execute(f"SELECT count(*) FROM (SELECT 1 {source}{bounds} LIMIT ?)",
                            (*params, max(limit, 0))).fetchone()[0])


T = TypeVar("T")


def per_connection(conn: sqlite3.Connection, attribute: str, make: Callable[[], T]) -> T:
    """The object kept on *conn* under *attribute*, made on first use (the store's connections
    carry attributes; a plain sqlite3 connection cannot, and gets a fresh one each time)."""
    kept = getattr(conn, attribute, None)
    if kept is None:
        kept = make()
        try:
            setattr(conn, attribute, kept)
        except AttributeError:
            pass
    return kept


def read_cache(conn: sqlite3.Connection) -> ReadCache:
    """The connection's cache; valid for the current transaction once refresh_read_cache() has run in it."""
    return per_connection(conn, "read_cache", ReadCache)


def refresh_read_cache(conn: sqlite3.Connection, upto: int) -> ReadCache:
    """Validate the connection's cache against the database as this transaction sees it."""
    cache = read_cache(conn)
    cache.refresh(conn, upto)
    return cache
