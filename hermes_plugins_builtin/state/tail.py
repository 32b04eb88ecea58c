"""Search over the rows the indexes do not hold yet (id > indexed_upto), without indexing them.

At most indexing.MAX_WAITING rows are ever waiting (see indexing.py, indexer.py).
A search reads them and matches the query against them in Python (matching.py),
the way the word and gram indexes would; nothing is written, so neither the
appending writer nor the search pays for indexing rows twice, and concurrent
writers cost a search only the CPU they take. Each connection keeps the waiting
rows it has tokenized, with a small inverted index over them, so that a search
looks only at the waiting rows holding a word of each term, however far the
indexer lags. Scores are BM25 over the waiting rows alone, which is good enough
to interleave the newest few messages.
"""
from __future__ import annotations

import math
import sqlite3
from collections import Counter
from collections.abc import Callable

from .grams import document_grams, needs_grams
from .matching import Alternative, alternatives, frequency, gram_alternatives
from .query import Group, QueryPlan, ascii_lower
from .ranking import tokens, weight
from .readcache import per_connection


class _Row:
    __slots__ = ("id", "role", "session_id", "text", "words", "word_counts", "grams", "gram_counts", "lowered")

    def __init__(self, mid: int, role: str, session_id: str, text: str | None) -> None:
        self.id, self.role, self.session_id, self.text = mid, role, session_id, text or ""
        self.words = tokens(self.text)
        self.word_counts = Counter(self.words)
        self.grams = document_grams(self.text).split() if needs_grams(self.text) else []
        self.gram_counts = Counter(self.grams)
        self.lowered = ascii_lower(self.text)


def _term_alternatives(group: Group) -> list[tuple[list[Alternative], bool, str | None]] | None:
    """(alternatives, on grams?, literal) per positive term; each gram expression is its own term."""
    out: list[tuple[list[Alternative], bool, str | None]] = []
    for term in group.positives:
        if term.word_expr:
            alts = alternatives(term.word_expr)
            if alts is None:
                return None
            out.append((alts, False, term.literal))
        for expr in term.gram_exprs:
            alts = gram_alternatives(expr)
            if alts is None:
                return None
            out.append((alts, True, term.literal if not term.word_expr else None))
    return out


class _TailCache:
    """The waiting rows already tokenized by an earlier search on this connection.

    A row never changes once appended (the store has no edit), so its tokens stay
    valid until the indexes take it over; a search only tokenizes rows that arrived
    since the previous one. ``words`` and ``grams`` map each token to the rows
    holding it.
    """

    def __init__(self) -> None:
        self.rows: dict[int, _Row] = {}
        self.words: dict[str, set[int]] = {}
        self.grams: dict[str, set[int]] = {}

    def add(self, row: _Row) -> None:
        self.rows[row.id] = row
        for index, toks in ((self.words, row.word_counts), (self.grams, row.gram_counts)):
            for tok in toks:
                index.setdefault(tok, set()).add(row.id)

    def drop(self, row: _Row) -> None:
        del self.rows[row.id]
        for index, toks in ((self.words, row.word_counts), (self.grams, row.gram_counts)):
            for tok in toks:
                holders = index[tok]
                holders.discard(row.id)
                if not holders:
                    del index[tok]

    def holding(self, alt: Alternative, grams: bool) -> set[int] | None:
        """Rows that may hold *alt* (those with its first token), or None when any may (a lone prefix)."""
        if alt.prefix and len(alt.words) == 1:
            return None
        return (self.grams if grams else self.words).get(alt.words[0], set())


def _waiting_rows(conn: sqlite3.Connection, upto: int) -> tuple[list[_Row], _TailCache]:
    cache = per_connection(conn, "tail_cache", _TailCache)
    ids = [r[0] for r in conn.execute("SELECT id FROM messages WHERE id > ?", (upto,))]
    missing = [i for i in ids if i not in cache.rows]
    if missing:
        for r in conn.execute("SELECT id, role, session_id, search_text FROM messages WHERE id >= ?", (missing[0],)):
            if r[0] not in cache.rows:
                cache.add(_Row(*r))
    rows = [cache.rows[i] for i in ids if i in cache.rows]
    if len(cache.rows) > len(rows):  # indexed or deleted meanwhile
        current = set(ids)
        for row in [row for mid, row in cache.rows.items() if mid not in current]:
            cache.drop(row)
    return rows, cache


