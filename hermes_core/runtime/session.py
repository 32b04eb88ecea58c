"""AgentSession: the turn loop an integrator drives, with every hook at its documented point.

One turn: on_turn_start -> prefetch_all -> fenced recall and pre_llm_call context on the API
copy of the user message -> [pre_api_request -> model -> post_api_request -> per tool call:
pre_tool_call -> tool -> transform_tool_result -> post_tool_call]* -> post_llm_call -> store
-> sync_all -> queue_prefetch_all -> compression check -> on_session_end.
"""

from __future__ import annotations

import copy
import logging
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.memory.fence import api_user_message, build_memory_context_block, sanitize_context
from hermes_core.runtime.compression import ContextEngineCalls, _approx_tokens, _call_with_supported
from hermes_core.runtime.delegation import DEFAULT_REVIEW_PROMPT, Delegation
from hermes_core.models.pricing import estimate_cost
from hermes_core.runtime.stream_hooks import StreamHooks, usage_payload
from hermes_core.runtime.system_prompt import collect_inputs
from hermes_core.runtime.tool_calls import ToolCallOutcome, ToolRunner
from hermes_core.runtime.turn_result import TurnResult

if TYPE_CHECKING:
    from hermes_core.context_engine import ContextEngine
    from hermes_core.manager import PluginManager
    from hermes_core.memory.manager import MemoryManager

logger = logging.getLogger(__name__)

__all__ = ["AgentSession", "TurnResult", "DEFAULT_MAX_TOOL_ROUNDS", "DEFAULT_REVIEW_PROMPT", "ToolCallOutcome"]

DEFAULT_MAX_TOOL_ROUNDS = 25


def _prompt_tokens(response: Any) -> int:
    """Every token of the request's prompt: uncached + read from and written to the cache.

    Anthropic reports cached tokens apart from ``input_tokens``; all of them fill the context window.
    """
    prompt = getattr(response, "prompt_tokens", None)
    if isinstance(prompt, int):
        return prompt
    usage = getattr(response, "usage", None) or {}
    return sum(v for k in ("input_tokens", "cache_read_tokens", "cache_write_tokens") if isinstance(v := usage.get(k), int))


