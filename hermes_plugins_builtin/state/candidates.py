"""Ranks a query with more matches than the rank window from the impact lists (see ranking.py).

Candidates come from the lists of the query's words (or, for a word too rare to
have a list, from all of its matches, which are few). Each candidate's text is
tokenized again to check it matches every term and to count term frequencies;
the score is FTS5's bm25() formula with the index's own document count and
average length, so scores mix with the ones FTS5 computes for smaller queries.
"""
from __future__ import annotations

import sqlite3
from collections import Counter

from .matching import Alternative, alternatives, frequency
from .query import Group, ascii_lower
from .ranking import LIST_SIZE, averages, idf, tokens, weight

# a word without a list is scored here only if it is in at most this many messages
ENUMERATE_MAX = 2 * LIST_SIZE
_SLICE = 16  # list entries read per step of the threshold algorithm


class _Frequencies:
    """Document frequencies: from the lists' bookkeeping, else from the index's vocabulary."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._vocab = False

    def of_word(self, word: str) -> tuple[int, bool]:
        row = self._conn.execute("SELECT df, tracked FROM rank_terms WHERE term = ?", (word,)).fetchone()
        if row is not None and row[1]:
            return int(row[0]), True
        if not self._vocab:
            self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_fts_terms "
                               "USING fts5vocab(main, messages_fts, 'row')")
            self._vocab = True
        found = self._conn.execute("SELECT doc FROM temp.messages_fts_terms WHERE term = ?", (word,)).fetchone()
        return (int(found[0]) if found else 0), False


def rank_from_lists(conn: sqlite3.Connection, group: Group, *, roles: tuple[str, ...],
                    excluded: tuple[str, ...], limit: int, upto: int) -> tuple[list[tuple[int, float]], bool] | None:
    """((message id, bm25 score) of the best *limit* matches of *group* among indexed rows,
    whether that is certainly the exhaustive answer).

    None when the lists cannot answer: gram terms, prefixes too wide to expand, words
    neither listed nor rare, or filters that leave fewer than *limit* listed matches.
    The caller then ranks with FTS5. The answer is exact when the limit-th score beats
    what any message outside the lists could reach (each list bounds that: at most
    its lowest weight); when the lists run out first, it is the best of the listed
    messages.
    """
    positives = group.positives
    if not positives or any(t.word_expr is None for t in positives):
        return None
    plan = [alternatives(t.word_expr or "") for t in positives]
    if any(alts is None or any(a.prefix for a in alts) for alts in plan):
        return None
    negatives = [(alternatives(t.word_expr) if t.word_expr and t.literal is None else None, t)
                 for t in group.negatives]
    documents, avgdl = averages(conn)
    freq = _Frequencies(conn)
    idfs: dict[Alternative, float] = {}
    lists: dict[str, list[tuple[float, int]]] = {}  # word -> (weight now, id), best first
    enumerated: set[int] = set()
    exact = False  # True when some term's every match is a candidate
    term_words: list[list[tuple[Alternative, list[str]]]] = []
    for alts in plan:
        listed_alts, term_enumerated = [], True
        for alt in alts:  # type: ignore[union-attr]
            dfs, listed = [], []
            for word in alt.words:
                df, tracked = freq.of_word(word)
                dfs.append(df)
                if tracked:
                    listed.append(word)
            idfs[alt] = idf(documents, min(dfs))
            if not listed and min(dfs) > ENUMERATE_MAX:
                return None  # neither listed nor rare: FTS5 ranks it faster than Python could
            if not listed:  # rare: every message containing it is a candidate
                enumerated.update(r[0] for r in conn.execute(
                    "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid <= ?", (alt.fts, upto)))
                continue
            term_enumerated = False
            listed_alts.append((alt, listed))
            for word in listed:
                if word not in lists:
                    rows = [(weight(tf, dl, avgdl), mid) for mid, tf, dl in
                            conn.execute("SELECT message_id, tf, dl FROM rank_lists WHERE term = ?", (word,))]
                    rows.sort(reverse=True)
                    lists[word] = rows[:LIST_SIZE]
        exact = exact or term_enumerated
        term_words.append(listed_alts)
    literals = [t.literal for t in positives]

    def bound_at(depth: int) -> float:
        """The best weight sum a message not among the first *depth* of any list could have."""
        total = 0.0
        for listed_alts in term_words:
            for alt, words in listed_alts:
                total += idfs[alt] * min(_weight_at(lists[w], depth) for w in words)
        return total

    # Threshold algorithm: score the lists' entries a slice at a time, best first, and
    # stop once the limit-th best score beats anything an unread message could reach.
    scored: list[tuple[float, int]] = []
    seen: set[int] = set()
    depth, longest = 0, max((len(rows) for rows in lists.values()), default=0)
    batch = set(enumerated)
    while True:
        fresh = sorted(batch - seen)
        seen.update(fresh)
        scored += _score(conn, fresh, plan, literals, negatives, idfs, avgdl, roles=roles, excluded=excluded, upto=upto)
        scored.sort(key=lambda s: (s[0], -s[1]))
        if exact:  # every match was enumerated: the lists add nothing
            return [(mid, score) for score, mid in scored[:limit]], True
        if len(scored) >= limit and -scored[limit - 1][0] >= bound_at(depth):
            return [(mid, score) for score, mid in scored[:limit]], True
        if depth >= longest:
            # Every listed message is scored but the bound is not beaten: typical of an OR
            # of word forms (prefixes) or of two common words, where the bound adds up
            # every word's weight though few messages weigh much in all of them. The
            # caller decides between these and FTS5; too few survivors of the filters:
            # FTS5 decides.
            return ([(mid, score) for score, mid in scored[:limit]], False) if len(scored) >= limit else None
        batch = {mid for rows in lists.values() for _, mid in rows[depth:depth + _SLICE]}
        depth += _SLICE


def _weight_at(rows: list[tuple[float, int]], depth: int) -> float:
    """Weight of the list entry at *depth*: a bound on every message below it or outside the list."""
    if depth < len(rows):
        return rows[depth][0]
    return rows[-1][0] if len(rows) >= LIST_SIZE else 0.0


def _score(conn: sqlite3.Connection, ids: list[int], plan: list, literals: list[str | None], negatives: list, idfs: dict,
           avgdl: float, *, roles: tuple[str, ...], excluded: tuple[str, ...], upto: int) -> list[tuple[float, int]]:
    """(bm25 score, id) of the candidates that really match, best first."""
    if not ids:
        return []
    scored: list[tuple[float, int]] = []
    for start in range(0, len(ids), 900):
        chunk = ids[start:start + 900]
        rows = conn.execute(f"SELECT id, role, session_id, search_text FROM messages WHERE id IN "
                            f"({','.join('?' * len(chunk))}) AND id <= ?", (*chunk, upto)).fetchall()
        for mid, role, session_id, text in rows:
            if (roles and role not in roles) or (excluded and session_id in excluded):
                continue
            toks = tokens(text)
            counts = Counter(toks)
            dl = len(toks)
            lowered: str | None = None
            score, ok = 0.0, True
            for literal, alts in zip(literals, plan):
                hits = [(alt, frequency(toks, counts, alt)) for alt in alts]
                if not any(tf for _, tf in hits):
                    ok = False
                    break
                if literal is not None:
                    lowered = ascii_lower(text or "") if lowered is None else lowered
                    if literal not in lowered:
                        ok = False
                        break
                score += sum(idfs[alt] * weight(tf, dl, avgdl) for alt, tf in hits if tf)
            if not ok:
                continue
            for alts, term in negatives:
                if alts is not None:
                    if any(frequency(toks, counts, alt) for alt in alts):
                        ok = False
                        break
                else:
                    lowered = ascii_lower(text or "") if lowered is None else lowered
                    if (term.literal or ascii_lower(term.text)) in lowered:
                        ok = False
                        break
            if ok:
                scored.append((-score, mid))
    return scored
