"""``agent.plugin_llm`` for plugins written for Hermes Agent: the auxiliary model behind ``ctx.llm``.

The plugin context hands these out, so they live below it in :mod:`hermes_core.plugin_llm`.
"""

from __future__ import annotations

from hermes_core.plugin_llm import (
    PluginLlm,
    PluginLlmCompleteResult,
    PluginLlmError,
    PluginLlmStructuredResult,
    PluginLlmUsage,
)

__all__ = ["PluginLlm", "PluginLlmCompleteResult", "PluginLlmStructuredResult", "PluginLlmUsage", "PluginLlmError"]
