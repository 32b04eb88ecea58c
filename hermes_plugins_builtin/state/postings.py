"""BM25 over every match of a query, from per-phrase postings kept between searches.

Some queries have thousands of matches and no cheap exact plan: a gram-index query
(数据库, 部署), two common words (``cache timeout``), a prefix that expands to
several words (``deploy*``). FTS5 ranks them by reading every match's positions
and length, plus a pass over every document of every phrase for the IDF; the
impact lists (candidates.py) can rarely certify an AND or an OR of words. With
writers committing, FTS5's work is paid again in full on every search
(readcache.py).

Here each phrase's postings (message id -> its frequency in the message and the
message's token count) are built once, from FTS5's own ranking of that phrase
alone: bm25() of a one-phrase query is ``idf * weight(tf, dl)``, so with the
row's length (its docsize record) and the phrase's document count the frequency
comes back exactly. After that only rows indexed since are read (a rowid-range
query; the frequency counted in Python as matching.py and grams.py count it).
Ranking is then FTS5's formula with the index's own totals over every match,
visiting (frequency vector, length) classes best first (joint.py) rather than
scoring every match.

A build reads every match of the phrase once (about what FTS5 ranking it costs,
a few times that for a common word), so postings are built only where they will
be used again: gram postings from a connection's second search on, when FTS5
would rank every match anyway; word postings once the same group is asked for
again (search.py decides), for phrases with at most MAX_POSTINGS matches, about
BUILD_BUDGET entries per search. The least recently used make room past
MAX_CACHED_POSTINGS; deletions drop them with the rest of the read cache.
"""
from __future__ import annotations

import bisect
import sqlite3
from collections import Counter

from .grams import document_grams
from .joint import joint, walk_best
from .matching import Alternative, alternatives, frequency, gram_alternatives, occurrence_pattern, occurrences
from .narrowed import complete_lists, held_postings, narrowed_postings
from .pending import PERSISTENT
from .query import Group
from .ranking import K1, B, idf
from .readcache import ReadCache, index_totals, varints

WORDS, GRAMS = PERSISTENT
# phrases with more matches than this are left to FTS5 and the lists (a build reads every match once)
MAX_POSTINGS = 16_000
# rows indexed since a phrase's postings were brought forward past which FTS5 scores them
INVERT_AFTER_ROWS = 256
BUILD_BUDGET = 8_000  # word postings entries one search reads at most (plus the last phrase it starts)
MAX_CACHED_POSTINGS = 300_000  # entries over every cached phrase (about 100 bytes each); the least
# recently used go first
_TF_TOLERANCE = 1e-6


_DL_BITS = 24  # a match is coded as one int, tf << _DL_BITS | dl: cheap to hash, one dict lookup
_DL_MASK = (1 << _DL_BITS) - 1


class Postings:
    """One phrase's matches among rows up to *upto* (about 100 bytes each).

    ``entries`` keeps the order ids were added in (for what is new since). The
    (tf, dl) classes a one-phrase ranking walks are made on its first use: a word's
    postings serve groups of several phrases, which keep their own (joint.py).
    """

    __slots__ = ("table", "alternative", "upto", "entries", "by_code", "by_tf", "unsorted", "used", "extra")

    def __init__(self, table: str, alternative: Alternative, upto: int) -> None:
        self.table, self.alternative, self.upto = table, alternative, upto
        self.entries: dict[int, int] = {}               # id -> tf << _DL_BITS | dl, in the order added
        self.by_code: dict[int, list[int]] | None = None  # code -> ids
        self.by_tf: dict[int, list[int]] = {}           # tf -> its lengths, ascending
        self.unsorted: set[int] = set()
        self.used = 0                                   # the read cache's clock at its last use
        self.extra = 0                                  # matches not listed (narrowed.py's postings)

    def df(self) -> int:
        """Documents holding the phrase (BM25's document frequency)."""
        return len(self.entries) + self.extra

    def add(self, mid: int, tf: int, dl: int) -> None:
        code = tf << _DL_BITS | dl
        self.entries[mid] = code
        if self.by_code is not None:
            self._classify(mid, code)

    def _classify(self, mid: int, code: int) -> None:
        ids = self.by_code.get(code)  # type: ignore[union-attr]
        if ids is None:
            ids = self.by_code[code] = []  # type: ignore[index]
            bisect.insort(self.by_tf.setdefault(code >> _DL_BITS, []), code & _DL_MASK)
        elif ids[-1] > mid:
            self.unsorted.add(code)
        ids.append(mid)

    def classes(self) -> dict[int, list[int]]:
        """tf -> its lengths ascending (the classes made on first use)."""
        if self.by_code is None:
            self.by_code = {}
            for mid, code in self.entries.items():
                self._classify(mid, code)
        return self.by_tf

    def ids_of(self, code: int) -> list[int]:
        """The ids of one (tf, dl) pair, ascending."""
        assert self.by_code is not None
        if code in self.unsorted:
            self.by_code[code].sort()
            self.unsorted.discard(code)
        return self.by_code[code]


