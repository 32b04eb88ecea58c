"""Search hits with the copies compression made along a chain kept once, as the earliest copy.

Both session stores (SQLite and PostgreSQL) search through this: they differ in how they rank
and in their connection, not in what a collapsed result is.
"""
from __future__ import annotations

import sqlite3
from typing import Callable, Mapping, Sequence

from .search import SearchHit


def best_distinct_hits(ranked: Callable[[int], list[SearchHit]],
                       collapse: Callable[[list[SearchHit]], list[SearchHit]], limit: int, cap: int,
                       continued: Callable[[set[str]], set[str]]) -> list[SearchHit]:
    """The best *limit* hits after *collapse*, fetching more of *ranked* until the answer is final.

    ``ranked(n)`` gives the n best hits, best first, equal ranks newest first. Copies of one
    message have equal ranks, so the earliest copy is the last of its rank to be listed: every
    copy of a kept hit is fetched unless the hit ranks with the last one fetched. Such a hit can
    have an earlier copy only in an earlier part of its chain, so only when its session
    continues another (``continued(session ids)`` names those) are more fetched (at most *cap*).
    Equal ranks of different messages (the same short reply in many conversations) cost nothing.
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
            boundary = hits[-1].rank
            tied = {h.session_id for h in kept[:limit] if h.rank >= boundary}
            if not tied or not continued(tied):
                return kept[:limit]
        fetch = min(fetch * 4, cap)


def continuations(conn: sqlite3.Connection, session_ids: set[str]) -> set[str]:
    """Those of *session_ids* that have a parent session (a later part of a chain, or a sub-agent)."""
    ids = sorted(session_ids)
    rows = conn.execute(f"SELECT id FROM sessions WHERE parent_session_id IS NOT NULL AND id IN ({','.join('?' * len(ids))})",
                        ids).fetchall()
    return {row[0] for row in rows}


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
    texts = dict(conn.execute(f"SELECT id, search_text FROM messages WHERE id IN ({','.join('?' * len(ids))})",
                              ids).fetchall())
    # The n-th matching "ok" of one part is a copy of the n-th "ok" of another part; two equal
    # messages inside one session are two messages, so they get different occurrence numbers.
    occurrence: dict[int, int] = {}
    seen: dict[tuple[object, ...], int] = {}
    for hit in sorted(hits, key=lambda h: h.message_id):
        own = (hit.session_id, hit.role, texts.get(hit.message_id))
        occurrence[hit.message_id] = seen[own] = seen.get(own, 0) + 1
    keys: list[tuple[object, ...]] = []
    earliest: dict[tuple[object, ...], SearchHit] = {}
    for hit in hits:
        text = texts.get(hit.message_id, ("gone", hit.message_id))  # deleted meanwhile: no copies
        key = (tips.get(hit.session_id, hit.session_id), hit.role, text, occurrence[hit.message_id])
        keys.append(key)
        if key not in earliest or hit.message_id < earliest[key].message_id:
            earliest[key] = hit
    kept: list[SearchHit] = []
    for key in dict.fromkeys(keys):
        kept.append(earliest[key])
    return kept
