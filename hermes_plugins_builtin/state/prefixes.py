"""Prefix queries: ASCII ``word*`` becomes the OR of the indexed words it matches.

FTS5 answers a native prefix query by merging the doclists of every matching
word into one, and then again for BM25's IDF pass; for ``deploy*`` over 100k
messages that is most of the query's cost. The OR of a handful of words skips
both merges. The words come from an fts5vocab view of the word index, and a
prefix that matches more than MAX_PREFIX_EXPANSION words keeps the native form.

Expansions are cached per connection with the ``indexed_upto`` they were made at:
the index only gains words when rows are indexed, which always moves that mark
(deletes can only remove words, and a removed word in the OR simply matches
nothing). Listing a prefix's words costs a pass over each word's documents (0.4 ms
for ``deploy*`` at 100k messages), and with writers running the mark moves every
few milliseconds; so when it has moved by at most RECHECK_ROWS rows, only those
rows are looked at for a new word with the prefix, and the expansion is kept when
they hold none.
"""
from __future__ import annotations

import dataclasses
import re
import sqlite3

from .query import Group, Term

MAX_PREFIX_EXPANSION = 16
RECHECK_ROWS = 256
_CACHE_SIZE = 256
_WORD = re.compile(r"[^\W_]+")


def is_prefix(term: Term) -> bool:
    """True for a ``word*`` term."""
    return term.word_expr is not None and term.word_expr.endswith("*")


class PrefixExpander:
    """Rewrites prefix terms for one connection, remembering recent expansions."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._cache: dict[str, tuple[int, str | None]] = {}
        self._vocab_ready = False

    def expand(self, groups: tuple[Group, ...], indexed_upto: int) -> tuple[Group, ...]:
        """The groups with every expandable prefix term rewritten."""
        if not any(is_prefix(t) and t.text.isascii() for g in groups for t in g.terms):
            return groups
        out = []
        for group in groups:
            terms = []
            for term in group.terms:
                if is_prefix(term) and term.text.isascii():
                    expr = self._expression(term.text.lower(), indexed_upto)  # ASCII folds to lowercase
                    if expr is not None:
                        term = dataclasses.replace(term, word_expr=expr)
                terms.append(term)
            out.append(Group(tuple(terms)))
        return tuple(out)

    def _expression(self, body: str, indexed_upto: int) -> str | None:
        cached = self._cache.get(body)
        if cached is not None and cached[0] == indexed_upto:
            return cached[1]
        if cached is not None and cached[1] is not None and 0 < indexed_upto - cached[0] <= RECHECK_ROWS \
                and not self._new_word(body, cached[0], indexed_upto, cached[1]):
            self._cache[body] = (indexed_upto, cached[1])
            return cached[1]
        if not self._vocab_ready:
            self._conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_fts_terms "
                               "USING fts5vocab(main, messages_fts, 'row')")
            self._vocab_ready = True
        upper = body[:-1] + chr(ord(body[-1]) + 1)
        words = [r[0] for r in self._conn.execute(
            "SELECT term FROM temp.messages_fts_terms WHERE term >= ? AND term < ? LIMIT ?",
            (body, upper, MAX_PREFIX_EXPANSION + 1))]
        expr = None
        if 0 < len(words) <= MAX_PREFIX_EXPANSION:
            expr = "(" + " OR ".join('"' + w.replace('"', '""') + '"' for w in words) + ")"
        if len(self._cache) >= _CACHE_SIZE:
            self._cache.clear()
        self._cache[body] = (indexed_upto, expr)
        return expr

    def _new_word(self, body: str, after: int, upto: int, expr: str) -> bool:
        """Whether rows after..upto hold a word starting with *body* that *expr* does not name."""
        from .readcache import read_cache

        known = {part.strip().strip('"').replace('""', '"') for part in expr[1:-1].split(" OR ")}
        words = re.compile(r"(?<![^\W_])" + re.escape(body) + r"[^\W_]*")
        # the rows as folded for the index (diacritics away: "Déploy" -> "deploy"), read once per
        # connection for every prefix and every cached phrase brought forward over them
        for _, _, folded, _ in read_cache(self._conn).indexed_between(self._conn, after, upto):
            if body in folded and any(word not in known for word in words.findall(folded)):
                return True
        return False
