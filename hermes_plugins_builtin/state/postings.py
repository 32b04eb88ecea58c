"""BM25 over every match of a gram-index query, from postings kept between searches.

A query in a script without spaces (数据库, 部署) is one or more phrases of the
gram index, often with a thousand or more matches, and FTS5 ranks them all: its
bm25() reads every match's positions and length, plus a pass over every
document of every phrase for the IDF. That is most of such a search's cost, and
with writers committing it is paid again in full each time (readcache.py).

Here each phrase's postings (message id -> its frequency in the message and the
message's gram count) are built once, by the same FTS5 query read back: bm25() of
a one-phrase query is ``idf * weight(tf, dl)``, so with the row's length (its
docsize record) and the phrase's document count the frequency comes back
exactly. After that only rows indexed since are read (a rowid-range query, their
grams recomputed by grams.py as the index did). Ranking is then FTS5's formula
with the gram index's own totals, over every match: for one phrase, per distinct
(frequency, length) pair rather than per message.

Postings are built only for phrases FTS5 could rank within the search budget
anyway; deletions drop them with the rest of the read cache.
"""
from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field

from .grams import document_grams
from .matching import Alternative, frequency, gram_alternatives
from .query import Group
from .ranking import idf, weight
from .readcache import ReadCache, index_totals, varints

GRAMS = "messages_grams"
# phrases with more matches than this are left to FTS5 (a build reads every match once)
MAX_POSTINGS = 20_000
MAX_CACHED_POSTINGS = 400_000  # entries over every cached phrase
_TF_TOLERANCE = 1e-6


@dataclass
class Postings:
    """One gram phrase's matches among rows up to *upto*."""

    alternative: Alternative
    upto: int
    entries: dict[int, tuple[int, int]] = field(default_factory=dict)   # id -> (tf, dl)
    by_key: dict[tuple[int, int], list[int]] = field(default_factory=dict)  # (tf, dl) -> ids
    unsorted: set[tuple[int, int]] = field(default_factory=set)

    def add(self, mid: int, tf: int, dl: int) -> None:
        self.entries[mid] = (tf, dl)
        ids = self.by_key.setdefault((tf, dl), [])
        if ids and ids[-1] > mid:
            self.unsorted.add((tf, dl))
        ids.append(mid)

    def ids_of(self, key: tuple[int, int]) -> list[int]:
        """The ids of one (tf, dl) pair, ascending."""
        if key in self.unsorted:
            self.by_key[key].sort()
            self.unsorted.discard(key)
        return self.by_key[key]


def gram_phrases(group: Group) -> list[str] | None:
    """The gram phrases ANDed in *group* when postings can rank it (only gram terms, nothing to
    check literally, no negatives), else None."""
    if group.negatives or not group.positives:
        return None
    phrases: list[str] = []
    for term in group.positives:
        if term.word_expr or not term.gram_exprs or term.literal is not None:
            return None
        phrases.extend(term.gram_exprs)
    return phrases


def _build(conn: sqlite3.Connection, expr: str, alt: Alternative, upto: int, avgdl: float,
           documents: int, most: int) -> Postings | None:
    """Read *expr*'s matches with their bm25() once and recover each one's frequency (None
    past *most* matches)."""
    hits = int(conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {GRAMS} WHERE {GRAMS} MATCH ? LIMIT ?)",
                            (expr, most + 1)).fetchone()[0])
    if hits > most:
        return None
    phrase_idf = idf(documents, hits)
    postings = Postings(alt, upto)
    k1, b = 1.2, 0.75
    for mid, score, size in conn.execute(
            f"SELECT {GRAMS}.rowid, bm25({GRAMS}), d.sz FROM {GRAMS} JOIN {GRAMS}_docsize d ON d.id = {GRAMS}.rowid "
            f"JOIN messages m ON m.id = {GRAMS}.rowid WHERE {GRAMS} MATCH ? AND {GRAMS}.rowid <= ?", (expr, upto)):
        sizes = varints(size)
        if not sizes:
            return None
        dl = sizes[0]
        w = -score / phrase_idf
        norm = k1 * (1 - b + b * dl / avgdl)
        if w >= k1 + 1:
            return None
        raw = w * norm / (k1 + 1 - w)
        tf = round(raw)
        if tf < 1 or abs(raw - tf) > _TF_TOLERANCE * max(1, tf):
            return None  # not a one-phrase score after all: let FTS5 rank it
        postings.add(mid, tf, dl)
    return postings


