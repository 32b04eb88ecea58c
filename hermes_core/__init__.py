"""hermes: a plugin host for an AI agent's memory and lifecycle.

The public API is imported lazily, so ``import hermes_core`` (and ``hermes --help``)
stays cheap; each name below is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_core._version import __version__

if TYPE_CHECKING:
    from hermes_core.context import PluginContext
    from hermes_core.context_engine import ContextEngine
    from hermes_core.hookspecs import hookimpl, hookspec
    from hermes_core.manager import PluginManager
    from hermes_core.memory.provider import MemoryProvider
    from hermes_core.tools import ToolRegistry, tool_error

__all__ = [
    "ContextEngine",
    "MemoryProvider",
    "PluginContext",
    "PluginManager",
    "ToolRegistry",
    "__version__",
    "hookimpl",
    "hookspec",
    "tool_error",
]

_LAZY = {
    "hookimpl": "hermes_core.hookspecs",
    "hookspec": "hermes_core.hookspecs",
    "PluginManager": "hermes_core.manager",
    "PluginContext": "hermes_core.context",
    "MemoryProvider": "hermes_core.memory.provider",
    "ContextEngine": "hermes_core.context_engine",
    "ToolRegistry": "hermes_core.tools",
    "tool_error": "hermes_core.tools",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'hermes_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
