"""Turning ranked message hits into ranked sessions, and a session's hits into raw snippets."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hermes_plugins_builtin.state import SearchHit

from .transcript import iso_time

#: Snippets shown per session when there is no summary.
SNIPPETS_PER_SESSION = 3
#: Sessions that are not conversations with the user: sub-agent work, background reviews, tool
#: and board sessions. Their results already reached the conversation that started them.
HIDDEN_SOURCES = frozenset({"subagent", "review", "tool", "kanban"})


@dataclass
class SessionMatches:
    """One session's hits, best first."""

    session_id: str
    hits: list[SearchHit] = field(default_factory=list)

    @property
    def match_count(self) -> int:
        return len(self.hits)


def group_by_session(hits: Iterable[SearchHit], excluded: frozenset[str] | set[str] = frozenset()) -> list[SessionMatches]:
    """Group *hits* by session, best hit first; sessions in order of their best hit; skip *excluded*
    sessions and those of a hidden source."""
    groups: dict[str, SessionMatches] = {}
    # a stable sort keeps the store's tie order (newer first) between equal ranks
    for hit in sorted(hits, key=lambda h: h.rank):
        if hit.session_id not in excluded and hit.source not in HIDDEN_SOURCES:
            groups.setdefault(hit.session_id, SessionMatches(hit.session_id)).hits.append(hit)
    return list(groups.values())


def snippets(matches: SessionMatches, limit: int = SNIPPETS_PER_SESSION) -> list[dict[str, Any]]:
    """The best hits of a session as the store's snippets (matches marked >>>like this<<<)."""
    return [
        {"message_id": hit.message_id, "role": hit.role, "timestamp": iso_time(hit.timestamp), "text": hit.snippet}
        for hit in matches.hits[:limit]
    ]
