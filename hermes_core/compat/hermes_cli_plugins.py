"""``hermes_cli.plugins`` for plugins written for Hermes Agent: the process-wide manager and hook calls."""

from __future__ import annotations

from typing import Any

from hermes_core.context import PluginContext
from hermes_core.discovery import ENTRY_POINT_GROUP
from hermes_core.hookspecs import HOOK_NAMES, KNOWN_EXTRA_HOOKS
from hermes_core.manager import PluginManager, PluginRecord as LoadedPlugin
from hermes_core.manifest import PluginManifest

__all__ = [
    "ENTRY_POINTS_GROUP", "VALID_HOOKS", "LoadedPlugin", "PluginContext", "PluginManifest",
    "discover_plugins", "get_plugin_manager", "has_hook", "invoke_hook",
]

ENTRY_POINTS_GROUP = ENTRY_POINT_GROUP
VALID_HOOKS = frozenset(HOOK_NAMES) | KNOWN_EXTRA_HOOKS
_manager: PluginManager | None = None


def get_plugin_manager() -> PluginManager:
    """The manager the running host uses (one is created and loaded on first use)."""
    global _manager
    if _manager is None:
        _manager = PluginManager()
        _manager.load_all()
    return _manager


def set_plugin_manager(manager: PluginManager) -> None:
    """Let the host that embeds hermes share its manager with code using this module."""
    global _manager
    _manager = manager


def discover_plugins(force: bool = False) -> list[LoadedPlugin]:
    manager = get_plugin_manager()
    if force:
        manager.discover(force=True)
        manager.load_all()
    return manager.plugins


def invoke_hook(hook_name: str, **kwargs: Any) -> list[Any]:
    return get_plugin_manager().hooks.invoke(hook_name, **kwargs)


def has_hook(hook_name: str) -> bool:
    return bool(get_plugin_manager().hooks.callbacks(hook_name))
