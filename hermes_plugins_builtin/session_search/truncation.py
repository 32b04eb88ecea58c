"""Cutting a long conversation down to a window around what the query matched.

Anchors are found by the first strategy that finds any, in order:

1. ``phrase``: the query's terms one after another, as typed (separators may be any
   punctuation or whitespace, the way the word index reads text);
2. ``proximity``: places where every term occurs within ``PROXIMITY_CHARS`` characters;
3. ``terms``: every place any single term occurs.

Among the anchors, the window that covers the most of them wins (ties: the one that
also covers the most term occurrences, then the earliest). A window keeps a quarter of
its budget before its anchor and three quarters after it, since what follows a
mention (the answer, the fix, the outcome) is usually what the searcher wants.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

from hermes_plugins_builtin.state import parse

PROXIMITY_CHARS = 200
BEFORE_SHARE = 0.25


@dataclass(frozen=True)
class MatchTerm:
    """A positive query term; ``prefix`` for ``word*``."""

    text: str
    prefix: bool = False


@dataclass(frozen=True)
class Window:
    """The excerpt handed to the summary model and where it came from."""

    text: str
    start: int
    end: int
    #: 'phrase', 'proximity', 'terms', 'head' (nothing matched) or 'whole' (fits the budget).
    strategy: str
    anchor: int | None = None

    @property
    def truncated(self) -> bool:
        return self.strategy != "whole"


def query_terms(query: str) -> tuple[MatchTerm, ...]:
    """The positive terms of *query* as the store parses it, in order, without repeats."""
    terms: list[MatchTerm] = []
    seen: set[str] = set()
    for group in parse(query).groups:
        for term in group.positives:
            key = term.text.casefold()
            if term.text and key not in seen:
                seen.add(key)
                terms.append(MatchTerm(term.text, bool(term.word_expr and term.word_expr.endswith("*"))))
    return tuple(terms)


def _is_ascii_word_char(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _pattern(words_regex: str, first: str, last: str, prefix: bool) -> str:
    # word boundaries only where the term itself starts/ends with a Latin letter or digit:
    # CJK text has no spaces, and 'C++' ends in punctuation
    lead = r"(?<![A-Za-z0-9])" if _is_ascii_word_char(first) else ""
    trail = r"(?![A-Za-z0-9])" if _is_ascii_word_char(last) and not prefix else ""
    return lead + words_regex + trail


def term_regex(term: MatchTerm) -> re.Pattern[str]:
    """Case-insensitive regex for one term; whitespace inside it matches any whitespace run."""
    body = r"\s+".join(re.escape(w) for w in term.text.split())
    return re.compile(_pattern(body, term.text[0], term.text[-1], term.prefix), re.IGNORECASE)


def phrase_regex(terms: tuple[MatchTerm, ...]) -> re.Pattern[str]:
    """All terms consecutively, any run of non-word characters between them."""
    words = [w for t in terms for w in t.text.split()]
    body = r"[\W_]+".join(re.escape(w) for w in words)
    return re.compile(_pattern(body, words[0][0], words[-1][-1], terms[-1].prefix), re.IGNORECASE)


def _occurrences(text: str, terms: tuple[MatchTerm, ...]) -> list[tuple[int, int, int]]:
    """(start, end, term index) of every occurrence of every term, by start."""
    found = [(m.start(), m.end(), i) for i, t in enumerate(terms) for m in term_regex(t).finditer(text)]
    return sorted(found)


def phrase_positions(text: str, terms: tuple[MatchTerm, ...]) -> list[int]:
    """Starts of the whole query as a phrase."""
    if not terms:
        return []
    return [m.start() for m in phrase_regex(terms).finditer(text)]


def proximity_positions(text: str, terms: tuple[MatchTerm, ...], span: int = PROXIMITY_CHARS) -> list[int]:
    """Starts of clusters holding every term within *span* characters (needs two terms or more)."""
    if len(terms) < 2:
        return []
    occurrences = _occurrences(text, terms)
    anchors: set[int] = set()
    inside: Counter[int] = Counter()
    left = 0
    for _, end, index in occurrences:
        inside[index] += 1
        # shrink from the left while the window still holds every term
        while len(inside) == len(terms):
            first_start, _, first_index = occurrences[left]
            if end - first_start <= span:
                anchors.add(first_start)
            inside[first_index] -= 1
            if not inside[first_index]:
                del inside[first_index]
            left += 1
    return sorted(anchors)


def term_positions(text: str, terms: tuple[MatchTerm, ...]) -> list[int]:
    """Starts of every occurrence of any term."""
    return sorted({start for start, _, _ in _occurrences(text, terms)})


def _bounds(anchor: int, length: int, budget: int) -> tuple[int, int]:
    start = max(0, anchor - int(budget * BEFORE_SHARE))
    end = min(length, start + budget)
    return max(0, end - budget), end  # near the end, slide back so the budget is still used


def _count(sorted_positions: list[int], start: int, end: int) -> int:
    return bisect_left(sorted_positions, end) - bisect_left(sorted_positions, start)


def _excerpt(text: str, start: int, end: int) -> str:
    head = f"[... {start} earlier characters omitted ...]\n" if start > 0 else ""
    tail = f"\n[... {len(text) - end} later characters omitted ...]" if end < len(text) else ""
    return head + text[start:end] + tail


def truncate_around_matches(text: str, terms: tuple[MatchTerm, ...], budget: int) -> Window:
    """The best window of at most *budget* characters of *text* for *terms* (see the module doc)."""
    if len(text) <= budget:
        return Window(text, 0, len(text), "whole")
    every = term_positions(text, terms)
    for strategy, positions in (
        ("phrase", phrase_positions(text, terms)),
        ("proximity", proximity_positions(text, terms)),
        ("terms", every),
    ):
        if not positions:
            continue
        best: tuple[int, int, int] | None = None  # (anchors covered, occurrences covered, -anchor)
        for anchor in positions:
            start, end = _bounds(anchor, len(text), budget)
            score = (_count(positions, start, end), _count(every, start, end), -anchor)
            if best is None or score > best:
                best = score
        assert best is not None
        anchor = -best[2]
        start, end = _bounds(anchor, len(text), budget)
        return Window(_excerpt(text, start, end), start, end, strategy, anchor)
    return Window(_excerpt(text, 0, budget), 0, budget, "head")
