"""Snippets: about SNIPPET_CHARS of a matching message around its first match, matches marked.

Terms are matched in text with its letters' diacritics removed, as the word index sees it, so a
row found through folding ("spat" for "spät") is marked too. Both backends build their hits'
snippets here.
"""
from __future__ import annotations

import re
import unicodedata

from .prefixes import is_prefix
from .query import QueryPlan, Term

SNIPPET_CHARS = 160
MARK_OPEN, MARK_CLOSE = ">>>", "<<<"


class _Folds(dict):  # type: ignore[type-arg]
    """``str.translate`` table: a cased letter to its letter without diacritics ("ä" -> "a"),
    filled as characters are met. One character for one, so positions in the folded text are
    positions in the original; letters of other scripts and symbols stay as they are."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        folded = ch
        if unicodedata.category(ch) in ("Lu", "Ll", "Lt"):
            base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
            folded = base if len(base) == 1 else ch
        if len(self) < _FOLDS_KEPT:  # a text of every code point must not grow the table without bound
            self[code] = folded
        return folded


_FOLDS_KEPT = 20_000
_FOLDS = _Folds()


def fold_diacritics(text: str) -> str:
    """*text* with the diacritics of its letters removed, as the word index sees it (same length)."""
    return text if text.isascii() else text.translate(_FOLDS)


def _term_regex(term: Term) -> str:
    if term.gram_exprs or term.literal is not None:
        return re.escape(fold_diacritics(term.text))
    words = re.findall(r"[^\W_]+", fold_diacritics(term.text))
    body = r"[\W_]+".join(re.escape(w) for w in words)
    prefix = is_prefix(term)
    return r"(?<![^\W_])" + body + (r"[^\W_]*" if prefix else r"(?![^\W_])")


def highlight_pattern(plan: QueryPlan) -> re.Pattern[str] | None:
    """One case-insensitive regex matching every positive term of the plan, in text folded by
    :func:`fold_diacritics` (the word index matched ``spat`` to "spät", so the snippet marks it)."""
    parts = [_term_regex(t) for g in plan.groups for t in g.positives if t.text]
    if not parts:
        return None
    return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE)


def make_snippet(text: str, pattern: re.Pattern[str] | None, width: int = SNIPPET_CHARS) -> str:
    """About *width* characters around the first match, matches marked, '...' where cut."""
    text = " ".join(text.split())
    folded = fold_diacritics(text) if pattern else text  # the same length: its match spans are text's
    first = pattern.search(folded) if pattern else None
    if first is None:
        return text[:width] + ("..." if len(text) > width else "")
    # a quarter of the window before the match, the rest after it
    start = max(0, first.start() - width // 4)
    end = min(len(text), max(start + width, first.end()))
    start = max(0, min(start, end - width))
    window = text[start:end]
    marked = _mark(window, folded[start:end], pattern) if pattern else window
    return ("..." if start > 0 else "") + marked + ("..." if end < len(text) else "")


def _mark(window: str, folded: str, pattern: re.Pattern[str]) -> str:
    """*window* with every match of *pattern* in its folded twin marked."""
    out, at = [], 0
    for match in pattern.finditer(folded):
        if match.end() > match.start():
            out += [window[at:match.start()], MARK_OPEN, window[match.start():match.end()], MARK_CLOSE]
            at = match.end()
    return "".join(out) + window[at:]
