"""compressor: the built-in context engine, configured by ``compression.*`` and ``auxiliary.compression.*``."""

from __future__ import annotations

from typing import Any

from .engine import Compressor
from .extractive import extractive_summary
from .groups import repair_tool_pairs
from .prompt import build_summary_prompt
from .settings import CompressionSettings
from .summary_message import END_MARKER, SUMMARY_PREFIX, split_summary
from .summary_model import ChatCompletionsSummarizer, SummaryModelError
from .tokens import estimate_messages_tokens, estimate_tokens

__all__ = [
    "END_MARKER",
    "SUMMARY_PREFIX",
    "ChatCompletionsSummarizer",
    "CompressionSettings",
    "Compressor",
    "SummaryModelError",
    "build_summary_prompt",
    "estimate_messages_tokens",
    "estimate_tokens",
    "extractive_summary",
    "register",
    "repair_tool_pairs",
    "split_summary",
]

ENGINE_NAME = "compressor"


def register(ctx: Any) -> None:
    # The host accepts one context engine; when context.engine names another, stepping aside lets it register.
    selected = ctx.config.get("context.engine", ENGINE_NAME) or ENGINE_NAME
    if selected != ENGINE_NAME:
        ctx.logger.debug("context.engine is %r: the built-in compressor is not registered", selected)
        return
    ctx.register_auxiliary_task(
        "compression",
        display_name="Context compression",
        description="Writes the summary that replaces the middle of a long conversation.",
    )
    ctx.register_context_engine(Compressor(CompressionSettings.from_config(ctx.config, ctx.logger)))
