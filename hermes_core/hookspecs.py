"""The 14 lifecycle hooks a plugin can implement, with their exact contracts.

Every hook is called with keyword arguments only. A callback receives just the
keyword arguments it declares, or all of them when it takes ``**kwargs``, so a
hook can gain arguments in later releases without breaking older plugins.
Every call also carries ``telemetry_schema_version`` (``"hermes.observer.v1"``):
``**kwargs`` callbacks receive it, and a ``ctx.register_hook`` callback may name it
(an ``@hookimpl`` function must give it a default, as pluggy checks names against the spec).

Return values are ignored unless a hook's docstring says otherwise. A callback
that raises is logged once (plugin, hook, cause) and the call goes on with the
next callback; ``HERMES_STRICT_PLUGINS=1`` re-raises instead.

Callbacks run in discovery order (builtin, bundled, user, project, entry point;
alphabetical within a source); ``@hookimpl(tryfirst=True)`` and
``@hookimpl(trylast=True)`` move a callback to the front or the back.
"""

from __future__ import annotations

from typing import Any

import pluggy

# The hook-name tables (which hooks exist, which run guarded, which fail closed) live beside the
# specs in hook_names; they stay importable from here, where plugin authors look for them.
from hermes_core.hook_names import (
    FAIL_CLOSED_HOOKS,
    GUARDED_HOOKS,
    HOOK_NAMES,
    KNOWN_EXTRA_HOOKS,
    TELEMETRY_SCHEMA_VERSION,
)

PROJECT_NAME = "hermes"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# --- tools -------------------------------------------------------------------


@hookspec
def pre_tool_call(
    tool_name: str,
    args: dict[str, Any],
    task_id: str,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
) -> dict[str, str] | None:
    """Fires before a tool runs, once per tool call the model asked for.

    :param tool_name: the tool the model called, e.g. ``"terminal"``.
    :param args: the parsed arguments of the call (a copy; changing it has no effect).
    :param task_id: the id of the agent task (sub-agents have their own).
    :param session_id: the session the call belongs to.
    :param tool_call_id: the model's id for this call (links the call to its result).
    :param turn_id: the user turn the call happens in.
    :return: ``{"action": "block", "message": str}`` (or the shell-hook form
        ``{"decision": "block", "reason": str}``) to skip the tool; the message is
        returned to the model as the tool's error. The first block wins and later
        callbacks are not called. Any other return value lets the tool run.
        This hook fails closed: a callback that raises or times out blocks the tool.
    """


@hookspec
def post_tool_call(
    tool_name: str,
    args: dict[str, Any],
    result: str,
    task_id: str,
    duration_ms: float,
    session_id: str,
    tool_call_id: str,
    turn_id: str,
    status: str,
) -> None:
    """Fires after a tool has run (or was blocked), with the result the model will see.

    :param tool_name: the tool that ran.
    :param args: the arguments it ran with.
    :param result: the tool's result string, after ``transform_tool_result``.
    :param task_id: the id of the agent task.
    :param duration_ms: how long the tool took, in milliseconds.
    :param session_id: the session the call belongs to.
    :param tool_call_id: the model's id for this call.
    :param turn_id: the user turn the call happens in.
    :param status: ``"ok"``, ``"error"`` or ``"blocked"``.
    :return: ignored.
    """


@hookspec
def transform_tool_result(
    tool_name: str,
    arguments: dict[str, Any],
    result: str,
    task_id: str,
    session_id: str,
    tool_call_id: str,
) -> str | None:
    """Fires after a tool returns and before its result reaches the model.

    :param tool_name: the tool that ran.
    :param arguments: the arguments it ran with.
    :param result: the raw result string.
    :param task_id: the id of the agent task.
    :param session_id: the session the call belongs to.
    :param tool_call_id: the model's id for this call.
    :return: a string to replace the result the model sees, or ``None`` to leave
        it. The first non-``None`` string wins.
    """


@hookspec
def transform_terminal_output(
    command: str,
    output: str,
    exit_code: int,
    cwd: str,
    task_id: str,
) -> str | None:
    """Fires when a terminal command finishes, before its output is truncated or redacted.

    :param command: the shell command that ran.
    :param output: its combined stdout and stderr.
    :param exit_code: the process exit code.
    :param cwd: the working directory it ran in.
    :param task_id: the id of the agent task.
    :return: a string to replace the raw output, or ``None`` to leave it. The first
        non-``None`` string wins.
    """


# --- model calls ------------------------------------------------------------


@hookspec
def pre_llm_call(
    session_id: str,
    user_message: str,
    conversation_history: list[dict[str, Any]],
    is_first_turn: bool,
    model: str,
    platform: str,
    turn_id: str,
    task_id: str = "",
    sender_id: str = "",
) -> str | dict[str, str] | None:
    """Fires once per user turn, before the tool loop starts.

    :param session_id: the current session.
    :param user_message: the user's text for this turn.
    :param conversation_history: a copy of the messages so far.
    :param is_first_turn: ``True`` on the first turn of the session.
    :param model: the model the turn will use.
    :param platform: where the turn comes from (``"cli"``, ``"telegram"``, ...).
    :param turn_id: an id for this turn.
    :param task_id: the agent task the turn belongs to.
    :param sender_id: who sent the message, on platforms that say (``""`` in the CLI).
    :return: a string, or ``{"context": str}``, to add to the API copy of the
        current user message (never the system prompt; never stored). Every
        callback's context is collected in order and joined by a blank line.
    """