class _Weights(dict):  # type: ignore[type-arg]
    """idf * weight(tf, dl) per match code, computed on first use (the formula bm25() uses)."""

    def __init__(self, phrase_idf: float, avgdl: float) -> None:
        super().__init__()
        self.phrase_idf, self.avgdl = phrase_idf, avgdl

    def __missing__(self, code: int) -> float:
        tf, dl = code >> _DL_BITS, code & _DL_MASK
        # ranking.weight() inlined (this runs for every distinct pair a search visits)
        value = self[code] = self.phrase_idf * (tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / self.avgdl)))
        return value


class TooMany:
    """A phrase found with more than MAX_POSTINGS matches: it only grows, so not tried again."""

    __slots__ = ("upto",)

    def __init__(self, upto: int) -> None:
        self.upto = upto


def postings_plan(group: Group) -> tuple[str, list[list[Alternative]]] | None:
    """(index, the phrases ORed in each ANDed term) when postings can rank *group*: only gram
    terms or only word terms, nothing to check literally, no negatives, no native prefixes."""
    if group.negatives or not group.positives or any(t.literal is not None for t in group.positives):
        return None
    if all(t.gram_exprs and not t.word_expr for t in group.positives):
        terms = [gram_alternatives(e) for t in group.positives for e in t.gram_exprs]
        table = GRAMS
    elif all(t.word_expr and not t.gram_exprs for t in group.positives):
        terms = [alternatives(t.word_expr or "") for t in group.positives]
        table = WORDS
    else:
        return None
    if any(alts is None or any(a.prefix and table == WORDS for a in alts) for alts in terms):
        return None
    return table, terms  # type: ignore[return-value]


def _build(conn: sqlite3.Connection, table: str, alt: Alternative, upto: int, documents: int, avgdl: float,
           most: int) -> Postings | TooMany | None:
    """Read *alt*'s matches with their bm25() once and recover each one's frequency."""
    hits = int(conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                            (alt.fts, most + 1)).fetchone()[0])
    if hits > most:
        return TooMany(upto)
    postings = Postings(table, alt, upto)
    return postings if _invert(conn, postings, 0, upto, hits, documents, avgdl) else None


def _invert(conn: sqlite3.Connection, postings: Postings, after: int, upto: int, hits: int | None,
            documents: int, avgdl: float) -> bool:
    """Add the matches among rows after..upto from FTS5's bm25() of the phrase alone, which is
    ``idf * weight(tf, dl)``: with the row's docsize record and the phrase's document count
    *hits* (None: the postings' own count plus the rows read) the frequency comes back exactly.
    False when a score does not invert to a whole frequency (FTS5 then decides)."""
    table, alt = postings.table, postings.alternative
    # the gram index is kept by the store, not by triggers: the join drops rows deleted behind its back
    live = f" JOIN messages m ON m.id = {table}.rowid" if table == GRAMS else ""
    rows = conn.execute(
        f"SELECT {table}.rowid, bm25({table}), d.sz FROM {table} JOIN {table}_docsize d ON d.id = {table}.rowid"
        f"{live} WHERE {table} MATCH ? AND {table}.rowid > ? AND {table}.rowid <= ?",
        (alt.fts, after, upto)).fetchall()
    phrase_idf = idf(documents, postings.df() + len(rows) if hits is None else hits)
    add, limit = postings.add, K1 + 1
    norm0, norm1 = K1 * (1 - B), K1 * B / avgdl  # K1 * (1 - B + B * dl / avgdl), with dl to come
    for mid, score, size in rows:
        if not size:
            return False
        dl = size[0] if size[0] < 0x80 else varints(size)[0]  # one byte below 128 tokens
        w = -score / phrase_idf
        if w >= limit:
            return False
        raw = w * (norm0 + norm1 * dl) / (limit - w)
        tf = round(raw)
        if tf < 1 or abs(raw - tf) > _TF_TOLERANCE * tf:
            return False  # not a one-phrase score after all
        add(mid, tf, dl)
    postings.upto = upto
    return True


