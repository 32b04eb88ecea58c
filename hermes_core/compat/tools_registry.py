"""``tools.registry`` for plugins written for Hermes Agent: a process-wide registry and ``tool_error``."""

from hermes_core.tools import ToolRegistry, tool_error

__all__ = ["registry", "tool_error", "ToolRegistry"]

#: Tools registered here directly (outside ``ctx.register_tool``) are visible to the host's runtime.
registry = ToolRegistry()
