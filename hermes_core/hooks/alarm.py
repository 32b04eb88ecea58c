"""Timeouts inline on the main thread: a watchdog thread signals an overrun with SIGALRM."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from hermes_core.hooks.calls import _Overran, run_callbacks
from hermes_core.hooks.outcomes import Failures, HookCallback


class _Alarm:
    """Bounds guarded callbacks inline on the main thread: a watchdog thread signals an overrun.

    A worker-thread hand-off costs 20-30 µs per hook call. Here the caller only notes
    when each callback starts; a daemon watchdog thread, which sleeps at most one
    timeout at a time, sends SIGALRM to the main thread when the running callback has
    overrun, and the handler raises :class:`_Overran` inside it. The signal interrupts
    what a hung callback realistically waits on (a socket read, a lock, a sleep, a
    Python loop), and the callback is unwound instead of being left running on an
    abandoned thread. No signal is sent unless a callback overran.
    Used only where it is safe: ``pthread_kill`` available, the main thread (Python
    runs signal handlers there only), SIGALRM not claimed by the application (its
    handler is still the default or ours), and no guarded call already in progress.
    Everywhere else the worker threads of :class:`_GuardedRunner` serve.

    ``clock`` and ``sleep`` are the watchdog's time: the clock ``run_callbacks`` stamps
    ``started`` with (``time.monotonic``) and how the watchdog sleeps (its wake-up event's
    ``wait`` unless given). A test passes its own to check each computed deadline and sleep
    exactly, without waiting for real time to pass.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], object] | None = None) -> None:
        #: When the running callback started, and whether one is running (set by run_callbacks).
        self.started = 0.0
        self.calling = False
        self._timeout = 0.0
        self._busy = False
        self._installed = False
        self._supported = hasattr(signal, "pthread_kill") and hasattr(signal, "SIGALRM")
        self._handler = self._on_alarm  # one bound method, so that getsignal() can be compared by identity
        self._signum = int(getattr(signal, "SIGALRM", 0))
        self._main_thread = threading.main_thread().ident
        self._watchdog: threading.Thread | None = None
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)
        self._wake = threading.Event()
        self._clock = clock
        self._sleep = sleep if sleep is not None else self._wake.wait
        #: The timeout the watchdog's current sleep is based on; a call with a shorter one wakes it.
        self._sleep_basis = float("inf")

    def usable(self) -> bool:
        if not self._supported or self._busy or threading.get_ident() != self._main_thread:
            return False
        current = _raw_getsignal(self._signum)
        if current is self._handler and self._watchdog is not None:
            return True
        if current is not self._handler and (self._installed or current != signal.SIG_DFL):
            return False  # the application has SIGALRM (or took it back): stay out of its way
        try:
            signal.signal(signal.SIGALRM, self._handler)
            self._watchdog = threading.Thread(target=self._watch, name="hermes-hook-watchdog", daemon=True)
            self._watchdog.start()
        except (ValueError, OSError, RuntimeError):
            self._supported = False
            return False
        self._installed = True
        return True

    def _after_fork(self) -> None:
        # a forked child has only the thread that forked, now its main thread: no watchdog yet
        self._watchdog = None
        self._busy = self.calling = False
        self._main_thread = threading.main_thread().ident

    def _on_alarm(self, signum: int, frame: Any) -> None:
        # re-checked here, on the main thread: the watchdog's view may be a moment old
        if self._busy and self.calling and self._clock() - self.started >= self._timeout:
            self.calling = False  # once per callback; a plugin that catches BaseException defeats the bound
            raise _Overran()

    def _watch(self) -> None:
        while True:
            timeout = self._timeout or 1.0
            self._sleep_basis = timeout
            if self._timeout and self._timeout < timeout:
                continue  # a call with a shorter timeout began while this one was read
            wait = timeout
            if self._busy and self.calling:
                wait = self.started + timeout - self._clock()
                if wait <= 0:
                    try:
                        signal.pthread_kill(self._main_thread, self._signum)
                    except OSError:
                        return  # the main thread is gone: the interpreter is shutting down
                    wait = min(timeout, 0.05)  # look again soon, in case the main thread had moved on
            # any callback that starts during this sleep has its deadline after the wake-up
            # (sleeps are at most one timeout long; run() wakes us for a shorter one)
            self._sleep(max(wait, 0.001))
            self._wake.clear()

    def run(
        self,
        callbacks: list[HookCallback] | tuple[HookCallback, ...],
        kwargs: dict[str, Any],
        timeout: float,
        stop_on: Callable[[Any], bool] | None,
        stop_on_failure: bool,
        durations: list[float] | None,
    ) -> tuple[list[Any], Failures | None]:
        self._timeout = timeout
        if timeout < self._sleep_basis:
            self._wake.set()
        self._busy = True
        try:
            return run_callbacks(callbacks, kwargs, stop_on, stop_on_failure, durations, self)
        finally:
            self._busy = False


try:  # signal.getsignal() wraps the answer in an enum, which costs 5 µs; the C function costs 0.1
    from _signal import getsignal as _raw_getsignal
except ImportError:  # another Python implementation
    _raw_getsignal = signal.getsignal

_ALARM = _Alarm()
