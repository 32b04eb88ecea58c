"""Timeouts off the main thread: a pool of worker threads, one abandoned per hung callback."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

from hermes_core.hooks.calls import run_callbacks
from hermes_core.hooks.outcomes import TIMED_OUT, Failures, HookCallback


class _Job:
    """Callbacks handed to a worker thread, with the progress the caller watches."""

    __slots__ = (
        "callbacks", "kwargs", "stop_on", "stop_on_failure", "durations",
        "index", "started", "values", "failures", "done", "lock", "abandoned", "finished", "clock",
    )

    def __init__(
        self,
        callbacks: list[HookCallback] | tuple[HookCallback, ...],
        kwargs: dict[str, Any],
        stop_on: Callable[[Any], bool] | None,
        stop_on_failure: bool,
        durations: list[float] | None,
        clock: Callable[[], float],
    ) -> None:
        self.callbacks = callbacks
        self.kwargs = kwargs
        self.stop_on = stop_on
        self.stop_on_failure = stop_on_failure
        self.durations = durations
        self.index = -1
        self.started = 0.0
        self.values: list[Any] = []
        self.failures: Failures = {}
        self.done = threading.Lock()
        self.done.acquire()
        self.lock = threading.Lock()
        self.abandoned = False
        self.finished = False
        #: What the worker stamps ``started`` with and the caller measures the timeout on.
        self.clock = clock


class _Worker:
    """A thread that runs jobs until one of its callbacks hangs and it is abandoned."""

    def __init__(self, pool: list[_Worker], pool_lock: threading.Lock) -> None:
        self._pool = pool
        self._pool_lock = pool_lock
        self._wakeup = threading.Lock()
        self._wakeup.acquire()
        self._job: _Job | None = None
        self._context: contextvars.Context | None = None
        threading.Thread(target=self._loop, name="hermes-hook-worker", daemon=True).start()

    def submit(self, job: _Job) -> None:
        self._job = job
        # The callbacks see the caller's context variables (tracing spans, request ids).
        self._context = contextvars.copy_context()
        self._wakeup.release()

    def _loop(self) -> None:
        while True:
            self._wakeup.acquire()
            job, context = self._job, self._context
            assert job is not None and context is not None
            context.run(self._run, job)
            if job.abandoned:
                return  # the caller moved on without this thread; let it end
            with self._pool_lock:
                self._pool.append(self)

    @staticmethod
    def _run(job: _Job) -> None:
        try:
            for index, callback in enumerate(job.callbacks):
                with job.lock:
                    if job.abandoned:
                        return
                    job.index = index
                    job.started = job.clock()
                durations: list[float] | None = [] if job.durations is not None else None
                values, failures = run_callbacks((callback,), job.kwargs, None, False, durations)
                with job.lock:
                    if job.abandoned:
                        return
                    job.values.append(values[0])
                    if durations is not None and job.durations is not None:
                        job.durations.extend(durations)
                    if failures:
                        job.failures[index] = failures[0]
                if failures and job.stop_on_failure:
                    break
                if not failures and job.stop_on is not None and job.stop_on(values[0]):
                    break
        finally:
            with job.lock:
                job.finished = True
            job.done.release()


def _acquire(done: threading.Lock, timeout: float) -> bool:
    return done.acquire(timeout=timeout)


class _GuardedRunner:
    """Runs a hook's callbacks on a worker thread so a hung one can be left behind.

    ``clock`` and ``wait`` are the caller's time: the clock the deadlines are measured on
    (``time.monotonic``) and how the caller waits for a job's ``done`` lock for at most so many
    seconds (``Lock.acquire``). A test passes its own to check every deadline and wait exactly,
    without waiting for real time to pass.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, wait: Callable[[threading.Lock, float], bool] = _acquire) -> None:
        self._idle: list[_Worker] = []
        self._idle_lock = threading.Lock()
        self._clock = clock
        self._wait_for_done = wait

    def _worker(self) -> _Worker:
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return _Worker(self._idle, self._idle_lock)

    def run(
        self,
        callbacks: list[HookCallback] | tuple[HookCallback, ...],
        kwargs: dict[str, Any],
        timeout: float,
        stop_on: Callable[[Any], bool] | None,
        stop_on_failure: bool,
        durations: list[float] | None,
    ) -> tuple[list[Any], Failures | None]:
        values: list[Any] = []
        failures: Failures = {}
        offset = 0
        remaining = callbacks
        while remaining:
            job = _Job(remaining, kwargs, stop_on, stop_on_failure, durations, self._clock)
            self._worker().submit(job)
            hung_index = self._wait(job, timeout)
            with job.lock:
                values.extend(job.values)
                failures.update({offset + i: f for i, f in job.failures.items()})
            if hung_index is None:
                break
            failures[offset + hung_index] = TIMED_OUT
            values.append(None)
            if durations is not None:
                durations.append(timeout * 1000)
            if stop_on_failure:
                break
            offset += hung_index + 1
            remaining = remaining[hung_index + 1 :]
        return values, failures or None

    def _wait(self, job: _Job, timeout: float) -> int | None:
        """Wait for ``job``; return the index of the callback that overran, after abandoning the job."""
        while True:
            with job.lock:
                if job.finished:
                    return None
                index, started = job.index, job.started
            wait_for = timeout if index < 0 else started + timeout - self._clock()
            if self._wait_for_done(job.done, max(wait_for, 0.0)):
                return None
            with job.lock:
                if job.finished:
                    return None
                if job.index == index and index >= 0 and self._clock() - job.started >= timeout:
                    job.abandoned = True
                    return index
