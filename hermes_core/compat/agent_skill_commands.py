"""``agent.skill_commands`` for plugins written for Hermes Agent: reading skill invocations.

When a user runs ``/<skill> <instruction>``, the message the model sees holds the skill's
text and the user's instruction; these helpers take that message apart again.
"""

from __future__ import annotations

import re

__all__ = ["SKILL_EXCERPT_JOINT", "describe_skill_invocation", "extract_user_instruction_from_skill_message", "is_skill_invocation"]

SKILL_EXCERPT_JOINT = "\n\n[...]\n\n"
_INVOCATION = re.compile(r"^\s*/(?P<name>[A-Za-z0-9][A-Za-z0-9_:-]*)(?:\s+(?P<rest>.*))?$", re.DOTALL)
_INSTRUCTION_MARKERS = ("The user has provided the following instruction alongside the skill invocation:", "User instruction:")


def is_skill_invocation(message: str) -> bool:
    return bool(isinstance(message, str) and _INVOCATION.match(message))


def describe_skill_invocation(message: str) -> tuple[str, str] | None:
    """``("name", "instruction")`` for ``/name instruction``; ``None`` for other text."""
    match = _INVOCATION.match(message or "") if isinstance(message, str) else None
    if not match:
        return None
    return match.group("name"), (match.group("rest") or "").strip()


def extract_user_instruction_from_skill_message(message: str) -> str:
    """The user's own words in a message built from a skill invocation (the message itself otherwise)."""
    if not isinstance(message, str):
        return ""
    for marker in _INSTRUCTION_MARKERS:
        if marker in message:
            return message.split(marker, 1)[1].strip()
    described = describe_skill_invocation(message)
    return described[1] if described else message.strip()
