"""ModelResponse: one model call's result, the same shape whichever provider answered."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Usage keys every response carries (0 when the provider did not say).
#: ``input_tokens`` counts only the input *not* served from or written to the cache, so the
#: three input counters are disjoint and add up to the whole prompt (see :attr:`ModelResponse.prompt_tokens`).
USAGE_KEYS: tuple[str, ...] = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")

#: The finish reasons a caller can rely on; anything else a provider invents is passed through as-is.
FINISH_REASONS: tuple[str, ...] = ("stop", "tool_calls", "length", "content_filter")


def empty_usage() -> dict[str, int]:
    """A usage dict with every counter at 0."""
    return dict.fromkeys(USAGE_KEYS, 0)


def usage_count(value: Any) -> int:
    """A provider's token count as an int; 0 when it is missing or not a number."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


@dataclass
class ModelResponse:
    """What a :class:`~hermes_core.models.clients.protocol.ModelClient` returns.

    ``tool_calls`` are OpenAI-format dicts ``{"id", "type": "function", "function": {"name", "arguments"}}``
    with ``arguments`` a JSON string, whichever provider produced them. ``raw`` and ``request`` are
    sanitized copies meant for the ``post_api_request`` / ``pre_api_request`` hooks.
    """

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: dict[str, int] = field(default_factory=empty_usage)
    response_model: str | None = None
    #: Reasoning/thinking text when the provider returned it separately; never part of ``text``.
    reasoning: str | None = None
    #: The provider's response, sanitized (for streams: the assembled equivalent of a non-streamed reply).
    raw: dict[str, Any] = field(default_factory=dict)
    #: The request that produced this response, sanitized: ``{"method", "url", "body"}``.
    request: dict[str, Any] = field(default_factory=dict)
    #: HTTP attempts made, 1 when the first one succeeded.
    attempts: int = 1

    @property
    def prompt_tokens(self) -> int:
        """All input tokens: uncached + read from cache + written to cache."""
        return self.usage.get("input_tokens", 0) + self.usage.get("cache_read_tokens", 0) + self.usage.get(
            "cache_write_tokens", 0
        )

    def assistant_message(self) -> dict[str, Any]:
        """The OpenAI-format assistant message to append to the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [dict(call, function=dict(call["function"])) for call in self.tool_calls]
        elif message["content"] is None:
            message["content"] = ""
        return message
