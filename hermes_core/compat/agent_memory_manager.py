"""``agent.memory_manager`` for plugins written for Hermes Agent."""

from hermes_core.memory.fence import StreamingContextScrubber, build_memory_context_block, sanitize_context
from hermes_core.memory.manager import MemoryManager

__all__ = ["MemoryManager", "StreamingContextScrubber", "build_memory_context_block", "sanitize_context"]

from typing import Any  # noqa: E402

from hermes_core.tools import normalize_tool_schema  # noqa: E402

__all__ += ["normalize_tool_schema", "memory_provider_tools_enabled", "inject_memory_provider_tools"]


def memory_provider_tools_enabled(enabled_toolsets: Any) -> bool:
    """Provider tools are offered only when the ``memory`` toolset is on (or no list restricts toolsets)."""
    if enabled_toolsets is None:
        return True
    names = set(enabled_toolsets)
    return bool(names & {"memory", "all", "*"})


def inject_memory_provider_tools(agent: Any) -> int:
    """Add the memory manager's provider tools to ``agent.tools``; how many were added."""
    memory = getattr(agent, "memory_manager", None) or getattr(agent, "memory", None)
    tools = getattr(agent, "tools", None)
    if memory is None or not isinstance(tools, list):
        return 0
    present = {t.get("function", t).get("name") for t in tools if isinstance(t, dict)}
    added = 0
    for schema in memory.get_all_tool_schemas():
        function = normalize_tool_schema(schema)
        if function.get("name") not in present:
            tools.append({"type": "function", "function": function})
            added += 1
    return added
