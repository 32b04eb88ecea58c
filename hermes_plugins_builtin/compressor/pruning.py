"""The cheap first step: clear bulky old tool outputs, which are the bulk of a long agent conversation."""

from __future__ import annotations

from collections.abc import Sequence

from .messages import Message, content_text, image_count, is_tool_result, with_content

#: Tool outputs longer than this are cleared; shorter ones cost less than the note that replaces them.
PRUNE_MIN_CHARS = 200
CLEARED_MARKER = "[tool output cleared to save context space"


def cleared_note(chars: int) -> str:
    return f"{CLEARED_MARKER}: {chars} characters were removed; run the tool again if the details are needed]"


def prune_tool_outputs(messages: Sequence[Message], end: int) -> tuple[list[Message], int]:
    """Replace the content of bulky tool results before index ``end`` with a short note.

    Returns the new list (untouched messages are the same objects) and how many were cleared.
    """
    pruned: list[Message] = []
    cleared = 0
    for index, message in enumerate(messages):
        if index < end and is_tool_result(message):
            content = message.get("content")
            text = content_text(content)
            bulky = len(text) > PRUNE_MIN_CHARS or image_count(content) > 0
            if bulky and not text.startswith(CLEARED_MARKER):
                pruned.append(with_content(message, cleared_note(len(text))))
                cleared += 1
                continue
        pruned.append(message)
    return pruned, cleared
