"""What one user turn of an :class:`~hermes_core.runtime.session.AgentSession` produced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hermes_core.runtime.tool_calls import ToolCallOutcome

__all__ = ["TurnResult"]


@dataclass
class TurnResult:
    """What one user turn produced."""

    text: str
    session_id: str
    #: The messages this turn added to the conversation, as stored.
    messages: list[dict[str, Any]]
    tool_calls: list[ToolCallOutcome] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    #: Set when the turn ended with a compression that moved the conversation to a new session.
    compressed_into: str | None = None
