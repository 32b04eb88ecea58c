"""session_search: the built-in tool that recalls past sessions from state.db, summarised for the query."""

from __future__ import annotations

from typing import Any

from .fanout import AGGREGATE_TIMEOUT_SECONDS, SummaryOutcome, summarize_all
from .pipeline import SessionSearch, own_conversation
from .prompt import SYSTEM_PROMPT, build_messages
from .schema import DEFAULT_LIMIT, MAX_LIMIT, TOOL_NAME, TOOL_SCHEMA, TOOLSET, SearchRequest, parse_arguments
from .settings import DEFAULT_CONCURRENCY, DEFAULT_MAX_CHARS, DEFAULT_TIMEOUT_SECONDS, SearchSettings
from .summary_client import SUMMARY_TEMPERATURE, SummaryError, SummaryTimeout, request_summary
from .transcript import format_conversation
from .truncation import MatchTerm, Window, query_terms, truncate_around_matches

__all__ = [
    "AGGREGATE_TIMEOUT_SECONDS",
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "SUMMARY_TEMPERATURE",
    "SYSTEM_PROMPT",
    "TOOLSET",
    "TOOL_NAME",
    "TOOL_SCHEMA",
    "MatchTerm",
    "SearchRequest",
    "SearchSettings",
    "SessionSearch",
    "SummaryError",
    "SummaryOutcome",
    "SummaryTimeout",
    "Window",
    "build_messages",
    "format_conversation",
    "own_conversation",
    "parse_arguments",
    "query_terms",
    "register",
    "request_summary",
    "summarize_all",
    "truncate_around_matches",
]


def register(ctx: Any) -> None:
    """Register the ``session_search`` tool on ``$HERMES_HOME/state.db`` and its auxiliary task."""
    settings = SearchSettings.from_config(ctx.config, ctx.logger)
    ctx.register_auxiliary_task(
        "session_search",
        display_name="Session search",
        description="Summarises each past session that matches a session_search query, focused on the query.",
        defaults={"timeout": DEFAULT_TIMEOUT_SECONDS, "max_concurrency": DEFAULT_CONCURRENCY, "max_chars": DEFAULT_MAX_CHARS},
    )
    search = SessionSearch(ctx.hermes_home / "state.db", settings)
    ctx.register_tool(TOOL_NAME, TOOLSET, TOOL_SCHEMA, search.handle, description=TOOL_SCHEMA["description"])
