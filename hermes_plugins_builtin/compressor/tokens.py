"""Rough token counts (about four characters a token) for when the model has not reported real usage."""

from __future__ import annotations

from collections.abc import Iterable

from .messages import Message, call_arguments, call_name, content_text, image_count, tool_calls_of

CHARS_PER_TOKEN = 4
#: Providers bill an image by its pixels, not its bytes; a fixed figure keeps the estimate model-independent.
IMAGE_TOKENS = 1500
#: Role markers and separators every message costs on the wire.
MESSAGE_OVERHEAD_TOKENS = 4


def estimate_tokens(text: str) -> int:
    """Tokens in ``text``, rounded up so that any non-empty text counts."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def estimate_message_tokens(message: Message) -> int:
    content = message.get("content")
    chars = len(content_text(content))
    for call in tool_calls_of(message):
        chars += len(call_name(call)) + len(call_arguments(call))
    text_tokens = (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
    return text_tokens + image_count(content) * IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS


def estimate_messages_tokens(messages: Iterable[Message]) -> int:
    return sum(estimate_message_tokens(message) for message in messages)
