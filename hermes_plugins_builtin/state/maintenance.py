"""Deleting sessions and measuring the store (counts, file sizes, bytes per index)."""
from __future__ import annotations

import os
import sqlite3

from .indexing import indexed_upto, unindex_grams
from .records import StoreStats


def delete_session_rows(conn: sqlite3.Connection, session_id: str) -> bool:
    """Delete one session and its messages; the caller holds a write transaction.

    The word index follows through its delete trigger; the gram index is told
    here (it needs the tokens, which only Python can compute).
    """
    held = indexed_upto(conn)
    unindex_grams(conn, conn.execute(
        "SELECT id, search_text FROM messages WHERE session_id = ? AND id <= ?", (session_id, held)).fetchall())
    conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
    return conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0


def _object_bytes(conn: sqlite3.Connection) -> dict[str, int]:
    try:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.Error:  # SQLite built without the dbstat table
        return {}
    owners = dict(conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'").fetchall())
    out: dict[str, int] = {}
    for name, size in rows:
        group = name
        for fts in ("messages_fts", "messages_grams"):
            if name == fts or name.startswith(fts + "_"):
                group = f"{fts} (index)"
        if name.startswith("sqlite_autoindex_"):
            group = f"{owners.get(name, name)} (key)"
        out[group] = out.get(group, 0) + int(size or 0)
    return out


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def collect_stats(conn: sqlite3.Connection, path: str, schema_version: int) -> StoreStats:
    """Counts per table and role, file sizes, bytes per table/index, rows waiting for the index."""
    sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
    by_role = dict(conn.execute("SELECT role, count(*) FROM messages GROUP BY role").fetchall())
    waiting = conn.execute("SELECT count(*) FROM messages WHERE id > ?", (indexed_upto(conn),)).fetchone()[0]
    return StoreStats(schema_version=schema_version, sessions=sessions, messages=sum(by_role.values()),
                      messages_by_role=by_role, db_bytes=_size(path), wal_bytes=_size(path + "-wal"),
                      messages_awaiting_index=waiting, object_bytes=_object_bytes(conn))
