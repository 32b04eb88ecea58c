"""Test support for hermes and for plugin authors: pytest fixtures, scripted servers, a throwaway PostgreSQL.

- ``fixtures``: the pytest plugin (entry point ``pytest11`` ``hermes``): ``hermes_home``,
  ``make_plugin``, ``plugin_manager``, ``hook_recorder``, ``run_hermes``, and
  :class:`MemoryProviderContract`, the memory-provider contract kit.
- ``replies``, ``model_server``, ``openai_server``, ``anthropic_server``, ``prefix_cache``: scripted
  model servers on 127.0.0.1 (standard library only; ``hermes_core.testing_servers`` re-exports them).
- ``embedding_server``: an OpenAI-compatible server with deterministic embeddings and mem0-style
  extraction, for memory backends (``hermes_core.testing_openai_embeddings`` re-exports it).
- ``postgres``: a PostgreSQL cluster in a temporary directory.
- ``honcho_server`` (with ``honcho_api``): a Honcho v3 protocol server for the honcho-ai SDK.

Names are imported on first use, so ``from hermes_core.testing import OpenAIServer`` does not
load pytest, and the pytest plugin does not load the servers.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CliResult": "fixtures", "HookCall": "fixtures", "HookRecorder": "fixtures",
    "MemoryProviderContract": "fixtures",
    "AnthropicServer": "anthropic_server", "CachingAnthropicServer": "anthropic_server",
    "OpenAIServer": "openai_server", "PrefixCache": "prefix_cache", "RecordedRequest": "replies",
    "Reply": "replies", "ToolCall": "replies", "disconnect_reply": "replies", "error_reply": "replies",
    "hang_reply": "replies", "rate_limit_reply": "replies", "raw_reply": "replies", "text_reply": "replies",
    "tool_call_reply": "replies", "tool_calls_reply": "replies",
    "EmbeddingModelServer": "embedding_server", "embed_text": "embedding_server", "embeddings_reply": "embedding_server",
    "HonchoServer": "honcho_server", "HonchoState": "honcho_api",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'hermes_core.testing' has no attribute {name!r}")
    return getattr(import_module(f"hermes_core.testing.{module}"), name)

# Loaded as a pytest plugin under this name (``-p hermes_core.testing``, or an install made before
# the fixtures moved to their own module), this package brings the fixtures along.
pytest_plugins = ["hermes_core.testing.fixtures"]