def _bring_forward(conn: sqlite3.Connection, postings: Postings, expr: str, upto: int) -> bool:
    """Add the matches among rows indexed since the postings were made (False: could not)."""
    if postings.upto >= upto:
        return True
    alt = postings.alternative
    for mid, size, text in conn.execute(
            f"SELECT {GRAMS}.rowid, d.sz, m.search_text FROM {GRAMS} JOIN {GRAMS}_docsize d "
            f"ON d.id = {GRAMS}.rowid JOIN messages m ON m.id = {GRAMS}.rowid "
            f"WHERE {GRAMS} MATCH ? AND {GRAMS}.rowid > ? AND {GRAMS}.rowid <= ?",
            (expr, postings.upto, upto)):
        toks = document_grams(text).split()
        tf = frequency(toks, Counter(toks), alt)
        sizes = varints(size)
        if not tf or not sizes:
            return False  # the index and the rules disagree: FTS5 decides
        postings.add(mid, tf, sizes[0])
    postings.upto = upto
    return True


def _postings(conn: sqlite3.Connection, cache: ReadCache, expr: str, upto: int, avgdl: float,
              documents: int, most: int) -> Postings | None:
    found = cache.postings.get(expr)
    if isinstance(found, Postings):
        if _bring_forward(conn, found, expr, upto):
            return found
        del cache.postings[expr]
        return None
    alts = gram_alternatives(expr)
    if alts is None or len(alts) != 1:
        return None
    built = _build(conn, expr, alts[0], upto, avgdl, documents, most)
    if built is None:
        return None
    held = sum(len(p.entries) for p in cache.postings.values() if isinstance(p, Postings))
    if held + len(built.entries) > MAX_CACHED_POSTINGS:
        cache.postings.clear()
    cache.postings[expr] = built
    return built


def rank_gram_group(conn: sqlite3.Connection, cache: ReadCache, phrases: list[str], *, roles: tuple[str, ...],
                    excluded: tuple[str, ...], limit: int, upto: int, build_at_most: int
                    ) -> list[tuple[int, float]] | None:
    """(id, bm25 score) of the best *limit* rows matching every phrase, best first (ties: newest
    first, as FTS5's ``ORDER BY score, id DESC``); None when postings cannot answer.

    A phrase not cached yet is read only if it has at most *build_at_most* matches
    (what FTS5 would rank in full anyway)."""
    record = conn.execute(f"SELECT block FROM {GRAMS}_data WHERE id = 1").fetchone()
    documents, tokens = index_totals(bytes(record[0]) if record else None)
    if not documents:
        return None
    avgdl = tokens / documents
    lists = []
    for expr in phrases:
        postings = _postings(conn, cache, expr, upto, avgdl, documents, min(build_at_most, MAX_POSTINGS))
        if postings is None:
            return None
        lists.append(postings)
    filtered = bool(roles or excluded)

    def allowed(ids: list[int]) -> list[int]:
        if not filtered:
            return ids
        rows = cache.fetch_rows(conn, ids, upto)
        return [i for i in ids if i in rows and (not roles or rows[i].role in roles)
                and not (excluded and rows[i].session_id in excluded)]

    idfs = [idf(documents, len(p.entries)) for p in lists]
    if len(lists) == 1:
        only, phrase_idf = lists[0], idfs[0]
        keyed = sorted((-phrase_idf * weight(tf, dl, avgdl), (tf, dl)) for tf, dl in only.by_key)
        out: list[tuple[int, float]] = []
        for score, key in keyed:
            ids = only.ids_of(key)
            for start in range(len(ids), 0, -256):  # newest first within equal scores
                chunk = ids[max(0, start - 256):start][::-1]
                for mid in allowed(chunk):
                    out.append((mid, score))
                    if len(out) >= limit:
                        return out
        return out
    lists_by_size = sorted(range(len(lists)), key=lambda i: len(lists[i].entries))
    common = set(lists[lists_by_size[0]].entries)
    for i in lists_by_size[1:]:
        common &= lists[i].entries.keys()

    def score_of(mid: int) -> float:
        total = 0.0  # summed in the query's phrase order, as bm25() does
        for p, phrase_idf in zip(lists, idfs):
            total += phrase_idf * weight(*p.entries[mid], avgdl)
        return -total

    ranked = sorted(((score_of(mid), -mid) for mid in common))
    out = []
    for start in range(0, len(ranked), 256):
        chunk = ranked[start:start + 256]
        keep = set(allowed([-neg for _, neg in chunk]))
        out += [(-neg, score) for score, neg in chunk if -neg in keep]
        if len(out) >= limit:
            break
    return out[:limit]


