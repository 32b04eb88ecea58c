"""Import aliases so plugins written for Hermes Agent load unmodified.

The module names those plugins import (``agent.memory_provider``, ``tools.registry``,
``hermes_cli.plugins``, ...) resolve to this host's modules whenever a manager loads
plugins, unless ``plugins.compat: false``. The finder sits at the end of
``sys.meta_path``: an installed package of the same name (a real ``agent`` or
``utils``) keeps priority, and only names that nothing else provides are served.

This module sits low (the manager and the loader use it) and names the modules it serves
as strings only: they live in :mod:`hermes_core.compat`, above the manager, and are imported
when a plugin first asks for one, never when the finder is installed.
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
    "agent.web_search_provider": "hermes_core.compat.agent_web_search_provider",
    "agent.tts_provider": "hermes_core.compat.agent_tts_provider",
    "agent.image_gen_provider": "hermes_core.compat.agent_image_gen_provider",
    "agent.secret_scope": "hermes_core.compat.agent_secret_scope",
    "agent.usage_pricing": "hermes_core.compat.agent_usage_pricing",
    "agent.redact": "hermes_core.compat.agent_redact",
    "agent.skill_commands": "hermes_core.compat.agent_skill_commands",
    "agent.plugin_llm": "hermes_core.compat.agent_plugin_llm",
    "agent.auxiliary_client": "hermes_core.compat.agent_auxiliary_client",
    "tools.registry": "hermes_core.compat.tools_registry",
    "tools.approval": "hermes_core.compat.tools_approval",
    "tools.interrupt": "hermes_core.compat.tools_interrupt",
    "hermes_constants": "hermes_core.compat.hermes_constants",
    "hermes_cli.config": "hermes_core.compat.hermes_cli_config",
    "hermes_cli.plugins": "hermes_core.compat.hermes_cli_plugins",
    "hermes_cli.profiles": "hermes_core.compat.hermes_cli_profiles",
    "hermes_cli.memory_setup": "hermes_core.compat.hermes_cli_memory_setup",
    "toolsets": "hermes_core.compat.toolsets",
    "model_tools": "hermes_core.compat.model_tools",
    "utils": "hermes_core.compat.utils",
    "gateway.config": "hermes_core.compat.gateway_config",
    "gateway.session": "hermes_core.compat.gateway_session",
    "gateway.platforms.base": "hermes_core.compat.gateway_platforms_base",
    "plugins.memory": "hermes_core.compat.plugins_memory",
    "plugins.memory.config_schema": "hermes_core.compat.plugins_memory_config_schema",
}
#: Bare parent packages the aliased children need (``agent``, ``tools``, ...).
PARENTS = frozenset(
    name.rsplit(".", i)[0] for name in ALIASES for i in range(1, name.count(".") + 1)
) - set(ALIASES)
#: Top-level names of Hermes Agent's own modules: an import of one of these that fails
#: is a plugin expecting Hermes Agent, and the error says so.
HERMES_AGENT_TOP_LEVEL = frozenset(
    {
        "agent", "tools", "hermes_cli", "hermes_constants", "toolsets", "model_tools", "utils", "plugins",
        "gateway", "run_agent", "hermes_state", "cron", "hermes_logging", "hermes_time", "acp_adapter",
        "tui_gateway", "providers", "trajectory_compressor", "batch_runner",
    }
)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str | None) -> None:
        self.target = target

    def create_module(self, spec: Any) -> types.ModuleType:
        if self.target is None:
            package = types.ModuleType(spec.name)
            package.__path__ = []  # a bare parent package for the aliased children
            package.__hermes_compat__ = True  # type: ignore[attr-defined]
            if spec.name == "hermes_cli":
                from hermes_core._version import __version__

                package.__version__ = __version__  # type: ignore[attr-defined]
            return package
        return importlib.import_module(self.target)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the target module was executed when it was imported."""


class AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves the alias names (and their parent packages) to this host's modules."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname in ALIASES:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(ALIASES[fullname]), is_package=fullname in PARENTS)
        if fullname in PARENTS:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(None), is_package=True)
        return None


def enabled() -> bool:
    return any(isinstance(finder, AliasFinder) for finder in sys.meta_path)


def enable() -> bool:
    """Install the aliases (idempotent); returns whether they were newly installed."""
    if enabled():
        return False
    sys.meta_path.append(AliasFinder())  # appended: real packages of the same name keep priority
    return True


def disable() -> None:
    """Remove the aliases and forget modules imported through them."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, AliasFinder)]
    for name in [*ALIASES, *PARENTS]:
        module = sys.modules.get(name)
        if module is None:
            continue
        served = getattr(module, "__hermes_compat__", False) or module.__name__ != name
        if served or getattr(module, "__spec__", None) is not None and isinstance(module.__spec__.loader, _AliasLoader):
            del sys.modules[name]


def apply_setting(config: Any) -> bool:
    """Install or remove the aliases as ``plugins.compat`` says (on unless set to false)."""
    wanted = config.get("plugins.compat", True) is not False
    if wanted:
        enable()
    elif enabled():
        disable()
    return wanted


def _imported_name(exc: BaseException, missing: str) -> str:
    """The full dotted name the failing import statement asked for (``agent.x`` when ``agent`` was missing)."""
    import re
    import traceback

    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    for frame in reversed(frames):
        line = frame.line or ""
        found = re.search(r"(?:from|import)\s+(" + re.escape(missing) + r"(?:\.[A-Za-z_][A-Za-z0-9_]*)*)", line)
        if found:
            return found.group(1)
    return missing


def describe_missing_module(exc: BaseException) -> str | None:
    """For an import of a Hermes Agent module that failed, say which and why; else ``None``."""
    missing = getattr(exc, "name", None)
    if not isinstance(exc, ImportError) or not isinstance(missing, str) or not missing:
        return None
    served_as = next((alias for alias, target in ALIASES.items() if target == missing), None)
    if served_as is not None and not isinstance(exc, ModuleNotFoundError):
        # ``from agent.x import y`` found the module this host serves, without ``y``
        lacking = str(exc).split("'")[1] if str(exc).count("'") >= 2 else "that name"
        return (
            f"the plugin imports '{lacking}' from '{served_as}', a Hermes Agent module this host serves without it "
            "-> the plugin needs Hermes Agent itself for that part; ask its author to guard the import"
        )
    if missing.split(".")[0] not in HERMES_AGENT_TOP_LEVEL:
        return None
    missing = _imported_name(exc, missing)
    if not enabled():
        return (
            f"the plugin imports '{missing}', a Hermes Agent module, and the compatibility aliases are off "
            "(plugins.compat: false) -> run 'hermes config set plugins.compat true'"
        )
    served = sorted(name for name in ALIASES if name.startswith(missing.split(".")[0]))
    hint = f" (served here: {', '.join(served)})" if served else ""
    return (
        f"the plugin imports '{missing}', a Hermes Agent module this host does not provide{hint} -> "
        "the plugin needs Hermes Agent itself for that part; ask its author to guard the import"
    )
