"""Which discovered plugins may load: builtins, safe mode, enable/disable lists, selections."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hermes_core.discovery import PluginCandidate
from hermes_core.plugin_candidate import command_word, normal_name


@dataclass(frozen=True)
class PolicyDecision:
    """Whether a plugin is enabled, and the reason shown to the user."""

    enabled: bool
    reason: str


def name_list(value: Any) -> list[str] | None:
    """A setting such as ``plugins.enabled`` as a list of names; a single name counts as a list of
    one, an absent one as empty. ``None`` when the value is neither (a number, a mapping)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [normal_name(value)] if value.strip() else []
    if isinstance(value, (list, tuple)):
        return [normal_name(str(v)) for v in value if v is not None]
    return None


def _as_name_set(value: Any) -> set[str]:
    return set(name_list(value) or [])


def matches(candidate: PluginCandidate, names: set[str]) -> bool:
    """Whether ``names`` mentions the plugin by key, bare name, or the name of an installer's copy."""
    return candidate.key in names or candidate.name in names or bool(candidate.aliases & names)


def selected_by(candidate: PluginCandidate, selection: Any) -> bool:
    """Whether a selection such as ``memory.provider: honcho`` names this plugin."""
    if not isinstance(selection, str) or not selection:
        return False
    selection = normal_name(selection)
    return selection in {candidate.key, candidate.name, candidate.key.rsplit("/", 1)[-1], *candidate.aliases}


def decide(candidate: PluginCandidate, config: Any, env: Mapping[str, str]) -> PolicyDecision:
    """Apply the load policy to one plugin; the first rule that matches decides."""
    if candidate.source == "builtin":
        disabled = _as_name_set(config.get("plugins.disabled", []))
        if matches(candidate, disabled):
            return PolicyDecision(True, "builtin (always on; the plugins.disabled entry naming it is ignored)")
        return PolicyDecision(True, "builtin (always on)")
    if env.get("HERMES_SAFE_MODE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return PolicyDecision(False, "HERMES_SAFE_MODE=1: no plugin is loaded (builtins only)")
    if matches(candidate, _as_name_set(config.get("plugins.disabled", []))):
        return PolicyDecision(False, f"disabled in config (plugins.disabled); run 'hermes plugins enable {command_word(candidate.key)}' to turn it on")
    kind = candidate.kind
    if candidate.provider_entry_point is not None and kind != "exclusive":
        return _decide_two_parts(candidate, config)
    if kind == "exclusive":
        if selected_by(candidate, config.get("memory.provider", "")):
            return PolicyDecision(True, "memory provider selected by memory.provider")
        return PolicyDecision(
            False,
            f"memory provider, not selected -> run 'hermes memory setup {command_word(candidate.name)}' to use it",
        )
    if kind == "model-provider":
        return PolicyDecision(False, "model-provider plugins are listed but not run by this host")
    if candidate.source == "bundled" and kind in {"backend", "platform"}:
        return PolicyDecision(True, f"bundled {kind} (on by default)")
    if selected_by(candidate, config.get("context.engine", "")):
        return PolicyDecision(True, "context engine selected by context.engine")
    if matches(candidate, _as_name_set(config.get("plugins.enabled", []))):
        return PolicyDecision(True, "enabled in config (plugins.enabled)")
    return PolicyDecision(False, f"not enabled -> run 'hermes plugins enable {command_word(candidate.key)}' to turn it on")


def _decide_two_parts(candidate: PluginCandidate, config: Any) -> PolicyDecision:
    """A plugin with a general part (``plugins.enabled``) and a memory-provider part (``memory.provider``)."""
    general = matches(candidate, _as_name_set(config.get("plugins.enabled", []))) or selected_by(candidate, config.get("context.engine", ""))
    provider = selected_by(candidate, config.get("memory.provider", ""))
    if general and provider:
        return PolicyDecision(True, "enabled in config (plugins.enabled) and its memory provider selected by memory.provider")
    if general:
        return PolicyDecision(True, "enabled in config (plugins.enabled); its memory provider is not selected (memory.provider)")
    if provider:
        return PolicyDecision(True, "memory provider selected by memory.provider (its general part is not enabled: plugins.enabled)")
    return PolicyDecision(
        False,
        f"not enabled -> run 'hermes plugins enable {command_word(candidate.key)}' for its tools and hooks, or "
        f"'hermes memory setup {command_word(candidate.name)}' for its memory provider",
    )


def enabled_parts(candidate: PluginCandidate, config: Any) -> tuple[str, ...]:
    """Which parts of an enabled plugin load: ``("general",)``, ``("provider",)`` or both."""
    if candidate.provider_entry_point is None or candidate.kind == "exclusive" or candidate.source == "builtin":
        return ("general",)
    parts = []
    if matches(candidate, _as_name_set(config.get("plugins.enabled", []))) or selected_by(candidate, config.get("context.engine", "")):
        parts.append("general")
    if selected_by(candidate, config.get("memory.provider", "")):
        parts.append("provider")
    # Neither selects it: an explicit load (`hermes memory setup`, `plugins info`) gets the whole plugin.
    return tuple(parts) or ("general", "provider")
