"""``agent.auxiliary_client`` for plugins written for Hermes Agent: one call to the auxiliary model.

Plugins (session titlers, summarisers) call ``call_llm(task=..., messages=...)`` and read the answer
the OpenAI way, ``response.choices[0].message.content``. Here the call goes through the same
auxiliary model as ``ctx.llm`` (``auxiliary.<task>``, else ``auxiliary.plugins``, else ``model.*``),
of the manager that is running plugins; provider, key and endpoint overrides a plugin passes are
not honoured (the user's configuration decides), and the answer is text only.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

__all__ = ["call_llm", "async_call_llm", "extract_content_or_reasoning"]


def _response(text: str, model: str, usage: Any) -> SimpleNamespace:
    """The parts of an OpenAI chat completion that callers read."""
    message = SimpleNamespace(role="assistant", content=text, tool_calls=None, reasoning=None)
    return SimpleNamespace(
        choices=[SimpleNamespace(index=0, message=message, finish_reason="stop")],
        model=model,
        usage=SimpleNamespace(
            prompt_tokens=usage.input_tokens,
            completion_tokens=usage.output_tokens,
            total_tokens=usage.input_tokens + usage.output_tokens,
        ),
    )


def call_llm(
    task: str | None = None,
    *,
    messages: list[dict[str, Any]],
    model: str | None = None,
    max_tokens: int | None = None,
    **_overrides: Any,
) -> SimpleNamespace:
    """Complete ``messages`` with the auxiliary model for ``task``.

    :raises hermes_core.plugin_llm.PluginLlmError: no model is configured, or the provider failed.
    """
    from hermes_core.compat.hermes_cli_plugins import get_plugin_manager
    from hermes_core.live import loading_plugin
    from hermes_core.plugin_llm import PluginLlm

    llm = PluginLlm(get_plugin_manager(), loading_plugin() or "auxiliary_client")
    result = llm.complete(messages, model=model, max_tokens=max_tokens, task=task)
    return _response(result.text, result.model, result.usage)


async def async_call_llm(task: str | None = None, **kwargs: Any) -> SimpleNamespace:
    """:func:`call_llm` off the event loop."""
    return await asyncio.to_thread(call_llm, task, **kwargs)


def extract_content_or_reasoning(response: Any) -> str:
    """The answer's text (a response with no choices gives ``""``)."""
    choices = getattr(response, "choices", None) or []
    if not choices:
        return ""
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None) or getattr(message, "reasoning", None) or ""
    return content.strip() if isinstance(content, str) else ""
