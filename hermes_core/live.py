"""The manager that is loading or running plugins, for code that asks for "the" manager.

Plugins written for Hermes Agent reach the host through module-level functions
(``hermes_cli.plugins.get_plugin_manager()``, ``tools.registry.registry``). Those must
answer with the manager that is actually loading or running them, never with a second
one that would import every plugin and run every ``register()`` again.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager

_live: PluginManager | None = None
_loading_plugin: contextvars.ContextVar[str | None] = contextvars.ContextVar("hermes_loading_plugin", default=None)


def activate(manager: PluginManager) -> None:
    """Make ``manager`` the live one and apply its ``plugins.compat`` setting."""
    global _live
    if _live is not manager:
        _live = manager
    from hermes_core.aliases import apply_setting

    apply_setting(manager.config)


def deactivate(manager: PluginManager) -> None:
    """Forget ``manager`` if it is the live one (a host shutting down)."""
    global _live
    if _live is manager:
        _live = None


def live_manager() -> PluginManager | None:
    """The manager loading or running plugins, or ``None`` when none has loaded yet."""
    return _live


def loading_plugin() -> str | None:
    """The key of the plugin whose import or ``register()`` is running now, if any."""
    return _loading_plugin.get()


@contextmanager
def loading(manager: PluginManager, key: str) -> Iterator[None]:
    """Mark ``key`` as loading in ``manager`` (which becomes the live manager)."""
    activate(manager)
    token = _loading_plugin.set(key)
    try:
        yield
    finally:
        _loading_plugin.reset(token)
