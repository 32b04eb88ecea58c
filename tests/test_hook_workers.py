"""The worker-thread path of guarded hooks (calls from other threads, or when the application owns
SIGALRM) keeps the same semantics as the inline path, and the inline alarm ignores late signals."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from hermes_core.hooks import _ALARM, _Overran

PRE_TOOL = {"tool_name": "terminal", "args": {}, "task_id": "t"}


@pytest.fixture(params=["inline", "threads"])
def path(request):
    return request.param


def _manager(make_plugin, plugin_manager, path, **plugins):
    for name, code in plugins.items():
        make_plugin(name, code)
    manager = plugin_manager(enabled=list(plugins), strict=False)
    manager.hooks.inline_timeouts = path == "inline"
    return manager


def test_a_block_stops_the_chain_on_both_paths(make_plugin, plugin_manager, path):
    manager = _manager(
        make_plugin, plugin_manager, path,
        a_block="def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'block', 'message': 'no'})\n",
        b_allow="CALLED = []\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: CALLED.append(1))\n",
    )
    decision = manager.hooks.pre_tool_call(**PRE_TOOL)
    assert decision is not None and (decision.message, decision.plugin) == ("no", "a_block")
    assert manager.get("b_allow").module.CALLED == []


def test_a_failure_stops_the_pre_tool_call_chain_on_both_paths(make_plugin, plugin_manager, path):
    manager = _manager(
        make_plugin, plugin_manager, path,
        a_fail="def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: 1 / 0)\n",
        b_allow="CALLED = []\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: CALLED.append(1))\n",
    )
    decision = manager.hooks.pre_tool_call(**PRE_TOOL)
    assert decision.plugin == "a_fail" and manager.get("b_allow").module.CALLED == []


def test_transform_takes_the_first_string_on_both_paths(make_plugin, plugin_manager, path):
    manager = _manager(
        make_plugin, plugin_manager, path,
        a_none="def register(ctx):\n    ctx.register_hook('transform_tool_result', lambda **kw: None)\n",
        b_text="def register(ctx):\n    ctx.register_hook('transform_tool_result', lambda **kw: 'B')\n",
        c_text="CALLED = []\ndef register(ctx):\n    ctx.register_hook('transform_tool_result', lambda **kw: CALLED.append(1) or 'C')\n",
    )
    result = manager.hooks.transform("transform_tool_result", tool_name="x", args={}, result="r", task_id="t", duration_ms=0)
    assert result == "B" and manager.get("c_text").module.CALLED == []


def test_durations_are_measured_on_both_paths(make_plugin, plugin_manager, path):
    manager = _manager(make_plugin, plugin_manager, path, busy="def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: sum(range(50000)))\n")
    (outcome,) = manager.hooks.call("post_tool_call", {"tool_name": "x", "args": {}, "result": "", "task_id": "t", "duration_ms": 0})
    assert outcome.value == sum(range(50000)) and outcome.duration_ms > 0


def test_workers_are_named_daemon_threads_reused_between_calls(make_plugin, plugin_manager):
    code = "import threading\nSEEN = []\ndef register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: SEEN.append((threading.current_thread().name, threading.current_thread().daemon, threading.current_thread())))\n"
    manager = _manager(make_plugin, plugin_manager, "threads", seen=code)
    for _ in range(3):
        manager.hooks.notify("post_tool_call", tool_name="x", args={}, result="", task_id="t", duration_ms=0)
    seen = manager.get("seen").module.SEEN
    # the documented thread name; daemon, so a hung callback never keeps the process alive at exit
    assert [(name, daemon) for name, daemon, _ in seen] == [("hermes-hook-worker", True)] * 3
    # one worker, reused: compared as thread objects (kept alive by the list), since a new thread may get
    # the identifier of one that has ended
    assert all(thread is seen[0][2] for _, _, thread in seen) and seen[0][2] is not threading.current_thread()


@pytest.fixture
def alarm_state():
    saved = (_ALARM._busy, _ALARM.calling, _ALARM.started, _ALARM._timeout)
    yield _ALARM
    _ALARM._busy, _ALARM.calling, _ALARM.started, _ALARM._timeout = saved


def test_a_late_alarm_signal_interrupts_nothing(alarm_state):
    alarm = alarm_state
    now = time.monotonic()
    # the callback finished (calling False) or no call is running (busy False) before the signal arrived
    for busy, calling, started in ((True, False, now - 100), (False, True, now - 100), (False, False, now - 100)):
        alarm._busy, alarm.calling, alarm.started, alarm._timeout = busy, calling, started, 1.0
        alarm._on_alarm(signal.SIGALRM, None)
    # a callback that started just now has not overrun yet
    alarm._busy, alarm.calling, alarm.started, alarm._timeout = True, True, now, 10.0
    alarm._on_alarm(signal.SIGALRM, None)


def test_an_overdue_callback_is_interrupted_once(alarm_state):
    alarm = alarm_state
    alarm._busy, alarm.calling, alarm.started, alarm._timeout = True, True, time.monotonic() - 5, 1.0
    with pytest.raises(_Overran):
        alarm._on_alarm(signal.SIGALRM, None)
    assert alarm.calling is False
    alarm._on_alarm(signal.SIGALRM, None)  # a second signal for the same callback does not raise again


def test_the_debug_trace_names_each_callbacks_result(make_plugin, plugin_manager, monkeypatch, capsys):
    monkeypatch.setenv("HERMES_PLUGINS_DEBUG", "1")
    results = {
        "a_none": "None", "b_text": "'text'", "c_fail": "1 / 0", "d_block": "{'action': 'block'}",
    }
    for name, value in results.items():
        make_plugin(name, f"def register(ctx):\n    ctx.register_hook('transform_terminal_output', lambda **kw: {value})\n")
    manager = plugin_manager(enabled=list(results), strict=False)
    capsys.readouterr()
    manager.hooks.call("transform_terminal_output", {"command": "ls", "output": "x", "returncode": 0, "task_id": "t"})
    lines = [line for line in capsys.readouterr().err.splitlines() if "hook transform_terminal_output" in line]
    kinds = {line.split("plugin '")[1].split("'")[0]: line.rsplit("-> ", 1)[1] for line in lines}
    assert kinds == {"a_none": "none", "b_text": "str", "c_fail": "error (ZeroDivisionError: division by zero)", "d_block": "block"}


HANG_ON_WORKER = """
import threading
RELEASE = threading.Event()
def register(ctx):
    ctx.register_hook('post_tool_call', lambda **kw: RELEASE.wait(30))
