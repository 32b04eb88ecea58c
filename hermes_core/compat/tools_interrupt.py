"""``tools.interrupt`` for plugins written for Hermes Agent: has the user interrupted this task?

Each running turn may bind its own event; a tool polls :func:`is_interrupted` to stop
long work early. Without a bound event, one per thread is used.
"""

from __future__ import annotations

import contextvars
import threading

__all__ = ["set_interrupt", "is_interrupted", "clear_current_thread_interrupt"]

_bound: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("hermes_interrupt_event", default=None)
_per_thread: dict[int, threading.Event] = {}
_lock = threading.Lock()


def _event_for(thread_id: int | None = None) -> threading.Event:
    if thread_id is None:
        bound = _bound.get()
        if bound is not None:
            return bound
        thread_id = threading.get_ident()
    with _lock:
        return _per_thread.setdefault(thread_id, threading.Event())


def _bind_interrupt_event(event: threading.Event) -> contextvars.Token[threading.Event | None]:
    """Bind a turn's interrupt event to the current context (tool threads copy the context)."""
    return _bound.set(event)


def _reset_interrupt_event(token: contextvars.Token[threading.Event | None]) -> None:
    _bound.reset(token)


def set_interrupt(active: bool, thread_id: int | None = None) -> None:
    """Raise (or clear) the interrupt of the current task, or of thread ``thread_id``."""
    event = _event_for(thread_id)
    event.set() if active else event.clear()


def clear_current_thread_interrupt() -> None:
    set_interrupt(False)


def is_interrupted() -> bool:
    return _event_for().is_set()
