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
        fresh._timeout = 600.0  # its watchdog thread lives on (daemon): let it sleep long
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
    assert alarm.usable()
    alarm._busy = alarm.calling = True
    alarm._main_thread = -1
    alarm._after_fork()
    assert alarm._watchdog is None and not alarm._busy and not alarm.calling
    assert alarm._main_thread == threading.main_thread().ident
    assert alarm.usable() and alarm._watchdog is not None and alarm._watchdog.is_alive()  # a new one is started


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
