"""ContextEngine: the contract of what keeps a conversation inside the model's context window."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class ContextEngine(ABC):
    """Decides when to compress the conversation and how. One engine is active per agent.

    The host reads the class attributes directly; engines update them.
    """

    last_prompt_tokens: int = 0
    last_completion_tokens: int = 0
    last_total_tokens: int = 0
    threshold_tokens: int = 0
    context_length: int = 0
    compression_count: int = 0
    threshold_percent: float = 0.75
    protect_first_n: int = 3
    protect_last_n: int = 6

    @property
    @abstractmethod
    def name(self) -> str:
        """The identifier ``context.engine`` selects."""

    @abstractmethod
    def update_from_response(self, usage: dict[str, Any]) -> None:
        """Record the token usage the model API reported for the last call."""

    @abstractmethod
    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        """Whether the conversation must be compressed before the next call."""

    @abstractmethod
    def compress(
        self,
        messages: list[dict[str, Any]],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
    ) -> list[dict[str, Any]]:
        """Return a shorter list of messages that keeps what matters."""

    def update_model(self, model: str, context_length: int, **kwargs: Any) -> None:
        """The model changed; recompute the threshold."""
        self.context_length = context_length
        self.threshold_tokens = int(context_length * self.threshold_percent)

    def on_session_start(self, session_id: str, **kwargs: Any) -> None:
        """A session starts."""

    def on_session_end(self, session_id: str, messages: list[dict[str, Any]]) -> None:
        """A session ends."""

    def on_session_reset(self) -> None:
        """Zero the counters for a fresh conversation."""
        self.last_prompt_tokens = self.last_completion_tokens = self.last_total_tokens = 0
        self.compression_count = 0

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """Tools the engine offers the model; none by default."""
        return []

    def get_status(self) -> dict[str, Any]:
        """Figures for status displays."""
        usage = (self.last_prompt_tokens / self.context_length * 100) if self.context_length else 0.0
        return {
            "last_prompt_tokens": self.last_prompt_tokens,
            "threshold_tokens": self.threshold_tokens,
            "context_length": self.context_length,
            "usage_percent": round(usage, 1),
            "compression_count": self.compression_count,
        }
