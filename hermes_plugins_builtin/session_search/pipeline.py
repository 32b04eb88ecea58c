"""SessionSearch: the ``session_search`` handler, from the model's arguments to the JSON answer.

Steps: empty query -> recent sessions; otherwise full-text recall (a message that
compression copied into several parts of a chain counts once) -> group by conversation
(compression chain, named by its tip) -> drop the caller's own conversation -> top N ->
load each conversation, every part of its chain -> cut it around the matches -> a
query-focused summary per session (auxiliary model, bounded concurrency, one shared
deadline) -> raw snippets for every session without one.
"""

from __future__ import annotations

import atexit
import json
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

from hermes_core.tools import tool_error
from hermes_plugins_builtin.state import SchemaTooNewError, SessionStore, StateStoreError

from .fanout import AGGREGATE_TIMEOUT_SECONDS, SummaryJob, SummaryOutcome, summarize_all
from .grouping import SessionMatches, group_by_conversation, snippets
from .prompt import SessionHeader, build_messages
from .recent import recent_sessions
from .schema import ArgumentError, SearchRequest, parse_arguments
from .settings import PREFIX, SearchSettings
from .summary_client import request_summary
from .transcript import format_conversation, iso_time
from .truncation import MatchTerm, query_terms, truncate_around_matches

#: Message hits recalled per search; enough to fill five sessions and count their matches.
RECALL_HITS = 500
NO_MODEL_REASON = f"no auxiliary model configured (set {PREFIX}.base_url and {PREFIX}.model for summaries)"

logger = logging.getLogger("hermes.plugins.session_search")


class SessionSearch:
    """The tool handler; owns one SessionStore on *db_path*, opened on first use and closed at exit."""

    def __init__(
        self,
        db_path: str | Path,
        settings: SearchSettings | None = None,
        *,
        aggregate_timeout: float = AGGREGATE_TIMEOUT_SECONDS,
    ) -> None:
        self.db_path = Path(db_path)
        self.settings = settings or SearchSettings()
        self.aggregate_timeout = aggregate_timeout
        self._store: SessionStore | None = None
        self._lock = threading.Lock()

    # -- the store -----------------------------------------------------------

    def store(self) -> SessionStore:
        """The open store (opened now if this is the first use)."""
        with self._lock:
            if self._store is None:
                self._store = SessionStore(self.db_path)
                atexit.register(self.close)
            return self._store

    @property
    def is_open(self) -> bool:
        """True between the first use and close()."""
        return self._store is not None

    def close(self) -> None:
        """Close the store; a later search opens it again."""
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            atexit.unregister(self.close)
            store.close()

    # -- the tool ------------------------------------------------------------

    def handle(self, args: dict[str, Any] | None = None, **kwargs: Any) -> str:
        """``handler(args, **kwargs) -> str``; ``session_id`` is the caller's session. Never raises."""
        try:
            request = parse_arguments(args)
        except ArgumentError as exc:
            return tool_error(str(exc), hint=exc.hint)
        current = kwargs.get("session_id")
        try:
            answer = self.run(request, current_session_id=current if isinstance(current, str) and current else None)
        except SchemaTooNewError as exc:
            return tool_error(str(exc), hint="upgrade hermes; past sessions cannot be searched until then")
        except (StateStoreError, sqlite3.Error) as exc:
            return tool_error(
                f"the session store {self.db_path} cannot be read: {type(exc).__name__}: {exc}",
                hint="'hermes sessions stats' checks the store; past sessions cannot be searched until it opens",
            )
        except Exception as exc:  # the agent loop must get an answer, whatever broke
            logger.exception("session_search failed")
            return tool_error(
                f"session search failed: {type(exc).__name__}: {exc}",
                hint="try again with a simpler query, or an empty query to list recent sessions",
            )
        return json.dumps(answer, ensure_ascii=False)

    def run(self, request: SearchRequest, *, current_session_id: str | None = None) -> dict[str, Any]:
        """The answer to one checked request, as a dict."""
        store = self.store()
        excluded = own_conversation(store, current_session_id)
        if not request.query:
            sessions = recent_sessions(store, request.limit, excluded)
            return {"query": "", "mode": "recent", "count": len(sessions), "sessions": sessions}
        terms = query_terms(request.query)
        if not terms:
            return {
                "query": request.query, "mode": "search", "count": 0, "sessions": [],
                "hint": "the query has nothing searchable: use words or \"quoted phrases\" (NOT needs a word beside it)",
            }
        hits = store.search(request.query, role_filter=request.roles or None,
                            exclude_session_ids=excluded, limit=RECALL_HITS, collapse_copies=True)
        tips = store.get_compression_tips(dict.fromkeys(hit.session_id for hit in hits))
        groups = group_by_conversation(hits, tips, excluded)[: request.limit]
        answer: dict[str, Any] = {
            "query": request.query, "mode": "search", "count": len(groups),
            "summary_model": self.settings.model if self.settings.summaries_enabled else None,
        }
        if not groups:
            answer["sessions"] = []
            answer["hint"] = "no past session matched; try fewer or other words, OR between alternatives, or prefix*"
            return answer
        headers = [session_header(store, group) for group in groups]
        outcomes = self._summaries(store, request.query, terms, groups, headers)
        answer["sessions"] = [_session_result(g, h, o, i) for i, (g, h, o) in enumerate(zip(groups, headers, outcomes), 1)]
        return answer

    # -- summaries -----------------------------------------------------------

    def _summaries(
        self,
        store: SessionStore,
        query: str,
        terms: tuple[MatchTerm, ...],
        groups: list[SessionMatches],
        headers: list[SessionHeader],
    ) -> list[SummaryOutcome]:
        if not self.settings.summaries_enabled:
            return [SummaryOutcome(failure=NO_MODEL_REASON) for _ in groups]
        outcomes: list[SummaryOutcome | None] = []
        jobs: list[SummaryJob] = []
        for group, header in zip(groups, headers):
            text = format_conversation(conversation_messages(store, group.session_id))
            if not text:
                outcomes.append(SummaryOutcome(failure="the conversation has no text left to summarise"))
                continue
            window = truncate_around_matches(text, terms, self.settings.max_chars)
            outcomes.append(None)
            jobs.append(self._job(build_messages(query, header, window.text, truncated=window.truncated)))
        results = iter(summarize_all(jobs, concurrency=self.settings.max_concurrency,
                                     request_timeout=self.settings.timeout, aggregate_timeout=self.aggregate_timeout))
        filled = [o if o is not None else next(results) for o in outcomes]
        for header, outcome in zip(headers, filled):
            if outcome.failure:
                logger.info("session_search: no summary for %s: %s", header.session_id, outcome.failure)
        return filled

    def _job(self, messages: list[dict[str, str]]) -> SummaryJob:
        settings = self.settings

        def job(timeout: float) -> str:
            return request_summary(base_url=settings.base_url, model=settings.model, api_key=settings.api_key,
                                   messages=messages, timeout=timeout)

        return job


