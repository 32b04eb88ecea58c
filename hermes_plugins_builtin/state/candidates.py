"""Scores candidate messages in Python with FTS5's BM25, from the impact lists or a given set.

Candidates come from the lists of the query's words (or, for a word too rare to
have a list, from all of its matches, which are few), or are handed in (a group's
few matches, or its newest ones). A candidate is not tokenized: a regex per
alternative counts its occurrences in the folded text, and its length is the one
FTS5 stored; the score is FTS5's bm25() formula with the index's own document
count and average length, so scores mix with the ones FTS5 computes itself.
"""
from __future__ import annotations

import sqlite3
from typing import NamedTuple

from .matching import Alternative, alternatives, occurrence_pattern, occurrences
from .query import Group, ascii_lower
from .ranking import LIST_SIZE, averages, idf, tokens, weight
from .readcache import read_cache

# a word without a list is scored here only if it is in at most this many messages
ENUMERATE_MAX = 2 * LIST_SIZE
_SLICE = 16  # list entries read per step of the threshold algorithm
# candidates scored at most per group: each costs a row read and a tokenization
# (~8 microseconds), so this bounds a query's Python work whatever the match count
MAX_SCORED = 128
# a phrase's document count is counted (bm25() weighs a phrase by it) up to this many
PHRASE_COUNT_CAP = 1024
# an untracked word's document count is counted exactly up to this many (past it, the cap:
# rank_terms tracks words from 1,000 messages on, so only a word promoted meanwhile gets here)
_DF_COUNT_CAP = 1_000_000


class _Frequencies:
    """Document frequencies: from the lists' bookkeeping, else from the index's vocabulary."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._vocab = False
        self._known: dict[str, tuple[int, bool]] = {}

    def of_word(self, word: str) -> tuple[int, bool]:
        known = self._known.get(word)
        if known is None:
            known = self._known[word] = self._look_up(word)
        return known

    def _look_up(self, word: str) -> tuple[int, bool]:
        row = self._conn.execute("SELECT df, tracked FROM rank_terms WHERE term = ?", (word,)).fetchone()
        if row is not None and row[1]:
            return int(row[0]), True
        cache = read_cache(self._conn)
        if cache.state is not None:  # a word without a list is rare: its matches, counted and kept
            return cache.count(self._conn, "FROM messages_fts WHERE messages_fts MATCH ?",
                               ('"' + word.replace('"', '""') + '"',), _DF_COUNT_CAP, cache.state.upto, "rowid"), False
        if not self._vocab:
            self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_fts_terms "
                               "USING fts5vocab(main, messages_fts, 'row')")
            self._vocab = True
        found = self._conn.execute("SELECT doc FROM temp.messages_fts_terms WHERE term = ?", (word,)).fetchone()
        return (int(found[0]) if found else 0), False

    def of_alternative(self, alt: Alternative) -> int:
        """Documents holding *alt*: a word's count, or for a phrase the documents that hold the
        phrase (what bm25() uses), counted up to PHRASE_COUNT_CAP; past that the rarest word's."""
        rarest = min(self.of_word(word)[0] for word in alt.words)
        if len(alt.words) == 1 or rarest <= 1:
            return rarest
        cache = read_cache(self._conn)
        if cache.state is not None:  # kept between searches (readcache.py)
            found = cache.count(self._conn, "FROM messages_fts WHERE messages_fts MATCH ?", (alt.fts,),
                                PHRASE_COUNT_CAP, cache.state.upto, "rowid")
        else:
            found = self._conn.execute("SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts "
                                       "MATCH ? LIMIT ?)", (alt.fts, PHRASE_COUNT_CAP + 1)).fetchone()[0]
        return found if found <= PHRASE_COUNT_CAP else rarest


