"""The hook names and how each is dispatched: the 14 lifecycle hooks, the guarded and fail-closed
ones, the names other hosts fire, and the telemetry schema every call carries.

The hooks' signatures and contracts are the specs in :mod:`hermes_core.hookspecs`, which
re-exports these tables.
"""

from __future__ import annotations

__all__ = ["HOOK_NAMES", "GUARDED_HOOKS", "FAIL_CLOSED_HOOKS", "KNOWN_EXTRA_HOOKS", "TELEMETRY_SCHEMA_VERSION"]

#: The hooks a plugin may implement, in the order of the reference documentation.
HOOK_NAMES: tuple[str, ...] = (
    "pre_tool_call",
    "post_tool_call",
    "pre_llm_call",
    "post_llm_call",
    "pre_api_request",
    "post_api_request",
    "transform_terminal_output",
    "transform_tool_result",
    "on_session_start",
    "on_session_end",
    "on_session_finalize",
    "on_session_reset",
    "subagent_stop",
    "on_memory_write",
)

#: Hooks whose callbacks run under ``plugins.hook_callback_timeout``: they sit on
#: the path of every turn or tool call, so a hung callback would stall the agent.
GUARDED_HOOKS: frozenset[str] = frozenset(
    {
        "pre_tool_call",
        "post_tool_call",
        "transform_tool_result",
        "transform_terminal_output",
        "pre_llm_call",
        "post_llm_call",
        "pre_api_request",
        "post_api_request",
        "on_session_start",
        "on_session_end",
    }
)

#: Hooks whose callbacks fail closed: an exception or a timeout counts as a block.
FAIL_CLOSED_HOOKS: frozenset[str] = frozenset({"pre_tool_call"})

#: Hook names known from other hosts: accepted by ``ctx.register_hook`` without a
#: warning and dispatched with the default "results ignored" semantics.
KNOWN_EXTRA_HOOKS: frozenset[str] = frozenset(
    {
        "transform_llm_output",
        "api_request_error",
        "subagent_start",
        "pre_gateway_dispatch",
        "pre_approval_request",
        "post_approval_response",
        "pre_response_delivery",
        # Added by newer Hermes Agent releases; fired here where the runtime has that moment
        # (streams, the final answer, failed API calls), kept for the others.
        "on_stream_start",
        "on_stream_delta",
        "on_stream_end",
        "on_interim_message",
        "pre_verify",
        "transform_api_error_classification",
        "on_skill_lifecycle",
        "agent_loop_stopped",
        "pre_command",
        "pre_auxiliary_call",
        "post_auxiliary_call",
        "pre_tts_synthesis",
        "pre_transcription",
        "on_room_member_activity",
        "gateway_platform_event",
        "kanban_task_claimed",
        "kanban_task_completed",
        "kanban_task_blocked",
        "on_kanban_worker_spawned",
        "on_kanban_worker_exited",
        "on_kanban_worker_stale_claim",
        "on_kanban_task_updated",
        "on_kanban_dispatch_tick",
    }
)

TELEMETRY_SCHEMA_VERSION = "hermes.observer.v1"
