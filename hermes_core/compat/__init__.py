"""Opt-in import aliases so plugins written for Hermes Agent load unmodified.

With ``plugins.compat: true`` in config.yaml, the module names those plugins import
(``agent.memory_provider``, ``tools.registry``, ``hermes_cli.plugins``, ...) resolve to
this host's modules. Off by default: the aliases claim top-level names (``agent``,
``tools``) that another installed package might also use.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
from typing import Any

#: alias -> the module of this host that serves it
ALIASES: dict[str, str] = {
    "agent.memory_provider": "hermes_core.memory.provider",
    "agent.context_engine": "hermes_core.compat.agent_context_engine",
    "agent.memory_manager": "hermes_core.compat.agent_memory_manager",
    "tools.registry": "hermes_core.compat.tools_registry",
    "hermes_constants": "hermes_core.compat.hermes_constants",
    "hermes_cli.config": "hermes_core.compat.hermes_cli_config",
    "hermes_cli.plugins": "hermes_core.compat.hermes_cli_plugins",
}
_PARENTS = {name.rsplit(".", 1)[0] for name in ALIASES if "." in name}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str | None) -> None:
        self.target = target

    def create_module(self, spec: Any) -> types.ModuleType:
        if self.target is None:
            package = types.ModuleType(spec.name)
            package.__path__ = []  # a bare parent package for the aliased children
            return package
        return importlib.import_module(self.target)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the target module was executed when it was imported."""


class AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves the alias names (and their parent packages) to this host's modules."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname in ALIASES:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(ALIASES[fullname]))
        if fullname in _PARENTS:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(None), is_package=True)
        return None


def enable() -> bool:
    """Install the aliases (idempotent); returns whether they were newly installed."""
    if any(isinstance(finder, AliasFinder) for finder in sys.meta_path):
        return False
    sys.meta_path.append(AliasFinder())  # appended: real packages of the same name keep priority
    return True


def disable() -> None:
    """Remove the aliases and forget modules imported through them."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, AliasFinder)]
    for name in [*ALIASES, *_PARENTS]:
        module = sys.modules.get(name)
        if module is not None and (name in _PARENTS and getattr(module, "__path__", None) == [] or name in ALIASES):
            del sys.modules[name]
