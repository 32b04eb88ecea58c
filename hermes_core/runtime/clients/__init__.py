"""Model clients over httpx (OpenAI chat completions, Anthropic Messages) and the result they share.

Importing this package is cheap: the clients, and httpx with them, load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_core.runtime.clients.errors import ModelAPIError
from hermes_core.runtime.clients.from_config import ModelSettings, client_from_config, resolve_model_settings
from hermes_core.runtime.clients.protocol import ModelClient, TextCallback
from hermes_core.runtime.clients.response import ModelResponse
from hermes_core.runtime.clients.sanitize import sanitize_request, sanitize_response

if TYPE_CHECKING:
    from hermes_core.runtime.clients.anthropic_messages import AnthropicMessagesClient
    from hermes_core.runtime.clients.openai_chat import OpenAIChatClient
    from hermes_core.runtime.clients.transport import RetryPolicy

__all__ = [
    "AnthropicMessagesClient",
    "ModelAPIError",
    "ModelClient",
    "ModelResponse",
    "ModelSettings",
    "OpenAIChatClient",
    "RetryPolicy",
    "TextCallback",
    "client_from_config",
    "resolve_model_settings",
    "sanitize_request",
    "sanitize_response",
]

_LAZY = {
    "AnthropicMessagesClient": "hermes_core.runtime.clients.anthropic_messages",
    "OpenAIChatClient": "hermes_core.runtime.clients.openai_chat",
    "RetryPolicy": "hermes_core.runtime.clients.transport",
}


def __getattr__(name: str) -> Any:
    # These import httpx; loading them only when asked keeps `hermes --help` fast.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
