"""``plugins.memory`` for plugins written for Hermes Agent: find and load memory providers.

Answers from the live manager: the providers that loaded, the one ``memory.provider``
selects, and where a provider plugin lives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# A package, so ``plugins.memory.config_schema`` can be imported beneath it.
__path__: list[str] = []

__all__ = ["get_active_provider", "load_memory_provider", "find_provider_dir", "list_memory_provider_names", "discover_memory_providers"]


def _manager() -> Any:
    from hermes_core.compat.hermes_cli_plugins import get_plugin_manager

    return get_plugin_manager()


def get_active_provider() -> Any:
    """The external provider ``memory.provider`` selects, or ``None`` (built-in only)."""
    return _manager().active_memory_provider()


def _records_providing_memory() -> list[Any]:
    return [r for r in _manager().plugins if r.candidate.kind == "exclusive" or (r.registrations and r.registrations.memory_providers)]


def list_memory_provider_names() -> list[str]:
    """Names of every memory provider plugin discovered (none is imported)."""
    return sorted({r.name for r in _records_providing_memory()})


def find_provider_dir(name: str) -> Path | None:
    record = _manager().get(name)
    if record is None:
        return None
    if record.candidate.directory is not None:
        return record.candidate.directory
    path = Path(record.candidate.path)
    return path if path.is_dir() else None


def load_memory_provider(name: str) -> Any:
    """The provider plugin ``name`` registers, loading the plugin if it has not loaded; ``None`` on failure."""
    manager = _manager()
    if name in manager.memory_providers:
        return manager.memory_providers[name]
    record = manager.get(name)
    if record is None:
        return None
    record = manager.load(record.key)
    if record.loaded and record.registrations and record.registrations.memory_providers:
        return record.registrations.memory_providers[0]
    return None


def discover_memory_providers() -> list[tuple[str, str, bool]]:
    """``(name, description, is_available)`` for each provider plugin that loads."""
    found = []
    for record in _records_providing_memory():
        provider = load_memory_provider(record.key)
        if provider is None:
            continue
        try:
            available = bool(provider.is_available())
        except Exception:
            available = False
        found.append((record.name, record.candidate.manifest.description if record.candidate.manifest else "", available))
    return found