def rank_from_lists(conn: sqlite3.Connection, group: Group, *, roles: tuple[str, ...],
                    excluded: tuple[str, ...], limit: int, upto: int,
                    budget: int = MAX_SCORED) -> tuple[list[tuple[int, float]], bool] | None:
    """((message id, bm25 score) of the best *limit* matches of *group* among indexed rows,
    whether that is certainly the exhaustive answer).

    None when the lists cannot answer: gram terms, prefixes too wide to expand, words
    neither listed nor rare, or filters that leave fewer than *limit* listed matches.
    The caller then ranks with FTS5. The answer is exact when the limit-th score beats
    what any message outside the lists could reach (each list bounds that: at most
    its lowest weight); when the lists run out first, it is the best of the listed
    messages. At most about *budget* candidates are scored (each is tokenized in
    Python): past that the best scored so far are the answer, uncertain.
    """
    prepared = _prepare(group)
    if prepared is None:
        return None
    plan, literals, negatives = prepared
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
            idfs[alt] = idf(documents, freq.of_alternative(alt))
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
                    # the best entries by the weight they had when listed (lists hold up to
                    # 2 x LIST_SIZE between trims), re-weighed with today's average length
                    rows = [(weight(tf, dl, avgdl), mid) for mid, tf, dl in conn.execute(
                        "SELECT message_id, tf, dl FROM rank_lists WHERE term = ? ORDER BY impact DESC LIMIT ?",
                        (word, 2 * LIST_SIZE))]
                    rows.sort(reverse=True)
                    lists[word] = rows[:LIST_SIZE]
        exact = exact or term_enumerated
        term_words.append(listed_alts)

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
        if depth >= longest or len(seen) >= budget:
            # Every listed message is scored but the bound is not beaten: typical of an OR
            # of word forms (prefixes) or of two common words, where the bound adds up
            # every word's weight though few messages weigh much in all of them. The
            # caller decides between these and FTS5; too few survivors of the filters:
            # FTS5 decides.
            return ([(mid, score) for score, mid in scored[:limit]], False) if len(scored) >= limit else None
        batch = {mid for rows in lists.values() for _, mid in rows[depth:depth + _SLICE]}
        depth += _SLICE


def score_messages(conn: sqlite3.Connection, group: Group, ids: list[int], *, roles: tuple[str, ...],
                   excluded: tuple[str, ...], limit: int, upto: int) -> list[tuple[int, float]] | None:
    """(id, bm25 score) of the best *limit* of *ids* that match *group*, scored in Python with
    FTS5's formula (None for groups this module cannot read: gram terms, native prefixes)."""
    prepared = _prepare(group)
    if prepared is None:
        return None
    plan, literals, negatives = prepared
    documents, avgdl = averages(conn)
    freq = _Frequencies(conn)
    idfs = {alt: idf(documents, freq.of_alternative(alt)) for alts in plan for alt in alts}  # type: ignore[union-attr]
    scored = _score(conn, sorted(set(ids)), plan, literals, negatives, idfs, avgdl, roles=roles, excluded=excluded,
                    upto=upto)
    scored.sort(key=lambda s: (s[0], -s[1]))
    return [(mid, score) for score, mid in scored[:limit]]


class GroupCounts(NamedTuple):
    """What the lists' bookkeeping says about a group's document counts (a word it does not know is rare)."""

    postings: int         # index entries bm25()'s IDF pass reads: every document of every word
    at_least: int         # matches the group surely has (0 when unknown)
    at_most: int | None   # matches it can have at most (None when unknown)


def group_counts(conn: sqlite3.Connection, group: Group) -> GroupCounts:
    """Document counts of *group*'s words, for choosing how to rank it without counting its matches."""
    terms = [alternatives(t.word_expr) if t.word_expr else None for t in group.positives]
    words = {w for alts in terms for alt in (alts or ()) for w in alt.words}
    df: dict[str, int] = {}
    if words:
        marks = ",".join("?" * len(words))
        df = dict(conn.execute(f"SELECT term, df FROM rank_terms WHERE term IN ({marks})", tuple(words)).fetchall())
    total = sum(df.values())
    if any(alts is None for alts in terms):
        return GroupCounts(total, 0, None)  # gram terms or native prefixes: counts unknown here
    # an alternative is in at most as many documents as its rarest word; a term in at most the sum
    at_most = min(sum(min(df.get(w, 0) for w in alt.words) for alt in alts) for alts in terms)  # type: ignore[union-attr]
    at_least = 0
    if len(terms) == 1 and not group.negatives and positives_plain(group):
        at_least = max((df.get(alt.words[0], 0) for alt in terms[0] if len(alt.words) == 1), default=0)  # type: ignore[union-attr]
    return GroupCounts(total, at_least, at_most if all(w in df for w in words) else None)


