"""The best matches of a group of phrases, from their postings, without scoring every match.

A message's BM25 score for a group depends only on how often each phrase occurs
in it (its frequency vector) and its length, and for a given vector it falls as
the length grows. So the matches are kept grouped by vector, each vector's
lengths in ascending order, and a heap over the vectors (a handful to a few
hundred) walks the (vector, length) classes best first: a search computes the
score of the classes it visits, not of the thousands of messages that match
``cache timeout`` or ``deploy*``.

For one phrase the vector is its frequency and the classes are the postings' own
(postings.py). For several, the grouping is derived once per group and kept in
the read cache; the rows indexed since are folded in as the phrases' postings
grow (a row's frequencies are fixed when it is indexed, and every phrase has been
brought up to the same mark first).
"""
from __future__ import annotations

import bisect
import heapq
from itertools import islice
from typing import Callable, Hashable

from .readcache import ReadCache

Allowed = Callable[[list[int]], list[int]]
_CHUNK = 256


class Joint:
    """A group's matches by frequency vector (one entry per phrase, in query order) and length."""

    __slots__ = ("driver", "sources", "seen", "ids", "lengths", "classes", "unsorted")

    def __init__(self, driver: int, sources: list[int]) -> None:
        self.driver = driver                    # the term whose phrases' new ids are checked (the rarest)
        self.sources = sources                  # id() of each phrase's postings it was folded from
        phrases = len(sources)
        self.seen = [0] * phrases               # per phrase: how many of its ids were folded in
        self.ids: set[int] = set()
        self.lengths: dict[tuple[int, ...], list[int]] = {}                 # vector -> lengths, ascending
        self.classes: dict[tuple[tuple[int, ...], int], list[int]] = {}     # (vector, length) -> ids
        self.unsorted: set[tuple[tuple[int, ...], int]] = set()

    def ids_of(self, vector: tuple[int, ...], dl: int) -> list[int]:
        key = (vector, dl)
        if key in self.unsorted:
            self.classes[key].sort()
            self.unsorted.discard(key)
        return self.classes[key]


def joint(cache: ReadCache, lists: list[list], dl_bits: int) -> Joint:
    """The grouping of the matches of *lists* (terms of postings.Postings), brought up to date."""
    flat = [p for term in lists for p in term]
    key = ("joint", flat[0].table, tuple(tuple(p.alternative.fts for p in term) for term in lists))
    known = cache.derived.get(key)
    sources = [id(p) for p in flat]
    if not isinstance(known, Joint) or known.sources != sources:  # (a phrase's postings were made anew)
        rarest = min(range(len(lists)), key=lambda t: sum(len(p.entries) for p in lists[t]))
        known = cache.derived[key] = Joint(rarest, sources)
    mask = (1 << dl_bits) - 1
    start = sum(len(term) for term in lists[:known.driver])
    for i, p in enumerate(lists[known.driver]):
        # the ids added since, in the order added: read from the end, not skipped over from the start
        fresh = list(islice(reversed(p.entries), len(p.entries) - known.seen[start + i]))
        fresh.reverse()
        known.seen[start + i] = len(p.entries)
        for mid in fresh:
            if mid in known.ids or not all(any(mid in q.entries for q in term) for term in lists):
                continue
            codes = [q.entries.get(mid, 0) for q in flat]
            vector = tuple(code >> dl_bits for code in codes)
            dl = next(code for code in codes if code) & mask
            known.ids.add(mid)
            ids = known.classes.get((vector, dl))
            if ids is None:
                ids = known.classes[(vector, dl)] = []
                bisect.insort(known.lengths.setdefault(vector, []), dl)
            elif ids[-1] > mid:
                known.unsorted.add((vector, dl))
            ids.append(mid)
    return known


def walk_best(lengths: dict[Hashable, list[int]], ids_of: Callable[[Hashable, int], list[int]],
              score: Callable[[Hashable, int], float], allowed: Allowed, limit: int
              ) -> list[tuple[int, float]]:
    """(id, score) of the best *limit* allowed ids, best first, equal scores newest first (FTS5's
    ``ORDER BY score, id DESC``); *score* is negative, lower is better, and for a given vector
    rises (worsens) with the length."""
    heap = [(score(vector, dls[0]), n, 0) for n, (vector, dls) in enumerate(lengths.items())]
    vectors = list(lengths)
    heapq.heapify(heap)
    out: list[tuple[int, float]] = []
    while heap:
        top = heap[0][0]
        tied: list[int] = []
        while heap and heap[0][0] == top:  # every class with exactly this score, merged by id
            _, n, at = heapq.heappop(heap)
            vector = vectors[n]
            dls = lengths[vector]
            tied += ids_of(vector, dls[at])
            if at + 1 < len(dls):
                heapq.heappush(heap, (score(vector, dls[at + 1]), n, at + 1))
        tied.sort(reverse=True)
        for begin in range(0, len(tied), _CHUNK):
            out += [(mid, top) for mid in allowed(tied[begin:begin + _CHUNK])]
            if len(out) >= limit:
                return out[:limit]
    return out
