"""Turning ranked message hits into ranked conversations, and a conversation's hits into raw snippets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
    """One conversation's hits, best first; ``session_id`` is the tip of its compression chain."""

    session_id: str
    hits: list[SearchHit] = field(default_factory=list)

    @property
    def match_count(self) -> int:
        return len(self.hits)


def group_by_conversation(
    hits: Iterable[SearchHit],
    tips: Mapping[str, str],
    excluded: frozenset[str] | set[str] = frozenset(),
) -> list[SessionMatches]:
    """Group *hits* by conversation, best hit first; conversations in order of their best hit.

    A conversation is a compression chain, named by its tip (*tips* maps each session to
    it; a session missing there is its own tip), so a chain is one result however many of
    its parts match. Hits in *excluded* sessions or conversations and in sessions of a
    hidden source are skipped.
    """
    groups: dict[str, SessionMatches] = {}
    # a stable sort keeps the store's tie order (newer first) between equal ranks
    for hit in sorted(hits, key=lambda h: h.rank):
        tip = tips.get(hit.session_id, hit.session_id)
        if hit.session_id in excluded or tip in excluded or hit.source in HIDDEN_SOURCES:
            continue
        groups.setdefault(tip, SessionMatches(tip)).hits.append(hit)
    return list(groups.values())


def snippets(matches: SessionMatches, limit: int = SNIPPETS_PER_SESSION) -> list[dict[str, Any]]:
    """The best hits of a session as the store's snippets (matches marked >>>like this<<<)."""
    return [
        {"message_id": hit.message_id, "role": hit.role, "timestamp": iso_time(hit.timestamp), "text": hit.snippet}
        for hit in matches.hits[:limit]
    ]
