"""Hook timeouts: a hung callback bounded inline (SIGALRM) or on a worker thread, fail-closed blocks,
strict mode, quarantine of a plugin that overran, forks and other owners of SIGALRM."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from hermes_core.errors import HookCallbackTimeout


def _module(manager, key):
    return manager.get(key).module


HANGING_PLUGIN = """
import threading
RELEASE = threading.Event()
CALLS = []

def register(ctx):
    def hang(**kwargs):
        CALLS.append(1)
        RELEASE.wait()
        return {"action": "allow"}
    ctx.register_hook("{hook}", hang)
"""


@pytest.fixture(params=["inline", "threads"])
def timeout_path(request):
    """Both ways a timeout is enforced: the SIGALRM timer on the main thread, and worker threads."""
    return request.param


def _hanging(make_plugin, plugin_manager, hook, strict=False, extra=(), path="inline"):
    make_plugin("hang", HANGING_PLUGIN.replace("{hook}", hook))
    manager = plugin_manager(enabled=["hang", *extra], config={"plugins": {"hook_callback_timeout": 0.2}}, strict=strict)
    manager.hooks.inline_timeouts = path == "inline"
    return manager, _module(manager, "hang")


def test_a_hanging_callback_is_bounded_by_the_timeout(make_plugin, plugin_manager, caplog, timeout_path):
    make_plugin("z_after", "SEEN = []\ndef register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: SEEN.append(1))\n")
    manager, hang = _hanging(make_plugin, plugin_manager, "post_tool_call", extra=["z_after"], path=timeout_path)
    try:
        with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
            outcomes = manager.hooks.call("post_tool_call", {"tool_name": "x", "args": {}, "result": "", "task_id": "t", "duration_ms": 0})
        assert [o.timed_out for o in outcomes] == [True, False]
        assert _module(manager, "z_after").SEEN == [1]  # the call went on past the hung callback
        assert "timed out after 0.2 s" in caplog.text
        # Suppressed afterwards: the next call skips it instead of waiting again.
        outcomes = manager.hooks.call("post_tool_call", {"tool_name": "x", "args": {}, "result": "", "task_id": "t", "duration_ms": 0})
        assert [o.plugin for o in outcomes] == ["z_after"] and hang.CALLS == [1]
    finally:
        hang.RELEASE.set()


def test_a_timed_out_pre_tool_call_blocks(make_plugin, plugin_manager, timeout_path):
    manager, hang = _hanging(make_plugin, plugin_manager, "pre_tool_call", path=timeout_path)
    try:
        decision = manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
        assert decision is not None and "did not answer pre_tool_call within 0.2 s" in decision.message
        assert decision.plugin == "hang" and "plugin 'hang'" in decision.message
    finally:
        hang.RELEASE.set()


def test_strict_mode_raises_on_timeout(make_plugin, plugin_manager, timeout_path):
    manager, hang = _hanging(make_plugin, plugin_manager, "post_llm_call", strict=True, path=timeout_path)
    try:
        with pytest.raises(HookCallbackTimeout):
            manager.hooks.notify("post_llm_call", session_id="s", user_message="u", assistant_response="a", conversation_history=[], model="m", platform="cli")
    finally:
        hang.RELEASE.set()


def test_guarded_callbacks_see_the_callers_context_variables(make_plugin, plugin_manager):
    make_plugin(
        "ctxvar",
        """
import contextvars
REQUEST = contextvars.ContextVar("request", default="none")
SEEN = []
def register(ctx):
    ctx.register_hook("pre_llm_call", lambda **kw: SEEN.append(REQUEST.get()))
