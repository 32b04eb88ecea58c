"""ModelClient: the one method the runtime needs from a model client, so integrators can bring their own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from hermes_core.models.clients.response import ModelResponse

#: Receives each piece of visible text as it streams in (memory-context fences already removed).
TextCallback = Callable[[str], None]


@runtime_checkable
class ModelClient(Protocol):
    """Anything with this ``complete`` method can drive a turn.

    ``messages`` are OpenAI chat-format dicts (roles system/user/assistant/tool, ``tool_calls``,
    ``tool_call_id``); ``tools`` are OpenAI function tools ``{"type": "function", "function": {...}}``.
    ``on_text`` is called only when ``stream`` is true.

    The bundled clients also expose ``provider``, ``model``, ``base_url`` and ``api_mode`` attributes
    and accept ``on_request`` (called with the sanitized request just before it is sent); a runtime
    should read those with ``getattr`` since a custom client need not have them.
    """

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        system: str | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
        on_text: TextCallback | None = None,
    ) -> ModelResponse: ...
