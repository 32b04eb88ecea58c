"""system_and_3: cache breakpoints on the system prompt and the last three conversation messages."""

from __future__ import annotations

import copy
from typing import Any

#: Anthropic accepts at most four cache breakpoints per request.
MAX_BREAKPOINTS = 4
#: Conversation messages marked after the system prompt.
TAIL_MESSAGES = MAX_BREAKPOINTS - 1
VALID_TTLS = ("5m", "1h")


def cache_marker(ttl: str = "5m") -> dict[str, str]:
    """The ``cache_control`` value; the 5-minute lifetime is the provider's default and is left implicit."""
    if ttl not in VALID_TTLS:
        raise ValueError(f"prompt_caching.cache_ttl must be one of {', '.join(VALID_TTLS)}; got {ttl!r}")
    return {"type": "ephemeral"} if ttl == "5m" else {"type": "ephemeral", "ttl": ttl}


def _has_marker(message: dict[str, Any]) -> bool:
    if "cache_control" in message:
        return True
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(part, dict) and "cache_control" in part for part in content)


def _strip(message: dict[str, Any]) -> dict[str, Any]:
    stripped = copy.deepcopy(message)
    stripped.pop("cache_control", None)
    if isinstance(stripped.get("content"), list):
        for part in stripped["content"]:
            if isinstance(part, dict):
                part.pop("cache_control", None)
    return stripped


def _mark(message: dict[str, Any], marker: dict[str, str]) -> dict[str, Any]:
    marked = _strip(message)
    content = marked.get("content")
    if isinstance(content, str) and content:
        marked["content"] = [{"type": "text", "text": content, "cache_control": dict(marker)}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        content[-1]["cache_control"] = dict(marker)
    else:
        # Nothing to hang the marker on (empty content): Anthropic accepts it on the message.
        marked["cache_control"] = dict(marker)
    return marked


def mark_system(system: Any, marker: dict[str, str]) -> Any:
    """The system prompt (a string or a list of text blocks) with a breakpoint on its end."""
    if isinstance(system, str):
        return [{"type": "text", "text": system, "cache_control": dict(marker)}] if system else system
    if isinstance(system, list) and system and isinstance(system[-1], dict):
        blocks = [_strip_block(b) for b in system]
        blocks[-1]["cache_control"] = dict(marker)
        return blocks
    return system


def _strip_block(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        block = dict(block)
        block.pop("cache_control")
    return block


def apply_system_and_3(
    system: Any,
    messages: list[dict[str, Any]],
    ttl: str = "5m",
) -> tuple[Any, list[dict[str, Any]]]:
    """Return ``(system, messages)`` with at most four breakpoints: the system prompt and the last three
    non-system messages. Idempotent: earlier markers are removed first. Messages that need no change
    are returned as the same objects; the caller's objects are never modified.
    """
    marker = cache_marker(ttl)
    marked_system = mark_system(system, marker)
    targets: set[int] = set()
    for index in range(len(messages) - 1, -1, -1):
        if len(targets) == TAIL_MESSAGES:
            break
        if messages[index].get("role") != "system":
            targets.add(index)
    return marked_system, mark_only(messages, targets, marker)


def mark_only(messages: list[dict[str, Any]], targets: set[int], marker: dict[str, Any]) -> list[dict[str, Any]]:
    """``messages`` with ``marker`` on the ``targets`` indexes and no marker anywhere else.

    Only the messages that change are copied; the others are returned as the same objects.
    """
    result = []
    for index, message in enumerate(messages):
        if index in targets:
            result.append(_mark(message, marker))
        elif _has_marker(message):
            result.append(_strip(message))
        else:
            result.append(message)
    return result
