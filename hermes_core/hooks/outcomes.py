"""Return semantics: what one callback did, and how hook results are read.

A ``pre_tool_call`` result may block the tool, a ``pre_llm_call`` result adds context, a
``transform_*`` result replaces text; everything else is observed and ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(eq=False)
class HookCallback:
    """One callback of one hook, ready to call."""

    plugin: str
    hook: str
    function: Callable[..., Any]
    #: Keyword names the callback accepts; ``None`` means all (``**kwargs``).
    argnames: tuple[str, ...] | None
    #: Whether ``argnames`` can be passed by position, in order (the cheaper call).
    positional: bool = False


class _TimedOut:
    """Marks a callback that overran the timeout, in place of an exception."""

    def __repr__(self) -> str:
        return "TIMED_OUT"


TIMED_OUT = _TimedOut()
#: Stands for a callback of a quarantined plugin that a fail-closed hook did not call.
QUARANTINED = _TimedOut()

#: ``failures`` maps the index of a callback in the call to its exception (or TIMED_OUT).
Failures = dict[int, "BaseException | _TimedOut"]


@dataclass
class HookOutcome:
    """What one callback did during one hook call (built for monitors and :meth:`HookDispatcher.call`)."""

    callback: HookCallback
    value: Any = None
    error: BaseException | None = None
    timed_out: bool = False
    duration_ms: float = 0.0

    @property
    def plugin(self) -> str:
        return self.callback.plugin

    @property
    def failed(self) -> bool:
        return self.error is not None or self.timed_out


@dataclass(frozen=True)
class BlockDecision:
    """A ``pre_tool_call`` verdict that stops the tool."""

    message: str
    plugin: str


def block_message(value: Any) -> str | None:
    """The message of a block directive (either accepted shape), or ``None`` if ``value`` is not one."""
    if not isinstance(value, dict):
        return None
    if value.get("action") == "block":
        return str(value.get("message") or "blocked by a plugin")
    if value.get("decision") == "block":
        return str(value.get("reason") or value.get("message") or "blocked by a plugin")
    return None


def context_text(value: Any) -> str | None:
    """The context a ``pre_llm_call`` callback returned (a str or ``{"context": str}``)."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, dict) and isinstance(value.get("context"), str) and value["context"].strip():
        return value["context"]
    return None


def is_block(value: Any) -> bool:
    return block_message(value) is not None


def is_str(value: Any) -> bool:
    return isinstance(value, str)


Monitor = tuple[Callable[[str, dict[str, Any]], None], Callable[[str, dict[str, Any], list[HookOutcome]], None]]


def outcomes_of(
    called: tuple[HookCallback, ...] | list[HookCallback],
    values: list[Any],
    failures: Failures | None,
    durations: list[float] | None,
) -> list[HookOutcome]:
    """One :class:`HookOutcome` per callback in ``called``."""
    outcomes = []
    for index, callback in enumerate(called):
        failure = failures.get(index) if failures else None
        duration = durations[index] if durations and index < len(durations) else 0.0
        if isinstance(failure, _TimedOut):
            outcomes.append(HookOutcome(callback, timed_out=True, duration_ms=duration))
        elif failure is not None:
            outcomes.append(HookOutcome(callback, error=failure, duration_ms=duration))
        else:
            outcomes.append(HookOutcome(callback, values[index], duration_ms=duration))
    return outcomes


def result_kind(outcome: HookOutcome) -> str:
    """How a trace line names what ``outcome`` returned."""
    if outcome.timed_out:
        return "timeout"
    if outcome.error is not None:
        return f"error ({type(outcome.error).__name__}: {outcome.error})"
    value = outcome.value
    if block_message(value) is not None:
        return "block"
    if value is None:
        return "none"
    return type(value).__name__