""",
    )
    manager = plugin_manager(enabled=["ctxvar"])
    module = _module(manager, "ctxvar")
    module.REQUEST.set("req-42")
    manager.hooks.pre_llm_call(session_id="s", user_message="u", conversation_history=[], is_first_turn=True, model="m", platform="cli")
    assert module.SEEN == ["req-42"]
    assert manager.hooks.timeout == 30  # the default guard was on


def test_timeout_zero_runs_callbacks_inline(make_plugin, plugin_manager):
    make_plugin("thread", "import threading\nSEEN = []\ndef register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: SEEN.append(threading.get_ident()))\n")
    manager = plugin_manager(enabled=["thread"], config={"plugins": {"hook_callback_timeout": 0}})
    manager.hooks.notify("post_tool_call", tool_name="x", args={}, result="", task_id="t", duration_ms=0)
    assert _module(manager, "thread").SEEN == [threading.get_ident()]


def test_a_suppressed_pre_tool_call_keeps_failing_closed(make_plugin, plugin_manager, timeout_path):
    manager, hang = _hanging(make_plugin, plugin_manager, "pre_tool_call", path=timeout_path)
    try:
        first = manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
        second = manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
        assert first is not None and second is not None and second.plugin == "hang"
        assert hang.CALLS == [1]  # the hung callback was not called again, yet the tool stays blocked
    finally:
        hang.RELEASE.set()


STUBBORN_PLUGIN = """
import threading, time
STATE = {"unwound": False, "thread": None}

def register(ctx):
    def stubborn(**kwargs):
        STATE["thread"] = threading.get_ident()
        try:
            time.sleep(30)
        except Exception:  # a plugin's own error handling must not swallow the timeout
            return "swallowed"
        finally:
            STATE["unwound"] = True
    ctx.register_hook("post_tool_call", stubborn)
"""


def _stubborn(make_plugin, plugin_manager):
    make_plugin("stubborn", STUBBORN_PLUGIN)
    manager = plugin_manager(enabled=["stubborn"], config={"plugins": {"hook_callback_timeout": 0.2}}, strict=False)
    return manager, _module(manager, "stubborn").STATE


POST_TOOL = {"tool_name": "x", "args": {}, "result": "", "task_id": "t", "duration_ms": 0}


def test_on_the_main_thread_a_hung_callback_is_stopped_where_it_runs(make_plugin, plugin_manager):
    manager, state = _stubborn(make_plugin, plugin_manager)
    (outcome,) = manager.hooks.call("post_tool_call", dict(POST_TOOL))
    assert outcome.timed_out and outcome.value is None  # not "swallowed": except Exception did not catch it
    assert state["thread"] == threading.get_ident()  # it ran inline, on the caller's thread ...
    assert state["unwound"] is True  # ... and was unwound, not left sleeping on an abandoned thread


def test_an_application_that_owns_sigalrm_keeps_it(make_plugin, plugin_manager):
    import signal

    fired = []

    def app_handler(signum, frame):
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, app_handler)
    try:
        manager, state = _stubborn(make_plugin, plugin_manager)
        (outcome,) = manager.hooks.call("post_tool_call", dict(POST_TOOL))
        assert outcome.timed_out  # still bounded, by a worker thread
        assert state["thread"] != threading.get_ident()
        assert signal.getsignal(signal.SIGALRM) is app_handler and fired == []
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_a_guarded_call_from_another_thread_is_bounded_by_a_worker(make_plugin, plugin_manager):
    manager, state = _stubborn(make_plugin, plugin_manager)
    outcomes = []
    caller = threading.Thread(target=lambda: outcomes.extend(manager.hooks.call("post_tool_call", dict(POST_TOOL))))
    caller.start()
    caller.join(timeout=20)
    assert not caller.is_alive() and [o.timed_out for o in outcomes] == [True]
    assert state["thread"] not in (threading.get_ident(), caller.ident)


HANGS_EVERYWHERE = """
import threading
RELEASE = threading.Event()
CALLS = []

def register(ctx):
    for hook in ("on_session_start", "pre_llm_call", "post_llm_call", "post_tool_call", "pre_tool_call", "on_session_reset"):
        def hang(_hook=hook, **kwargs):
            CALLS.append(_hook)
            RELEASE.wait()
        ctx.register_hook(hook, hang)