@hookspec
def post_llm_call(
    session_id: str,
    user_message: str,
    assistant_response: str,
    conversation_history: list[dict[str, Any]],
    model: str,
    platform: str,
    turn_id: str,
) -> None:
    """Fires at the end of a turn that completed without error or interruption.

    :param session_id: the current session.
    :param user_message: the user's text for this turn.
    :param assistant_response: the final assistant text of the turn.
    :param conversation_history: a copy of the messages including this turn.
    :param model: the model that answered.
    :param platform: where the turn came from.
    :param turn_id: the id of this turn.
    :return: ignored.
    """


@hookspec
def pre_api_request(
    session_id: str,
    task_id: str,
    turn_id: str,
    api_request_id: str,
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_call_count: int,
    message_count: int,
    tool_count: int,
    approx_input_tokens: int,
    request: dict[str, Any],
) -> None:
    """Fires before each request to the model API (several per turn when tools run).

    :param session_id: the current session.
    :param task_id: the id of the agent task.
    :param turn_id: the id of the user turn.
    :param api_request_id: an id for this request, shared with ``post_api_request``.
    :param platform: where the turn came from.
    :param model: the model requested.
    :param provider: the API flavour (``"openai"``, ``"anthropic"``).
    :param base_url: the endpoint's base URL.
    :param api_call_count: 1 for the first request of the turn, then 2, 3, ...
    :param message_count: number of messages in the request.
    :param tool_count: number of tools offered.
    :param approx_input_tokens: a rough token estimate of the request.
    :param request: a sanitized copy ``{"method", "body"}`` with secrets removed.
    :return: ignored (observer hook).
    """


@hookspec
def post_api_request(
    session_id: str,
    task_id: str,
    turn_id: str,
    api_request_id: str,
    platform: str,
    model: str,
    provider: str,
    base_url: str,
    api_call_count: int,
    api_duration: float,
    finish_reason: str,
    usage: dict[str, Any],
    response: dict[str, Any],
) -> None:
    """Fires after each successful response from the model API.

    :param session_id: the current session.
    :param task_id: the id of the agent task.
    :param turn_id: the id of the user turn.
    :param api_request_id: the id given to the matching ``pre_api_request``.
    :param platform: where the turn came from.
    :param model: the model requested.
    :param provider: the API flavour.
    :param base_url: the endpoint's base URL.
    :param api_call_count: the request's position within the turn.
    :param api_duration: seconds the request took.
    :param finish_reason: ``"stop"``, ``"tool_calls"``, ``"length"``, ...
    :param usage: token usage as reported (input, output, cache read/write).
    :param response: a sanitized copy of the response.
    :return: ignored (observer hook).
    """


# --- sessions ---------------------------------------------------------------


@hookspec
def on_session_start(session_id: str, model: str, platform: str) -> None:
    """Fires on the first turn of a new session (not when a session is resumed).

    :param session_id: the new session.
    :param model: the model of the session.
    :param platform: where the session runs.
    :return: ignored.
    """


@hookspec
def on_session_end(
    session_id: str,
    completed: bool,
    interrupted: bool,
    model: str,
    platform: str,
) -> None:
    """Fires at the end of every run of the agent loop (each turn), and on exit mid-turn.

    :param session_id: the session.
    :param completed: ``True`` when the turn finished normally.
    :param interrupted: ``True`` when the user or a signal interrupted it.
    :param model: the model of the session.
    :param platform: where the session runs.
    :return: ignored.
    """


@hookspec
def on_session_finalize(session_id: str | None, platform: str) -> None:
    """Fires when a session is closed for good: ``/new``, exit, or a gateway reset.

    :param session_id: the session being closed, or ``None`` if none was started.
    :param platform: where the session ran.
    :return: ignored.
    """


@hookspec
def on_session_reset(session_id: str, platform: str) -> None:
    """Fires after a reset swapped in a fresh session (after ``on_session_finalize`` of the old one).

    :param session_id: the new session.
    :param platform: where the session runs.
    :return: ignored.
    """


@hookspec
def subagent_stop(
    parent_session_id: str,
    child_role: str,
    child_summary: str,
    child_status: str,
    tool_call_history: list[dict[str, Any]],
    duration_ms: float,
) -> None:
    """Fires on the parent's thread when a sub-agent it spawned has finished.

    :param parent_session_id: the session that spawned the sub-agent.
    :param child_role: the role given to the sub-agent.
    :param child_summary: the sub-agent's final answer.
    :param child_status: ``"completed"``, ``"failed"``, ``"interrupted"`` or ``"error"``.
    :param tool_call_history: metadata of the sub-agent's tool calls (names, ids, status).
    :param duration_ms: how long the sub-agent ran.
    :return: ignored.
    """


# --- memory -----------------------------------------------------------------


@hookspec
def on_memory_write(
    action: str,
    target: str,
    content: str,
    session_id: str,
    metadata: dict[str, Any],
) -> None:
    """Fires after the built-in memory changed MEMORY.md or USER.md.

    :param action: ``"add"``, ``"replace"`` or ``"remove"``.
    :param target: ``"memory"`` (agent notes) or ``"user"`` (user profile).
    :param content: the entry written (for ``remove``, the entry removed).
    :param session_id: the session that made the write.
    :param metadata: provenance such as ``write_origin``, ``platform``, ``tool_name``.
    :return: ignored.
    """
