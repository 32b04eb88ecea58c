"""What ``plugins list`` reports about one plugin: where it is from and what it registered."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager, PluginRecord


def _str_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _registered_tools(manager: PluginManager, record: PluginRecord) -> list[str]:
    """Tools the plugin registered through ``ctx`` and straight into the registry."""
    names = {t.name for t in record.registrations.tools} if record.registrations else set()
    for name in manager.tools.names():
        entry = manager.tools.get_entry(name)
        if entry is not None and entry.plugin == record.key:
            names.add(name)
    return sorted(names)


def describe_record(manager: PluginManager, record: PluginRecord) -> dict[str, Any]:
    """The JSON-ready description of one plugin (stable keys).

    Before loading, hooks and tools are what the manifest declares; after, what the plugin
    really registered, with the tools whose availability check fails listed apart.
    """
    candidate = record.candidate
    manifest = candidate.manifest
    registrations = record.registrations
    unavailable: list[str] = []
    if record.loaded and registrations is not None:
        hooks = sorted(set(manager.hooks_of(record)) | {hook for hook, _, _ in registrations.uncallable_hooks})
        tools = _registered_tools(manager, record)
        unavailable = [name for name in tools if name in manager.tools and not manager.tools.is_available(name)]
    else:
        declared = set(manifest.provides_hooks) | set(_str_list(manifest.raw.get("hooks"))) if manifest else set()
        hooks = sorted(declared)
        tools = sorted(manifest.provides_tools) if manifest else []
    loaded = registrations if record.loaded else None
    return {
        "name": record.name,
        "key": record.key,
        "version": candidate.version,
        "description": manifest.description if manifest else "",
        "source": candidate.source,
        "kind": candidate.kind,
        "path": candidate.path,
        "distribution": candidate.entry_point.distribution if candidate.entry_point else "",
        "also_at": list(getattr(candidate, "also_at", []) or []),
        "enabled": record.enabled,
        "loaded": record.loaded,
        "reason": record.reason,
        "error": record.error,
        "hooks": hooks,
        "tools": tools,
        "unavailable_tools": unavailable,
        "uncallable_hooks": sorted({hook for hook, _, _ in registrations.uncallable_hooks}) if record.loaded and registrations else [],
        "commands": sorted(c.name for c in loaded.commands) if loaded else [],
        "cli_commands": sorted(c.name for c in loaded.cli_commands) if loaded else [],
        "skills": sorted(s.qualified_name for s in loaded.skills) if loaded else [],
        "memory_providers": sorted(p.name for p in loaded.memory_providers) if loaded else [],
        "context_engines": sorted(e.name for e in loaded.context_engines) if loaded else [],
        "web_search_providers": sorted(str(p.name) for p in loaded.web_search_providers) if loaded else [],
        "other_providers": sorted(f"{kind}:{_provider_name(p)}" for kind, p in loaded.other_providers) if loaded else [],
        "middleware": sorted({kind for kind, _ in loaded.middleware}) if loaded else [],
        "warnings": list(record.warnings),
    }


def _provider_name(provider: Any) -> str:
    if isinstance(provider, dict):
        return str(provider.get("name", "?"))
    name = getattr(provider, "name", None)
    return str(name) if isinstance(name, str) and name else type(provider).__name__


def registration_summary(entry: dict[str, Any]) -> str:
    """One line of what a loaded plugin registered, for ``plugins list --load``."""
    tools = entry["tools"]
    unavailable = set(entry.get("unavailable_tools", []))
    shown = ", ".join(f"{t} (unavailable: check failed)" if t in unavailable else t for t in tools)
    uncallable = set(entry.get("uncallable_hooks", []))
    hooks = ", ".join(f"{h} (never called: see warnings)" if h in uncallable else h for h in entry["hooks"])
    parts = [f"hooks {hooks or '-'}", f"tools {shown or '-'}"]
    labelled = (
        ("middleware", "middleware", ""), ("commands", "slash commands", "/"), ("cli_commands", "commands", "hermes "),
        ("skills", "skills", ""), ("memory_providers", "memory providers", ""), ("context_engines", "context engines", ""),
        ("web_search_providers", "web search", ""), ("other_providers", "providers", ""),
    )
    for key, label, prefix in labelled:
        if entry.get(key):
            parts.append(f"{label} {', '.join(prefix + v for v in entry[key])}")
    return "; ".join(parts)
