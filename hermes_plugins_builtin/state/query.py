"""Turns any user string into a safe search plan; never raises.

Syntax understood: words (implicitly ANDed), "quoted phrases", ``OR``, ``AND``,
``NOT term``, and ``word*`` prefixes. Everything else is literal text: a term
such as ``path/to/file.py:42``, ``C++``, ``-verbose`` or ``100%_done`` becomes the
phrase of its words (served by the index) *plus* a check that the row literally
contains the term, so the result is either rows that contain what was typed or
nothing. FTS5 syntax never reaches SQLite unquoted, so no input can produce an
FTS5 syntax error.

Terms in scripts written without spaces (CJK, kana, Thai...) go to the gram
index (see grams.py) instead of the word index.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .grams import run_query, script_runs

MAX_QUERY_CHARS = 2000
MAX_TERMS = 64
OPERATORS = ("AND", "OR", "NOT")

# what the word tokenizer (unicode61) keeps as token characters, near enough:
# letters and digits; underscore and punctuation separate tokens
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Term:
    """One search term after classification."""

    text: str
    negated: bool = False
    word_expr: str | None = None        # FTS5 expression on the word index
    gram_exprs: tuple[str, ...] = ()    # FTS5 expressions (ANDed) on the gram index
    literal: str | None = None          # ASCII-lowercased text a matching row must contain

    @property
    def indexed(self) -> bool:
        """True when an index can produce candidates for this term."""
        return self.word_expr is not None or bool(self.gram_exprs)


@dataclass(frozen=True)
class Group:
    """Terms that must all hold (negated ones must not); groups are ORed."""

    terms: tuple[Term, ...]

    @property
    def positives(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if not t.negated)

    @property
    def negatives(self) -> tuple[Term, ...]:
        return tuple(t for t in self.terms if t.negated)


@dataclass(frozen=True)
class QueryPlan:
    """The parsed query: an OR of groups; empty means "match nothing"."""

    groups: tuple[Group, ...]

    @property
    def empty(self) -> bool:
        return not self.groups

    def highlight_terms(self) -> list[str]:
        """Plain strings worth highlighting in snippets (positive terms only)."""
        out: list[str] = []
        for group in self.groups:
            for term in group.positives:
                if term.text and term.text not in out:
                    out.append(term.text)
        return out


def ascii_lower(text: str) -> str:
    """Lowercase ASCII letters only, exactly like SQLite's built-in lower()."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _fts_string(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _lex(query: str) -> list[tuple[str, bool]]:
    """Split into (text, quoted) lexemes; an unmatched quote is dropped."""
    out: list[tuple[str, bool]] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
            continue
        if ch == '"':
            end = query.find('"', i + 1)
            if end < 0:  # stray quote: ignore it, keep the rest as ordinary text
                i += 1
                continue
            inner = query[i + 1:end].strip()
            if inner:
                out.append((inner, True))
            i = end + 1
            continue
        j = i
        while j < n and not query[j].isspace() and query[j] != '"':
            j += 1
        out.append((query[i:j], False))
        i = j
    return out


def classify(text: str, *, quoted: bool, negated: bool = False) -> Term:
    """Decide which index serves *text* and whether a literal check is needed."""
    if not quoted and text.endswith("*") and len(text) > 1:
        body = text.rstrip("*")
        if _WORD.fullmatch(body) and not script_runs(body):
            return Term(text=body, negated=negated, word_expr=_fts_string(body) + "*")
        if body and "".join(script_runs(body)) == body:
            return classify(body, quoted=False, negated=negated)
    collapsed = " ".join(text.split())
    runs = script_runs(collapsed)
    if runs:
        exact = len(runs) == 1 and runs[0] == collapsed
        return Term(text=collapsed, negated=negated, gram_exprs=tuple(run_query(r) for r in runs),
                    literal=None if exact else ascii_lower(collapsed))
    words = _WORD.findall(collapsed)
    if not words:
        return Term(text=collapsed, negated=negated, literal=ascii_lower(collapsed))
    exact = " ".join(words) == collapsed
    return Term(text=collapsed, negated=negated, word_expr=_fts_string(" ".join(words)),
                literal=None if exact else ascii_lower(collapsed))


def parse(query: object) -> QueryPlan:
    """Parse any value into a QueryPlan (non-strings and oversize input give an empty plan)."""
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        return QueryPlan(())
    query = query.replace("\x00", " ")
    lexemes = _lex(query)
    if sum(1 for text, quoted in lexemes if quoted or text not in OPERATORS) > MAX_TERMS:
        return QueryPlan(())
    groups: list[Group] = []
    current: list[Term] = []
    negate = False
    for text, quoted in lexemes:
        if not quoted and text in OPERATORS:
            if text == "OR":
                if current:
                    groups.append(Group(tuple(current)))
                current, negate = [], False
            elif text == "NOT":
                negate = True
            continue
        current.append(classify(text, quoted=quoted, negated=negate))
        negate = False
    if current:
        groups.append(Group(tuple(current)))
    # a group needs something an index can serve, or it would mean a table scan
    usable = tuple(g for g in groups if any(t.indexed for t in g.positives))
    return QueryPlan(usable)
