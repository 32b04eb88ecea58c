"""``toolsets`` for plugins written for Hermes Agent: tool groups, from the live registry."""

from __future__ import annotations

from typing import Any

from hermes_core.compat.tools_registry import registry

__all__ = ["TOOLSETS", "get_toolset", "resolve_toolset", "resolve_multiple_toolsets", "get_all_toolsets", "get_toolset_names", "validate_toolset", "create_custom_toolset", "get_toolset_info"]

#: Tools the host itself answers; memory providers may not register these names.
_HERMES_CORE_TOOLS: list[str] = ["memory", "session_search"]
#: Toolsets defined by name (custom ones added with :func:`create_custom_toolset`).
TOOLSETS: dict[str, dict[str, Any]] = {}


def get_all_toolsets() -> dict[str, dict[str, Any]]:
    """Every toolset: the registry's groups plus custom ones."""
    found = {name: {"description": f"{name} tools", "tools": tools, "includes": []} for name, tools in registry.target.toolsets().items()}
    found.update(TOOLSETS)
    return found


def get_toolset(name: str, **_: Any) -> dict[str, Any] | None:
    return get_all_toolsets().get(name)


def get_toolset_names() -> list[str]:
    return sorted(get_all_toolsets())


def validate_toolset(name: str) -> bool:
    return name in {"all", "*"} or name in get_all_toolsets()


def resolve_toolset(name: str, visited: set[str] | None = None, **_: Any) -> list[str]:
    """The tool names of toolset ``name``, following ``includes`` (``all`` = every tool)."""
    if name in {"all", "*"}:
        return registry.get_all_tool_names()
    visited = set() if visited is None else visited
    if name in visited:
        return []
    visited.add(name)
    toolset = get_toolset(name)
    if toolset is None:
        return []
    tools = list(toolset.get("tools", []))
    for included in toolset.get("includes", []):
        tools += [t for t in resolve_toolset(included, visited) if t not in tools]
    return tools


def resolve_multiple_toolsets(toolset_names: list[str]) -> list[str]:
    tools: list[str] = []
    for name in toolset_names:
        tools += [t for t in resolve_toolset(name) if t not in tools]
    return tools


def create_custom_toolset(name: str, description: str, tools: list[str] | None = None, includes: list[str] | None = None) -> None:
    TOOLSETS[name] = {"description": description, "tools": list(tools or []), "includes": list(includes or [])}


def get_toolset_info(name: str) -> dict[str, Any]:
    toolset = get_toolset(name) or {}
    resolved = resolve_toolset(name)
    return {"name": name, "description": toolset.get("description", ""), "tools": resolved, "tool_count": len(resolved), "is_composite": bool(toolset.get("includes"))}
