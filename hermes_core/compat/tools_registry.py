"""``tools.registry`` for plugins written for Hermes Agent.

``registry`` is the registry the runtime dispatches from: the live manager's
:class:`~hermes_core.tools.ToolRegistry`. A plugin that registers a tool here directly,
or wraps an entry's ``handler``, changes what the agent really calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from hermes_core.errors import RegistrationError
from hermes_core.live import live_manager, loading_plugin
from hermes_core.tools import ToolEntry, ToolRegistry, tool_error

__all__ = ["registry", "tool_error", "tool_result", "ToolEntry", "ToolRegistry", "EnforcementDenied", "LiveToolRegistry"]

#: Answer of ``check_fn_cache_scope`` meaning "do not cache"; this host does not cache checks.
CHECK_FN_CACHE_BYPASS = ""


class EnforcementDenied(PermissionError):
    """A tool call refused by policy (a plugin's ``pre_tool_call`` block, an approval denial)."""


def tool_result(data: Any = None, **kwargs: Any) -> str:
    """A tool's JSON result from a mapping or from keyword arguments."""
    return json.dumps(data if data is not None else kwargs, ensure_ascii=False)


def check_fn_cache_scope() -> str | None:
    return None


def discover_builtin_tools(tools_dir: Any = None) -> list[str]:
    """The host's own tools come from its builtin plugins, already loaded: nothing to import."""
    return []


class LiveToolRegistry:
    """Hermes Agent's registry API over the live manager's registry."""

    def __init__(self) -> None:
        # Tools registered while no manager is live (a script importing a plugin on its own).
        self._standalone = ToolRegistry()

    @property
    def target(self) -> ToolRegistry:
        manager = live_manager()
        return manager.tools if manager is not None else self._standalone

    @property
    def _tools(self) -> dict[str, ToolEntry]:
        return self.target._tools

    def __contains__(self, name: object) -> bool:
        return name in self.target

    def __len__(self) -> int:
        return len(self.target)

    def register(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., Any],
        check_fn: Callable[[], bool] | None = None,
        requires_env: list[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        max_result_size_chars: Any = None,
        dynamic_schema_overrides: Any = None,
        override: bool = False,
        **_ignored: Any,
    ) -> None:
        """Register (or, for the same owner, re-register) a tool; a clash is refused with a log line."""
        owner = loading_plugin() or ""
        manager = live_manager()
        allowed = bool(manager.plugin_entry(owner).get("allow_tool_override", False)) if manager and owner else not owner
        try:
            self.target.register(
                name, toolset, schema, handler, check_fn=check_fn, requires_env=requires_env, is_async=is_async,
                description=description, emoji=emoji, override=override, override_allowed=allowed, plugin=owner,
            )
        except RegistrationError as exc:
            import logging

            logging.getLogger("hermes.plugins").error("tools.registry.register refused: %s", exc)

    def deregister(self, name: str, **_ignored: Any) -> None:
        self.target.remove(name)

    def get_entry(self, name: str, **_ignored: Any) -> ToolEntry | None:
        return self.target.get_entry(name)

    def get_all_entries(self) -> list[ToolEntry]:
        return [entry for name in self.target.names() if (entry := self.target.get_entry(name))]

    def get_all_tool_names(self) -> list[str]:
        return self.target.names()

    def get_schema(self, name: str) -> dict[str, Any] | None:
        entry = self.target.get_entry(name)
        return entry.schema if entry else None

    def get_toolset_for_tool(self, name: str) -> str | None:
        entry = self.target.get_entry(name)
        return entry.toolset if entry else None

    def get_emoji(self, name: str, default: str = "⚡") -> str:
        entry = self.target.get_entry(name)
        return (entry.emoji if entry else "") or default

    def get_tool_to_toolset_map(self) -> dict[str, str]:
        return {entry.name: entry.toolset for entry in self.get_all_entries()}

    def get_registered_toolset_names(self) -> list[str]:
        return sorted(self.target.toolsets())

    def get_tool_names_for_toolset(self, toolset: str) -> list[str]:
        return self.target.toolsets().get(toolset, [])

    def get_definitions(self, tool_names: Iterable[str] | None = None, quiet: bool = False) -> list[dict[str, Any]]:
        """Definitions of the named tools (all when ``None``) whose availability check passes."""
        wanted = None if tool_names is None else set(tool_names)
        return [d for d in self.target.get_definitions() if wanted is None or d["function"]["name"] in wanted]

    def dispatch(self, name: str, args: dict[str, Any], **kwargs: Any) -> str:
        kwargs.pop("scope", None)
        return self.target.dispatch(name, args, **kwargs)

    def is_toolset_available(self, toolset: str) -> bool:
        return any(self.target.is_available(n) for n in self.get_tool_names_for_toolset(toolset))

    def check_toolset_requirements(self) -> dict[str, bool]:
        return {toolset: self.is_toolset_available(toolset) for toolset in self.target.toolsets()}

    def get_available_toolsets(self) -> dict[str, dict[str, Any]]:
        result = {}
        for toolset, names in self.target.toolsets().items():
            env = [v for n in names for v in (self.target.get_entry(n).requires_env or [])]  # type: ignore[union-attr]
            result[toolset] = {"available": self.is_toolset_available(toolset), "tools": names, "description": "", "requirements": sorted(set(env))}
        return result


#: Module-level singleton, as in Hermes Agent.
registry = LiveToolRegistry()


def invalidate_check_fn_cache() -> None:
    """Availability checks run on every call here; there is no cache to drop."""
