"""Impact lists: BM25 over every match of a common word without scoring every match.

FTS5's bm25() costs about 1.4 microseconds per matching row, so ranking the 25k
messages that contain "file" takes ~35 ms. But the best BM25 matches of one word
are the messages where it is most frequent relative to their length, and that
order can be kept up to date as rows are indexed. For every word found in at
least TRACK_DF messages the store keeps the LIST_SIZE messages with the highest
BM25 weight ``tf*(k1+1) / (tf + k1*(1 - b + b*dl/avgdl))`` (table ``rank_lists``,
with the word's tf and the message's length dl). The writer that indexes a
batch updates the lists in the same transaction; a word that crosses TRACK_DF
gets its list built from its matches then. Searches only read.

A query whose matches fit in the rank window is ranked by FTS5 in full. One with
more matches takes its candidates from the lists of its words (a phrase: of each
of its words; a prefix: of every listed word it covers), checks that each
candidate really matches, and scores it with FTS5's own BM25 formula (same
k1, b, document count and average length), so the order is the one ranking every
match would give whenever the true best matches are among the candidates: always
for a single word, and for the combinations measured in
benchmarks/search_relevance.py nearly always.
"""
from __future__ import annotations

import heapq
import math
import re
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Iterable


K1, B = 1.2, 0.75  # FTS5's bm25() defaults
TRACK_DF = 500     # words in at least this many messages get an impact list
LIST_SIZE = 128    # messages kept per word
CANDIDATES_PER_LIST = 64  # read per list when a query needs the texts re-tokenized

_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str | None) -> list[str]:
    """The word index's tokens (unicode61, remove_diacritics 2), near enough: lowercase letter/digit runs."""
    if not text:
        return []
    if text.isascii():
        return _TOKEN.findall(text.lower())
    folded = "".join(ch for ch in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(ch))
    return _TOKEN.findall(folded)


def _varints(blob: bytes) -> list[int]:
    """SQLite's big-endian base-128 varints (as FTS5 stores its averages record)."""
    out, value = [], 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def averages(conn: sqlite3.Connection) -> tuple[int, float]:
    """(documents, average tokens per document) of the word index, exactly as bm25() reads them."""
    row = conn.execute("SELECT block FROM messages_fts_data WHERE id = 1").fetchone()
    values = _varints(row[0]) if row and row[0] else []
    if len(values) < 2 or values[0] == 0:
        return 0, 1.0
    return values[0], max(values[1] / values[0], 1e-9)


