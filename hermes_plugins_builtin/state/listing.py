"""The session list as a user sees it: one entry per conversation, newest activity first."""
from __future__ import annotations

import sqlite3
from typing import Any

from . import lineage
from .records import SESSION_FIELDS_SQL, decode_session


#: The largest LIMIT / OFFSET both SQLite and PostgreSQL take (a signed 64-bit integer).
LARGEST_SQL_INTEGER = 2**63 - 1


def sql_window(limit: int, offset: int) -> tuple[int, int]:
    """(limit, offset) as both databases take them, with SQLite's meaning on both.

    A limit beyond 64 bits means "all of them" rather than an OverflowError, and so does a
    negative limit (SQLite's LIMIT -1, which PostgreSQL would refuse); a negative offset is 0.
    """
    limit, offset = int(limit), int(offset)
    return (LARGEST_SQL_INTEGER if limit < 0 else min(limit, LARGEST_SQL_INTEGER),
            max(0, min(offset, LARGEST_SQL_INTEGER)))


def list_sessions_rich(conn: sqlite3.Connection, *, limit: int, offset: int, source: str | None,
                       project_compression: bool) -> list[dict[str, Any]]:
    """See SessionStore.list_sessions_rich."""
    limit, offset = sql_window(limit, offset)
    where: list[str] = []
    params: list[Any] = []
    if source is not None:
        where.append("s.source = ?")
        params.append(source)
    if project_compression:
        # hide every session that a compression continuation supersedes: the chain
        # then shows up once, as its tip
        where.append("NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_session_id = s.id "
                     f"AND {lineage.continuation_sql(parent='s')})")
    sql = (f"SELECT {SESSION_FIELDS_SQL}, coalesce((SELECT max(m.timestamp) FROM messages m "
           "WHERE m.session_id = s.id), s.started_at) AS last_active FROM sessions s"
           + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY last_active DESC, s.id LIMIT ? OFFSET ?")
    out = []
    for row in conn.execute(sql, (*params, limit, offset)).fetchall():
        entry = decode_session(row[:-1])
        entry["last_active"] = row[-1]
        if project_compression:
            chain = lineage.compression_chain(conn, entry["id"])
            chain = chain[:chain.index(entry["id"]) + 1]
        else:
            chain = [entry["id"]]
        entry["chain"] = chain
        entry["chain_message_count"] = conn.execute(
            f"SELECT CAST(coalesce(sum(message_count), 0) AS INTEGER) FROM sessions WHERE id IN ({','.join('?' * len(chain))})",
            chain).fetchone()[0]
        entry["preview"] = first_user_line(conn, chain[0])
        entry["kind"] = session_kind(conn, entry)
        out.append(entry)
    return out


def session_kind(conn: sqlite3.Connection, session: dict[str, Any]) -> str:
    """'root' (no parent), 'continuation' (after a compression) or 'delegation'."""
    if not session.get("parent_session_id"):
        return "root"
    return "continuation" if lineage.previous_in_chain(conn, session["id"]) else "delegation"


def first_user_line(conn: sqlite3.Connection, session_id: str, chars: int = 80) -> str:
    """The first user message of a session, whitespace-collapsed and cut to *chars*."""
    row = conn.execute("SELECT content FROM messages WHERE session_id = ? AND role = 'user' "
                       "ORDER BY timestamp, id LIMIT 1", (session_id,)).fetchone()
    text = " ".join((row[0] or "").split()) if row else ""
    return text[:chars] + ("..." if len(text) > chars else "")
