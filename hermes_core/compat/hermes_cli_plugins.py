"""``hermes_cli.plugins`` for plugins written for Hermes Agent: the live manager and its hooks.

Every function answers from the manager that is loading or running plugins
(:mod:`hermes_core.live`); a new manager is created only when none has loaded yet,
e.g. a script that imports this module outside any host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hermes_core.context import PluginContext
from hermes_core.discovery import ENTRY_POINT_GROUP
from hermes_core.hookspecs import HOOK_NAMES, KNOWN_EXTRA_HOOKS, TELEMETRY_SCHEMA_VERSION
from hermes_core.live import activate, live_manager
from hermes_core.manager import PluginManager, PluginRecord as LoadedPlugin
from hermes_core.manifest import PluginManifest

__all__ = [
    "ENTRY_POINTS_GROUP", "VALID_HOOKS", "OBSERVER_SCHEMA_VERSION", "LoadedPlugin", "PluginContext", "PluginManager",
    "PluginManifest", "discover_plugins", "get_plugin_manager", "set_plugin_manager", "has_hook", "invoke_hook",
    "iter_hook_callbacks", "has_middleware", "invoke_middleware", "get_pre_tool_call_block_message",
    "get_pre_tool_call_directive", "resolve_pre_tool_block", "get_plugin_commands", "get_plugin_command_handler",
    "get_plugin_context_engine", "get_plugin_toolsets", "get_plugin_auxiliary_tasks",
]

ENTRY_POINTS_GROUP = ENTRY_POINT_GROUP
VALID_HOOKS = frozenset(HOOK_NAMES) | KNOWN_EXTRA_HOOKS
OBSERVER_SCHEMA_VERSION = TELEMETRY_SCHEMA_VERSION
DEFAULT_HOOK_CALLBACK_TIMEOUT = 30.0


def get_plugin_manager() -> PluginManager:
    """The manager loading or running plugins; one is created and loaded only if none exists."""
    manager = live_manager()
    if manager is None:
        manager = PluginManager()
        activate(manager)
        manager.load_all()
    return manager


def set_plugin_manager(manager: PluginManager) -> None:
    """Let a host that embeds hermes make its manager the one this module answers from."""
    activate(manager)


def _ensure_plugins_discovered() -> None:
    get_plugin_manager()


def discover_plugins(force: bool = False) -> list[LoadedPlugin]:
    manager = get_plugin_manager()
    if force:
        manager.discover(force=True)
        manager.load_all()
    return manager.plugins


def invoke_hook(hook_name: str, **kwargs: Any) -> list[Any]:
    """Call every callback of ``hook_name``; the non-``None`` results in order."""
    kwargs.setdefault("telemetry_schema_version", TELEMETRY_SCHEMA_VERSION)
    return get_plugin_manager().hooks.invoke(hook_name, **kwargs)


def has_hook(hook_name: str) -> bool:
    return bool(get_plugin_manager().hooks.callbacks(hook_name))


def iter_hook_callbacks(hook_name: str) -> tuple[Callable[..., Any], ...]:
    """The loaded callbacks of ``hook_name`` in call order (read only: nothing is imported)."""
    return tuple(callback.function for callback in get_plugin_manager().hooks.callbacks(hook_name))


def has_middleware(kind: str) -> bool:
    return bool(get_plugin_manager().middleware.get(kind))


def invoke_middleware(kind: str, **kwargs: Any) -> list[Any]:
    """Call every middleware callback of ``kind``; the non-``None`` results in order."""
    results = []
    for callback in list(get_plugin_manager().middleware.get(kind, [])):
        value = callback(**kwargs)
        if value is not None:
            results.append(value)
    return results


def _resolve_hook_callback_timeout() -> float:
    """Seconds a hot-path hook callback may run (``plugins.hook_callback_timeout``; 0 = no bound)."""
    return get_plugin_manager().hooks.timeout


def get_pre_tool_call_directive(tool_name: str, args: dict[str, Any] | None, **hook_kwargs: Any) -> tuple[str | None, str | None]:
    """``("block", message)`` when a ``pre_tool_call`` callback blocks the call, else ``(None, None)``."""
    hook_kwargs.setdefault("task_id", "")
    decision = get_plugin_manager().hooks.pre_tool_call(tool_name=tool_name, args=dict(args or {}), **hook_kwargs)
    return ("block", decision.message) if decision is not None else (None, None)


def get_pre_tool_call_block_message(tool_name: str, args: dict[str, Any] | None, **hook_kwargs: Any) -> str | None:
    """The block message of the first blocking ``pre_tool_call`` callback, or ``None`` to proceed."""
    return get_pre_tool_call_directive(tool_name, args, **hook_kwargs)[1]


def resolve_pre_tool_block(tool_name: str, args: dict[str, Any] | None, **hook_kwargs: Any) -> str | None:
    """The message a blocked tool call returns, or ``None`` when the call may proceed.

    A whitelist set for this thread (:func:`set_thread_tool_whitelist`) is checked first.
    """
    allowed = getattr(_thread_whitelist, "allowed", None)
    if allowed is not None and tool_name not in allowed:
        return str(getattr(_thread_whitelist, "fmt", "Tool '{tool_name}' denied")).format(tool_name=tool_name)
    return get_pre_tool_call_block_message(tool_name, args, **hook_kwargs)


def _dispatch_pre_tool_call_hooks(tool_name: str, args: dict[str, Any] | None, **hook_kwargs: Any) -> tuple[str | None, dict[str, Any] | None]:
    """``(block_message, modified_args)``; this host never rewrites arguments, so the second is ``None``."""
    return resolve_pre_tool_block(tool_name, args, **hook_kwargs), None


def get_plugin_commands() -> dict[str, dict[str, Any]]:
    return {
        name: {"handler": c.handler, "description": c.description, "args_hint": c.args_hint, "plugin": c.plugin}
        for name, c in get_plugin_manager().commands.items()
    }


def get_plugin_command_handler(name: str) -> Callable[[str], Any] | None:
    command = get_plugin_manager().commands.get(name.lower().strip().lstrip("/"))
    return command.handler if command else None


def get_plugin_context_engine() -> Any:
    return get_plugin_manager().active_context_engine()


def get_plugin_toolsets() -> list[tuple[str, str, str]]:
    """``(toolset, label, description)`` for every toolset plugins registered tools in."""
    manager = get_plugin_manager()
    plugin_toolsets = {entry.toolset for name in manager.tools.names() if (entry := manager.tools.get_entry(name)) and entry.plugin}
    return [(toolset, toolset, f"tools of plugins ({toolset})") for toolset in sorted(plugin_toolsets)]


def get_plugin_auxiliary_tasks() -> list[dict[str, Any]]:
    return [{"key": key, **task} for key, task in get_plugin_manager().auxiliary_tasks.items()]


class PluginToolOverrideError(PermissionError):
    """A plugin replaced another's tool without ``plugins.entries.<key>.allow_tool_override``."""


