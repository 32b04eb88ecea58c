"""The context engine's part of a session: its optional members, called in isolation, and compression.

:class:`ContextEngineCalls` is a base of :class:`~hermes_core.runtime.session.AgentSession`; it
reads the session's ``context_engine``, ``history``, ``store``, ``memory`` and ``_last_prompt_tokens``.
"""

from __future__ import annotations

import inspect
import logging
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.context_engine import ContextEngine
    from hermes_core.memory.manager import MemoryManager

logger = logging.getLogger("hermes_core.runtime.session")  # the name these warnings always had

__all__ = ["ContextEngineCalls"]


def _approx_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(len(str(m.get("content") or "")) + len(str(m.get("tool_calls") or "")) for m in messages) // 4


def _call_with_supported(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Call ``function`` with the keyword arguments it declares (engines written for older hosts take fewer)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return function(*args, **kwargs)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return function(*args, **kwargs)
    return function(*args, **{k: v for k, v in kwargs.items() if k in parameters})


class ContextEngineCalls:
    """Calls into the session's context engine: selection, the compression checks, compression."""

    # Set by AgentSession.__init__ (and start/resume); declared here for readers and type checkers.
    context_engine: ContextEngine | None
    memory: MemoryManager | None
    store: Any
    history: list[dict[str, Any]]
    session_id: str
    system_prompt: str
    model: str
    platform: str
    _last_prompt_tokens: int

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
