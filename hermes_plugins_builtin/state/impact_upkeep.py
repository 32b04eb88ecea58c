"""Impact-list upkeep: the writer's half of ranking.py, run under the write lock.

Every batch the writer indexes is folded into the lists of the words it holds
(update_lists); a word that crosses TRACK_DF messages gets its list built from
FTS5's own ranking of its matches (a few per batch, see _promote); after the
word index is rebuilt, every list is built again (rebuild_lists). Searches only
read what this module writes (candidates.py).
"""
from __future__ import annotations

import heapq
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence

from .ranking import B, K1, LIST_SIZE, averages, document_length, idf, tokens, weight

TRACK_DF = 1000    # words in at least this many messages get an impact list
DF_FLUSH_BATCHES = 32
COUNTS_PER_BATCH = 16  # document counts of candidate words per batch (see _promote)
ROWS_PER_BUDGET = 32   # rows that earn one batch's budget (indexing.BATCH_ROWS)
LOCAL_WORDS_MAX = 100_000  # distinct words a connection counts itself at most (~10 MB; see _Tracked.local)


def _vocab(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_fts_terms USING fts5vocab(main, messages_fts, 'row')")


def _document_frequency(conn: sqlite3.Connection, term: str) -> int:
    _vocab(conn)
    row = conn.execute("SELECT doc FROM temp.messages_fts_terms WHERE term = ?", (term,)).fetchone()
    return int(row[0]) if row else 0


def _store(conn: sqlite3.Connection, term: str, entries: Iterable[tuple[float, int, int, int]]) -> None:
    conn.executemany("INSERT OR REPLACE INTO rank_lists(term, message_id, tf, dl, impact) VALUES (?, ?, ?, ?, ?)",
                     [(term, mid, tf, dl, impact) for impact, mid, tf, dl in entries])


def _trim(conn: sqlite3.Connection, term: str) -> float:
    """Cut *term*'s list back to LIST_SIZE entries; returns its new floor (lowest impact kept)."""
    entries = sorted(conn.execute("SELECT impact, message_id FROM rank_lists WHERE term = ?", (term,)), reverse=True)
    conn.executemany("DELETE FROM rank_lists WHERE term = ? AND message_id = ?",
                     [(term, mid) for _, mid in entries[LIST_SIZE:]])
    floor = entries[LIST_SIZE - 1][0] if len(entries) >= LIST_SIZE else 0.0
    conn.execute("UPDATE rank_terms SET floor = ?, listed = ? WHERE term = ?", (floor, min(len(entries), LIST_SIZE), term))
    return floor


def _build_list(conn: sqlite3.Connection, term: str, df: int, documents: int, avgdl: float) -> None:
    """Start tracking *term*: FTS5 ranks its matches (one word: the BM25 order is the weight
    order), and the best LIST_SIZE keep their exact counts and lengths."""
    phrase = '"' + term.replace('"', '""') + '"'
    entries = [(weight(tf, dl, avgdl), mid, tf, dl) for mid, tf, dl in _best_matches(conn, phrase, df)]
    _store(conn, term, entries)
    floor = min(e[0] for e in entries) if len(entries) >= LIST_SIZE else 0.0
    conn.execute("INSERT OR REPLACE INTO rank_terms(term, df, checked_at, tracked, floor, listed) "
                 "VALUES (?, ?, ?, 1, ?, ?)", (term, df, documents, floor, len(entries)))
    _bump_version(conn)


def _best_matches(conn: sqlite3.Connection, phrase: str, df: int) -> list[tuple[int, int, int]]:
    """(id, tf, dl) of the LIST_SIZE best matches of a one-word *phrase* found in *df* rows.

    bm25() of a one-word query is ``idf * weight(tf, dl)``: with the row's length (its
    docsize record) and the index's totals as bm25() read them, the frequency comes back
    exactly, so no row is read or tokenized. Should a score not invert to a whole
    frequency, the rows are read and tokenized instead.
    """
    ranked = conn.execute(
        "SELECT r.id, r.score, d.sz FROM (SELECT rowid AS id, rank AS score FROM messages_fts "
        "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?) r JOIN messages_fts_docsize d ON d.id = r.id "
        "ORDER BY r.score, r.id DESC", (phrase, LIST_SIZE)).fetchall()
    documents, avgdl = averages(conn)  # the ranking query wrote the batch's rows out: bm25() counted them
    phrase_idf = idf(documents, df)
    found = []
    for mid, score, size in ranked:
        dl = document_length(size)
        tf = _frequency(-score / phrase_idf, dl, avgdl) if dl is not None else None
        if tf is None:
            return _best_matches_from_text(conn, phrase)
        found.append((mid, tf, dl))
    return found


def _frequency(weighted: float, dl: int, avgdl: float) -> int | None:
    """The tf for which ``weight(tf, dl, avgdl) == weighted``, if it is a whole number."""
    if weighted >= K1 + 1:
        return None
    raw = weighted * K1 * (1 - B + B * dl / avgdl) / (K1 + 1 - weighted)
    tf = round(raw)
    return tf if tf >= 1 and abs(raw - tf) <= 1e-6 * tf else None


def _best_matches_from_text(conn: sqlite3.Connection, phrase: str) -> list[tuple[int, int, int]]:
    term = phrase[1:-1].replace('""', '"')
    found = []
    for mid, text in conn.execute("SELECT m.id, m.search_text FROM messages m WHERE m.id IN (SELECT rowid FROM "
                                  "messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?)",
                                  (phrase, LIST_SIZE)):
        toks = tokens(text)
        tf = toks.count(term)
        if tf:
            found.append((mid, tf, len(toks)))
    return found


def _bump_version(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT OR REPLACE INTO state_meta(key, value) VALUES ('rank_version', "
                 "coalesce((SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = 'rank_version'), 0) + 1)")


class _Tracked:
    """The tracked words with their floors, cached per connection until another writer promotes one.

    A cached floor is never above the real one (floors only rise, and a cached one
    is refreshed whenever this connection trims), so a stale cache only lets a few
    more entries in, which the next trim drops again.
    """

    def __init__(self) -> None:
        self.version: str | None = None
        self.words: dict[str, list[float]] = {}  # word -> [floor, entries in its list]
        self.names: frozenset[str] = frozenset()  # the keys of words, for set intersections
        self.df_pending: Counter[str] = Counter()
        self.next_check: dict[str, int] = {}  # untracked word -> document count worth counting it again
        self.batches = 0
        # while every row of the index was indexed through this connection (a store that started
        # empty, with no other writer): each word's document count, kept as the rows go by
        self.local: Counter[str] | None = None
        self.local_rows = 0

    def count_locally(self, documents: int, rows: int, seen: Counter[str]) -> None:
        """Add a batch of *rows* (*seen*: word -> rows of the batch holding it) to the local
        counts, which hold while the index held exactly the rows counted (*documents*, its
        count before the batch): another writer's batch or a deletion ends them for good."""
        if self.batches == 0 and documents == 0:
            self.local, self.local_rows = Counter(), 0
        if self.local is None:
            return
        if documents != self.local_rows or len(self.local) > LOCAL_WORDS_MAX:
            self.local = None
            return
        self.local.update(seen)
        self.local_rows += rows

    def document_frequency(self, conn: sqlite3.Connection, term: str) -> int:
        """*term*'s document count: the local one when kept, else counted in the index."""
        if self.local is not None:
            return self.local[term]
        return _document_frequency(conn, term)


def _tracked(conn: sqlite3.Connection) -> _Tracked:
    cache = getattr(conn, "rank_cache", None)
    if cache is None:
        cache = _Tracked()
        try:
            conn.rank_cache = cache  # type: ignore[attr-defined]  # the store's connections carry it
        except AttributeError:
            pass  # a plain sqlite3 connection (migration tests): read afresh each time
    row = conn.execute("SELECT value FROM state_meta WHERE key = 'rank_version'").fetchone()
    version = row[0] if row else None
    if cache.version != version or not cache.words:
        fresh = {term: [floor, listed] for term, floor, listed in
                 conn.execute("SELECT term, floor, listed FROM rank_terms WHERE tracked = 1")}
        # rank_terms.listed is only written when a list is trimmed, so a word this connection
        # has been adding to keeps its own count (and its floor, if higher): otherwise every
        # promotion of another word would reset the counts and lists would never be trimmed
        for term, entry in fresh.items():
            known = cache.words.get(term)
            if known is not None:
                entry[0], entry[1] = max(entry[0], known[0]), max(entry[1], known[1])
        cache.words = fresh
        cache.names = frozenset(fresh)
        cache.version = version
    return cache


def _next_check(df: int, checked_at: int) -> int:
    """When to count a word again: when it would reach TRACK_DF growing as it has so far.

    A word that grows faster is only promoted later; until then a query enumerates
    its matches instead of reading a list (slower, never less exact).
    """
    steady = checked_at * TRACK_DF // max(df, 1)
    return max(checked_at + TRACK_DF - df, steady)


def update_lists(conn: sqlite3.Connection, rows: Sequence[tuple[int, str | None, str | None, int, Counter[str]]]) -> None:
    """Fold freshly indexed *rows* into the impact lists (caller holds the write lock).

    Each row is an ``indexing.PreparedRow`` (id, text, grams, word count, word
    frequencies), tokenized before the lock was taken. This runs for every batch,
    so it is written for the common case: only a row's tracked words are weighed,
    and the batch's distinct words are tallied in one C-level Counter call.
    """
    if not rows:
        return
    documents, avgdl = averages(conn)
    cache = _tracked(conn)
    tracked, names = cache.words, cache.names
    additions: list[tuple[str, int, int, int, float]] = []
    added: Counter[str] = Counter()
    batch_words: list[str] = []
    k1_plus, norm_base, b_part = K1 + 1, K1 * (1 - B), K1 * B / avgdl
    for mid, _text, _grams, dl, counts in rows:
        batch_words.extend(counts)
        norm = norm_base + b_part * dl  # weight() with the per-message part hoisted
        for term in names.intersection(counts):  # iterates the row's words, not every tracked one
            tf = counts[term]
            impact = tf * k1_plus / (tf + norm)
            if impact > tracked[term][0]:
                additions.append((term, mid, tf, dl, impact))
                added[term] += 1
    if additions:
        conn.executemany("INSERT OR REPLACE INTO rank_lists(term, message_id, tf, dl, impact) VALUES (?, ?, ?, ?, ?)",
                         additions)
    for term, count in added.items():
        entry = tracked[term]
        entry[1] += count
        if entry[1] >= 2 * LIST_SIZE:  # trim in bulk: the query side reads the best LIST_SIZE anyway
            entry[0] = _trim(conn, term)
            entry[1] = LIST_SIZE
    seen = Counter(batch_words)  # word -> rows of this batch containing it
    cache.count_locally(documents, len(rows), seen)
    # document counts only weigh words against each other (idf), so they are written
    # back every DF_FLUSH_BATCHES batches rather than rewriting rank_terms every time
    pending = cache.df_pending
    for term in names.intersection(seen):  # one pass (a dict built for Counter.update was two)
        pending[term] = pending.get(term, 0) + seen[term]
    cache.batches += 1
    if cache.batches % DF_FLUSH_BATCHES == 0:
        conn.executemany("UPDATE rank_terms SET df = df + ? WHERE term = ?",
                         [(n, term) for term, n in cache.df_pending.items()])
        cache.df_pending.clear()
    # a bulk load (a flush of thousands of rows) gets the budget of as many batches
    _promote(conn, cache, seen, documents, avgdl, batches=max(1, len(rows) // ROWS_PER_BUDGET))


def _promote(conn: sqlite3.Connection, cache: _Tracked, seen: Counter[str], documents: int, avgdl: float, *,
             batches: int = 1) -> None:
    """Give the words that reached TRACK_DF their lists.

    A word is worth a look when it shows up twice in one batch; and it can only
    have reached TRACK_DF if enough rows were indexed since it was last counted
    (none can before the index holds TRACK_DF rows: a young store would otherwise
    count every word it meets, 400 of them in its first 500 messages).

    A batch of appends counts at most COUNTS_PER_BATCH words and builds at most one list
    (*batches* times that for a bulk load; each count reads the word's whole posting list, ~50 us; a build ranks its
    1,000+ matches, 2-4 ms): when a store crosses TRACK_DF, dozens of words qualify
    at once, and doing them all in one append made it the slowest of the run. The
    words left over are looked at again the next time a batch has them twice.
    """
    if documents < TRACK_DF:
        return
    checks, tracked = cache.next_check, cache.words
    budget, builds = COUNTS_PER_BATCH * batches, batches
    for term, n in seen.items():
        if n < 2 or term in tracked or documents < checks.get(term, 0):
            continue
        row = conn.execute("SELECT df, checked_at FROM rank_terms WHERE term = ?", (term,)).fetchone()
        if row is not None and documents < _next_check(row[0], row[1]):
            checks[term] = _next_check(row[0], row[1])
            continue
        if budget == 0:
            return
        budget -= 1
        df = cache.document_frequency(conn, term)
        if df >= TRACK_DF and cache.local is not None:
            df = _document_frequency(conn, term)  # a list is built on the index's own count
        checks[term] = _next_check(df, documents)
        if df >= TRACK_DF:
            _build_list(conn, term, df, documents, avgdl)
            builds -= 1
            if builds == 0:
                return
        else:
            conn.execute("INSERT OR REPLACE INTO rank_terms(term, df, checked_at, tracked, floor, listed) "
                         "VALUES (?, ?, ?, 0, 0, 0)", (term, df, documents))


def rebuild_lists(conn: sqlite3.Connection) -> None:
    """Every list from scratch (after the word index was rebuilt)."""
    conn.execute("DELETE FROM rank_lists")
    conn.execute("DELETE FROM rank_terms")
    _bump_version(conn)
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
    conn.executemany("INSERT INTO rank_terms(term, df, checked_at, tracked, floor, listed) VALUES (?, ?, ?, 1, ?, ?)",
                     [(term, df, documents, min(heaps[term])[0] if len(heaps[term]) >= LIST_SIZE else 0.0,
                       len(heaps[term])) for term, df in frequent.items()])
    _bump_version(conn)
