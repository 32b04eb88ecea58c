"""Postings of a phrase too common to hold in full, kept only where the rest of its group matches.

``deploy server``, ``cache timeout``, ``config file``: each word alone may match
more than postings.MAX_POSTINGS messages (a fifth or more of a store), while the
group matches a few thousand. Without postings for every phrase, FTS5 ranks the
group on every search, reading each word's whole doclist for BM25's IDF again.

BM25 of a match needs, per phrase, the phrase's frequency in it and the number of
documents holding the phrase; nothing about the phrase's other matches. So a
common phrase's postings are built over the group's matches only (one FTS5 query
for the group's ids and lengths, the frequencies counted in Python from the rows'
text as matching.py counts them), with the phrase's document count read once
beside them. The result is a postings.Postings whose ``extra`` holds the
documents it does not list; from then on it is brought forward like any other
(rows indexed since are added whole, so it stays a superset of the group's
matches) and joint.py ranks the group from it exactly.

A build reads every match of the group once, so it is made only when the group has
at most as many matches as a full build would read.
"""
from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from .matching import Alternative, occurrence_pattern, occurrences
from .ranking import fold
from .readcache import ReadCache, varints

if TYPE_CHECKING:
    from .postings import Postings


def narrowed_key(table: str, phrase: str, group_key: object) -> tuple[str, str, object]:
    """Where the read cache keeps *phrase*'s postings narrowed to one group (its first two
    fields are the full postings' key, so dropping a phrase drops both)."""
    return (table, phrase, group_key)


def group_expression(terms: list[list[Alternative]]) -> str:
    """The FTS5 expression matching every term (an AND of ORs of phrases)."""
    return " AND ".join("(" + " OR ".join(alt.fts for alt in alts) + ")" for alts in terms)


def build_narrowed(conn: sqlite3.Connection, table: str, terms: list[list[Alternative]], wanted: list[Alternative],
                   held: dict[str, "Postings"], upto: int, most: int) -> dict[str, "Postings"] | int | None:
    """Postings of each phrase of *wanted* over the matches of the group *terms* (word index).

    *held* maps the group's other phrases to their full postings, up to *upto*. Returns the
    new postings by phrase; the group's match count when it exceeds *most* (nothing built);
    None when a row's counted frequencies disagree with FTS5's match (FTS5 then decides).
    """
    from .postings import Postings

    expr = group_expression(terms)
    matches = int(conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                               (expr, most + 1)).fetchone()[0])
    if matches > most:
        return matches
    made = {alt.fts: Postings(table, alt, upto) for alt in wanted}
    counted = [(made[alt.fts], alt.words[0], occurrence_pattern(alt)) for alt in wanted]
    term_phrases = [[alt.fts for alt in alts] for alts in terms]
    rows = conn.execute(
        f"SELECT m.id, m.search_text, d.sz FROM {table} JOIN {table}_docsize d ON d.id = {table}.rowid "
        f"JOIN messages m ON m.id = {table}.rowid WHERE {table} MATCH ?", (expr,))
    for mid, text, size in rows:
        if not size:
            return None
        folded = fold(text or "")
        dl = size[0] if size[0] < 0x80 else varints(size)[0]
        for postings, first, pattern in counted:
            if first in folded:
                tf = occurrences(pattern, folded)
                if tf:
                    postings.add(mid, tf, dl)
        # FTS5 says the row matches every term: so must the frequencies counted here
        for phrases in term_phrases:
            if not any(mid in (made.get(fts) or held[fts]).entries for fts in phrases):
                return None
    for fts, postings in made.items():
        documents = int(conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (fts,)).fetchone()[0])
        if documents < len(postings.entries):
            return None
        postings.extra = documents - len(postings.entries)
    return made


def held_postings(cache: ReadCache, table: str, terms: list[list[Alternative]],
                  group_key: object) -> dict[tuple[str, ...], "Postings"]:
    """The cached postings, full or narrowed to this group, of every phrase of *terms*, by key."""
    from .postings import Postings

    held: dict[tuple[str, ...], Postings] = {}
    for alts in terms:
        for alt in alts:
            for key in ((table, alt.fts), narrowed_key(table, alt.fts, group_key)):
                found = cache.postings.get(key)
                if isinstance(found, Postings):
                    held[key] = found  # type: ignore[index]
                    break
    return held


def narrowed_postings(cache: ReadCache, table: str, alt: Alternative, group_key: object) -> "Postings | None":
    """*alt*'s postings narrowed to the group, when cached (marked as used)."""
    from .postings import Postings

    found = cache.postings.get(narrowed_key(table, alt.fts, group_key))  # type: ignore[arg-type]
    if isinstance(found, Postings):
        found.used = cache.searches
        return found
    return None


def complete_lists(conn: sqlite3.Connection, cache: ReadCache, table: str, terms: list[list[Alternative]],
                   common: list[Alternative], lists: list[list["Postings"]], group_key: object, upto: int,
                   most: int) -> list[list["Postings"]] | None:
    """*lists* completed with the *common* phrases' postings narrowed to the group (build_narrowed),
    built now unless the group itself has too many matches (then remembered, not tried again)."""
    from .postings import TooMany, make_room

    marker = (table, "", group_key)
    if isinstance(cache.postings.get(marker), TooMany):  # type: ignore[arg-type]
        return None
    wanted = {alt.fts for alt in common}
    held = {p.alternative.fts: p for term in lists for p in term}
    if any(alt.fts not in held and alt.fts not in wanted for alts in terms for alt in alts):
        return None  # a phrase still to build in full first (build budget)
    made = build_narrowed(conn, table, terms, list(dict.fromkeys(common)), held, upto, most)
    if isinstance(made, int):
        cache.postings[marker] = TooMany(upto)  # type: ignore[index]
        return None
    if made is None:
        return None
    make_room(cache, sum(len(p.entries) for p in made.values()))
    for fts, postings in made.items():
        postings.used = cache.searches
        cache.postings[narrowed_key(table, fts, group_key)] = postings  # type: ignore[index]
    return [[made.get(alt.fts) or held[alt.fts] for alt in alts] for alts in terms]
