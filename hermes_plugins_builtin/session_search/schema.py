"""The ``session_search`` tool schema and the checking of the arguments a model sends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TOOL_NAME = "session_search"
TOOLSET = "session_search"
DEFAULT_LIMIT = 3
MAX_LIMIT = 5
#: Roles a stored message can have; anything else in ``role_filter`` is a typo worth reporting.
KNOWN_ROLES = ("user", "assistant", "tool", "system")

TOOL_SCHEMA: dict[str, Any] = {
    "name": TOOL_NAME,
    "description": (
        "Search your past conversations (earlier sessions, not this one) and get back, per matching "
        "session, a summary focused on the query, or the matching snippets when no summary model is "
        "configured. Use it when the user refers to something discussed before ('like last time', "
        "'the fix we found', 'what did I say about X'). Query syntax: words (all must match), "
        "\"quoted phrases\", OR, NOT word, and prefix* matches. Leave the query empty to list the "
        "most recent sessions instead (cheap: no search, no summaries)."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": (
                    "What to look for: keywords, \"exact phrases\", OR / NOT, prefix*. "
                    "Empty lists recent sessions."
                ),
            },
            "role_filter": {
                "type": "string",
                "description": (
                    "Only match messages of these roles, comma-separated (user, assistant, tool, system), "
                    "e.g. 'user' for what the user said. Empty matches every role."
                ),
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": f"How many sessions to return (default {DEFAULT_LIMIT}, at most {MAX_LIMIT}).",
            },
        },
        "required": [],
    },
}


class ArgumentError(ValueError):
    """The arguments cannot be used; ``hint`` tells the model how to call again."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class SearchRequest:
    """The arguments, checked: a stripped query, known roles, a limit within 1..MAX_LIMIT."""

    query: str = ""
    roles: tuple[str, ...] = ()
    limit: int = DEFAULT_LIMIT


def _limit(value: Any) -> int:
    if value is None or value == "":
        return DEFAULT_LIMIT
    # models send "4" and 4.0 as often as 4; a bool is neither
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value.strip())
    else:
        number = None
    if number is None:
        raise ArgumentError(f"limit must be a whole number, got {value!r}", f"pass limit as an integer from 1 to {MAX_LIMIT}")
    return max(1, min(MAX_LIMIT, number))


def _roles(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        raise ArgumentError(f"role_filter must be a comma-separated string, got {value!r}", "e.g. role_filter='user' or 'user,assistant'")
    roles = tuple(sorted({item.strip().lower() for item in items if item.strip()}))
    unknown = [r for r in roles if r not in KNOWN_ROLES]
    if unknown:
        raise ArgumentError(f"unknown role(s) in role_filter: {', '.join(unknown)}", f"use any of: {', '.join(KNOWN_ROLES)}")
    return roles


def parse_arguments(args: Any) -> SearchRequest:
    """Check the tool arguments; raises ArgumentError with a hint for anything unusable."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ArgumentError("the arguments must be a JSON object", "call session_search with {\"query\": \"...\"}")
    query = args.get("query")
    if query is None:
        query = ""
    if not isinstance(query, str):
        raise ArgumentError(f"query must be a string, got {type(query).__name__}", "pass the search words as one string, e.g. \"docker networking\"")
    return SearchRequest(query=query.strip(), roles=_roles(args.get("role_filter")), limit=_limit(args.get("limit")))