"""


def test_on_the_worker_path_every_callback_keeps_its_own_place_around_two_hangs(make_plugin, plugin_manager):
    raising = "def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: {error})\n"
    for name, code in {
        "a_hang": HANG_ON_WORKER,
        "b_ok": "def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: 'b')\n",
        "c_hang": HANG_ON_WORKER,
        "d_fails": raising.format(error="1 / 0"),
        "e_fails": raising.format(error="[][1]"),
    }.items():
        make_plugin(name, code)
    manager = plugin_manager(enabled=["a_hang", "b_ok", "c_hang", "d_fails", "e_fails"], config={"plugins": {"hook_callback_timeout": 0.2}}, strict=False)
    manager.hooks.inline_timeouts = False
    try:
        outcomes = manager.hooks.call("post_tool_call", {"tool_name": "x", "args": {}, "result": "", "task_id": "t", "duration_ms": 0})
    finally:
        for name in ("a_hang", "c_hang"):
            manager.get(name).module.RELEASE.set()
    assert [o.plugin for o in outcomes] == ["a_hang", "b_ok", "c_hang", "d_fails", "e_fails"]
    assert [o.timed_out for o in outcomes] == [True, False, True, False, False]
    assert outcomes[1].value == "b" and outcomes[1].error is None
    assert isinstance(outcomes[3].error, ZeroDivisionError) and isinstance(outcomes[4].error, IndexError)
    assert outcomes[0].duration_ms == pytest.approx(200.0) and outcomes[2].duration_ms == pytest.approx(200.0)  # the timeout, in ms


def test_on_the_worker_path_a_later_block_is_still_seen(make_plugin, plugin_manager):
    manager = _manager(
        make_plugin, plugin_manager, "threads",
        a_allow="def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: None)\n",
        b_block="def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'block', 'message': 'late no'})\n",
    )
    decision = manager.hooks.pre_tool_call(**PRE_TOOL)
    assert decision is not None and (decision.plugin, decision.message) == ("b_block", "late no")
    (outcome,) = [o for o in manager.hooks.call("pre_tool_call", dict(PRE_TOOL)) if o.plugin == "b_block"]
    assert outcome.value == {"action": "block", "message": "late no"}


def test_on_the_worker_path_a_failure_is_reported_as_itself(make_plugin, plugin_manager):
    manager = _manager(make_plugin, plugin_manager, "threads", fails="def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: 1 / 0)\n")
    (outcome,) = manager.hooks.call("post_tool_call", {"tool_name": "x", "args": {}, "result": "", "task_id": "t", "duration_ms": 0})
    assert isinstance(outcome.error, ZeroDivisionError) and not outcome.timed_out


def test_an_abandoned_worker_ends_when_its_hung_callback_returns_and_runs_nothing_more(make_plugin, plugin_manager):
    make_plugin(
        "a_hang",
        "import threading\nRELEASE = threading.Event()\nTHREADS = []\n"
        "def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: THREADS.append(threading.current_thread()) or RELEASE.wait(30))\n",
    )
    make_plugin("b_count", "CALLS = []\ndef register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: CALLS.append(1))\n")
    manager = plugin_manager(enabled=["a_hang", "b_count"], config={"plugins": {"hook_callback_timeout": 0.2}}, strict=False)
    manager.hooks.inline_timeouts = False
    hang = manager.get("a_hang").module
    try:
        outcomes = manager.hooks.call("post_tool_call", {"tool_name": "x", "args": {}, "result": "", "task_id": "t", "duration_ms": 0})
    finally:
        hang.RELEASE.set()
    assert [o.timed_out for o in outcomes] == [True, False]
    (abandoned,) = hang.THREADS
    abandoned.join(timeout=30)  # the hung callback has returned: its thread must end, not go back to work
    assert not abandoned.is_alive()
    assert manager.get("b_count").module.CALLS == [1]  # the later callback ran once, on the caller's new worker


# -- the caller's deadlines, on a clock the test sets -------------------------------------------------
# The runner takes its clock and its wait for a job from its constructor, so these tests check every
# wait the caller computes, and when it abandons a callback, exactly: a bound that fires late, early or
# never is a bug the suite sees without timing anything.


class _Waits:
    """A clock the test sets, and a wait for a job's ``done`` lock that records how long the caller
    asked to wait, then runs the next step of the scenario (what the worker did meanwhile), whose
    answer says whether the job ended within the wait."""

    def __init__(self, now: float, steps=()) -> None:
        self.now = now
        self.waits: list[float] = []
        self.steps = list(steps)

    def clock(self) -> float:
        return self.now

    def wait(self, done: threading.Lock, seconds: float) -> bool:
        self.waits.append(seconds)
        assert self.steps, f"the caller waited again ({self.waits}) where it should have returned"
        return self.steps.pop(0)(done)


def _job(time_: _Waits, index: int, started: float = 0.0):
    from hermes_core.hooks.outcomes import HookCallback
    from hermes_core.hooks.workers import _Job

    callbacks = [HookCallback(f"p{i}", "post_tool_call", lambda **kw: None, None) for i in range(3)]
    job = _Job(callbacks, {}, None, False, None, time_.clock)
    job.index, job.started = index, started
    return job


def _at(time_: _Waits, now: float, ended: bool = False):
    def step(done) -> bool:
        time_.now = now
        return ended
    return step


def _runner(time_: _Waits):
    from hermes_core.hooks import _GuardedRunner

    return _GuardedRunner(clock=time_.clock, wait=time_.wait)


def test_a_worker_not_yet_started_gets_whole_bounds_and_is_never_abandoned():
    time_ = _Waits(100.0)
    job = _job(time_, index=-1)  # the worker thread has not begun the first callback (a busy machine)
    time_.steps = [_at(time_, 105.0), _at(time_, 107.0, ended=True)]
    assert _runner(time_)._wait(job, 5.0) is None
    assert time_.waits == [5.0, 5.0] and not job.abandoned  # nothing overran: nothing ran


def test_a_running_callback_is_abandoned_at_its_deadline_exactly():
    time_ = _Waits(101.0, [])
    job = _job(time_, index=0, started=100.0)
    time_.steps = [_at(time_, 105.0)]
    assert _runner(time_)._wait(job, 5.0) == 0
    assert time_.waits == [4.0] and job.abandoned  # what was left of the bound, not a whole one


def test_a_wake_up_before_the_deadline_waits_for_the_rest():
    time_ = _Waits(104.75, [])
    job = _job(time_, index=1, started=100.0)
    time_.steps = [_at(time_, 104.875), _at(time_, 105.0)]
    assert _runner(time_)._wait(job, 5.0) == 1
    assert time_.waits == [0.25, 0.125] and job.abandoned


def test_a_callback_that_finished_in_time_is_not_blamed_for_the_next_ones_bound():
    time_ = _Waits(100.0, [])
    job = _job(time_, index=0, started=100.0)

    def next_callback_started(done) -> bool:  # the first returned at 104.5 and the second began
        job.index, job.started, time_.now = 1, 104.5, 105.0
        return False

    time_.steps = [next_callback_started, _at(time_, 106.0, ended=True)]
    assert _runner(time_)._wait(job, 5.0) is None
    assert time_.waits == [5.0, 4.5] and not job.abandoned  # the second callback's own deadline


def test_a_callback_ending_as_its_deadline_passes_keeps_its_value_and_is_not_reported_timed_out():
    go = threading.Event()
    time_ = _Waits(100.0, [])

    def ends_at_the_deadline(done: threading.Lock) -> bool:
        # the worker's callback returns, and the wait runs out in the same instant: the caller's
        # wait reports "not done", but the worker has finished
        go.set()
        assert done.acquire(timeout=60)
        time_.now = 105.0
        return False

    time_.steps = [ends_at_the_deadline]
    from hermes_core.hooks import HookCallback

    callback = HookCallback("slow", "post_tool_call", lambda **kw: go.wait(60) and "done", None)
    values, failures = _runner(time_).run([callback], {}, 5.0, None, False, None)
    assert (values, failures) == (["done"], None)
    assert time_.waits == [5.0]