def _candidates(cache: _TailCache, terms: list[tuple[list[Alternative], bool, str | None]]) -> set[int] | None:
    """The waiting rows that can match every term (None: no term narrows them)."""
    found: set[int] | None = None
    for alts, grams, _ in terms:
        holders: set[int] = set()
        for alt in alts:
            some = cache.holding(alt, grams)
            if some is None:
                break
            holders |= some
        else:
            found = holders if found is None else found & holders
            if not found:
                return found
    return found


def search_tail(conn: sqlite3.Connection, plan: QueryPlan, *, roles: tuple[str, ...], excluded: tuple[str, ...],
                upto: int) -> list[tuple[int, float]]:
    """(id, score) of every waiting row that matches *plan*, for run_search to merge."""
    rows, cache = _waiting_rows(conn, upto)
    if not rows:
        return []
    avg_words = max(sum(len(r.words) for r in rows) / len(rows), 1e-9)
    avg_grams = max(sum(len(r.grams) for r in rows) / len(rows), 1e-9)
    best: dict[int, float] = {}
    known: dict[tuple[Alternative, bool], int] = {}

    def df(alt: Alternative, grams: bool) -> int:
        """Waiting rows holding *alt* (counted once per search, not once per matching row)."""
        if (alt, grams) not in known:
            holders = cache.holding(alt, grams)
            known[alt, grams] = _df(rows if holders is None else [cache.rows[i] for i in holders], alt, grams)
        return known[alt, grams]

    for group in plan.groups:
        terms = _term_alternatives(group)
        if terms is None:
            continue
        narrowed = _candidates(cache, terms)
        scored = []
        for row in (rows if narrowed is None else [r for r in rows if r.id in narrowed]):
            if (roles and row.role not in roles) or (excluded and row.session_id in excluded):
                continue
            score = _match(row, group, terms, avg_words, avg_grams, len(rows), df)
            if score is not None:
                scored.append((row.id, score))
        for mid, score in scored:
            if mid not in best or score < best[mid]:
                best[mid] = score
    return list(best.items())


def _df(rows: list[_Row], alt: Alternative, grams: bool) -> int:
    return sum(1 for r in rows if frequency(r.grams if grams else r.words, r.gram_counts if grams else r.word_counts, alt))


def _match(row: _Row, group: Group, terms: list[tuple[list[Alternative], bool, str | None]], avg_words: float,
           avg_grams: float, count: int, df_of: Callable[[Alternative, bool], int]) -> float | None:
    score = 0.0
    for term in group.positives:  # text with no word in it (``&``): no index term, only its literal check
        if term.literal is not None and not term.word_expr and not term.gram_exprs and term.literal not in row.lowered:
            return None
    for alts, grams, literal in terms:
        toks, counts = (row.grams, row.gram_counts) if grams else (row.words, row.word_counts)
        hits = [(alt, frequency(toks, counts, alt)) for alt in alts]
        if not any(tf for _, tf in hits) or (literal is not None and literal not in row.lowered):
            return None
        dl, avg = (len(row.grams), avg_grams) if grams else (len(row.words), avg_words)
        for alt, tf in hits:
            if tf:
                df = df_of(alt, grams)
                score += max(math.log((count - df + 0.5) / (df + 0.5)), 1e-6) * weight(tf, dl, avg)
    for term in group.negatives:
        alts = alternatives(term.word_expr) if term.word_expr and term.literal is None else None
        if alts is not None:
            if any(frequency(row.words, row.word_counts, alt) for alt in alts):
                return None
        elif (term.literal if term.literal is not None else ascii_lower(term.text)) in row.lowered:
            return None
    return -score
