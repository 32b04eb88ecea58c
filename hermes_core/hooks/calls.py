"""The call loop: callbacks one by one, each isolated, values and failures collected.

Every path (plain, inline alarm, worker thread) runs callbacks through :func:`run_callbacks`.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_core.async_bridge import resolve_awaitable
from hermes_core.interrupts import user_interrupted
from hermes_core.hooks.outcomes import TIMED_OUT, Failures, HookCallback

if TYPE_CHECKING:
    from hermes_core.hooks.alarm import _Alarm


class _Overran(BaseException):
    """Raised inside a callback by the alarm when the callback overran the timeout.

    A BaseException, so that a plugin's own ``except Exception`` does not swallow it.
    """


def run_callbacks(
    callbacks: tuple[HookCallback, ...] | list[HookCallback],
    kwargs: dict[str, Any],
    stop_on: Callable[[Any], bool] | None,
    stop_on_failure: bool,
    durations: list[float] | None = None,
    alarm: _Alarm | None = None,
) -> tuple[list[Any], Failures | None]:
    """Call ``callbacks`` in order, each isolated; return their values and failures.

    This is the hot loop: the success path allocates nothing per callback
    beyond what the call itself needs. With ``alarm``, each callback's start is
    noted so the alarm can tell which one overran.
    """
    values: list[Any] = []
    failures: Failures | None = None
    for index, callback in enumerate(callbacks):
        names = callback.argnames
        started = time.perf_counter() if durations is not None else 0.0
        if alarm is not None:
            alarm.started = time.monotonic()
            alarm.calling = True
        try:
            try:
                if names is None:
                    value = callback.function(**kwargs)
                elif callback.positional:
                    try:
                        args = [kwargs[k] for k in names]
                    except KeyError:  # an optional argument the caller did not pass
                        value = callback.function(**{k: kwargs[k] for k in names if k in kwargs})
                    else:
                        value = callback.function(*args)
                else:
                    value = callback.function(**{k: kwargs[k] for k in names if k in kwargs})
                if value is not None and value.__class__ is not str and value.__class__ is not dict and inspect.isawaitable(value):
                    value = resolve_awaitable(value)
            finally:
                # the alarm raises only while this is True (and clears it when it does), so an
                # _Overran can only come from inside this inner block and the clause below catches it
                if alarm is not None:
                    alarm.calling = False
        except BaseException as exc:  # isolation: one plugin must not break the others (sys.exit, GeneratorExit included)
            if exc.__class__ is KeyboardInterrupt and user_interrupted(exc):  # the user's Ctrl-C stops the command
                raise
            if durations is not None:
                durations.append((time.perf_counter() - started) * 1000)
            if failures is None:
                failures = {}
            failures[index] = TIMED_OUT if exc.__class__ is _Overran else exc
            values.append(None)
            if stop_on_failure:
                break
            continue
        if durations is not None:
            durations.append((time.perf_counter() - started) * 1000)
        values.append(value)
        if stop_on is not None and stop_on(value):
            break
    return values, failures
