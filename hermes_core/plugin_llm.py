"""``ctx.llm``: the auxiliary model, for plugins, as Hermes Agent offers it.

``ctx.llm.complete(messages)`` runs one chat completion against the model configured
in ``auxiliary.<task>`` (a task a plugin declared with ``register_auxiliary_task``, or
``auxiliary.plugins``), falling back to the main ``model.*``. The host owns the
credentials: the plugin never sees the API key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_core.errors import HermesError

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager

__all__ = ["PluginLlm", "PluginLlmCompleteResult", "PluginLlmStructuredResult", "PluginLlmUsage", "PluginLlmError"]


class PluginLlmError(HermesError):
    """The auxiliary model could not be called (not configured, bad input, provider failure)."""


@dataclass
class PluginLlmUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None


@dataclass
class PluginLlmCompleteResult:
    text: str
    provider: str
    model: str
    agent_id: str = ""
    usage: PluginLlmUsage = field(default_factory=PluginLlmUsage)
    audit: dict[str, Any] = field(default_factory=dict)


@dataclass
class PluginLlmStructuredResult(PluginLlmCompleteResult):
    parsed: Any = None
    content_type: str = "text"


def _check_messages(messages: Any) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        raise PluginLlmError("ctx.llm.complete needs a non-empty list of messages {'role', 'content'}")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in {"system", "user", "assistant"}:
            raise PluginLlmError(f"ctx.llm.complete: message {index} needs a role of system, user or assistant")
        if not isinstance(message.get("content"), (str, list)):
            raise PluginLlmError(f"ctx.llm.complete: message {index} needs text content")
    return messages


class PluginLlm:
    """Host-owned completions for one plugin (``ctx.llm``)."""

    def __init__(self, manager: PluginManager, plugin_id: str) -> None:
        self._manager = manager
        self._plugin_id = plugin_id

    def _settings(self, task: str | None) -> dict[str, Any]:
        auxiliary = self._manager.config.get("auxiliary", {}) or {}
        declared = self._manager.auxiliary_tasks.get(task or "", {}).get("defaults", {})
        chosen = auxiliary.get(task or "plugins") if isinstance(auxiliary, dict) else None
        return {**declared, **(chosen if isinstance(chosen, dict) else {})}

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        task: str | None = None,
        **_ignored: Any,
    ) -> PluginLlmCompleteResult:
        """One completion; ``model`` overrides the configured one for this call.

        :raises PluginLlmError: bad messages, no model configured, or the provider failed.
        """
        from hermes_core.errors import ConfigError
        from hermes_core.models.clients.from_config import client_from_config

        checked = _check_messages(messages)
        settings = self._settings(task)
        system = "\n\n".join(m["content"] for m in checked if m["role"] == "system" and isinstance(m["content"], str))
        conversation = [m for m in checked if m["role"] != "system"]
        try:
            client = client_from_config(
                self._manager.config,
                model=model or settings.get("model") or None,
                base_url=settings.get("base_url") or None,
                home=self._manager.home,
            )
            response = client.complete(conversation, system=system or None, max_tokens=max_tokens)
        except ConfigError as exc:
            raise PluginLlmError(f"plugin '{self._plugin_id}': no auxiliary model: {exc}") from exc
        except Exception as exc:
            raise PluginLlmError(f"plugin '{self._plugin_id}': the auxiliary model failed: {type(exc).__name__}: {exc}") from exc
        counts = response.usage or {}
        tokens = {k: int(counts.get(k) or 0) for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")}
        total = sum(tokens.values())
        from hermes_core.models.pricing import estimate_cost

        model_name = response.response_model or getattr(client, "model", "")
        cost = estimate_cost(tokens, model_name, self._manager.config.get("model.pricing", None)).usd
        return PluginLlmCompleteResult(
            response.text,
            getattr(client, "provider", "") or "",
            model_name,
            usage=PluginLlmUsage(total_tokens=total, cost_usd=cost, **tokens),
            audit={"plugin": self._plugin_id, "task": task or "plugins"},
        )

    def complete_structured(
        self,
        *,
        instructions: str,
        input: list[Any],
        json_schema: Any = None,
        json_mode: bool = False,
        system_prompt: str | None = None,
        model: str | None = None,
        max_tokens: int | None = None,
        **_ignored: Any,
    ) -> PluginLlmStructuredResult:
        """``instructions`` plus text ``input`` blocks; with ``json_mode`` or a schema, the answer parsed as JSON."""
        import json

        texts = [block.get("text", "") if isinstance(block, dict) else getattr(block, "text", str(block)) for block in input]
        wanted_json = json_mode or json_schema is not None
        system = "\n\n".join(filter(None, [system_prompt, "Answer with JSON only." if wanted_json else ""]))
        if json_schema is not None:
            system += "\nThe JSON must match this schema: " + json.dumps(json_schema)
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": "\n\n".join([instructions, *texts])}]
        result = self.complete(messages, model=model, max_tokens=max_tokens)
        parsed, kind = None, "text"
        if wanted_json:
            text = result.text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
            try:
                parsed, kind = json.loads(text), "json"
            except ValueError:
                pass
        return PluginLlmStructuredResult(result.text, result.provider, result.model, result.agent_id, result.usage, result.audit, parsed, kind)
