"""One tool call of a turn: pre_tool_call (may block) -> tool -> transform_tool_result -> post_tool_call."""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_core.tools import tool_error

if TYPE_CHECKING:
    from collections.abc import Callable

    from hermes_core.context_engine import ContextEngine
    from hermes_core.hooks import HookDispatcher
    from hermes_core.memory.manager import MemoryManager
    from hermes_core.tools import ToolRegistry


@dataclass
class ToolCallOutcome:
    """What a tool call produced, as the model will see it."""

    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    result: str
    #: ok | error | blocked
    status: str
    duration_ms: float

    def as_message(self) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": self.tool_call_id, "tool_name": self.tool_name, "content": self.result}

    def history_entry(self) -> dict[str, Any]:
        """Metadata only (no result text), as ``subagent_stop`` reports it."""
        return {"tool_name": self.tool_name, "tool_call_id": self.tool_call_id, "status": self.status, "duration_ms": round(self.duration_ms, 3)}


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str]:
    """The call's arguments as a dict, or ``None`` and why they could not be read."""
    if isinstance(raw, dict):
        return raw, ""
    if raw in (None, ""):
        return {}, ""
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as exc:
        return None, f"the arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return None, f"the arguments must be a JSON object, got {type(value).__name__}"
    return value, ""


def _status_of(result: str) -> str:
    try:
        value = json.loads(result)
    except (TypeError, ValueError):
        return "ok"
    return "error" if isinstance(value, dict) and "error" in value and not value.get("success", False) else "ok"


class ToolRunner:
    """Runs the tools a model asked for, in the host's order of authority.

    Agent-level tools come first (the memory manager's: the built-in ``memory`` tool and the
    external provider's), then the plugin tool registry.
    """

    def __init__(
        self,
        *,
        hooks: HookDispatcher,
        registry: ToolRegistry,
        memory: MemoryManager | None,
        engine: ContextEngine | None = None,
        conversation: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        self.hooks = hooks
        self.registry = registry
        self.memory = memory
        self.engine = engine
        #: The conversation so far, handed to engine tools as ``messages``.
        self.conversation = conversation or list
        self._engine_tools: set[str] = set()

    def definitions(self) -> list[dict[str, Any]]:
        """Tools offered to the model: memory tools first, then registry tools not shadowed by them."""
        offered: list[dict[str, Any]] = []
        seen: set[str] = set()
        if self.memory is not None:
            for schema in self.memory.get_all_tool_schemas():
                function = schema.get("function", schema) if schema.get("type") == "function" else schema
                offered.append({"type": "function", "function": function})
                seen.add(function["name"])
        self._engine_tools = set()
        for schema in self._engine_schemas():
            function = schema.get("function", schema) if schema.get("type") == "function" else schema
            if function.get("name") and function["name"] not in seen:
                offered.append({"type": "function", "function": function})
                seen.add(function["name"])
                self._engine_tools.add(function["name"])
        for definition in self.registry.get_definitions():
            if definition["function"]["name"] not in seen:
                offered.append(definition)
        return offered

    def _engine_schemas(self) -> list[dict[str, Any]]:
        if self.engine is None:
            return []
        try:
            schemas = self.engine.get_tool_schemas()
        except Exception:  # an engine's tool list must not break the turn
            return []
        return [s for s in schemas or [] if isinstance(s, dict)]

    def _dispatch(self, name: str, arguments: dict[str, Any], context: dict[str, Any]) -> str:
        try:
            if self.memory is not None and self.memory.has_tool(name):
                return self.memory.handle_tool_call(name, arguments, **context)
            if self.engine is not None and name in self._engine_tools:
                result = self.engine.handle_tool_call(name, arguments, messages=list(self.conversation()), **context)
                return result if isinstance(result, str) else json.dumps(result, default=str)
            if name in self.registry:
                return self.registry.dispatch(name, arguments, **context)
        except (Exception, SystemExit) as exc:  # a tool must never crash the turn
            return tool_error(f"tool {name!r} failed: {type(exc).__name__}: {exc}")
        return tool_error(f"unknown tool {name!r}; the tools offered are listed in this request")

    def run(self, call: dict[str, Any], *, task_id: str, session_id: str, turn_id: str) -> ToolCallOutcome:
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        call_id = str(call.get("id") or "")
        arguments, problem = parse_arguments(function.get("arguments"))
        started = time.perf_counter()
        if arguments is None:
            outcome = ToolCallOutcome(call_id, name, {}, tool_error(f"tool {name!r} was not run: {problem}"), "error", 0.0)
        else:
            decision = self.hooks.pre_tool_call(
                tool_name=name, args=copy.deepcopy(arguments), task_id=task_id, session_id=session_id, tool_call_id=call_id, turn_id=turn_id
            )
            if decision is not None:
                outcome = ToolCallOutcome(call_id, name, arguments, tool_error(decision.message, blocked_by=decision.plugin), "blocked", 0.0)
            else:
                context = {"task_id": task_id, "session_id": session_id, "tool_call_id": call_id}
                result = self._dispatch(name, arguments, context)
                replaced = self.hooks.transform(
                    "transform_tool_result", tool_name=name, arguments=arguments, result=result, task_id=task_id, session_id=session_id, tool_call_id=call_id
                )
                if replaced is not None:
                    result = replaced
                outcome = ToolCallOutcome(call_id, name, arguments, result, _status_of(result), (time.perf_counter() - started) * 1000)
        self.hooks.notify(
            "post_tool_call",
            tool_name=name,
            args=outcome.arguments,
            result=outcome.result,
            task_id=task_id,
            duration_ms=outcome.duration_ms,
            session_id=session_id,
            tool_call_id=call_id,
            turn_id=turn_id,
            status=outcome.status,
        )
        return outcome