def _bring_forward(conn: sqlite3.Connection, cache: ReadCache, behind: list[Postings], upto: int,
                   documents: int, avgdl: float) -> bool:
    """Add to postings made at the same mark the matches among rows indexed since (False:
    could not; the caller drops them).

    The new rows are read once per connection (ReadCache.indexed_between) and each
    phrase is counted in them in Python, the way matching.py and grams.py count
    (as the search over rows not yet indexed does), without an FTS5 query per
    phrase. Past INVERT_AFTER_ROWS rows (phrases not searched for a while) FTS5's
    bm25() over just those rows is inverted instead, per phrase.
    """
    after = behind[0].upto
    if upto - after > INVERT_AFTER_ROWS:
        return all(_invert(conn, p, after, upto, None, documents, avgdl) for p in behind)
    rows = cache.indexed_between(conn, after, upto)
    if behind[0].table == GRAMS:
        sizes = dict(conn.execute(f"SELECT id, sz FROM {GRAMS}_docsize WHERE id > ? AND id <= ?", (after, upto)))
        for mid, text, _, _ in rows:
            if mid not in sizes:
                continue  # no grams in it
            toks = document_grams(text).split()
            counts = Counter(toks)
            for p in behind:
                tf = frequency(toks, counts, p.alternative)
                if tf:
                    p.add(mid, tf, varints(sizes[mid])[0])
    else:
        patterns = [(p, p.alternative.words[0], occurrence_pattern(p.alternative)) for p in behind]
        for mid, _, folded, dl in rows:
            if dl is None:
                continue  # not in the word index (deleted meanwhile)
            for p, first, pattern in patterns:
                if first in folded:
                    tf = occurrences(pattern, folded)
                    if tf:
                        p.add(mid, tf, dl)
    for p in behind:
        p.upto = upto
    return True


def _catch_up(conn: sqlite3.Connection, cache: ReadCache, held: dict[tuple[str, ...], Postings], upto: int,
              documents: int, avgdl: float) -> None:
    """Bring the cached postings *held* (by cache key) up to *upto*, those made at the same mark together."""
    by_mark: dict[tuple[str, int], list[tuple[tuple[str, ...], Postings]]] = {}
    for key, found in held.items():
        if found.upto < upto:
            by_mark.setdefault((found.table, found.upto), []).append((key, found))
    for behind in by_mark.values():
        if not _bring_forward(conn, cache, [p for _, p in behind], upto, documents, avgdl):
            for key, _ in behind:
                cache.postings.pop(key, None)
            cache.derived.clear()  # what was derived from them counted their entries


def advance_postings(conn: sqlite3.Connection, cache: ReadCache, upto: int) -> None:
    """Bring every cached phrase at most INVERT_AFTER_ROWS behind forward to *upto*, run at
    the start of every search.

    Searches of other queries come between two searches of one query, so under
    busy writers a phrase kept only for its own searches falls hundreds of rows
    behind and is then brought forward by an FTS5 query of its own (a few
    milliseconds per phrase). Advanced on every search instead, each phrase is
    a few rows behind at most: the rows indexed since the last search are read
    once (ReadCache.indexed_between) and counted for every phrase in that one
    pass, and all the phrases share one mark from then on. Phrases further
    behind (postings of an idle connection) are left to the search that uses them,
    and so are gram phrases: splitting every new row into grams costs more than
    their own searches' catch-up does.
    """
    held = {key: p for key, p in cache.postings.items()
            if isinstance(p, Postings) and p.table == WORDS and p.upto < upto and upto - p.upto <= INVERT_AFTER_ROWS}
    if held:  # (the totals only matter past INVERT_AFTER_ROWS, excluded above)
        _catch_up(conn, cache, held, upto, 1, 1.0)


def _postings(conn: sqlite3.Connection, cache: ReadCache, table: str, alt: Alternative, upto: int,
              documents: int, avgdl: float, most: int, may_build: bool) -> Postings | None:
    key = (table, alt.fts)
    found = cache.postings.get(key)
    if isinstance(found, Postings):
        found.used = cache.searches
        return found if found.upto >= upto else None  # (_catch_up ran first)
    if isinstance(found, TooMany) or not may_build:
        return None
    built = _build(conn, table, alt, upto, documents, avgdl, most)
    if built is None:
        return None
    if isinstance(built, Postings):
        built.used = cache.searches
        make_room(cache, len(built.entries))
    cache.postings[key] = built
    return built if isinstance(built, Postings) else None


