"""Ranking from postings: the best matches of a word query without reading every match.

Every message's words are stored as postings ``(word, message_id, weight)`` where
the weight is BM25's term-frequency part (text.bm25_weight). Two btrees serve them:

- ``(word, weight DESC, message_id DESC)`` hands out a word's best messages first, so
  one word's top matches are the first entries of its range, however many there are;
- the primary key ``(word, message_id) INCLUDE (weight)`` keeps each word's messages in
  id order, so the messages holding every word of a query are a merge of those ranges,
  read from the index alone (no row and no word vector is visited).

A message's score is the sum over the query's words of idf * weight (BM25), the idf
from the word's document frequency. Phrases, odd text (``foo-bar.baz``), negated
terms and filters are then checked on the best-scored candidates only, with the same
conditions the index path uses (search.py), a batch at a time, until enough pass.

The work is bounded by index entries, never by word vectors: one word reads its first
``limit`` entries (more only while a check rejects them); several words are joined in
full (each range read once in id order, or the rarest word's messages looked up in the
others' ranges, whichever reads less) when their postings add up to at most JOIN_MAX,
else only the rarest word's DEPTH best postings are extended to the other words (the
best of those, not provably the best of all matches). When the checks reject too many
candidates, ``None`` tells the caller to rank the way the index path does.
"""
from __future__ import annotations

import math
import re
import time
from typing import Any, Callable, Iterator

from ..query import Group
from .text import gram_runs, token, word_query

COUNT_CAP = 2_000    # document frequencies the planner has no estimate for are counted up to this
JOIN_MAX = 60_000    # several words are joined in full when their postings add up to at most this many
DEPTH = 1_000        # otherwise: this many of the rarest word's best postings are the candidates
LOOKUP_COST = 30     # an index lookup costs about as much as reading this many entries in a row
CHECK_CAP = 4_000    # candidates checked (phrase, literal, negation, filters) before giving up on postings
STATS_TTL_S = 60.0   # how long the planner's word frequencies are reused
_WORD = re.compile(r"[^\W_]+")
_SEPARATOR = "\x1f"
_stats_cache: dict[str, tuple[float, dict[str, float], float, float]] = {}

Checker = Callable[[list[int]], set[int]]


def insert_postings(conn: Any, entries: list[tuple[int, list[str], list[float]]]) -> None:
    """Store the postings of freshly stored messages: (message id, words, weights), one statement.

    The lists travel as three delimited strings, split by the server: adapting them as
    arrays cost more client CPU than the rest of an append. Words are runs of letters
    and digits, so the unit separator never occurs in one.
    """
    ids = ",".join(str(mid) for mid, words, _ in entries for _ in words)
    if ids:
        conn.execute("INSERT INTO message_words (word, message_id, weight) SELECT * FROM unnest("
                     "string_to_array(%s, %s), string_to_array(%s, ',')::bigint[], string_to_array(%s, ',')::real[])",
                     (_SEPARATOR.join(w for _, ws, _ in entries for w in ws), _SEPARATOR, ids,
                      ",".join(f"{x:.6g}" for _, _, xs in entries for x in xs)))


def postings_serve(group: Group) -> bool:
    """True when every positive term is a word or phrase (no prefix, no space-less script run)."""
    if not group.positives:
        return False
    for term in group.positives:
        query = word_query(term)
        if query is None or query.endswith(":*") or gram_runs(term):
            return False
    return True


def needs_check(group: Group, filtered: bool) -> bool:
    """True unless holding every word is the whole condition (single words, no negation, no filter)."""
    if filtered or group.negatives:
        return True
    return any(term.literal is not None or len(_words(term.text)) > 1 for term in group.positives)


def _words(text: str) -> list[str]:
    return [token(w) for w in _WORD.findall(text)]


def query_words(group: Group) -> list[str]:
    return list(dict.fromkeys(w for term in group.positives for w in _words(term.text)))


def _planner_statistics(conn: Any) -> tuple[dict[str, float], float, float]:
    """(word -> share of all postings, postings, messages) as ANALYZE last saw them, cached STATS_TTL_S."""
    key = f"{conn.info.host}:{conn.info.port}/{conn.info.dbname}"
    cached = _stats_cache.get(key)
    if cached and time.monotonic() - cached[0] < STATS_TTL_S:
        return cached[1], cached[2], cached[3]
    row = conn.execute(
        "SELECT s.most_common_vals::text::text[], s.most_common_freqs, c.reltuples, "
        "(SELECT reltuples FROM pg_class WHERE oid = 'messages'::regclass) FROM pg_class c "
        "LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'message_words' "
        "AND s.attname = 'word' WHERE c.oid = 'message_words'::regclass").fetchone()
    shares = dict(zip(row[0], row[1])) if row[0] else {}
    postings, messages = max(float(row[2] or 0), 0.0), max(float(row[3] or 0), 0.0)
    _stats_cache[key] = (time.monotonic(), shares, postings, messages)
    return shares, postings, messages


