"""The memory providers' tools: who owns which name, and calls routed to the owner.

:class:`MemoryTools` is a base of :class:`~hermes_core.memory.manager.MemoryManager`: it builds
the tool table from the providers' schemas (the built-in first; core tool names are reserved)
and routes each call, turning a provider's failure into a JSON error.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.memory.provider import MemoryProvider

__all__ = ["BUILTIN_PROVIDER_NAME", "RESERVED_TOOL_NAMES", "MemoryTools"]

logger = logging.getLogger("hermes.memory")

BUILTIN_PROVIDER_NAME = "builtin"
#: Tools the agent handles itself; an external provider may not claim these names.
RESERVED_TOOL_NAMES = frozenset({"memory", "session_search", "todo", "clarify", "delegate_task"})


def _tool_name(schema: Any) -> str | None:
    if isinstance(schema, dict) and schema.get("type") == "function" and isinstance(schema.get("function"), dict):
        schema = schema["function"]
    name = schema.get("name") if isinstance(schema, dict) else None
    return name if isinstance(name, str) and name else None


class MemoryTools:
    """The tool table of a memory manager's providers."""

    # Set and provided by MemoryManager; declared here for readers and type checkers.
    _providers: list[MemoryProvider]
    _tool_owner: dict[str, MemoryProvider]
    _tool_schemas: list[dict[str, Any]]

    def _call(self, provider: MemoryProvider, method: str, *args: Any, default: Any = None, **kwargs: Any) -> Any:
        raise NotImplementedError  # MemoryManager._call: one provider call, isolated

    def _log_failure(self, provider: MemoryProvider, method: str, exc: BaseException) -> None:
        raise NotImplementedError  # MemoryManager._log_failure

    def _rebuild_tools(self) -> None:
        self._tool_owner = {}
        self._tool_schemas = []
        for provider in self._providers:
            schemas = self._call(provider, "get_tool_schemas", default=[]) or []
            for schema in schemas:
                name = _tool_name(schema)
                if name is None:
                    logger.warning("memory provider %r offered a tool schema without a name; ignored", provider.name)
                    continue
                if name in RESERVED_TOOL_NAMES and provider.name != BUILTIN_PROVIDER_NAME:
                    logger.warning("memory provider %r may not define tool %r (a core tool name); ignored", provider.name, name)
                    continue
                owner = self._tool_owner.get(name)
                if owner is not None:
                    logger.warning("tool %r of memory provider %r ignored: %r already provides it", name, provider.name, owner.name)
                    continue
                self._tool_owner[name] = provider
                self._tool_schemas.append(schema)

    def get_all_tool_schemas(self) -> list[dict[str, Any]]:
        return list(self._tool_schemas)

    def get_all_tool_names(self) -> list[str]:
        return list(self._tool_owner)

    def has_tool(self, name: str) -> bool:
        return name in self._tool_owner

    def handle_tool_call(self, name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Route a tool call to the provider that owns ``name``; errors become JSON, never exceptions."""
        provider = self._tool_owner.get(name)
        if provider is None:
            return json.dumps({"error": f"no memory provider handles tool {name!r}"})
        try:
            result = provider.handle_tool_call(name, args, **kwargs)
        except (Exception, SystemExit) as exc:
            self._log_failure(provider, "handle_tool_call", exc)
            return json.dumps({"error": f"memory tool {name!r} failed: {type(exc).__name__}: {exc}"})
        return result if isinstance(result, str) else json.dumps(result, default=str)
