"""Work a session hands to a child session: sub-agents and the background memory review.

:class:`Delegation` is a base of :class:`~hermes_core.runtime.session.AgentSession`; the child is
built by the session's ``_child`` so that it sends the parent's prompt byte for byte.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from hermes_core.runtime.turn_result import TurnResult

if TYPE_CHECKING:
    from hermes_core.memory.manager import MemoryManager
    from hermes_core.runtime.session import AgentSession

__all__ = ["DEFAULT_REVIEW_PROMPT", "Delegation"]

#: What the background review asks, after the conversation itself.
DEFAULT_REVIEW_PROMPT = (
    "Review the conversation above. Save, with the memory tool, what will still be useful in later sessions: "
    "durable facts about the user and their preferences, decisions and conventions, lessons from mistakes. "
    "Leave out what only mattered for this task. Then say in a few lines what you saved, or that nothing was worth it."
)


class Delegation:
    """Sub-agents and the background review of one session."""

    # Set by AgentSession.__init__ (and start/resume); declared here for readers and type checkers.
    hooks: Any
    store: Any
    memory: MemoryManager | None
    session_id: str
    history: list[dict[str, Any]]

    def _child(self, source: str, client: Any, agent_context: str) -> AgentSession:
        raise NotImplementedError  # AgentSession builds its children (they send its prompt byte for byte)

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
