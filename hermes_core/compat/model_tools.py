"""``model_tools`` for plugins written for Hermes Agent: tool definitions and calls, through the host.

:func:`handle_function_call` runs a tool the way the agent does: ``pre_tool_call``
(which may block it), the tool, ``transform_tool_result``, ``post_tool_call``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from hermes_core.compat.tools_registry import registry
from hermes_core.live import live_manager
from hermes_core.tools import tool_error

__all__ = ["get_tool_definitions", "handle_function_call", "get_all_tool_names", "get_toolset_for_tool", "check_toolset_requirements", "get_available_toolsets"]


def get_tool_definitions(enabled_toolsets: list[str] | None = None, disabled_toolsets: list[str] | None = None, quiet_mode: bool = False, **_: Any) -> list[dict[str, Any]]:
    """Definitions of the available tools, optionally limited to some toolsets."""
    from hermes_core.compat.toolsets import resolve_multiple_toolsets

    names = set(resolve_multiple_toolsets(enabled_toolsets)) if enabled_toolsets else set(registry.get_all_tool_names())
    if disabled_toolsets:
        names -= set(resolve_multiple_toolsets(disabled_toolsets))
    return registry.get_definitions(names, quiet=quiet_mode)


def get_all_tool_names() -> list[str]:
    return registry.get_all_tool_names()


def get_toolset_for_tool(name: str) -> str | None:
    return registry.get_toolset_for_tool(name)


def check_toolset_requirements() -> dict[str, bool]:
    return registry.check_toolset_requirements()


def get_available_toolsets() -> dict[str, dict[str, Any]]:
    return registry.get_available_toolsets()


def handle_function_call(function_name: str, function_args: dict[str, Any], task_id: str | None = None, **kwargs: Any) -> str:
    """Run tool ``function_name`` with the plugin hooks around it; always returns a JSON string."""
    manager = live_manager()
    args = dict(function_args or {})
    ids = {k: v for k, v in kwargs.items() if k in {"session_id", "tool_call_id", "turn_id", "api_request_id"}}
    if manager is not None:
        decision = manager.hooks.pre_tool_call(tool_name=function_name, args=args, task_id=task_id or "", **ids)
        if decision is not None:
            result = tool_error(decision.message)
            manager.hooks.notify("post_tool_call", tool_name=function_name, args=args, result=result, task_id=task_id or "", duration_ms=0, status="blocked", **ids)
            return result
    started = time.perf_counter()
    result = registry.dispatch(function_name, args, task_id=task_id, **kwargs)
    if not isinstance(result, str):
        result = json.dumps(result, default=str)
    if manager is not None:
        replaced = manager.hooks.transform("transform_tool_result", tool_name=function_name, arguments=args, result=result, task_id=task_id or "", **ids)
        result = replaced if replaced is not None else result
        elapsed = int((time.perf_counter() - started) * 1000)
        manager.hooks.notify("post_tool_call", tool_name=function_name, args=args, result=result, task_id=task_id or "", duration_ms=elapsed, **ids)
    return result


def _sanitize_tool_error(error_msg: str) -> str:
    return str(error_msg)[:2000]