def positives_plain(group: Group) -> bool:
    """No positive term needs a literal check (which can only remove matches)."""
    return all(t.literal is None for t in group.positives)


def _prepare(group: Group) -> tuple[list, list[str | None], list] | None:
    """(alternatives per positive term, their literals, negatives) or None for what Python cannot match."""
    positives = group.positives
    if not positives or any(t.word_expr is None for t in positives):
        return None
    plan = [alternatives(t.word_expr or "") for t in positives]
    if any(alts is None or any(a.prefix for a in alts) for alts in plan):
        return None
    negatives = [(alternatives(t.word_expr) if t.word_expr and t.literal is None else None, t)
                 for t in group.negatives]
    return plan, [t.literal for t in positives], negatives


def _weight_at(rows: list[tuple[float, int]], depth: int) -> float:
    """Weight of the list entry at *depth*: a bound on every message below it or outside the list."""
    if depth < len(rows):
        return rows[depth][0]
    return rows[-1][0] if len(rows) >= LIST_SIZE else 0.0


def _score(conn: sqlite3.Connection, ids: list[int], plan: list, literals: list[str | None], negatives: list, idfs: dict,
           avgdl: float, *, roles: tuple[str, ...], excluded: tuple[str, ...], upto: int) -> list[tuple[float, int]]:
    """(bm25 score, id) of the candidates that really match, best first.

    A candidate is not tokenized: each alternative's regex counts its occurrences in
    the folded text, and the length is the one FTS5 stored for the row.
    """
    if not ids:
        return []
    terms = [(literal, [(alt, occurrence_pattern(alt)) for alt in alts]) for literal, alts in zip(literals, plan)]
    excluding = [([occurrence_pattern(alt) for alt in alts] if alts is not None else None, term)
                 for alts, term in negatives]
    scored: list[tuple[float, int]] = []
    # rows at or below the mark never change: the connection keeps the ones it has read (readcache.py)
    rows = read_cache(conn).fetch_rows(conn, ids, upto)
    for mid in ids:
        row = rows.get(mid)
        if row is None or (roles and row.role not in roles) or (excluded and row.session_id in excluded):
            continue
        score = _match(row.text, row.folded, terms, excluding)
        if score is None:
            continue
        dl = row.length
        if dl is None:
            dl = len(tokens(row.text))
        scored.append((-sum(idfs[alt] * weight(tf, dl, avgdl) for alt, tf in score), mid))
    return scored


def _match(text: str, folded: str, terms: list, excluding: list) -> list[tuple[Alternative, int]] | None:
    """(alternative, frequency) of every matching alternative, or None when the row does not match."""
    found: list[tuple[Alternative, int]] = []
    lowered: str | None = None
    for literal, alts in terms:
        hits = [(alt, occurrences(pattern, folded)) for alt, pattern in alts if alt.words[0] in folded]
        hits = [(alt, tf) for alt, tf in hits if tf]
        if not hits:
            return None
        if literal is not None:
            lowered = ascii_lower(text) if lowered is None else lowered
            if literal not in lowered:
                return None
        found += hits
    for patterns, term in excluding:
        if patterns is not None:
            if any(occurrences(pattern, folded) for pattern in patterns):
                return None
        else:
            lowered = ascii_lower(text) if lowered is None else lowered
            if (term.literal or ascii_lower(term.text)) in lowered:
                return None
    return found
