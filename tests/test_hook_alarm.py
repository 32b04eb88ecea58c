"""The inline timeout alarm on its own: a fresh ``_Alarm`` per test, so that its setup, its watchdog
thread and its signal handling are exercised here rather than once per process at import."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from hermes_core.hooks import TIMED_OUT, HookCallback, _Alarm


@pytest.fixture
def alarm():
    """A new alarm, with SIGALRM back at its default so the alarm may claim it; restored afterwards."""
    previous = signal.signal(signal.SIGALRM, signal.SIG_DFL)
    fresh = _Alarm()
    try:
        yield fresh
    finally:
        # its watchdog thread lives on (daemon): let it sleep long, with no call it could think overdue
        # (a signal it sent after SIGALRM is back at its default would end the process)
        fresh._busy = fresh.calling = False
        fresh._timeout = 600.0
        fresh._wake.set()
        signal.signal(signal.SIGALRM, previous)


def _callback(name: str, function) -> HookCallback:
    return HookCallback(name, "post_tool_call", function, None)


def _hang(**kwargs):
    threading.Event().wait()  # returns only when the alarm interrupts it


def test_a_new_alarm_claims_sigalrm_and_starts_one_watchdog(alarm):
    assert alarm.usable()
    assert signal.getsignal(signal.SIGALRM) == alarm._handler
    watchdog = alarm._watchdog
    assert watchdog is not None and watchdog.is_alive() and watchdog.daemon and watchdog.name == "hermes-hook-watchdog"
    assert alarm.usable() and alarm._watchdog is watchdog  # the second use reuses it


def test_an_alarm_is_not_used_off_the_main_thread(alarm):
    answers = []
    thread = threading.Thread(target=lambda: answers.append(alarm.usable()))
    thread.start()
    thread.join()
    assert answers == [False]
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL  # nothing was installed


def test_an_alarm_leaves_an_applications_sigalrm_alone(alarm):
    def app_handler(signum, frame):
        pass

    signal.signal(signal.SIGALRM, app_handler)
    assert not alarm.usable() and signal.getsignal(signal.SIGALRM) is app_handler and alarm._watchdog is None
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    assert alarm.usable()
    # the application takes SIGALRM back, or resets it to the default: the alarm stays out from then on
    signal.signal(signal.SIGALRM, app_handler)
    assert not alarm.usable()
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    assert not alarm.usable() and signal.getsignal(signal.SIGALRM) == signal.SIG_DFL


def test_a_hung_callback_is_interrupted_and_the_next_one_runs(alarm):
    assert alarm.usable()
    ran = []
    callbacks = [_callback("hangs", _hang), _callback("after", lambda **kw: ran.append(threading.get_ident()) or "after")]
    durations: list[float] = []
    values, failures = alarm.run(callbacks, {}, 0.2, None, False, durations)
    assert values == [None, "after"] and failures == {0: TIMED_OUT}
    assert ran == [threading.get_ident()]  # inline, on the caller's thread
    assert len(durations) == 2 and durations[0] >= 200
    assert not alarm._busy and not alarm.calling
    assert alarm.usable()  # free for the next call


def test_a_callback_inside_a_guarded_call_cannot_use_the_alarm_again(alarm):
    assert alarm.usable()
    seen = []
    values, failures = alarm.run([_callback("nested", lambda **kw: seen.append(alarm.usable()))], {}, 5.0, None, False, None)
    assert seen == [False] and failures is None


def test_stop_on_and_stop_on_failure_end_the_chain(alarm):
    assert alarm.usable()
    later = []
    chain = [_callback("a", lambda **kw: "stop"), _callback("b", lambda **kw: later.append(1))]
    assert alarm.run(chain, {}, 5.0, lambda v: v == "stop", False, None) == (["stop"], None)
    failing = [_callback("a", _hang), _callback("b", lambda **kw: later.append(1))]
    values, failures = alarm.run(failing, {}, 0.2, None, True, None)
    assert values == [None] and failures == {0: TIMED_OUT} and later == []


def test_a_shorter_timeout_wakes_a_watchdog_sleeping_on_a_longer_one(alarm):
    assert alarm.usable()
    alarm.run([_callback("quick", lambda **kw: None)], {}, 600.0, None, False, None)
    alarm._wake.set()
    deadline = time.monotonic() + 10
    while alarm._sleep_basis != 600.0 and time.monotonic() < deadline:
        pass  # waits on the watchdog's own state (it runs whenever this thread yields the GIL)
    assert alarm._sleep_basis == 600.0
    started = time.monotonic()
    values, failures = alarm.run([_callback("hangs", _hang)], {}, 0.2, None, False, None)
    assert failures == {0: TIMED_OUT} and time.monotonic() - started < 60


def test_after_a_fork_the_alarm_starts_over_without_a_watchdog(alarm):
    # forked in the middle of a guarded call (a callback that forks): the child is not inside that call.
    # Checked first on an alarm whose watchdog never ran, so that a child left "busy" is seen as
    # refusing the alarm rather than as a watchdog signalling this process.
    alarm._busy = alarm.calling = True
    alarm._main_thread = -1
    alarm._after_fork()
    assert alarm.usable() and alarm._watchdog is not None and alarm._watchdog.is_alive()
    # forked while this process's watchdog ran: that thread does not exist in the child, a new one is started
    first = alarm._watchdog
    alarm._after_fork()
    assert alarm._watchdog is None and not alarm._busy and not alarm.calling
    assert alarm._main_thread == threading.main_thread().ident
    assert alarm.usable() and alarm._watchdog is not None and alarm._watchdog is not first and alarm._watchdog.is_alive()


def test_the_alarm_raises_only_for_an_overdue_running_callback(alarm):
    from hermes_core.hooks import _Overran

    alarm._timeout = 1.0
    alarm._busy, alarm.calling, alarm.started = True, True, time.monotonic()
    alarm._on_alarm(signal.SIGALRM, None)  # not overdue yet
    assert alarm.calling
    alarm.started -= 5.0
    with pytest.raises(_Overran):
        alarm._on_alarm(signal.SIGALRM, None)
    assert not alarm.calling
    alarm.calling = True
    alarm._busy = False
    alarm._on_alarm(signal.SIGALRM, None)  # no guarded call in progress: nothing to interrupt


def test_a_forked_child_gets_its_own_watchdog_and_stays_inline(alarm):
    import multiprocessing

    assert alarm.usable()  # this process's watchdog is running; it does not survive a fork

    def child() -> None:
        caller = threading.get_ident()
        inline = alarm.usable()
        seen: list[int] = []
        chain = [_callback("hangs", _hang), _callback("after", lambda **kw: seen.append(threading.get_ident()))]
        values, failures = alarm.run(chain, {}, 0.2, None, False, None)
        alive = alarm._watchdog is not None and alarm._watchdog.is_alive()
        raise SystemExit(0 if inline and alive and failures == {0: TIMED_OUT} and seen == [caller] else 3)

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(timeout=60)
    if process.exitcode is None:  # the hung callback was never interrupted
        process.kill()
        process.join()
    assert process.exitcode == 0


# -- the watchdog's arithmetic, on a clock the test sets --------------------------------------------
# The watchdog and the signal handler take their clock and their sleep from the alarm, so these tests
# drive the watchdog's loop on this thread, one sleep at a time, and check every computed sleep and
# signal exactly: a bound that fires late or early is a bug the suite sees without timing anything.


class _Stop(Exception):
    """Ends a scripted watchdog run after its last step."""


class _Time:
    """A clock the test sets, and a sleep that records how long the watchdog asked to sleep, then runs
    the next step of the scenario (what happened meanwhile) instead of waiting."""

    def __init__(self, now: float, steps) -> None:
        self.now = now
        self.sleeps: list[float] = []
        self._steps = list(steps)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if not self._steps:
            raise _Stop
        self._steps.pop(0)()


@pytest.fixture
def signals():
    """SIGALRM recorded instead of acted on (the watchdog under test signals this, the main, thread)."""
    received: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: received.append(signum))
    try:
        yield received
    finally:
        signal.signal(signal.SIGALRM, previous)


def _running(alarm: _Alarm, started: float, timeout: float) -> None:
    alarm._timeout, alarm._busy, alarm.calling, alarm.started = timeout, True, True, started


def test_the_watchdog_sleeps_until_the_running_callbacks_deadline_and_signals_at_it(signals):
    time_ = _Time(100.0, [])
    alarm = _Alarm(clock=time_.clock, sleep=time_.sleep)

    def starts() -> None:  # a callback with a 5 s bound started at 100; it is 102 now
        _running(alarm, 100.0, 5.0)
        time_.now = 102.0

    def later(now: float):
        def step() -> None:
            time_.now = now
        return step

    def between_callbacks() -> None:  # the callback returned; the next has not started (its start not noted yet)
        alarm.calling = False
        time_.now = 200.0

    def call_over() -> None:
        alarm._busy, alarm.calling = False, True

    time_._steps = [starts, later(104.5), later(105.0), between_callbacks, call_over]
    with pytest.raises(_Stop):
        alarm._watch()
    # idle: one second; then exactly what is left of the bound (3 s, then 0.5 s); at the deadline a
    # signal and a short look again; no call running: one whole timeout
    assert time_.sleeps == [1.0, 3.0, 0.5, 0.05, 5.0, 5.0]
    assert signals == [signal.SIGALRM]  # once, at 105.0, never before the deadline nor between callbacks


def test_a_short_bound_is_looked_at_again_within_its_own_length(signals):
    time_ = _Time(10.0, [])
    alarm = _Alarm(clock=time_.clock, sleep=time_.sleep)
    _running(alarm, 10.0, 0.01)
    time_.now = 10.25  # overdue: signalled, then looked at again after one bound, not after 50 ms

    with pytest.raises(_Stop):
        alarm._watch()
    assert time_.sleeps == [0.01] and signals == [signal.SIGALRM]


def test_the_watchdog_never_sleeps_a_negative_or_zero_time(signals):
    time_ = _Time(50.0, [])
    alarm = _Alarm(clock=time_.clock, sleep=time_.sleep)
    _running(alarm, 50.0, 2.0)

    def almost() -> None:
        time_.now = 51.9990234375  # 0.0009765625 s (2**-10) left: less than the shortest sleep

    time_._steps = [almost]
    with pytest.raises(_Stop):
        alarm._watch()
    assert time_.sleeps == [2.0, 0.001] and signals == []


class _ShorterBoundMidRead(_Alarm):
    """An alarm whose watchdog sees a call with a shorter bound begin between two of its reads of the
    bound (``run()`` sets it on the main thread while the watchdog runs)."""

    def __init__(self, reads: list[float], **kwargs) -> None:
        self._reads = reads
        super().__init__(**kwargs)

    @property
    def _timeout(self) -> float:  # type: ignore[override]
        return self._reads.pop(0) if self._reads else self._set

    @_timeout.setter
    def _timeout(self, value: float) -> None:
        self._set = value


def test_a_shorter_bound_set_while_the_watchdog_reads_the_old_one_is_the_one_it_sleeps_on(signals):
    time_ = _Time(0.0, [])
    alarm = _ShorterBoundMidRead([5.0, 0.25, 0.25], clock=time_.clock, sleep=time_.sleep)
    alarm._timeout = 0.25
    with pytest.raises(_Stop):
        alarm._watch()  # the watchdog goes on, and sleeps on the new bound, not the old one
    assert time_.sleeps == [0.25] and alarm._sleep_basis == 0.25


def test_the_signal_handler_interrupts_at_the_deadline_exactly_and_not_before():
    from hermes_core.hooks import _Overran

    time_ = _Time(104.5, [])
    alarm = _Alarm(clock=time_.clock, sleep=time_.sleep)
    _running(alarm, 100.0, 5.0)
    alarm._on_alarm(signal.SIGALRM, None)  # 0.5 s left: the watchdog's view was a moment old
    assert alarm.calling
    time_.now = 105.0
    with pytest.raises(_Overran):
        alarm._on_alarm(signal.SIGALRM, None)
    assert not alarm.calling


def test_a_signal_before_the_first_callback_starts_interrupts_nothing():
    # run() marks the alarm busy, then run_callbacks notes the first callback's start: a signal in
    # between (the watchdog's view of an earlier call) finds no callback running and must not raise
    # outside every callback's isolation
    time_ = _Time(10_000.0, [])
    alarm = _Alarm(clock=time_.clock, sleep=time_.sleep)
    alarm._timeout, alarm._busy = 1.0, True
    alarm._on_alarm(signal.SIGALRM, None)
    assert not alarm.calling