def _status_code(error: BaseException) -> int | None:
    """The HTTP status a failed model call got, if it got one: the built-in clients' errors carry it
    as ``status``, other libraries' (httpx, the provider SDKs) as ``status_code``."""
    for attribute in ("status_code", "status"):
        value = getattr(error, attribute, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


class AgentSession(ContextEngineCalls, Delegation):
    """A conversation with a model, its tools, memory and plugins, kept in a session store.

    :param plugins: a loaded :class:`~hermes_core.manager.PluginManager` (hooks, tools).
    :param client: a model client with ``complete(messages, tools=..., ...)``.
    :param store: where sessions and messages are kept (the ``state`` builtin's store).
    :param memory: the memory manager (built-in + external provider); optional.
    :param context_engine: decides about compression; optional.
    """

    def __init__(
        self,
        *,
        plugins: PluginManager,
        client: Any,
        store: Any,
        memory: MemoryManager | None = None,
        context_engine: ContextEngine | None = None,
        model: str = "",
        platform: str = "cli",
        system_message: str = "",
        cwd: Path | None = None,
        task_id: str | None = None,
        max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
        agent_context: str = "primary",
    ) -> None:
        self.plugins = plugins
        self.hooks = plugins.hooks
        self.client = client
        self.store = store
        self.memory = memory
        self.context_engine = context_engine
        self.model = model or getattr(client, "model", "")
        self.platform = platform
        self.system_message = system_message
        self.cwd = cwd
        self.task_id = task_id or uuid.uuid4().hex[:12]
        self.max_tool_rounds = max_tool_rounds
        self.agent_context = agent_context
        self.tools = ToolRunner(hooks=self.hooks, registry=plugins.tools, memory=memory, engine=context_engine, conversation=lambda: [*self.history, *self._in_flight])
        self.session_id = ""
        self.system_prompt = ""
        self.history: list[dict[str, Any]] = []
        #: The running turn's messages, until they are stored (engine tools see the whole conversation).
        self._in_flight: list[dict[str, Any]] = []
        self._started_hook_due = False
        self._turns = 0
        #: Prompt size of the last model request (all input tokens), for the compression check.
        self._last_prompt_tokens = 0
        # a sub-agent shares its parent's memory manager for tools, but its turns are not the
        # user's conversation: no recall into it, nothing synced from it (the parent gets on_delegation)
        self._memory_lifecycle = agent_context == "primary"

    # -- starting, resuming, ending --

    def start(self, *, title: str | None = None, parent_session_id: str | None = None, system_prompt: str | None = None) -> str:
        """Create a new session; the system prompt is built now, once, and stored with it."""
        session_id = str(uuid.uuid4())
        if self.memory is not None:
            self.memory.initialize_all(session_id, platform=self.platform, agent_context=self.agent_context, parent_session_id=parent_session_id or "")
        prompt = system_prompt if system_prompt is not None else self._build_prompt()
        self.store.create_session(
            session_id, self.platform, model=self.model, system_prompt=prompt, parent_session_id=parent_session_id, title=title
        )
        self.session_id, self.system_prompt, self.history = session_id, prompt, []
        self._last_prompt_tokens = 0
        self._started_hook_due = True
        if self.context_engine is not None:
            _call_with_supported(self.context_engine.on_session_start, session_id, platform=self.platform, model=self.model)
        return session_id

    def resume(self, session_id: str) -> str:
        """Continue a stored session (at the tip of its compression chain) with its stored prompt."""
        tip = self.store.get_compression_tip(session_id)
        row = self.store.get_session(tip)
        if row is None:
            from hermes_core.errors import HermesError

            raise HermesError(f"no session {session_id!r} in the store -> 'hermes sessions list' shows the ids")
        self.session_id, self.system_prompt = tip, row.get("system_prompt") or ""
        self.history = [self._wire(m) for m in self.store.get_messages(tip)]
        if self.memory is not None:
            self.memory.initialize_all(tip, platform=self.platform, agent_context=self.agent_context)
        self._started_hook_due = False
        self._last_prompt_tokens = 0
        if self.context_engine is not None:
            _call_with_supported(self.context_engine.on_session_start, tip, platform=self.platform, model=self.model)
        return tip

    def _snapshot(self, hook_name: str, value: Any) -> Any:
        """A private copy of ``value`` for a hook's listeners; none is made when nobody listens."""
        return copy.deepcopy(value) if self.hooks.has_listeners(hook_name) else value

    def _redacted(self, hook_name: str, payload: dict[str, Any]) -> dict[str, Any]:
        """A copy of an API payload with credentials replaced, for a hook's listeners (none made when nobody listens)."""
        if not self.hooks.has_listeners(hook_name):
            return payload
        from hermes_core.models.clients.sanitize import sanitize_request

        return sanitize_request(payload)

    def _build_prompt(self) -> str:
        inputs = collect_inputs(home=self.plugins.home, memory=self.memory, caller_system=self.system_message, cwd=self.cwd, platform=self.platform)
        return inputs.render()

    @staticmethod
    def _wire(message: dict[str, Any]) -> dict[str, Any]:
        """A stored message in chat-completions form (store-only columns dropped)."""
        wire = {"role": message["role"], "content": message.get("content")}
        if message.get("tool_calls"):
            wire["tool_calls"] = message["tool_calls"]
        if message.get("tool_call_id"):
            wire["tool_call_id"] = message["tool_call_id"]
        if message.get("tool_name"):
            wire["tool_name"] = message["tool_name"]
        return wire

    def finalize(self) -> None:
        """Close the session for good (``/new``, exit): on_session_finalize, provider end, shutdown."""
        if self.memory is not None:
            self.memory.on_session_end(list(self.history))
        if self.context_engine is not None and self.session_id:
            _call_with_supported(self.context_engine.on_session_end, self.session_id, list(self.history))
        if self.session_id:
            self.store.end_session(self.session_id, "user")
        self.hooks.notify("on_session_finalize", session_id=self.session_id or None, platform=self.platform)
        if self.memory is not None:
            self.memory.flush(5)

    def reset(self) -> str:
        """Finalize this session and start a fresh one (finalize -> swap -> reset -> start on first turn)."""
        old = self.session_id
        self.finalize()
        new = self.start()
        if self.memory is not None:
            self.memory.on_session_switch(new, parent_session_id=old, reset=True)
        if self.context_engine is not None:
            self.context_engine.on_session_reset()
        self.hooks.notify("on_session_reset", session_id=new, platform=self.platform)
        return new

    # -- the turn --

    def run_turn(self, user_text: str, *, stream: bool = False, on_text: Any = None) -> TurnResult:
        """Run one user turn to its final answer; tools run as the model asks."""
        if not self.session_id:
            self.start()
        turn_id = uuid.uuid4().hex[:12]
        self._turns += 1
        is_first = self._started_hook_due
        if is_first:
            self.hooks.notify("on_session_start", session_id=self.session_id, model=self.model, platform=self.platform)
            self._started_hook_due = False
        if self.context_engine is not None and self.history and self._preflight_due():
            self.compress()  # e.g. a resumed session already past the window: shrink it before sending
        text = sanitize_context(user_text)  # a pasted fence must not reach the store or the model as data
        user_message = {"role": "user", "content": text}
        # the session the turn ran in, even when the turn ends by compressing into a new one
        # (TurnResult.compressed_into names that one)
        turn_session = self.session_id
        completed = interrupted = False
        try:
            result = self._turn(user_message, text, turn_id, is_first, stream, on_text)
            completed = True
            return result
        except KeyboardInterrupt:
            interrupted = True  # Ctrl-C mid-turn: nothing of the turn is stored; plugins are told
            raise
        finally:
            self.hooks.notify(
                "on_session_end", session_id=turn_session, completed=completed, interrupted=interrupted, model=self.model, platform=self.platform
            )

    def _turn(self, user_message: dict[str, Any], text: str, turn_id: str, is_first: bool, stream: bool, on_text: Any) -> TurnResult:
        recalled = ""
        if self.memory is not None and self._memory_lifecycle:
            self.memory.on_turn_start(self._turns, text, model=self.model, platform=self.platform)
            recalled = self.memory.prefetch_all(text, session_id=self.session_id)
        plugin_context = self.hooks.pre_llm_call(
            session_id=self.session_id,
            user_message=text,
            conversation_history=self._snapshot("pre_llm_call", self.history),
            is_first_turn=is_first,
            model=self.model,
            platform=self.platform,
            turn_id=turn_id,
            task_id=self.task_id,
            sender_id="",
        )
        incoming = api_user_message(user_message, build_memory_context_block(recalled), plugin_context)
        conversation = self._engine_selection(incoming) or [*self.history, incoming]
        # an imported session may have no system prompt; an empty system message is not sent
        request = [{"role": "system", "content": self.system_prompt}, *conversation] if self.system_prompt else conversation
        added: list[dict[str, Any]] = [user_message]
        self._in_flight = added
        outcomes: list[ToolCallOutcome] = []
        usage_total: dict[str, int] = {}
        final_text = ""
        for round_number in range(1, self.max_tool_rounds + 1):
            response = self._call_model(request, turn_id, round_number, stream, on_text)
            for key, value in (response.usage or {}).items():
                if isinstance(value, int):
                    usage_total[key] = usage_total.get(key, 0) + value
            assistant: dict[str, Any] = {"role": "assistant", "content": response.text or None, "finish_reason": response.finish_reason}
            if response.tool_calls:
                assistant["tool_calls"] = response.tool_calls
            added.append(assistant)
            request.append({k: v for k, v in assistant.items() if k != "finish_reason"})
            final_text = response.text or ""
            if not response.tool_calls:
                break
            for call in response.tool_calls:
                outcome = self.tools.run(call, task_id=self.task_id, session_id=self.session_id, turn_id=turn_id)
                outcomes.append(outcome)
                added.append(outcome.as_message())
                request.append(outcome.as_message())
        final_text = self._transform_final_text(final_text, added, turn_id)
        self.hooks.notify(
            "post_llm_call",
            session_id=self.session_id,
            user_message=text,
            assistant_response=final_text,
            conversation_history=self._snapshot("post_llm_call", [*self.history, *added]),
            model=self.model,
            platform=self.platform,
            turn_id=turn_id,
        )
        self.store.append_messages(self.session_id, added)
        self.history.extend(self._wire(m) for m in added)
        self._in_flight = []
        if self.memory is not None and self._memory_lifecycle:
            # the background worker gets its own list; the runtime never mutates a stored message dict
            self.memory.sync_all(text, final_text, session_id=self.session_id, messages=list(self.history))
            self.memory.queue_prefetch_all(text, session_id=self.session_id)
        result = TurnResult(final_text, self.session_id, added, outcomes, usage_total)
        if self.context_engine is not None:
            self._engine_call("on_turn_complete", list(self.history), usage=usage_payload(usage_total))
            if self._should_compress():
                new = self.compress()
                result.compressed_into = new if new != result.session_id else None
        return result

    def _transform_final_text(self, final_text: str, added: list[dict[str, Any]], turn_id: str) -> str:
        """``transform_llm_output``: the first string a plugin returns replaces the answer, as stored too."""
        if not final_text or not self.hooks.has_listeners("transform_llm_output"):
            return final_text
        replaced = self.hooks.transform("transform_llm_output", response_text=final_text, session_id=self.session_id, model=self.model, platform=self.platform, turn_id=turn_id)
        if not replaced:
            return final_text
        if added and added[-1].get("role") == "assistant":
            added[-1]["content"] = replaced
        return replaced

    def _call_model(self, request: list[dict[str, Any]], turn_id: str, round_number: int, stream: bool, on_text: Any) -> Any:
        api_request_id = uuid.uuid4().hex[:12]
        tools = self.tools.definitions()
        identity = {
            "session_id": self.session_id,
            "task_id": self.task_id,
            "turn_id": turn_id,
            "api_request_id": api_request_id,
            "platform": self.platform,
            "model": self.model,
            "provider": getattr(self.client, "provider", ""),
            "base_url": getattr(self.client, "base_url", ""),
            "api_call_count": round_number,
        }
        self.hooks.notify(
            "pre_api_request",
            **identity,
            message_count=len(request),
            tool_count=len(tools),
            approx_input_tokens=_approx_tokens(request),
            request=self._redacted("pre_api_request", {"method": "POST", "body": {"model": self.model, "messages": request, "tools": tools}}),
        )
        started = time.monotonic()
        streaming = StreamHooks(self.hooks, identity, on_text) if stream else None
        try:
            response = self.client.complete(request, tools=tools or None, stream=stream, on_text=streaming.on_text if streaming else on_text)
        except Exception as exc:
            if streaming is not None:
                streaming.end(finished=False, error=f"{type(exc).__name__}: {exc}")
            self.hooks.notify(
                "api_request_error", **identity, api_duration=time.monotonic() - started, error={"type": type(exc).__name__, "message": str(exc)},
                status_code=_status_code(exc),
            )
            raise
        if streaming is not None:
            streaming.end(finished=True, error=None)
        self.hooks.notify(
            "post_api_request",
            **identity,
            api_duration=time.monotonic() - started,
            finish_reason=response.finish_reason,
            usage=usage_payload(response.usage),
            response=self._redacted("post_api_request", getattr(response, "raw", None) or {"text": response.text, "tool_calls": response.tool_calls}),
        )
        usage = response.usage or {}
        cost = estimate_cost(usage, self.model, self.plugins.config.get("model.pricing", None))
        self.store.update_token_counts(
            self.session_id,
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            cache_read_tokens=usage.get("cache_read_tokens"),
            cache_write_tokens=usage.get("cache_write_tokens"),
            reasoning_tokens=usage.get("reasoning_tokens"),
            api_call_count=1,
            estimated_cost_usd=cost.usd,
            billing_provider=getattr(self.client, "provider", "") or None,
            billing_base_url=getattr(self.client, "base_url", "") or None,
            billing_mode="api",
            cost_status=cost.status,
            cost_source=cost.source or None,
            pricing_version=cost.pricing_version,
        )
        self._last_prompt_tokens = _prompt_tokens(response)
        if self.context_engine is not None:
            self.context_engine.update_from_response(dict(usage, prompt_tokens=self._last_prompt_tokens))
        return response

    # -- sub-agents and the background review --

    def _child(self, source: str, client: Any, agent_context: str) -> AgentSession:
        """A session under this one that sends this session's prompt byte for byte (so its requests
        start with the prefix the provider has cached), with its own stored row."""
        child = AgentSession(
            plugins=self.plugins,
            client=client or self.client,
            store=self.store,
            memory=self.memory,
            model=self.model,
            platform=self.platform,
            task_id=uuid.uuid4().hex[:12],
            max_tool_rounds=self.max_tool_rounds,
            agent_context=agent_context,
        )
        child.session_id = str(uuid.uuid4())
        child.system_prompt = self.system_prompt
        self.store.create_session(child.session_id, source, model=self.model, system_prompt=self.system_prompt, parent_session_id=self.session_id)
        return child
