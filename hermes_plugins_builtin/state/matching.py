"""Matching a parsed query against one message's tokens in Python, as FTS5 would.

Used where FTS5 is not asked: scoring candidates from the impact lists
(candidates.py) and searching the few rows still waiting for their batch
(tail.py). An FTS expression built by query.py is an AND of terms; each term is
an OR of quoted phrases, the last word of a phrase possibly a prefix (``"x"*``).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .ranking import tokens


@dataclass(frozen=True)
class Alternative:
    """One phrase of a term's FTS expression: its tokens, the last one maybe a prefix."""

    fts: str
    words: tuple[str, ...]
    prefix: bool


def alternatives(expr: str, split: Callable[[str], list[str]] = tokens) -> list[Alternative] | None:
    """The phrases ORed in *expr* (None for an expression this module does not read)."""
    expr = expr.strip()
    if expr.startswith("(") and expr.endswith(")"):
        expr = expr[1:-1]
    out = []
    for part in expr.split(" OR "):
        part = part.strip()
        prefix = part.endswith("*")
        body = part[:-1] if prefix else part
        if not (len(body) >= 2 and body.startswith('"') and body.endswith('"')):
            return None
        words = tuple(split(body[1:-1].replace('""', '"')))
        if not words:
            return None
        out.append(Alternative(part, words, prefix))
    return out


def gram_alternatives(expr: str) -> list[Alternative] | None:
    """Like alternatives() for the gram index, whose query tokens are space-separated grams."""
    return alternatives(expr, str.split)


def frequency(toks: list[str], counts: Counter[str], alt: Alternative) -> int:
    """How often *alt* occurs in a message with tokens *toks* (and their *counts*)."""
    words, k = alt.words, len(alt.words)
    if k == 1:
        if not alt.prefix:
            return counts.get(words[0], 0)
        return sum(n for word, n in counts.items() if word.startswith(words[0]))
    if any(w not in counts for w in words[:-1]) or (not alt.prefix and words[-1] not in counts):
        return 0
    found = 0
    last = words[-1]
    for i in range(len(toks) - k + 1):
        if toks[i] != words[0]:
            continue
        if all(toks[i + j] == words[j] for j in range(1, k - 1)):
            tail = toks[i + k - 1]
            found += tail == last or (alt.prefix and tail.startswith(last))
    return found


def occurrence_pattern(alt: Alternative) -> re.Pattern[str]:
    """A regex finding *alt* in folded text (ranking.fold): its words with only non-token
    characters between them and no token character after. It starts with the first word
    itself, so the regex engine skips ahead to it; occurrences() checks what precedes."""
    body = r"[\W_]+".join(re.escape(word) for word in alt.words)
    return re.compile(body + (r"[^\W_]*" if alt.prefix else "") + r"(?![^\W_])")


def occurrences(pattern: re.Pattern[str], folded: str) -> int:
    """How often *pattern* (from occurrence_pattern) starts a token in *folded*, overlaps
    included: FTS5's count of a phrase, without tokenizing the whole message."""
    found, pos = 0, 0
    search = pattern.search
    while (match := search(folded, pos)) is not None:
        start = match.start()
        found += start == 0 or not folded[start - 1].isalnum()  # [^\W_] is exactly isalnum()
        pos = start + 1
    return found