def frequencies(conn: Any, words: list[str]) -> tuple[dict[str, float], float]:
    """(document frequency per word, number of messages).

    The words ANALYZE found most frequent take its estimate; the others are counted,
    up to COUNT_CAP (a count reads index entries, one per message holding the word).
    """
    shares, postings, documents = _planner_statistics(conn)
    dfs = {w: shares[w] * postings for w in words if w in shares and postings}
    rest = [w for w in words if w not in dfs]
    if rest:
        counted = dict(conn.execute(
            "SELECT w, (SELECT count(*) FROM (SELECT 1 FROM message_words WHERE word = w LIMIT %s) t) "
            "FROM unnest(%s::text[]) w", (COUNT_CAP + 1, rest), prepare=False).fetchall())
        dfs.update({w: float(counted.get(w, 0)) for w in rest})
    if documents <= 0:  # never analysed: a new table, cheap to count
        documents = float(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    return dfs, max(documents, max(dfs.values(), default=0.0), 1.0)


def idf(documents: float, df: float) -> float:
    """BM25's inverse document frequency, kept positive as FTS5 keeps it."""
    value = math.log((documents - df + 0.5) / (df + 0.5))
    return value if value > 0 else 1e-6


def _candidates_sql(words: list[str], idfs: dict[str, float], rarest: str, exact: bool) -> tuple[str, list[Any]]:
    """SQL for (message_id, score) of messages holding every word, best first."""
    others = [w for w in words if w != rarest]
    score = " + ".join(f"%s * p{i}.weight" for i in range(len(words)))
    params: list[Any] = [idfs[rarest], *(idfs[w] for w in others)]
    if exact:
        source = "message_words p0"
        where: list[Any] = ["p0.word = %s"]
        tail: list[Any] = [rarest]
    else:  # the rarest word's best postings only
        source = ("(SELECT message_id, weight FROM message_words WHERE word = %s "
                  "ORDER BY weight DESC, message_id DESC LIMIT %s) p0")
        where, tail = [], []
        params += [rarest, DEPTH]
    joins = "".join(f" JOIN message_words p{i} ON p{i}.word = %s AND p{i}.message_id = p0.message_id"
                    for i in range(1, len(words)))
    params += others
    sql = (f"SELECT p0.message_id, -({score}) AS score FROM {source}{joins}"
           + (f" WHERE {' AND '.join(where)}" if where else "")
           + " ORDER BY score, p0.message_id DESC LIMIT %s")
    return sql, [*params, *tail]


def rank_group(conn: Any, group: Group, *, limit: int, check: Checker | None) -> list[tuple[int, float]] | None:
    """(message id, score) of the group's best *limit* matches, best first; None when the postings cannot tell."""
    words = query_words(group)
    dfs, documents = frequencies(conn, words)
    if any(df == 0 for df in dfs.values()):
        return []  # a word no message holds: nothing matches every word
    idfs = {w: idf(documents, dfs[w]) for w in words}
    wanted = limit if check is None else CHECK_CAP
    if len(words) == 1:
        word = words[0]
        pages = ((offset, min(wanted - offset, max(4 * limit, 100))) for offset in range(0, wanted, max(4 * limit, 100)))

        def page(offset: int, size: int) -> list[tuple[int, float]]:
            return conn.execute("SELECT message_id, -%s * weight FROM message_words WHERE word = %s "
                                "ORDER BY weight DESC, message_id DESC LIMIT %s OFFSET %s",
                                (idfs[word], word, size, offset), prepare=False).fetchall()

        if check is None:
            return page(0, limit)
        return _checked(((rows, len(rows) == size) for offset, size in pages for rows in [page(offset, size)]),
                        check, limit)
    rarest = min(words, key=lambda w: (dfs[w], w))
    entries = sum(dfs.values())
    exact = entries <= JOIN_MAX
    # merging the words' id-ordered ranges reads every entry once, sequentially; looking the
    # rarest word's messages up in the others' ranges costs ~30 entries' worth per lookup
    merge = exact and dfs[rarest] * (len(words) - 1) * LOOKUP_COST > entries
    sql, params = _candidates_sql(words, idfs, rarest, exact)

    def candidates(size: int) -> list[tuple[int, float]]:
        with conn.pipeline():  # one round trip: the join strategy is set for this statement only
            conn.execute("SELECT set_config('enable_nestloop', %s, true), set_config('enable_mergejoin', %s, true), "
                         "set_config('enable_hashjoin', 'off', true)", ("off" if merge else "on", "on" if merge else "off"))
            cur = conn.execute(sql, [*params, size], prepare=False)
            for setting in ("enable_nestloop", "enable_mergejoin", "enable_hashjoin"):
                conn.execute(f"RESET {setting}")
        return cur.fetchall()

    first = limit if check is None else max(4 * limit, 100)
    rows = candidates(first)
    if check is None:  # holding every word is the whole condition
        return rows if len(rows) >= limit or exact else None

    def batches() -> Iterator[tuple[list[tuple[int, float]], bool]]:
        full = len(rows) == first
        yield rows, full or not exact
        if full:  # rarely: the checks rejected most of the best candidates
            rest = candidates(CHECK_CAP)[first:]
            yield rest, len(rest) + first == CHECK_CAP or not exact

    return _checked(batches(), check, limit)


def _checked(batches: Any, check: Checker, limit: int) -> list[tuple[int, float]] | None:
    """The first *limit* candidates, in order, that pass *check*; None when the candidates ran out
    at a cap (more matches may exist beyond it) before *limit* passed."""
    kept: list[tuple[int, float]] = []
    more = False
    for batch, more in batches:
        if not batch:
            break
        passed = check([mid for mid, _ in batch])
        kept += [(mid, score) for mid, score in batch if mid in passed]
        if len(kept) >= limit:
            return kept[:limit]
    return None if more else kept