def make_room(cache: ReadCache, entries: int) -> None:
    """Drop the least recently used postings until *entries* more fit in MAX_CACHED_POSTINGS."""
    held = [(p.used, key, len(p.entries)) for key, p in cache.postings.items() if isinstance(p, Postings)]
    total = sum(n for _, _, n in held)
    if total + entries <= MAX_CACHED_POSTINGS:
        return
    dropped = set()
    for _, key, n in sorted(held):
        del cache.postings[key]
        dropped.add(key[:2])  # a phrase's full or narrowed postings (narrowed.narrowed_key)
        total -= n
        if total + entries <= MAX_CACHED_POSTINGS:
            break
    # what was derived from a dropped phrase counted its entries
    for key in [k for k in cache.derived
                if any((k[1], fts) in dropped for term in k[2] for fts in term)]:  # type: ignore[union-attr]
        del cache.derived[key]


def rank_from_postings(conn: sqlite3.Connection, cache: ReadCache, group: Group, *, roles: tuple[str, ...],
                       excluded: tuple[str, ...], limit: int, upto: int, build: bool,
                       build_at_most: int = MAX_POSTINGS) -> list[tuple[int, float]] | None:
    """(id, bm25 score) of *group*'s best *limit* matches, best first (ties: newest first, as
    FTS5's ``ORDER BY score, id DESC``); None when postings cannot answer.

    With *build*, postings not cached yet are read (each phrase only if it has at
    most *build_at_most* matches); word postings only serve groups the lists rank
    poorly (several terms, or a term of several words).
    """
    plan = postings_plan(group)
    if plan is None:
        return None
    table, terms = plan
    if table == WORDS and len(terms) == 1 and len(terms[0]) == 1:
        return None  # one word or phrase: its impact list ranks it exactly and cheaply
    record = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    documents, tokens = index_totals(bytes(record[0]) if record else None)
    if not documents:
        return None
    avgdl = tokens / documents
    most = min(build_at_most, MAX_POSTINGS)
    group_key = ("group", tuple(tuple(alt.fts for alt in alts) for alts in terms))
    _catch_up(conn, cache, held_postings(cache, table, terms, group_key), upto, documents, avgdl)
    lists: list[list[Postings]] = []
    complete, built = True, 0
    common: list[Alternative] = []  # phrases with too many matches for postings of their own
    for alts in terms:
        term: list[Postings] = []
        for alt in alts:
            # a word phrase's build reads all its matches (~2 microseconds each), so one search
            # builds about BUILD_BUDGET entries; later searches build the rest, ranked meanwhile
            # as before
            cached = isinstance(cache.postings.get((table, alt.fts)), Postings)
            may_build = build and (table == GRAMS or built < BUILD_BUDGET)
            postings = _postings(conn, cache, table, alt, upto, documents, avgdl, most, may_build)
            if postings is None:
                postings = narrowed_postings(cache, table, alt, group_key)
            if postings is None:
                complete = False
                if isinstance(cache.postings.get((table, alt.fts)), TooMany):
                    common.append(alt)
                continue
            built += 0 if cached else len(postings.entries)
            term.append(postings)
        lists.append(term)
    if not complete:
        # (narrowing needs a second term to narrow by)
        if not (common and build and table == WORDS and len(terms) > 1):
            return None
        lists = complete_lists(conn, cache, table, terms, common, lists, group_key, upto, most)
        if lists is None:
            return None
    flat = [p for term in lists for p in term]
    weights = [_Weights(idf(documents, p.df()), avgdl) for p in flat]

    def allowed(ids: list[int]) -> list[int]:
        if not (roles or excluded):
            return ids
        rows = cache.fetch_rows(conn, ids, upto)
        return [i for i in ids if i in rows and (not roles or rows[i].role in roles)
                and not (excluded and rows[i].session_id in excluded)]

    if len(flat) == 1:  # one phrase: its postings' own (tf, dl) classes
        only, w = flat[0], weights[0]
        return walk_best(only.classes(), lambda tf, dl: only.ids_of(tf << _DL_BITS | dl),  # type: ignore[arg-type]
                         lambda tf, dl: -w[tf << _DL_BITS | dl], allowed, limit)
    grouped = joint(cache, lists, _DL_BITS)

    def score(vector: tuple[int, ...], dl: int) -> float:
        total = 0.0  # in the query's phrase order, as bm25() sums
        for tf, w in zip(vector, weights):
            if tf:
                total += w[tf << _DL_BITS | dl]
        return -total

    return walk_best(grouped.lengths, grouped.ids_of, score, allowed, limit)  # type: ignore[arg-type]
