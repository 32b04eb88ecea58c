"""Breakpoint strategies, chosen by ``prompt_caching.strategy``: where the (at most four) markers go.

- ``system_and_3`` (default): the system prompt and the last three conversation messages.
- ``turn_anchored``: the same, except on the first request of a user turn, where the third mark
  goes to the message just before the *previous* user turn instead of the third-last message.

Why: recalled memory and ``pre_llm_call`` context ride on the API copy of the current user
message only. On the next turn that message is sent without them, so every cached prefix that runs
through it stops matching. The longest prefix still valid then ends just before the previous user
message. system_and_3 reaches it only through the provider's lookback (about 20 blocks before a
breakpoint), which cannot bridge a previous turn of ten or more tool calls; the whole conversation
is then written to the cache again. turn_anchored marks that message directly, and, since the
second-last message of a turn's first request is exactly the next turn's anchor, every anchor it
reads was written one turn earlier. Within a turn nothing changes, and both strategies are equal.
On the first request of a turn the third-last message (the end of the previous request) is still
read, one block behind the second-last mark.

Both take and return ``(system, messages)`` of an Anthropic Messages body, strip earlier markers
(so they are idempotent), copy only the messages they change, and never modify the caller's objects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

# The marking helpers are shared with system_and_3 so both strategies place identical markers.
from .breakpoints import TAIL_MESSAGES, apply_system_and_3, cache_marker, mark_only, mark_system

#: ``(system, messages, ttl) -> (system, messages)``
Strategy = Callable[[Any, list[dict[str, Any]], str], tuple[Any, list[dict[str, Any]]]]

DEFAULT_STRATEGY = "system_and_3"


def is_turn_start(message: dict[str, Any]) -> bool:
    """A user message that opens a turn: typed by the user, not a carrier of tool results."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if not isinstance(content, list):
        return True
    return not any(isinstance(part, dict) and part.get("type") == "tool_result" for part in content)


def turn_anchored_targets(messages: Sequence[dict[str, Any]], budget: int) -> list[int]:
    """Indexes to mark (at most ``budget``): the latest messages, with the oldest of them swapped for the
    message before the previous user turn when the last message opens a new turn."""
    eligible = [index for index, message in enumerate(messages) if message.get("role") != "system"]
    if budget <= 0 or not eligible:
        return []
    latest = eligible[-budget:]
    if not is_turn_start(messages[eligible[-1]]):
        return latest  # inside a turn: the previous request's end is among the latest, read exactly
    starts = [index for index in eligible if is_turn_start(messages[index])]
    before_previous = [index for index in eligible if len(starts) >= 2 and index < starts[-2]]
    if not before_previous or before_previous[-1] in latest[1:]:
        return latest  # the first turns: no previous turn to anchor on, or it is already marked
    return [before_previous[-1], *latest[1:]]


def apply_turn_anchored(system: Any, messages: list[dict[str, Any]], ttl: str = "5m") -> tuple[Any, list[dict[str, Any]]]:
    """``(system, messages)`` with markers on the system prompt and :func:`turn_anchored_targets`."""
    marker = cache_marker(ttl)
    marked_system = mark_system(system, marker)
    targets = set(turn_anchored_targets(messages, TAIL_MESSAGES))  # as many as system_and_3, with or without a system prompt
    return marked_system, mark_only(messages, targets, marker)


STRATEGIES: dict[str, Strategy] = {
    "system_and_3": apply_system_and_3,
    "turn_anchored": apply_turn_anchored,
}


def get_strategy(name: str) -> Strategy:
    """The strategy called ``name``; a ``ValueError`` naming the config key and the choices otherwise."""
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"prompt_caching.strategy must be one of {', '.join(STRATEGIES)}; got {name!r}") from None
