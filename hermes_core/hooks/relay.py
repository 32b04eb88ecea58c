"""The pluggy side: one relay holds ``@hookimpl`` functions and ``ctx.register_hook`` callbacks.

pluggy owns registration, spec checking and tryfirst/trylast; the dispatcher reads the
implementations back out of it and runs them itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

from hermes_core import hookspecs
from hermes_core.hooks.signatures import callback_argnames


class CallbackHolder:
    """Carries one ``ctx.register_hook`` callback into the pluggy relay as a plugin object.

    pluggy sees a ``**kwargs`` shim (so its spec check accepts any signature);
    the dispatcher calls :attr:`callback` directly with the kwargs it declares.
    """

    def __init__(self, hook_name: str, callback: Callable[..., Any], plugin_key: str) -> None:
        self.hermes_hook_name = hook_name
        self.hermes_plugin_key = plugin_key
        self.callback = callback

        def relay(**kwargs: Any) -> Any:  # only used if someone calls through pluggy directly
            names = callback_argnames(callback)
            return callback(**(kwargs if names is None else {k: kwargs[k] for k in names if k in kwargs}))

        self.__dict__[hook_name] = relay


class HermesPluginManager(pluggy.PluginManager):
    """The pluggy manager of the relay; it knows ``CallbackHolder`` and reports every change."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__(hookspecs.PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self._on_change = on_change

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if isinstance(plugin, CallbackHolder):
            if name != plugin.hermes_hook_name:
                return None
            # optionalhook: a name this host does not know is kept for forward compatibility.
            return {"tryfirst": False, "trylast": False, "wrapper": False, "hookwrapper": False, "optionalhook": True, "specname": None}
        return super().parse_hookimpl_opts(plugin, name)

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        try:
            return super().register(plugin, name)
        finally:
            self._on_change()

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        try:
            return super().unregister(plugin, name)
        finally:
            self._on_change()


def unknown_hookimpls(plugin_module: Any, pm: HermesPluginManager) -> list[str]:
    """Names of ``@hookimpl`` functions in ``plugin_module`` that match no hook (likely typos)."""
    unknown = []
    for attr in dir(plugin_module):
        opts = pm.parse_hookimpl_opts(plugin_module, attr)
        if opts is None or opts.get("optionalhook"):
            continue
        hook_name = opts.get("specname") or attr
        if hook_name in hookspecs.KNOWN_EXTRA_HOOKS:  # no spec, but fired by name (as ctx.register_hook's callbacks are)
            continue
        caller = getattr(pm.hook, hook_name, None)
        if caller is None or not caller.has_spec():
            unknown.append(hook_name)
    return unknown


def wrapper_hookimpls(plugin_module: Any, pm: HermesPluginManager) -> list[str]:
    """Names of ``@hookimpl(wrapper=True)`` / ``hookwrapper`` functions, which hermes does not run."""
    found = []
    for attr in dir(plugin_module):
        opts = pm.parse_hookimpl_opts(plugin_module, attr)
        if opts and (opts.get("wrapper") or opts.get("hookwrapper")):
            found.append(attr)
    return found


def impl_function(impl: Any) -> Callable[..., Any]:
    """The function the dispatcher calls for one pluggy implementation."""
    return impl.plugin.callback if isinstance(impl.plugin, CallbackHolder) else impl.function


def impl_plugin_key(impl: Any) -> str:
    """The key of the plugin that registered one pluggy implementation."""
    return impl.plugin.hermes_plugin_key if isinstance(impl.plugin, CallbackHolder) else impl.plugin_name