"""


def test_a_plugin_that_timed_out_once_is_quarantined_on_every_hook(make_plugin, plugin_manager, caplog, timeout_path):
    make_plugin("hang", HANGS_EVERYWHERE)
    make_plugin("z_after", "SEEN = []\ndef register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: SEEN.append(1))\n")
    manager = plugin_manager(enabled=["hang", "z_after"], config={"plugins": {"hook_callback_timeout": 0.2}}, strict=False)
    manager.hooks.inline_timeouts = timeout_path == "inline"
    hang = _module(manager, "hang")
    try:
        with caplog.at_level(logging.DEBUG, logger="hermes.plugins"):
            manager.hooks.notify("on_session_start", session_id="s", model="m", platform="cli")
            assert manager.hooks.quarantined == {"hang": "on_session_start"}
            # every other hook of the plugin, guarded or not, skips it without waiting
            assert manager.hooks.pre_llm_call(session_id="s", user_message="u", conversation_history=[], is_first_turn=True, model="m", platform="cli") == ""
            outcomes = manager.hooks.call("post_tool_call", dict(POST_TOOL))
            manager.hooks.notify("on_session_reset", session_id="s", platform="cli")
            decision = manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
        assert hang.CALLS == ["on_session_start"]  # one timeout for the whole session
        assert [o.plugin for o in outcomes] == ["z_after"] and _module(manager, "z_after").SEEN == [1]
        # its policy hook still fails closed, naming the quarantine and the way out
        assert decision is not None and decision.plugin == "hang"
        assert "quarantined since its on_session_start hook timed out" in decision.message
        assert "hermes plugins disable hang" in decision.message
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1, warnings
        (warning,) = warnings
        for part in ("plugin 'hang'", "hook 'on_session_start'", "timed out after 0.2 s", "quarantined",
                     "pre_tool_call blocks every tool", "hermes plugins disable hang"):
            assert part in warning
    finally:
        hang.RELEASE.set()


def test_quarantine_is_per_dispatcher_and_other_plugins_keep_running(make_plugin, plugin_manager, timeout_path):
    make_plugin("hang", HANGS_EVERYWHERE)
    make_plugin("fine", "SEEN = []\ndef register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: 'ctx')\n")
    manager = plugin_manager(enabled=["hang", "fine"], config={"plugins": {"hook_callback_timeout": 0.2}}, strict=False)
    manager.hooks.inline_timeouts = timeout_path == "inline"
    hang = _module(manager, "hang")
    try:
        kwargs = dict(session_id="s", user_message="u", conversation_history=[], is_first_turn=True, model="m", platform="cli")
        assert manager.hooks.pre_llm_call(**kwargs) == "ctx"
        assert manager.hooks.pre_llm_call(**kwargs) == "ctx"
        assert hang.CALLS == ["pre_llm_call"] and list(manager.hooks.quarantined) == ["hang"]
        assert "fine" not in manager.hooks.quarantined
    finally:
        hang.RELEASE.set()


def test_a_shorter_timeout_is_honoured_after_calls_with_a_longer_one(make_plugin, plugin_manager):
    make_plugin("quick", "def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: None)\n")
    patient = plugin_manager(enabled=["quick"], config={"plugins": {"hook_callback_timeout": 600}})
    patient.hooks.notify("post_tool_call", **POST_TOOL)
    from hermes_core.hooks import _ALARM

    _ALARM._wake.set()  # let the watchdog go round once and settle on the 600 s basis
    deadline = time.monotonic() + 10
    while _ALARM._sleep_basis != 600 and time.monotonic() < deadline:
        pass  # waits on the watchdog's own state (it runs whenever this thread yields the GIL)
    assert _ALARM._sleep_basis == 600
    manager, state = _stubborn(make_plugin, plugin_manager)
    started = time.monotonic()
    outcomes = {o.plugin: o for o in manager.hooks.call("post_tool_call", dict(POST_TOOL))}
    assert outcomes["stubborn"].timed_out and state["unwound"] and time.monotonic() - started < 20


def test_a_forked_child_still_bounds_hung_callbacks(make_plugin, plugin_manager):
    import multiprocessing

    from hermes_core.hooks import _ALARM

    make_plugin("quick", "def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: None)\n")
    plugin_manager(enabled=["quick"]).hooks.notify("post_tool_call", **POST_TOOL)
    assert _ALARM._watchdog is not None and _ALARM._watchdog.is_alive()  # this process has one
    manager, state = _stubborn(make_plugin, plugin_manager)

    def child() -> None:  # the watchdog thread did not survive the fork; the child needs its own
        started = time.monotonic()
        outcomes = {o.plugin: o for o in manager.hooks.call("post_tool_call", dict(POST_TOOL))}
        raise SystemExit(0 if outcomes["stubborn"].timed_out and time.monotonic() - started < 10 else 3)

    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join(timeout=60)
    assert process.exitcode == 0
