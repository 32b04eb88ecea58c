"""AgentSession: the turn loop an integrator drives, with every hook at its documented point.

One turn: on_turn_start -> prefetch_all -> fenced recall and pre_llm_call context on the API
copy of the user message -> [pre_api_request -> model -> post_api_request -> per tool call:
pre_tool_call -> tool -> transform_tool_result -> post_tool_call]* -> post_llm_call -> store
-> sync_all -> queue_prefetch_all -> compression check -> on_session_end.
"""

from __future__ import annotations

import copy
import inspect
import logging
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.memory.fence import api_user_message, build_memory_context_block, sanitize_context
from hermes_core.runtime.pricing import estimate_cost
from hermes_core.runtime.stream_hooks import StreamHooks, usage_payload
from hermes_core.runtime.system_prompt import collect_inputs
from hermes_core.runtime.tool_calls import ToolCallOutcome, ToolRunner

if TYPE_CHECKING:
    from hermes_core.context_engine import ContextEngine
    from hermes_core.manager import PluginManager
    from hermes_core.memory.manager import MemoryManager

logger = logging.getLogger(__name__)

DEFAULT_MAX_TOOL_ROUNDS = 25
#: What the background review asks, after the conversation itself.
DEFAULT_REVIEW_PROMPT = (
    "Review the conversation above. Save, with the memory tool, what will still be useful in later sessions: "
    "durable facts about the user and their preferences, decisions and conventions, lessons from mistakes. "
    "Leave out what only mattered for this task. Then say in a few lines what you saved, or that nothing was worth it."
)


@dataclass
class TurnResult:
    """What one user turn produced."""

    text: str
    session_id: str
    #: The messages this turn added to the conversation, as stored.
    messages: list[dict[str, Any]]
    tool_calls: list[ToolCallOutcome] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    #: Set when the turn ended with a compression that moved the conversation to a new session.
    compressed_into: str | None = None


def _approx_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(len(str(m.get("content") or "")) + len(str(m.get("tool_calls") or "")) for m in messages) // 4


def _prompt_tokens(response: Any) -> int:
    """Every token of the request's prompt: uncached + read from and written to the cache.

    Anthropic reports cached tokens apart from ``input_tokens``; all of them fill the context window.
    """
    prompt = getattr(response, "prompt_tokens", None)
    if isinstance(prompt, int):
        return prompt
    usage = getattr(response, "usage", None) or {}
    return sum(v for k in ("input_tokens", "cache_read_tokens", "cache_write_tokens") if isinstance(v := usage.get(k), int))


