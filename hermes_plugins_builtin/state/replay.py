"""What a memory backfill reads: conversations oldest first, and each one's messages."""
from __future__ import annotations

import sqlite3
from typing import Any, Iterable

from .records import MESSAGE_FIELDS, SESSION_FIELDS_SQL, decode_message, decode_session


def max_message_id(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(id), 0) FROM messages").fetchone()[0])


def replay_sessions(conn: sqlite3.Connection, *, upto_message_id: int, exclude_sources: Iterable[str] = (),
                    since: float | None = None, last: int | None = None) -> list[dict[str, Any]]:
    """Sessions holding a user message with id <= *upto_message_id*, oldest first.

    *exclude_sources* leaves out sessions of those sources; *since* keeps sessions with a user
    message at or after that time; *last* keeps only the most recently started ones.
    """
    excluded = sorted(set(exclude_sources))
    where = ["EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.id <= ?"
             + (" AND m.timestamp >= ?" if since is not None else "") + ")"]
    params: list[Any] = [upto_message_id] + ([since] if since is not None else [])
    if excluded:
        where.append(f"s.source NOT IN ({','.join('?' * len(excluded))})")
        params += excluded
    sql = f"SELECT {SESSION_FIELDS_SQL} FROM sessions s WHERE {' AND '.join(where)} ORDER BY s.started_at DESC, s.id DESC"
    if last is not None:
        sql += " LIMIT ?"
        params.append(int(last))
    rows = [decode_session(r) for r in conn.execute(sql, params).fetchall()]
    rows.reverse()
    return rows


def session_messages(conn: sqlite3.Connection, session_id: str, upto_message_id: int, *,
                     full: bool = True) -> list[dict[str, Any]]:
    """The messages of one session with id <= *upto_message_id*, in conversation order.

    ``full=False`` reads only id, role, content and timestamp (what finding the turns needs),
    without decoding the JSON columns.
    """
    if not full:
        rows = conn.execute("SELECT id, role, content, timestamp FROM messages WHERE session_id = ? AND id <= ? "
                            "ORDER BY timestamp, id", (session_id, upto_message_id)).fetchall()
        return [{"id": r[0], "role": r[1], "content": r[2], "timestamp": r[3]} for r in rows]
    rows = conn.execute(f"SELECT id, {', '.join(MESSAGE_FIELDS)} FROM messages WHERE session_id = ? AND id <= ? "
                        "ORDER BY timestamp, id", (session_id, upto_message_id)).fetchall()
    return [decode_message(r) for r in rows]
