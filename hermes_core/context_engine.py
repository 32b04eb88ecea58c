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
    #: Whether a host should tell the user when it compresses on its own.
    emit_automatic_compaction_status: bool = True
    #: A compression the engine has started but not finished (hosts that run compression in the
    #: background read it); ``None`` when there is none.
    pending_compression_operation: Any = None
    #: Let the first real usage figure, not an estimate, decide compression after a resume.
    should_defer_preflight_to_real_usage: bool = False

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

    def should_compress_info(self, prompt_tokens: int | None = None) -> tuple[bool, str | None]:
        """:meth:`should_compress` with a reason a status line can show."""
        return self.should_compress(prompt_tokens), None

    def should_compress_preflight(self, messages: list[dict[str, Any]]) -> bool:
        """Whether to compress before the first call of a turn, judged on the messages alone
        (a resumed session has no usage figure yet)."""
        return False

    def has_content_to_compress(self, messages: list[dict[str, Any]]) -> bool:
        """Whether :meth:`compress` could shorten ``messages``; a host skips the split when not."""
        return True

    def prune_tool_results_only(self, messages: list[dict[str, Any]], current_tokens: int | None = None) -> tuple[list[dict[str, Any]], int]:
        """A cheaper step than compression: clear old tool output; returns the messages and how many were cleared."""
        return messages, 0

    def select_context(
        self,
        request_messages: list[dict[str, Any]],
        *,
        conversation_messages: list[dict[str, Any]],
        incoming_message: dict[str, Any],
        budget_tokens: int,
    ) -> list[dict[str, Any]] | None:
        """Choose the messages of a request within ``budget_tokens``; ``None`` sends them all."""
        return None

    def on_turn_complete(self, messages: list[dict[str, Any]], usage: dict[str, Any] | None = None, **kwargs: Any) -> None:
        """A turn finished and was stored; ``messages`` is the whole conversation."""

    def get_automatic_compaction_status_message(self) -> str:
        """What to tell the user after an automatic compression; ``""`` for the host's default."""
        return ""

    def text_without_summary(self, text: str) -> str:
        """A stored message's text without what this engine wrote into the conversation (a compression
        summary); ``""`` when nothing else is left. Replays of stored conversations (the memory
        backfill) use it so a summary is not taken for something the user said."""
        return text

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """Tools the engine offers the model; none by default."""
        return []

    def handle_tool_call(self, name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run one of the engine's tools (``kwargs`` may carry ``messages``); a JSON string."""
        import json

        return json.dumps({"error": f"context engine {self.name!r} has no tool {name!r}"})

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
