"""Search hits with the copies compression made along a chain kept once, as the earliest copy.

Both session stores (SQLite and PostgreSQL) search through this: they differ in how they rank
and in their connection, not in what a collapsed result is.
"""
from __future__ import annotations

import sqlite3
from typing import Callable, Mapping, Sequence

from .lineage import MAX_HOPS, previous_in_chain
from .search import SearchHit

# (both stores run these: '?' marks, and the same SQL on SQLite and PostgreSQL)
#: A message equal to the one with the given id (same role and searchable text) in one of the sessions.
_EQUAL_IN_SESSIONS_SQL = ("SELECT 1 FROM messages m JOIN messages h ON h.id = ? WHERE m.session_id IN ({marks}) "
                          "AND m.role = h.role AND COALESCE(m.search_text, '') = COALESCE(h.search_text, '') LIMIT 1")
#: Each message's text and its place among the equal messages of its session (1 for the first).
_PLACES_SQL = ("SELECT m.id, m.search_text, (SELECT count(*) FROM messages e WHERE e.session_id = m.session_id "
               "AND e.role = m.role AND COALESCE(e.search_text, '') = COALESCE(m.search_text, '') AND e.id <= m.id) "
               "FROM messages m WHERE m.id IN ({marks})")


def best_distinct_hits(ranked: Callable[[int], list[SearchHit]],
                       collapse: Callable[[list[SearchHit]], list[SearchHit]], limit: int, cap: int,
                       earlier_copy: Callable[[list[SearchHit]], bool]) -> list[SearchHit]:
    """The best *limit* hits after *collapse*, fetching more of *ranked* until the answer is final.

    ``ranked(n)`` gives the n best hits, best first, equal ranks newest first. Copies of one
    message have equal ranks, so the earliest copy is the last of its rank to be listed: every
    copy of a kept hit is fetched unless the hit ranks with the last one fetched. Only when such
    a tied hit has an earlier copy (``earlier_copy(tied hits)``, asked of the database) are more
    fetched (at most *cap*); equal ranks of different messages (the same short reply in many
    conversations) cost one question.
    """
    if limit <= 0:
        return []
    fetch = limit + 1  # one more than asked: a worse hit behind the kept ones usually ends it at once
    while True:
        hits = ranked(fetch)
        kept = collapse(hits)
        if len(hits) < fetch or fetch >= cap:
            return kept[:limit]
        if len(kept) >= limit:
            tied = [h for h in kept[:limit] if h.rank >= hits[-1].rank]
            if not tied or not earlier_copy(tied):
                return kept[:limit]
        fetch = min(fetch * 4, cap)


def has_earlier_copy(conn: sqlite3.Connection, hits: Sequence[SearchHit]) -> bool:
    """Whether an earlier part of the compression chain of any of *hits* holds a message equal to it
    (same role and searchable text): a copy the fetched hits may not reach yet."""
    for hit in hits:
        earlier: list[str] = []
        part = hit.session_id
        for _ in range(MAX_HOPS):
            previous = previous_in_chain(conn, part)
            if previous is None or previous in earlier or previous == hit.session_id:
                break
            earlier.append(previous)
            part = previous
        if not earlier:
            continue
        found = conn.execute(_EQUAL_IN_SESSIONS_SQL.format(marks=",".join("?" * len(earlier))),
                             [hit.message_id, *earlier]).fetchone()
        if found is not None:
            return True
    return False


def collapse_chain_copies(conn: sqlite3.Connection, hits: Sequence[SearchHit],
                          tips: Mapping[str, str]) -> list[SearchHit]:
    """*hits* with every message copied along a compression chain kept once, as its earliest copy.

    Compressing a conversation copies its protected messages (the head, often the
    last turns) into each new part of the chain, so without this one message would
    match once per part. A copy is a message of another part of the same chain (same
    tip in *tips*) with the same role, the same searchable text and the same place
    among that part's equal messages; equal messages within one part are all kept.
    Copies rank equally, so the earliest one takes the place of the first of them.
    """
    if not hits:
        return []
    ids = [h.message_id for h in hits]
    # The n-th "ok" of one part is a copy of the n-th "ok" of another part; two equal messages inside
    # one session are two messages. The place is counted in the session itself, not among the hits
    # fetched so far, so it does not depend on how many were fetched.
    rows = conn.execute(_PLACES_SQL.format(marks=",".join("?" * len(ids))), ids).fetchall()
    texts = {row[0]: row[1] for row in rows}
    occurrence = {row[0]: row[2] for row in rows}
    keys: list[tuple[object, ...]] = []
    earliest: dict[tuple[object, ...], SearchHit] = {}
    for hit in hits:
        text = texts.get(hit.message_id, ("gone", hit.message_id))  # deleted meanwhile: no copies
        key = (tips.get(hit.session_id, hit.session_id), hit.role, text, occurrence.get(hit.message_id, 0))
        keys.append(key)
        if key not in earliest or hit.message_id < earliest[key].message_id:
            earliest[key] = hit
    kept: list[SearchHit] = []
    for key in dict.fromkeys(keys):
        kept.append(earliest[key])
    return kept
