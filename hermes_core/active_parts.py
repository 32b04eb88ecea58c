"""What a loaded :class:`~hermes_core.manager.PluginManager` has active, and its listing.

:class:`ActiveParts` is a base of the manager: the selected memory provider and context engine,
a plugin's config entry and hooks, and the JSON-ready descriptions ``hermes plugins list`` prints.
It reads the manager's ``config``, ``memory_providers``, ``context_engines``, ``hooks`` and records.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.config import Config
    from hermes_core.context_engine import ContextEngine
    from hermes_core.hooks import HookDispatcher
    from hermes_core.memory.provider import MemoryProvider
    from hermes_core.plugin_record import PluginRecord

__all__ = ["ActiveParts", "BUILTIN_MEMORY_PROVIDER"]

#: ``memory.provider`` naming the built-in provider alone (no external one).
BUILTIN_MEMORY_PROVIDER = "builtin"
logger = logging.getLogger("hermes.plugins")


class ActiveParts:
    """Queries over the loaded plugins: what is active, and how each plugin is described."""

    # Set by PluginManager; declared here for readers and type checkers.
    config: Config
    memory_providers: dict[str, MemoryProvider]
    context_engines: dict[str, ContextEngine]
    _records: dict[str, PluginRecord]
    hooks: HookDispatcher
    plugins: list[PluginRecord]

    def discover(self, *, force: bool = False) -> list[PluginRecord]:
        raise NotImplementedError  # PluginManager.discover

    def _accept_memory_provider(self, provider: MemoryProvider, record: PluginRecord, kept_earlier: Sequence[MemoryProvider] = ()) -> bool:
        name = provider.name
        if name in self.memory_providers:
            logger.warning("plugin '%s': memory provider %r is already registered; the second one is ignored", record.key, name)
            return False
        externals = [n for n in self.memory_providers if n != BUILTIN_MEMORY_PROVIDER]
        own = [p.name for p in kept_earlier if p is not provider and self.memory_providers.get(p.name) is p]
        if name != BUILTIN_MEMORY_PROVIDER and externals and externals[0] in own:  # the same plugin offered a second one
            logger.warning(
                "plugin '%s' registers more than one memory provider: %r is kept and %r ignored, since one external "
                "provider runs at a time -> register one provider per plugin",
                record.key,
                externals[0],
                name,
            )
            return False
        if name != BUILTIN_MEMORY_PROVIDER and externals:
            logger.warning(
                "plugin '%s': memory provider %r rejected: provider %r is already active and only one external memory "
                "provider runs at a time -> choose one with memory.provider",
                record.key,
                name,
                externals[0],
            )
            return False
        self.memory_providers[name] = provider
        return True

    def plugin_entry(self, key: str) -> dict[str, Any]:
        """``plugins.entries.<key>`` (looked up by key, which may itself contain dots)."""
        entries = self.config.get("plugins.entries", {}) or {}
        entry = entries.get(key) if isinstance(entries, dict) else None
        if entry is None and isinstance(entries, dict) and not key.isascii():  # written decomposed: the same key
            from hermes_core.plugin_candidate import normal_name

            entry = next((value for name, value in entries.items() if normal_name(str(name)) == key), None)
        return entry if isinstance(entry, dict) else {}

    def active_memory_provider(self) -> MemoryProvider | None:
        """The external provider ``memory.provider`` selects, if it registered.

        The setting may name the provider or the plugin that registers it (key or name), as
        the load policy does: a plugin ``vault-memory`` may register a provider ``vault``.
        """
        from hermes_core.policy import selected_by

        selection = self.config.get("memory.provider", "") or ""
        if not isinstance(selection, str) or not selection or selection == BUILTIN_MEMORY_PROVIDER:
            return None
        if selection in self.memory_providers:
            return self.memory_providers[selection]
        for record in self._records.values():
            if record.loaded and record.registrations is not None and record.registrations.memory_providers and selected_by(record.candidate, selection):
                return record.registrations.memory_providers[0]
        return None

    def active_context_engine(self) -> ContextEngine | None:
        """The plugin engine ``context.engine`` selects, if one registered under that name."""
        return self.context_engines.get(self.config.get("context.engine", ""))

    def hooks_of(self, record: PluginRecord) -> list[str]:
        if not record.loaded:
            return []
        return self.hooks.hooks_of(record.key)

    def describe(self, record: PluginRecord) -> dict[str, Any]:
        """The JSON-ready description of one plugin (stable keys; see :mod:`hermes_core.listing`)."""
        from hermes_core.listing import describe_record

        return describe_record(self, record)

    def list_plugins(self) -> list[dict[str, Any]]:
        """Every plugin described, sorted by name then key."""
        self.discover()
        return sorted((self.describe(r) for r in self.plugins), key=lambda d: (d["name"], d["key"]))
