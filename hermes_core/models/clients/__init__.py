"""Model clients over httpx (OpenAI chat completions, Anthropic Messages) and the result they share.

Importing this package is cheap: the clients, and httpx with them, load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_core.models.clients.errors import ModelAPIError
from hermes_core.models.clients.from_config import ModelSettings, client_from_config, resolve_model_settings
from hermes_core.models.clients.protocol import ModelClient, TextCallback
from hermes_core.models.clients.response import ModelResponse
from hermes_core.models.clients.sanitize import sanitize_request, sanitize_response

if TYPE_CHECKING:
    from hermes_core.models.clients.anthropic_messages import AnthropicMessagesClient
    from hermes_core.models.clients.openai_chat import OpenAIChatClient
    from hermes_core.models.clients.transport import RetryPolicy

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
    "AnthropicMessagesClient": "hermes_core.models.clients.anthropic_messages",
    "OpenAIChatClient": "hermes_core.models.clients.openai_chat",
    "RetryPolicy": "hermes_core.models.clients.transport",
}


def __getattr__(name: str) -> Any:
    # These import httpx; loading them only when asked keeps `hermes --help` fast.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