def weight(tf: int, dl: int, avgdl: float) -> float:
    """BM25's term-frequency part for one message."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))


def idf(documents: int, df: int) -> float:
    """BM25's inverse document frequency, clamped like FTS5's."""
    value = math.log((documents - df + 0.5) / (df + 0.5)) if documents else 0.0
    return value if value > 0 else 1e-6


# -- upkeep (writer side, under the write lock) --------------------------------
def _vocab(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_fts_terms USING fts5vocab(main, messages_fts, 'row')")


def _document_frequency(conn: sqlite3.Connection, term: str) -> int:
    _vocab(conn)
    row = conn.execute("SELECT doc FROM temp.messages_fts_terms WHERE term = ?", (term,)).fetchone()
    return int(row[0]) if row else 0


def _store(conn: sqlite3.Connection, term: str, entries: Iterable[tuple[float, int, int, int]]) -> None:
    conn.executemany("INSERT OR REPLACE INTO rank_lists(term, message_id, tf, dl, impact) VALUES (?, ?, ?, ?, ?)",
                     [(term, mid, tf, dl, impact) for impact, mid, tf, dl in entries])


def _trim(conn: sqlite3.Connection, terms: Iterable[str]) -> None:
    for term in terms:
        conn.execute("DELETE FROM rank_lists WHERE term = ? AND message_id IN (SELECT message_id FROM rank_lists "
                     "WHERE term = ? ORDER BY impact DESC LIMIT -1 OFFSET ?)", (term, term, LIST_SIZE))
        floor = conn.execute("SELECT count(*), min(impact) FROM rank_lists WHERE term = ?", (term,)).fetchone()
        conn.execute("UPDATE rank_terms SET floor = ? WHERE term = ?",
                     (floor[1] if floor[0] >= LIST_SIZE else 0.0, term))


def _build_list(conn: sqlite3.Connection, term: str, df: int, documents: int, avgdl: float) -> None:
    """Start tracking *term*: its list from every message that contains it."""
    rows = conn.execute("SELECT m.id, m.search_text FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
                        "WHERE messages_fts MATCH ?", ('"' + term.replace('"', '""') + '"',)).fetchall()
    scored = []
    for mid, text in rows:
        toks = tokens(text)
        tf = toks.count(term)
        if tf:
            scored.append((weight(tf, len(toks), avgdl), mid, tf, len(toks)))
    _store(conn, term, heapq.nlargest(LIST_SIZE, scored))
    conn.execute("INSERT OR REPLACE INTO rank_terms(term, df, checked_at, tracked, floor) VALUES (?, ?, ?, 1, 0)",
                 (term, df, documents))
    _trim(conn, [term])


def update_lists(conn: sqlite3.Connection, rows: list[tuple[int, str | None]]) -> None:
    """Fold freshly indexed *rows* into the impact lists (caller holds the write lock)."""
    if not rows:
        return
    documents, avgdl = averages(conn)
    known = {term: (tracked, floor, df, checked) for term, tracked, floor, df, checked in
             conn.execute("SELECT term, tracked, floor, df, checked_at FROM rank_terms")}
    additions: dict[str, list[tuple[float, int, int, int]]] = {}
    seen: Counter[str] = Counter()
    for mid, text in rows:
        toks = tokens(text)
        dl = len(toks)
        for term, tf in Counter(toks).items():
            entry = known.get(term)
            if entry is not None and entry[0]:
                impact = weight(tf, dl, avgdl)
                if impact > entry[1]:
                    additions.setdefault(term, []).append((impact, mid, tf, dl))
                seen[term] += 1
            else:
                seen[term] += 1
    for term, entries in additions.items():
        _store(conn, term, entries)
    _trim(conn, additions)
    tracked_counts = [(n, term) for term, n in seen.items() if term in known and known[term][0]]
    conn.executemany("UPDATE rank_terms SET df = df + ? WHERE term = ?", tracked_counts)
    # A word is worth a look when it shows up twice in one batch; and it can only
    # have reached TRACK_DF if enough rows were indexed since it was last counted.
    for term, n in seen.items():
        entry = known.get(term)
        if n < 2 or (entry is not None and (entry[0] or documents - entry[3] < TRACK_DF - entry[2])):
            continue
        df = _document_frequency(conn, term)
        if df >= TRACK_DF:
            _build_list(conn, term, df, documents, avgdl)
        else:
            conn.execute("INSERT OR REPLACE INTO rank_terms(term, df, checked_at, tracked, floor) VALUES (?, ?, ?, 0, 0)",
                         (term, df, documents))


def rebuild_lists(conn: sqlite3.Connection) -> None:
    """Every list from scratch (after the word index was rebuilt)."""
    conn.execute("DELETE FROM rank_lists")
    conn.execute("DELETE FROM rank_terms")
    _vocab(conn)
    documents, avgdl = averages(conn)
    frequent = dict(conn.execute("SELECT term, doc FROM temp.messages_fts_terms WHERE doc >= ?", (TRACK_DF,)).fetchall())
    if not frequent:
        return
    heaps: dict[str, list[tuple[float, int, int, int]]] = {term: [] for term in frequent}
    for mid, text in conn.execute("SELECT id, search_text FROM messages WHERE id <= "
                                  "(SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = 'indexed_upto')"):
        toks = tokens(text)
        dl = len(toks)
        for term, tf in Counter(toks).items():
            heap = heaps.get(term)
            if heap is None:
                continue
            entry = (weight(tf, dl, avgdl), mid, tf, dl)
            if len(heap) < LIST_SIZE:
                heapq.heappush(heap, entry)
            elif entry > heap[0]:
                heapq.heapreplace(heap, entry)
    for term, heap in heaps.items():
        _store(conn, term, heap)
    conn.executemany("INSERT INTO rank_terms(term, df, checked_at, tracked, floor) VALUES (?, ?, ?, 1, ?)",
                     [(term, df, documents, min(heaps[term])[0] if len(heaps[term]) >= LIST_SIZE else 0.0)
                      for term, df in frequent.items()])
