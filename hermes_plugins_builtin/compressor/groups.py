"""Where the conversation may be cut: whole tool-call groups only, and the repair of any orphaned pair."""

from __future__ import annotations

from collections.abc import Sequence

from .messages import Message, call_id, is_tool_result, result_call_id, role_of, tool_calls_of
from .summary_message import summary_role

#: Content of a result made up for a call whose real result is gone; providers reject a call left unanswered.
MISSING_RESULT_TEXT = "[no result: this tool output was lost when the conversation was compacted]"


def unit_starts(messages: Sequence[Message]) -> list[int]:
    """Indexes at which a cut may fall.

    An assistant message with tool calls and the tool messages right after it form one unit;
    every other message is a unit of its own.
    """
    starts: list[int] = []
    index = 0
    while index < len(messages):
        starts.append(index)
        index += 1
        if tool_calls_of(messages[index - 1]):
            while index < len(messages) and is_tool_result(messages[index]):
                index += 1
    return starts


def head_end(messages: Sequence[Message], protect_first_n: int, starts: Sequence[int]) -> int:
    """End (exclusive) of the protected head: at least ``protect_first_n`` messages and every leading
    system message, pushed forward so that no tool-call group is cut."""
    wanted = max(protect_first_n, 0)
    leading_system = 0
    while leading_system < len(messages) and role_of(messages[leading_system]) == "system":
        leading_system += 1
    wanted = max(wanted, leading_system)
    return next((start for start in starts if start >= wanted), len(messages))


def tail_start(
    messages: Sequence[Message],
    head: int,
    protect_last_n: int,
    starts: Sequence[int],
    message_tokens: Sequence[int],
    budget_tokens: int | None,
) -> int:
    """Start of the protected tail.

    The tail begins at the unit boundary that keeps at least ``protect_last_n`` messages (growing to
    keep a group whole); it holds at least the newest unit unless the head already reaches the end. When it alone costs more than ``budget_tokens`` it gives
    up whole units from its front, but never the last user message it holds: that is the request the
    model is answering.
    """
    total = len(messages)
    boundaries = [start for start in starts if start >= head]
    if not boundaries:
        return total
    limit = total - max(protect_last_n, 0)
    start = max((b for b in boundaries if b <= limit), default=boundaries[0])
    if budget_tokens is None:
        return start
    last_user = next((i for i in range(total - 1, start - 1, -1) if role_of(messages[i]) == "user"), None)
    floor = last_user if last_user is not None else boundaries[-1]
    cost = sum(message_tokens[start:])
    later = [b for b in boundaries if b > start]
    for following in later:
        if cost <= budget_tokens or following > floor:
            break
        cost -= sum(message_tokens[start:following])
        start = following
    return start


def make_room_for_summary(
    messages: Sequence[Message],
    head: int,
    tail: int,
    starts: Sequence[int],
    message_tokens: Sequence[int],
    budget_tokens: int | None,
) -> int:
    """Move the tail start back one unit when that lets the summary sit between head and tail as a
    message of its own (no role fits between an assistant and a user message).

    The middle keeps at least one unit and the grown tail must still fit ``budget_tokens``; when no
    move helps, the tail is left where it was and the summary is merged into a neighbour instead.
    """
    before = role_of(messages[head - 1]) if head > 0 else None
    after = role_of(messages[tail]) if tail < len(messages) else None
    if summary_role(before, after) is not None:
        return tail
    earlier = max((start for start in starts if head < start < tail), default=None)
    if earlier is None or summary_role(before, role_of(messages[earlier])) is None:
        return tail
    if budget_tokens is not None and sum(message_tokens[earlier:]) > budget_tokens:
        return tail
    return earlier


def repair_tool_pairs(messages: Sequence[Message]) -> tuple[list[Message], int]:
    """Make every tool result follow the call that asked for it, and every call have a result.

    Results whose call is not right before them are dropped; calls left without a result get a
    stand-in result. The trailing group is left alone: its tools may still be running.
    Returns the messages and how many were dropped or added.
    """
    repaired: list[Message] = []
    changes = 0
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if is_tool_result(message):
            changes += 1  # no call right before it owns this result
            continue
        repaired.append(message)
        calls = tool_calls_of(message)
        if not calls:
            continue
        wanted = [cid for cid in (call_id(call) for call in calls) if cid is not None]
        answered: set[str] = set()
        while index < len(messages) and is_tool_result(messages[index]):
            result = messages[index]
            index += 1
            rid = result_call_id(result)
            if rid in wanted and rid not in answered:
                answered.add(rid)
                repaired.append(result)
            else:
                changes += 1
        if index >= len(messages):
            break
        for cid in wanted:
            if cid not in answered:
                repaired.append({"role": "tool", "tool_call_id": cid, "content": MISSING_RESULT_TEXT})
                changes += 1
    return repaired, changes
