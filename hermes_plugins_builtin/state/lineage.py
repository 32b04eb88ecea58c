"""Session lineage: compression chains, delegation children, title numbering.

A child session (``parent_session_id`` set) is a *compression continuation* of its
parent when the parent ended with ``end_reason = 'compression'`` and the child
started at or after that moment; any other child (typically a sub-agent started
while the parent was still running) is a *delegation* child.
"""
from __future__ import annotations

import re
import sqlite3
from typing import Any, Iterable

MAX_HOPS = 100


def continuation_sql(parent: str = "p", child: str = "c") -> str:
    """The continuation rule as an SQL condition over two aliases of ``sessions``."""
    return (f"{parent}.end_reason = 'compression' AND {parent}.ended_at IS NOT NULL "
            f"AND {child}.started_at >= {parent}.ended_at")


_NUMBERED = re.compile(r"^(?P<base>.*?) #(?P<n>\d+)$")


def is_continuation(parent: dict[str, Any], child: dict[str, Any]) -> bool:
    """True when *child* continues *parent* after a compression (not a delegation)."""
    return (child.get("parent_session_id") == parent.get("id")
            and parent.get("end_reason") == "compression"
            and parent.get("ended_at") is not None
            and child.get("started_at") is not None
            and child["started_at"] >= parent["ended_at"])


def next_continuation(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The compression continuation of *session_id*, if there is one (earliest first)."""
    row = conn.execute(
        "SELECT c.id FROM sessions c JOIN sessions p ON p.id = c.parent_session_id "
        f"WHERE p.id = ? AND {continuation_sql()} ORDER BY c.started_at, c.id LIMIT 1",
        (session_id,)).fetchone()
    return row[0] if row else None


def previous_in_chain(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The session *session_id* continues after a compression, if any."""
    row = conn.execute(
        "SELECT p.id FROM sessions c JOIN sessions p ON p.id = c.parent_session_id "
        f"WHERE c.id = ? AND {continuation_sql()}", (session_id,)).fetchone()
    return row[0] if row else None


def _cycle_tip(path: list[str], repeated: str) -> str:
    """The tip of a chain whose continuations loop back to *repeated* (only a damaged database
    has such a loop): the smallest id in the loop, so every part of it names the same tip
    whichever part a walk starts from."""
    return min(path[path.index(repeated):])


def compression_tip(conn: sqlite3.Connection, session_id: str, max_hops: int = MAX_HOPS) -> str:
    """Walk forward along compression continuations (at most *max_hops*) to the newest part."""
    path = [session_id]
    for _ in range(max_hops):
        nxt = next_continuation(conn, path[-1])
        if nxt is None:
            break
        if nxt in path:
            return _cycle_tip(path, nxt)
        path.append(nxt)
    return path[-1]


def compression_tips(conn: sqlite3.Connection, session_ids: Iterable[str],
                     max_hops: int = MAX_HOPS) -> dict[str, str]:
    """{session id: the tip of its compression chain} for every id given.

    Sessions of one chain share a tip, which is what identifies the conversation;
    the parts walked through on the way are remembered, so a chain is walked once.
    """
    tips: dict[str, str] = {}
    wanted = list(dict.fromkeys(session_ids))
    for session_id in wanted:
        path, current, cut = [session_id], session_id, False
        while current not in tips:
            if len(path) > max_hops:
                cut = True  # a part further on would get a different tip from a walk of its own
                break
            nxt = next_continuation(conn, current)
            if nxt is not None and nxt in path:
                tips[current] = _cycle_tip(path, nxt)
                break
            if nxt is None:
                break
            path.append(nxt)
            current = nxt
        tip = tips.get(current, current)
        for part in path[:1] if cut else path:
            tips.setdefault(part, tip)
    return {session_id: tips[session_id] for session_id in wanted}


def compression_chain(conn: sqlite3.Connection, session_id: str, max_hops: int = MAX_HOPS) -> list[str]:
    """Ids of the compression chain through *session_id*, oldest first."""
    back = [session_id]
    for _ in range(max_hops):
        prev = previous_in_chain(conn, back[-1])
        if prev is None or prev in back:
            break
        back.append(prev)
    chain = list(reversed(back))
    for _ in range(max_hops):
        nxt = next_continuation(conn, chain[-1])
        if nxt is None or nxt in chain:
            break
        chain.append(nxt)
    return chain


def lineage_ids(conn: sqlite3.Connection, session_id: str, max_depth: int = MAX_HOPS) -> set[str]:
    """Every session in the tree of *session_id*: its root ancestor and all descendants.

    That is the conversation the current session belongs to (earlier compression
    parts, the parent that delegated to it, its own sub-agents), which a search
    from inside that conversation should not return as "past" context.
    """
    rows = conn.execute(
        """
        WITH RECURSIVE up(id, parent, depth) AS (
            SELECT id, parent_session_id, 0 FROM sessions WHERE id = :sid
            UNION
            SELECT s.id, s.parent_session_id, up.depth + 1 FROM sessions s
            JOIN up ON s.id = up.parent WHERE up.depth < :depth
        ),
        root(id) AS (SELECT id FROM up ORDER BY depth DESC LIMIT 1),
        down(id, depth) AS (
            SELECT id, 0 FROM root
            UNION
            SELECT s.id, down.depth + 1 FROM sessions s
            JOIN down ON s.parent_session_id = down.id WHERE down.depth < :depth
        )
        SELECT id FROM down UNION SELECT id FROM up
        """, {"sid": session_id, "depth": max_depth}).fetchall()
    return {r[0] for r in rows} or {session_id}


def title_base(title: str) -> str:
    """'My Session #3' -> 'My Session'."""
    m = _NUMBERED.match(title)
    return m.group("base") if m else title


def next_title_in_lineage(conn: sqlite3.Connection, title: str) -> str:
    """'My Session' -> 'My Session #2' (or the next free number after the highest in use)."""
    base = title_base(title.strip())
    escaped = base.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    highest = 0
    for (existing,) in conn.execute(
            "SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'",
            (base, escaped + " #%")):
        if existing == base:
            highest = max(highest, 1)
            continue
        m = _NUMBERED.match(existing)
        if m and m.group("base") == base:
            highest = max(highest, int(m.group("n")))
    return base if highest == 0 else f"{base} #{highest + 1}"
