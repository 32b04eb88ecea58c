"""A parsed query (query.py) as PostgreSQL conditions over the word vector and the gram array.

Each OR group becomes one SELECT: positive word terms are one tsquery served by
the GIN index on ``words``; gram runs are containment on the GIN-indexed
``grams`` plus an exact substring check; odd text (``C++``, paths) is checked
literally, ASCII-lowercased as on SQLite. A group of words and phrases is ranked
from the postings (impact.py): BM25 over all its matches, reading index entries
instead of word vectors, with the conditions above checked on the best candidates
only. Other groups (prefixes, scripts without spaces) rank the newest
``rank_window`` matches with ``ts_rank_cd`` normalised by document length. Newest
first among equals; the hits keep the SQLite store's shape and snippets.
"""
from __future__ import annotations

from typing import Any

from ..query import Group, QueryPlan, ascii_lower
from ..search import SearchFilters, SearchHit, highlight_pattern, make_snippet
from .impact import needs_check, postings_serve, rank_group
from .text import gram_runs, run_grams, word_query

_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LITERAL = f"strpos(translate(m.search_text, '{_ASCII_UPPER}', '{_ASCII_UPPER.lower()}'), %s)"


def _conditions(group: Group, filters: SearchFilters) -> tuple[list[str], list[Any], str | None]:
    """(WHERE conditions, their parameters, the group's tsquery) of one group: what a match must satisfy."""
    where: list[str] = []
    params: list[Any] = []
    words = [q for q in (word_query(t) for t in group.positives) if q]
    tsquery = " & ".join(f"({q})" for q in words) if words else None
    if tsquery:
        where.append("m.words @@ %s::tsquery")
        params.append(tsquery)
    for term in group.positives:
        for run in gram_runs(term):
            where.append("m.grams @> %s::text[] AND strpos(m.search_text, %s) > 0")
            params += [run_grams(run), run]
        if term.literal is not None:
            where.append(f"{_LITERAL} > 0")
            params.append(term.literal)
    for term in group.negatives:
        negated = word_query(term)
        if negated and term.literal is None and not term.gram_exprs:
            where.append("NOT (m.words @@ %s::tsquery)")
            params.append(negated)
        else:
            where.append(f"{_LITERAL} = 0")
            params.append(term.literal if term.literal is not None else ascii_lower(term.text))
    if filters.roles:
        where.append("m.role = ANY(%s)")
        params.append(list(filters.roles))
    if filters.exclude_session_ids:
        where.append("NOT (m.session_id = ANY(%s))")
        params.append(list(filters.exclude_session_ids))
    return where, params, tsquery


def _group_sql(group: Group, filters: SearchFilters, window: int | None, limit: int) -> tuple[str, list[Any]]:
    where, params, tsquery = _conditions(group, filters)
    score = "-ts_rank_cd(m.words, %s::tsquery, 2)" if tsquery else "0.0"
    score_params: list[Any] = [tsquery] if tsquery else []
    base = f"FROM messages m WHERE {' AND '.join(where)}"
    if window:
        sql = (f"SELECT id, {score.replace('m.', 'w.')} AS score FROM "
               f"(SELECT m.id, m.words {base} ORDER BY m.id DESC LIMIT %s) w ORDER BY score, id DESC LIMIT %s")
        return sql, [*score_params, *params, window, limit]
    sql = f"SELECT m.id, {score} AS score {base} ORDER BY score, m.id DESC LIMIT %s"
    return sql, [*score_params, *params, limit]


def run_search(conn: Any, plan: QueryPlan, filters: SearchFilters, *, limit: int,
               rank_window: int | None) -> list[SearchHit]:
    """Execute *plan*; groups run separately and merge by score."""
    if plan.empty or limit <= 0:
        return []
    window = max(rank_window, limit) if rank_window else None
    best: dict[int, float] = {}
    for group in plan.groups:
        if not any(t.indexed for t in group.positives):
            continue
        for message_id, score in _group_hits(conn, group, filters, window, limit):
            if message_id not in best or score < best[message_id]:
                best[message_id] = float(score)
    top = sorted(best.items(), key=lambda kv: (kv[1], -kv[0]))[:limit]
    if not top:
        return []
    rows = {row[0]: row for row in conn.execute(
        "SELECT m.id, m.session_id, m.role, m.timestamp, m.search_text, s.source, s.title "
        "FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id = ANY(%s)", ([mid for mid, _ in top],))}
    pattern = highlight_pattern(plan)
    hits: list[SearchHit] = []
    for mid, score in top:
        row = rows.get(mid)
        if row is not None:
            hits.append(SearchHit(message_id=mid, session_id=row[1], role=row[2], timestamp=row[3],
                                  snippet=make_snippet(row[4] or "", pattern), rank=score,
                                  source=row[5], session_title=row[6]))
    return hits


def _group_hits(conn: Any, group: Group, filters: SearchFilters, window: int | None,
                limit: int) -> list[tuple[int, float]]:
    """(id, score) of one group's best matches: from the postings when they can tell, else from the indexes."""
    if window and postings_serve(group):
        filtered = bool(filters.roles or filters.exclude_session_ids)
        check = None
        if needs_check(group, filtered):
            where, params, _ = _conditions(group, filters)

            def check(ids: list[int]) -> set[int]:
                # OFFSET 0 keeps the conditions off the GIN indexes: these rows are read by id
                return {r[0] for r in conn.execute(
                    f"SELECT m.id FROM (SELECT * FROM messages WHERE id = ANY(%s) OFFSET 0) m WHERE {' AND '.join(where)}",
                    [ids, *params], prepare=False)}

        ranked = rank_group(conn, group, limit=limit, check=check)
        if ranked is not None:
            return ranked
    sql, params = _group_sql(group, filters, window, limit)
    # never a prepared (generic) plan: without the tsquery in hand the planner walks the
    # primary key backwards for every query, which turns a rare word into a table scan
    return conn.execute(sql, params, prepare=False).fetchall()