def own_conversation(store: SessionStore, session_id: str | None) -> frozenset[str]:
    """The caller's session with its whole lineage: compression chain, parents, sub-agents.

    A search from inside a conversation is after *other* conversations; its own
    earlier parts are already in (or summarised into) the context.
    """
    if not session_id:
        return frozenset()
    return frozenset({session_id, *store.lineage_ids(session_id), *store.get_compression_chain(session_id)})


def conversation_messages(store: SessionStore, tip: str) -> list[dict[str, Any]]:
    """Every message of the compression chain ending in *tip*, oldest part first.

    A message that compression copied into a later part (the protected head, the
    last turns) is kept where it first appeared, so the summary model reads it once.
    """
    seen: set[tuple[Any, ...]] = set()
    messages: list[dict[str, Any]] = []
    for part in store.get_compression_chain(tip):
        own = store.get_messages(part)
        for message in own:
            if _copy_key(message) not in seen:
                messages.append(message)
        seen.update(_copy_key(m) for m in own)
    return messages


def _copy_key(message: dict[str, Any]) -> tuple[Any, ...]:
    return (message.get("role"), message.get("content"), message.get("tool_name"),
            json.dumps(message.get("tool_calls"), sort_keys=True, default=str))


def session_header(store: SessionStore, group: SessionMatches) -> SessionHeader:
    """Title, start and platform of a matched session (from its hit when the row is gone)."""
    row = store.get_session(group.session_id) or {}
    best = group.hits[0]
    return SessionHeader(
        session_id=group.session_id,
        title=row.get("title", best.session_title),
        started_at=iso_time(row.get("started_at")),
        source=row.get("source", best.source),
    )


def _session_result(group: SessionMatches, header: SessionHeader, outcome: SummaryOutcome, rank: int) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "rank": rank,
        "session_id": header.session_id,
        "title": header.title,
        "started_at": header.started_at,
        "source": header.source,
        "match_count": group.match_count,
    }
    if outcome.summary is not None:
        entry["mode"] = "summary"
        entry["summary"] = outcome.summary
    else:
        entry["mode"] = "snippets"
        entry["reason"] = outcome.failure if outcome.failure == NO_MODEL_REASON else f"summary unavailable: {outcome.failure}"
        entry["snippets"] = snippets(group)
    return entry
