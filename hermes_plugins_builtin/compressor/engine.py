"""Compressor: the built-in context engine - prune old tool output, then summarise the middle of the conversation."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from hermes_core.compat.agent_context_engine import sanitize_memory_context
from hermes_core.context_engine import ContextEngine

from .extractive import extractive_summary
from .groups import head_end, make_room_for_summary, repair_tool_pairs, tail_start, unit_starts
from .messages import Message, content_text, role_of
from .prompt import build_summary_prompt
from .pruning import prune_tool_outputs
from .settings import CompressionSettings
from .summary_message import clean_body, place_summary, split_summary
from .summary_model import ChatCompletionsSummarizer
from .tokens import estimate_message_tokens, estimate_messages_tokens

logger = logging.getLogger("hermes.plugins.compressor")

Summarize = Callable[[str], str]

#: Bounds of the length asked of the summary model, in tokens.
SUMMARY_MIN_TOKENS = 500
SUMMARY_MAX_TOKENS = 8000
#: The summary may take at most this share of the model's context window.
SUMMARY_CONTEXT_SHARE = 0.05


class Compressor(ContextEngine):
    """Keeps a conversation under ``threshold`` of the model's context length.

    :param settings: thresholds, protected messages and the summary model (default: documented defaults).
    :param summarize: ``summarize(prompt) -> str``; default: the configured summary model, or none,
        in which case the offline extractive summary is used.
    :param context_length: the model's context window in tokens; 0 (unknown) never triggers by itself.
    """

    def __init__(
        self,
        settings: CompressionSettings | None = None,
        *,
        summarize: Summarize | None = None,
        context_length: int = 0,
        model: str = "",
    ) -> None:
        self.settings = settings or CompressionSettings()
        self.enabled = self.settings.enabled
        self.threshold_percent = self.settings.threshold
        self.protect_first_n = self.settings.protect_first_n
        self.protect_last_n = self.settings.protect_last_n
        self.target_ratio = self.settings.target_ratio
        if summarize is None and self.settings.has_summary_model:
            summarize = ChatCompletionsSummarizer(
                base_url=self.settings.summary_base_url,
                model=self.settings.summary_model,
                api_key=self.settings.summary_api_key,
                timeout=self.settings.summary_timeout,
            )
        self.summarize: Summarize | None = summarize
        self.model = model
        self.compression_count = 0
        #: Compressions that only cleared old tool output, with no summary.
        self.prune_count = 0
        self.last_summary: str | None = None
        #: "model" or "extractive": who wrote ``last_summary``.
        self.last_summary_source: str | None = None
        self.last_summary_error: str | None = None
        #: "summarized", "pruned" or "unchanged": what the last ``compress`` call did.
        self.last_action: str | None = None
        #: Whether ``last_prompt_tokens`` came from the API or from the rough estimate.
        self.usage_source = "none"
        self.update_model(model, context_length)

    @classmethod
    def from_config(cls, config: Any, **kwargs: Any) -> Compressor:
        """A compressor configured by ``compression.*`` / ``auxiliary.compression.*`` of ``config``."""
        return cls(CompressionSettings.from_config(config), **kwargs)

    @property
    def name(self) -> str:
        return "compressor"

    # -- token accounting --

    def update_model(self, model: str, context_length: int, **kwargs: Any) -> None:
        """The model changed; recompute the threshold. Extra keywords (base_url, provider, ...) are accepted."""
        self.model = model
        self.context_length = max(int(context_length or 0), 0)
        self.threshold_tokens = int(self.context_length * self.threshold_percent)

    def update_from_response(self, usage: dict[str, Any]) -> None:
        """Record reported usage, OpenAI (prompt/completion tokens) or Anthropic (input/output + cache) shaped."""
        if not isinstance(usage, dict):
            return
        prompt = _number(usage.get("prompt_tokens"))
        if prompt is None:
            keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            parts = [_number(usage.get(key)) for key in keys]
            # Anthropic reports cached prompt tokens apart from input_tokens; all of them fill the window.
            prompt = sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None
        completion = _number(usage.get("completion_tokens"))
        if completion is None:
            completion = _number(usage.get("output_tokens"))
        if prompt is not None:
            self.last_prompt_tokens = prompt
            self.usage_source = "reported"
        if completion is not None:
            self.last_completion_tokens = completion
        total = _number(usage.get("total_tokens"))
        self.last_total_tokens = total if total is not None else self.last_prompt_tokens + self.last_completion_tokens

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        """Whether the prompt reached the threshold: ``prompt_tokens`` if given, else the last known count
        (reported by the API, or estimated right after a compression)."""
        if not self.enabled or self.threshold_tokens <= 0:
            return False
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return tokens >= self.threshold_tokens

    def should_compress_preflight(self, messages: Sequence[Message]) -> bool:
        """Before a call with no usage reported yet (a resumed session): judge by the rough estimate."""
        return self.should_compress(estimate_messages_tokens(messages))

    # -- compression --

    def compress(
        self,
        messages: list[dict[str, Any]],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        memory_context: str = "",
    ) -> list[dict[str, Any]]:
        """Return a shorter conversation; ``messages`` and its dicts are left untouched.

        Old bulky tool output is cleared first; if that alone brings the prompt under the threshold
        (and ``force`` is not set) the result stops there. Otherwise the messages between the
        protected head and tail become one summary that carries the previous summary forward.
        """
        original = list(messages)
        message_tokens = [estimate_message_tokens(m) for m in original]
        starts = unit_starts(original)
        head = head_end(original, self.protect_first_n, starts)
        budget = int(self.threshold_tokens * self.target_ratio) if self.threshold_tokens > 0 else None
        tail = tail_start(original, head, self.protect_last_n, starts, message_tokens, budget)
        tail = make_room_for_summary(original, head, tail, starts, message_tokens, budget)

        # The newest unit is never "old", even when a large head has left no tail to protect it.
        prune_end = min(tail, starts[-1]) if starts else 0
        pruned, cleared = prune_tool_outputs(original, prune_end)
        before = current_tokens if current_tokens is not None else sum(message_tokens)
        after_pruning = before - (sum(message_tokens) - estimate_messages_tokens(pruned))
        head_messages, head_summaries = _without_summaries(pruned[:head])
        # The summary reads the middle as it was: a cleared tool output may hold the error worth keeping.
        turns, middle_summaries = _without_summaries(original[head:tail])
        tail_messages, tail_summaries = _without_summaries(pruned[tail:])
        prune_is_enough = not force and self.threshold_tokens > 0 and after_pruning < self.threshold_tokens
        if not turns or (cleared and prune_is_enough):
            # Nothing new to summarise (an earlier summary alone is not), or clearing was enough.
            if not cleared:
                self.last_action = "unchanged"
                return original
            self.prune_count += 1
            return self._finish(repair_tool_pairs(pruned)[0], "pruned")

        earlier = [*head_summaries, *middle_summaries, *tail_summaries]
        previous = "\n\n".join(earlier) if earlier else None

        goal = next((m for m in [*head_messages, *turns] if role_of(m) == "user"), None)
        body = self._summary(turns, previous, memory_context, focus_topic, goal)
        self.last_summary = body
        self.compression_count += 1
        result = place_summary(head_messages, body, tail_messages)
        return self._finish(repair_tool_pairs(result)[0], "summarized")

    def _summary(
        self,
        turns: list[Message],
        previous: str | None,
        memory_context: str,
        focus_topic: str | None,
        goal: Message | None,
    ) -> str:
        self.last_summary_error = None
        # Provider text is capped and stripped of recall fences once, for the model and the offline path alike.
        memory_context = sanitize_memory_context(memory_context or "")
        if self.summarize is not None:
            prompt = build_summary_prompt(turns, previous, memory_context, focus_topic, self._summary_tokens(turns))
            try:
                body = clean_body(self.summarize(prompt) or "")
            except Exception as exc:  # any failure of the summary model falls back to the offline summary
                body = ""
                self.last_summary_error = f"{type(exc).__name__}: {exc}"
                logger.warning(
                    "compression summary model failed (%s); using the extractive summary", self.last_summary_error
                )
            if body:
                self.last_summary_source = "model"
                return body
            if self.last_summary_error is None:
                self.last_summary_error = "the summary model returned an empty summary"
        self.last_summary_source = "extractive"
        goal_text = content_text(goal.get("content")) if goal is not None else None
        return extractive_summary(turns, previous, memory_context, focus_topic, goal=goal_text)

    def _summary_tokens(self, turns: Sequence[Message]) -> int:
        ceiling = SUMMARY_MAX_TOKENS
        if self.context_length:
            ceiling = min(ceiling, int(self.context_length * SUMMARY_CONTEXT_SHARE))
        wanted = int(estimate_messages_tokens(turns) * self.target_ratio)
        return max(SUMMARY_MIN_TOKENS, min(wanted, ceiling))

    def _finish(self, result: list[Message], action: str) -> list[Message]:
        self.last_action = action
        # The reported usage described the longer prompt; until the next response, the estimate is better.
        self.last_prompt_tokens = estimate_messages_tokens(result)
        self.usage_source = "estimated"
        return result

    # -- lifecycle and status --

    def on_session_reset(self) -> None:
        super().on_session_reset()
        self.prune_count = 0
        self.last_summary = None
        self.last_summary_source = None
        self.last_summary_error = None
        self.last_action = None
        self.usage_source = "none"

    def text_without_summary(self, text: str) -> str:
        """The text with a summary this engine placed in it removed (a summary alone leaves ``""``)."""
        _, rest = split_summary({"role": "user", "content": text})
        return "" if rest is None else content_text(rest.get("content"))

    def get_status(self) -> dict[str, Any]:
        status = super().get_status()
        status.update(
            {
                "engine": self.name,
                "enabled": self.enabled,
                "model": self.model,
                "usage_source": self.usage_source,
                "prune_count": self.prune_count,
                "last_action": self.last_action,
                "summary_model": self.settings.summary_model if self.settings.has_summary_model else None,
                "last_summary_source": self.last_summary_source,
                "last_summary_error": self.last_summary_error,
            }
        )
        return status


def _number(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _without_summaries(messages: Sequence[Message]) -> tuple[list[Message], list[str]]:
    """The messages with earlier summaries taken out, and the summaries found, in order."""
    kept: list[Message] = []
    summaries: list[str] = []
    for message in messages:
        body, rest = split_summary(message)
        if body is not None:
            summaries.append(body)
        if rest is not None:
            kept.append(rest)
    return kept, summaries
