"""The empty-query answer: the most recent conversations, straight from the store (no search, no model)."""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from hermes_plugins_builtin.state import SessionStore

from .grouping import HIDDEN_SOURCES
from .transcript import iso_time

#: Sessions read per query of the list; the current conversation's parts are skipped client-side.
PAGE_SIZE = 20


def _entry(session: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": session["id"],
        "title": session.get("title"),
        "started_at": iso_time(session.get("started_at")),
        "last_active": iso_time(session.get("last_active")),
        "source": session.get("source"),
        "message_count": session.get("chain_message_count", session.get("message_count")),
        "preview": session.get("preview") or "",
    }


def recent_sessions(store: SessionStore, limit: int, excluded: Set[str]) -> list[dict[str, Any]]:
    """Up to *limit* conversations, newest activity first, one per compression chain (its tip).

    A conversation any of whose parts is in *excluded* (the caller's own) is skipped.
    """
    found: list[dict[str, Any]] = []
    offset = 0
    while len(found) < limit:
        page = store.list_sessions_rich(limit=PAGE_SIZE, offset=offset)
        if not page:
            break
        offset += len(page)
        for session in page:
            if session.get("source") in HIDDEN_SOURCES:
                continue
            if excluded.isdisjoint(session.get("chain") or [session["id"]]):
                found.append(_entry(session))
                if len(found) == limit:
                    break
    return found