def _call_with_supported(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Call ``function`` with the keyword arguments it declares (engines written for older hosts take fewer)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return function(*args, **kwargs)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return function(*args, **kwargs)
    return function(*args, **{k: v for k, v in kwargs.items() if k in parameters})


class AgentSession:
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
        from hermes_core.runtime.clients.sanitize import sanitize_request

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

    def _engine_call(self, method: str, *args: Any, default: Any = None, **kwargs: Any) -> Any:
        """An optional engine member, isolated: an engine written for an older host may lack it or fail in it.

        A member the engine inherits unchanged from ContextEngine is not called at all: its
        answer is ``default`` by definition, and skipping it keeps turns of engines that
        override nothing (the usual case) free of the per-call signature inspection.
        """
        from hermes_core.context_engine import ContextEngine

        function = getattr(self.context_engine, method, None)
        if function is None or getattr(type(self.context_engine), method, None) is getattr(ContextEngine, method, object()):
            return default
        try:
            return _call_with_supported(function, *args, **kwargs)
        except Exception:
            logger.warning("context engine %r: %s failed", getattr(self.context_engine, "name", "?"), method, exc_info=True)
            return default

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

    def _preflight_due(self) -> bool:
        """Asked only while no model call has reported the prompt's real size (after a resume or a
        compression): once one has, the check after each turn judges by that figure instead."""
        if self._last_prompt_tokens:
            return False
        return bool(self._engine_call("should_compress_preflight", list(self.history), default=False))

    def _engine_selection(self, incoming: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The engine's choice of messages for this request, if it makes one."""
        if self.context_engine is None:
            return None
        chosen = self._engine_call(
            "select_context",
            [*self.history, incoming],
            conversation_messages=list(self.history),
            incoming_message=incoming,
            budget_tokens=int(getattr(self.context_engine, "threshold_tokens", 0) or 0),
        )
        return list(chosen) if isinstance(chosen, list) and chosen else None

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
                status_code=getattr(exc, "status_code", None),
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

    # -- compression --

    def _should_compress(self) -> bool:
        """Judged on the last request's whole prompt (the one nearest the window), not a sum over rounds."""
        engine = self.context_engine
        assert engine is not None
        prompt_tokens = self._last_prompt_tokens or _approx_tokens(self.history)
        try:
            return bool(engine.should_compress(prompt_tokens))
        except Exception:
            return False

    def compress(self, *, focus_topic: str | None = None) -> str:
        """Compress the conversation into a new session linked to this one; return its id.

        When there is nothing to shorten (an empty or short conversation, or the engine's
        ``has_content_to_compress`` says so), nothing changes and the current id is returned.
        """
        engine = self.context_engine
        if engine is None:
            from hermes_core.errors import HermesError

            raise HermesError("no context engine is active -> set context.engine (the built-in is 'compressor')")
        if not self.history or not self._engine_call("has_content_to_compress", list(self.history), default=True):
            return self.session_id  # nothing to shorten: no new session, no copied messages
        memory_context = self.memory.on_pre_compress(list(self.history)) if self.memory is not None else ""
        compressed = _call_with_supported(
            engine.compress, list(self.history), current_tokens=_approx_tokens(self.history), focus_topic=focus_topic, force=True, memory_context=memory_context
        )
        if [self._wire(m) for m in compressed] == self.history:
            return self.session_id  # the engine found nothing to drop
        old = self.session_id
        old_row = self.store.get_session(old) or {}
        self.store.end_session(old, "compression")
        title = self.store.next_title_in_lineage(old_row["title"]) if old_row.get("title") else None
        new = str(uuid.uuid4())
        self.store.create_session(new, self.platform, model=self.model, system_prompt=self.system_prompt, parent_session_id=old, title=title)
        self.store.append_messages(new, compressed)
        self.session_id, self.history = new, [self._wire(m) for m in compressed]
        self._last_prompt_tokens = 0  # until the next response, judge the compressed history by estimate
        if self.memory is not None:
            self.memory.on_session_switch(new, parent_session_id=old, reason="compression")
        self._engine_call("on_session_start", new, platform=self.platform, model=self.model, boundary_reason="compression", parent_session_id=old)
        return new

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

    def spawn_subagent(self, goal: str, *, role: str = "worker", client: Any = None) -> TurnResult:
        """Run ``goal`` in a child session that reuses this session's prompt byte for byte.

        ``subagent_stop`` fires on this (the parent's) thread when the child is done.
        """
        child = self._child("subagent", client, "subagent")
        started = time.monotonic()
        status, summary, outcomes = "completed", "", []
        try:
            result = child._turn({"role": "user", "content": goal}, goal, uuid.uuid4().hex[:12], True, False, None)
            summary, outcomes = result.text, result.tool_calls
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        except Exception as exc:
            status, summary = "error", f"{type(exc).__name__}: {exc}"
        finally:
            self.store.end_session(child.session_id, "delegation_" + status)
            self.hooks.notify(
                "subagent_stop",
                parent_session_id=self.session_id,
                child_role=role,
                child_summary=summary,
                child_status=status,
                tool_call_history=[o.history_entry() for o in outcomes],
                duration_ms=(time.monotonic() - started) * 1000,
            )
            if self.memory is not None:
                self.memory.on_delegation(goal, summary, child_session_id=child.session_id)
        return TurnResult(summary, child.session_id, [], outcomes)

    def start_background_review(self, prompt: str = DEFAULT_REVIEW_PROMPT, *, client: Any = None) -> Future[TurnResult]:
        """Review the conversation so far on a background thread; return at once.

        The review is one turn of a child session (``source='review'``) whose request is this
        session's system prompt and history, byte for byte, then ``prompt``: everything before
        the prompt is the prefix the provider already cached for this conversation. With the
        default prompt the model saves what is worth keeping through the ``memory`` tool; those
        writes reach the files at once and the next session's prompt. The returned future gives
        the review's :class:`TurnResult`, or raises what failed. Memory providers are not fed
        from the review's turn.
        """
        child = self._child("review", client, "review")
        child.history = list(self.history)  # a snapshot: this session may go on while the review runs
        future: Future[TurnResult] = Future()
        future.set_running_or_notify_cancel()

        def review() -> None:
            try:
                result = child._turn({"role": "user", "content": prompt}, prompt, uuid.uuid4().hex[:12], False, False, None)
            except BaseException as exc:
                self.store.end_session(child.session_id, "review_error")
                future.set_exception(exc)
            else:
                self.store.end_session(child.session_id, "review_completed")
                future.set_result(result)

        threading.Thread(target=review, name=f"hermes-review:{child.session_id[:8]}", daemon=True).start()
        return future