VALID_MIDDLEWARE = frozenset({"llm_request", "llm_execution", "tool_request", "tool_execution", "anthropic_request"})


def _get_enabled_plugins() -> set[str] | None:
    from hermes_core.policy import name_list

    names = name_list(get_plugin_manager().config.get("plugins.enabled", None))
    return set(names) if names is not None else None


def _get_disabled_plugins() -> set[str]:
    from hermes_core.policy import name_list

    return set(name_list(get_plugin_manager().config.get("plugins.disabled", [])) or [])


def _env_enabled(name: str) -> bool:
    from hermes_core.config import env_flag

    return env_flag(name)


def resolve_plugin_command_result(result: Any) -> Any:
    """A slash command's answer, awaited when the handler was ``async``."""
    from hermes_core.async_bridge import resolve_awaitable

    return resolve_awaitable(result)


def get_pre_verify_continue_message(**kwargs: Any) -> str | None:
    """The first ``pre_verify`` answer that asks the agent to keep going, or ``None``."""
    for value in invoke_hook("pre_verify", **kwargs):
        if isinstance(value, dict):
            if value.get("action") == "continue" and value.get("message"):
                return str(value["message"])
            if value.get("decision") == "block" and value.get("reason"):
                return str(value["reason"])
    return None


_thread_whitelist = __import__("threading").local()


def set_thread_tool_whitelist(allowed: set[str] | None, deny_msg_fmt: str = "Tool '{tool_name}' denied: not in this thread's tool whitelist") -> None:
    _thread_whitelist.allowed = allowed
    _thread_whitelist.fmt = deny_msg_fmt


def clear_thread_tool_whitelist() -> None:
    _thread_whitelist.allowed = None


def get_bundled_plugins_dir() -> Any:
    from hermes_core.discovery import bundled_plugins_root

    return bundled_plugins_root()
