"""Runs a QueryPlan against the word and gram indexes and builds ranked, snippeted hits.

Ranking is BM25 over every match, with FTS5's formula, and the work per group is
bounded whatever the match count (see _group_hits): gram-index terms (scripts
without spaces), and word groups the impact lists rank poorly once their postings
are cached, are ranked from per-phrase postings kept between searches
(postings.py, readcache.py); otherwise at most MAX_SCORED matches are scored in
Python; more are ranked by FTS5 when its estimated cost (per match, plus bm25()'s
pass over every document of every word) fits FTS5_BUDGET_US, else from the impact
lists (ranking.py, candidates.py), exact whenever they can certify the top results.
Gram terms with too many matches for FTS5 rank the newest ``rank_window`` matches.
``rank_window=None`` ranks every match with FTS5.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .candidates import MAX_SCORED, group_counts, rank_from_lists, score_messages
from .tail import search_tail
from .pending import PERSISTENT, IndexTables
from .readcache import read_cache, refresh_read_cache
from .prefixes import PrefixExpander
from .query import Group, QueryPlan, ascii_lower
# snippets are built in snippets.py; their names stay importable from here
from .snippets import MARK_CLOSE, MARK_OPEN, SNIPPET_CHARS, fold_diacritics, highlight_pattern, make_snippet  # noqa: F401

DEFAULT_RANK_WINDOW = 500
# a group the impact lists cannot rank for certain is ranked in full by FTS5 up to
# this many times the window (a few milliseconds); beyond, the best listed messages
# or, for gram terms, the newest window
EXHAUSTIVE_FACTOR = 8
# what ranking a group's every match with FTS5 may cost before the impact lists answer instead
# (a connection that searches repeatedly answers the costly groups from postings instead, so
# this is mostly what a group's first search may cost)
FTS5_BUDGET_US = 5000


@dataclass(frozen=True)
class SearchHit:
    """One matching message."""

    message_id: int
    session_id: str
    role: str
    snippet: str
    rank: float          # FTS5 bm25(): lower (more negative) is a better match
    timestamp: float
    source: str
    session_title: str | None


@dataclass(frozen=True)
class SearchFilters:
    """Row filters applied inside the ranked window."""

    roles: tuple[str, ...] = ()
    exclude_session_ids: tuple[str, ...] = ()


_LITERAL_SQL = "instr(lower(m.search_text), ?)"


def _and(exprs: Iterable[str]) -> str:
    return " AND ".join(f"({e})" for e in exprs)


def _match_parts(group: Group, filters: SearchFilters, tables: IndexTables
                 ) -> tuple[str, str, list[str], list[object]]:
    """(table queried, its MATCH expression, extra WHERE clauses on ``m``, their parameters) of one group."""
    positives, negatives = group.positives, group.negatives
    word_terms = [t for t in positives if t.word_expr]
    gram_terms = [t for t in positives if t.gram_exprs]
    where: list[str] = []
    params: list[object] = []
    if word_terms:
        table = tables.word
        match = _and(t.word_expr for t in word_terms)  # type: ignore[misc]
        # exact negated words go into the FTS expression; odd ones become literal checks
        for t in negatives:
            if t.word_expr and t.literal is None:
                match = f"({match}) NOT ({t.word_expr})"
        if gram_terms:
            where.append(f"m.id IN (SELECT rowid FROM {tables.grams} WHERE {tables.grams} MATCH ?)")
            params.append(_and(e for t in gram_terms for e in t.gram_exprs))
    else:
        table = tables.grams
        match = _and(e for t in gram_terms for e in t.gram_exprs)
        for t in negatives:
            if t.word_expr and t.literal is None:
                where.append(f"m.id NOT IN (SELECT rowid FROM {tables.word} WHERE {tables.word} MATCH ?)")
                params.append(t.word_expr)
    for t in positives:
        if t.literal is not None:
            where.append(f"{_LITERAL_SQL} > 0")
            params.append(t.literal)
    for t in negatives:
        if t.word_expr and t.literal is None:
            continue  # exact words: already excluded through an index above
        # odd text and gram runs: excluded when the row literally contains them
        where.append(f"{_LITERAL_SQL} = 0")
        params.append(t.literal if t.literal is not None else ascii_lower(t.text))
    if filters.roles:
        where.append(f"m.role IN ({','.join('?' * len(filters.roles))})")
        params.extend(filters.roles)
    if filters.exclude_session_ids:
        where.append(f"m.session_id NOT IN ({','.join('?' * len(filters.exclude_session_ids))})")
        params.extend(filters.exclude_session_ids)
    return table, match, where, params


def _group_query(group: Group, filters: SearchFilters, window: int | None, limit: int,
                 tables: IndexTables = PERSISTENT, *, probe: bool = False, newest: bool = False
                 ) -> tuple[str, list[object]]:
    """SQL returning (id, score) for one group, best first (or, with *probe*, how many
    matches there are, counting at most window + 1; with *newest*, the ids of the newest
    *window* matches)."""
    table, match, where, params = _match_parts(group, filters, tables)
    # the gram index is maintained by the store, not by triggers:
    # joining messages also drops entries whose row was deleted behind its back
    join = bool(where) or table != PERSISTENT.word
    from_where = (f" FROM {table}" + (f" JOIN messages m ON m.id = {table}.rowid" if join else "")
                  + f" WHERE {table} MATCH ?" + "".join(f" AND {w}" for w in where))
    all_params: list[object] = [match, *params]
    if newest:  # the ids of the newest *window* matches, without ranking them
        return f"SELECT {table}.rowid{from_where} ORDER BY {table}.rowid DESC LIMIT ?", [*all_params, window]
    if probe:  # only whether there are more than *window* matches: a stale gram entry may count,
        # so without filters the join (a lookup per match) is left out
        bare = f" FROM {table} WHERE {table} MATCH ?" if not where else from_where
        return f"SELECT count(*) FROM (SELECT 1{bare} LIMIT ?)", [*all_params, (window or 0) + 1]
    base = f"SELECT {table}.rowid AS id, bm25({table}) AS score{from_where}"
    if window:
        sql = (f"SELECT id, score FROM ({base} ORDER BY {table}.rowid DESC LIMIT ?) "
               f"ORDER BY score, id DESC LIMIT ?")
        all_params += [window, limit]
    else:
        sql = f"{base} ORDER BY score, id DESC LIMIT ?"
        all_params.append(limit)
    return sql, all_params


def _group_hits(conn: sqlite3.Connection, group: Group, filters: SearchFilters, window: int | None, limit: int,
                tables: IndexTables, indexed_upto: int) -> list[tuple[int, float]]:
    """(id, score) of one group's best *limit* matches in *tables*.

    Every step is bounded: cached postings answer exactly (gram terms build theirs
    from a connection's second search on, whenever FTS5 would rank every match
    anyway; word groups with more than MAX_SCORED matches once asked for again); a
    few matches are scored in Python; more are ranked by FTS5 when its estimated cost
    fits FTS5_BUDGET_US; otherwise the impact lists answer (exactly when they can certify
    it), or the newest matches are scored.
    """
    if window and tables is PERSISTENT:
        cache = read_cache(conn)
        plan = None
        if len(group.positives) > 1 or any(t.gram_exprs or " OR " in (t.word_expr or "") for t in group.positives):
            from .postings import postings_plan  # only groups postings may serve need it

            plan = postings_plan(group)
        if plan is not None:  # cached postings; a gram query builds them from a connection's second search on
            ranked = _from_postings(conn, group, filters, limit, indexed_upto,
                                    build=plan[0] == PERSISTENT.grams and cache.searches > 1,
                                    build_at_most=EXHAUSTIVE_FACTOR * window)
            if ranked is not None:
                return ranked
        if _count(conn, group, filters, MAX_SCORED) <= MAX_SCORED:
            # every match scored in Python, which skips bm25()'s pass over every document
            # of every word (the IDF counts come from the lists' bookkeeping)
            scored = _score_newest(conn, group, filters, limit, indexed_upto, every=True)
            if scored is not None:
                return scored
            window = None  # gram terms: FTS5 ranks them all
        else:
            if plan is not None and plan[0] == PERSISTENT.word and cache.asked_before(
                    (plan[0], tuple(tuple(alt.fts for alt in alts) for alts in plan[1]))):
                # words whose every match FTS5 or the lists would have to read: postings, built
                # once the same group is asked for again, rank them exactly from then on (a
                # query asked once never pays for them)
                ranked = _from_postings(conn, group, filters, limit, indexed_upto, build=True)
                if ranked is not None:
                    return ranked
            affordable = _fts5_affordable(conn, group, filters, EXHAUSTIVE_FACTOR * window)
            if not affordable or len(group.positives) == 1:
                # a single term is answered by its lists with certainty nearly always; two
                # or more, rarely, so FTS5 ranks those itself whenever it can afford to
                listed = rank_from_lists(conn, group, roles=filters.roles, excluded=filters.exclude_session_ids,
                                         limit=limit, upto=indexed_upto)
                if listed is not None and (listed[1] or not affordable):
                    return listed[0]  # certain, or the best listed where ranking in full costs too much
            if affordable:
                window = None
            else:
                scored = _score_newest(conn, group, filters, limit, indexed_upto)
                if scored is not None:
                    return scored
    sql, params = _group_query(group, filters, window, limit, tables)
    return conn.execute(sql, params).fetchall()


def _from_postings(conn: sqlite3.Connection, group: Group, filters: SearchFilters, limit: int, upto: int, *,
                   build: bool, build_at_most: int | None = None) -> list[tuple[int, float]] | None:
    from .postings import MAX_POSTINGS, rank_from_postings

    build_at_most = MAX_POSTINGS if build_at_most is None else build_at_most
    return rank_from_postings(conn, read_cache(conn), group, roles=filters.roles, excluded=filters.exclude_session_ids,
                              limit=limit, upto=upto, build=build, build_at_most=build_at_most)


def _source(group: Group, filters: SearchFilters) -> tuple[str, tuple[object, ...], str]:
    """(``FROM ... WHERE ...`` selecting *group*'s matches, its parameters, their id column)."""
    table, match, where, params = _match_parts(group, filters, PERSISTENT)
    source = f"FROM {table}" + (f" JOIN messages m ON m.id = {table}.rowid" if where else "")
    source += f" WHERE {table} MATCH ?" + "".join(f" AND {w}" for w in where)
    return source, (match, *params), f"{table}.rowid"


def _count(conn: sqlite3.Connection, group: Group, filters: SearchFilters, upto: int) -> int:
    """How many matches *group* has, counting at most *upto* + 1."""
    cache = read_cache(conn)
    if cache.state is not None:  # kept between searches, brought forward with rows indexed since
        source, params, rowid = _source(group, filters)
        return cache.count(conn, source, params, upto, cache.state.upto, rowid)
    sql, params = _group_query(group, filters, upto, 0, PERSISTENT, probe=True)
    return int(conn.execute(sql, params).fetchone()[0])


def _fts5_affordable(conn: sqlite3.Connection, group: Group, filters: SearchFilters, cap: int) -> bool:
    """Whether FTS5 can rank every match of *group* within FTS5_BUDGET_US (at most *cap* matches).

    The document counts the lists keep usually decide it; the matches are counted
    (up to *cap*) only when they do not.
    """
    counts = group_counts(conn, group)
    if fts5_rank_cost_us(max(counts.at_least, 0), counts.postings) > FTS5_BUDGET_US or counts.at_least > cap:
        return False
    if counts.at_most is not None and counts.at_most <= cap \
            and fts5_rank_cost_us(counts.at_most, counts.postings) <= FTS5_BUDGET_US:
        return True
    matches = _count(conn, group, filters, cap)
    return matches <= cap and fts5_rank_cost_us(matches, counts.postings) <= FTS5_BUDGET_US


def _score_newest(conn: sqlite3.Connection, group: Group, filters: SearchFilters, limit: int,
                  indexed_upto: int, *, every: bool = False) -> list[tuple[int, float]] | None:
    """The newest MAX_SCORED matches of *group*, scored in Python (None for gram terms).

    With *every* (the group has at most MAX_SCORED matches) the matches are kept
    between searches and brought forward with the rows indexed since."""
    cache = read_cache(conn)
    newest: list[int] | None = None
    if every and cache.state is not None and not any(t.gram_exprs for t in group.positives):
        source, params, rowid = _source(group, filters)
        newest = cache.matching_ids(conn, source, params, MAX_SCORED, cache.state.upto, rowid)
    if newest is None:
        sql, params = _group_query(group, filters, MAX_SCORED, limit, PERSISTENT, newest=True)
        newest = [r[0] for r in conn.execute(sql, params)]
    return score_messages(conn, group, newest, roles=filters.roles, excluded=filters.exclude_session_ids,
                          limit=limit, upto=indexed_upto)


def fts5_rank_cost_us(matches: int, postings_read: int) -> float:
    """Estimated microseconds for FTS5's bm25() to rank *matches* rows (measured on the benchmark
    machine: about 0.9 per match, 0.05 per index entry read by the IDF pass)."""
    return matches * 0.9 + postings_read * 0.05


def run_search(conn: sqlite3.Connection, plan: QueryPlan, filters: SearchFilters, *, limit: int,
               rank_window: int | None, include_recent: bool, expander: PrefixExpander,
               indexed_upto: int) -> list[SearchHit]:
    """Execute *plan* (caller holds a read transaction); groups run separately, merged by rank.

    The indexes hold rows up to *indexed_upto*; with *include_recent* the rows
    above it are searched as well (tail.py).
    """
    if plan.empty or limit <= 0:
        return []
    cache = refresh_read_cache(conn, indexed_upto)
    if cache.postings:  # (only a connection that has searched before holds any: imported by then)
        from .postings import advance_postings
        advance_postings(conn, cache, indexed_upto)
    best: dict[int, float] = {}
    window = max(rank_window, limit) if rank_window else None  # never fewer candidates than asked for
    for group in expander.expand(plan.groups, indexed_upto):
        for message_id, score in _group_hits(conn, group, filters, window, limit, PERSISTENT, indexed_upto):
            if message_id not in best or score < best[message_id]:
                best[message_id] = score
    if include_recent:
        for message_id, score in search_tail(conn, plan, roles=filters.roles, excluded=filters.exclude_session_ids,
                                             upto=indexed_upto):
            if message_id not in best or score < best[message_id]:
                best[message_id] = score
    top = sorted(best.items(), key=lambda kv: (kv[1], -kv[0]))[:limit]
    if not top:
        return []
    ids = [mid for mid, _ in top]
    # indexed rows from the connection's cache (they never change); the waiting ones, and the
    # sessions' source and title (a title can change), from the database
    rows = {mid: (row.session_id, row.role, row.timestamp, row.text)
            for mid, row in read_cache(conn).fetch_rows(conn, [i for i in ids if i <= indexed_upto],
                                                        indexed_upto).items()}
    waiting = [i for i in ids if i > indexed_upto]
    if waiting:
        rows.update((row[0], row[1:]) for row in conn.execute(
            "SELECT id, session_id, role, timestamp, search_text FROM messages "
            f"WHERE id IN ({','.join('?' * len(waiting))})", waiting))
    owners = list({row[0] for row in rows.values()})
    sessions = {row[0]: row[1:] for row in conn.execute(
        f"SELECT id, source, title FROM sessions WHERE id IN ({','.join('?' * len(owners))})", owners)}
    pattern = highlight_pattern(plan)
    hits = []
    for mid, score in top:
        row = rows.get(mid)
        if row is None or row[0] not in sessions:
            continue
        source, title = sessions[row[0]]
        hits.append(SearchHit(message_id=mid, session_id=row[0], role=row[1], timestamp=row[2],
                              snippet=make_snippet(row[3] or "", pattern), rank=score,
                              source=source, session_title=title))
    return hits


def normalise_roles(role_filter: str | Sequence[str] | None) -> tuple[str, ...]:
    """Accept "user,assistant", ["user"], or None."""
    if role_filter is None:
        return ()
    items = role_filter.split(",") if isinstance(role_filter, str) else list(role_filter)
    return tuple(sorted({r.strip() for r in items if r and r.strip()}))
