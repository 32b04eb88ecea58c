"""Hook dispatch: isolation, kwargs filtering, return semantics, order, timeouts, strict mode."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from hermes_core.errors import HookCallbackTimeout

RECORDING_PLUGIN = """
CALLS = []

def register(ctx):
    def narrow(tool_name, args):
        CALLS.append(("narrow", tool_name, dict(args)))

    def wide(**kwargs):
        CALLS.append(("wide", sorted(kwargs)))

    ctx.register_hook("post_tool_call", narrow)
    ctx.register_hook("post_tool_call", wide)
"""


def _module(manager, key):
    return manager.get(key).module


def test_callback_receives_only_the_kwargs_it_declares(make_plugin, plugin_manager):
    make_plugin("rec", RECORDING_PLUGIN)
    manager = plugin_manager(enabled=["rec"])
    manager.hooks.notify("post_tool_call", tool_name="terminal", args={"cmd": "ls"}, result="{}", task_id="t1", duration_ms=1.0)
    calls = _module(manager, "rec").CALLS
    assert calls[0] == ("narrow", "terminal", {"cmd": "ls"})
    assert calls[1] == ("wide", ["args", "duration_ms", "result", "task_id", "telemetry_schema_version", "tool_name"])


def test_a_raising_callback_is_logged_once_and_the_call_goes_on(make_plugin, plugin_manager, caplog):
    make_plugin("boom", "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: 1 / 0)\n")
    make_plugin("after", "SEEN = []\ndef register(ctx):\n    ctx.register_hook('on_session_start', lambda session_id, **kw: SEEN.append(session_id))\n")
    manager = plugin_manager(enabled=["boom", "after"], strict=False)
    with caplog.at_level(logging.DEBUG, logger="hermes.plugins"):
        for session in ("s1", "s2", "s3"):
            manager.hooks.notify("on_session_start", session_id=session, model="m", platform="cli")
    assert _module(manager, "after").SEEN == ["s1", "s2", "s3"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "ZeroDivisionError" in r.getMessage()]
    assert len(warnings) == 1
    assert "plugin 'boom'" in warnings[0].getMessage() and "on_session_start" in warnings[0].getMessage()


def test_strict_mode_reraises_the_callback_error(make_plugin, plugin_manager):
    make_plugin("boom", "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: 1 / 0)\n")
    manager = plugin_manager(enabled=["boom"], strict=True)
    with pytest.raises(ZeroDivisionError):
        manager.hooks.notify("on_session_start", session_id="s", model="m", platform="cli")


@pytest.mark.parametrize(
    "directive, expected",
    [
        ({"action": "block", "message": "no rm"}, "no rm"),
        ({"decision": "block", "reason": "policy says no"}, "policy says no"),
    ],
)
def test_pre_tool_call_block_directive_wins(make_plugin, plugin_manager, directive, expected):
    make_plugin("guard", f"def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {directive!r})\n")
    make_plugin("later", "CALLED = []\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: CALLED.append(1))\n")
    manager = plugin_manager(enabled=["guard", "later"])
    decision = manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
    assert decision is not None and decision.message == expected and decision.plugin == "guard"
    assert _module(manager, "later").CALLED == []  # the first block stops the call


def test_pre_tool_call_lets_the_tool_run_when_nobody_blocks(make_plugin, plugin_manager):
    make_plugin("observer", "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'allow'})\n")
    manager = plugin_manager(enabled=["observer"])
    assert manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t") is None


def test_pre_tool_call_fails_closed_when_a_callback_raises(make_plugin, plugin_manager):
    make_plugin("broken", "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {}['missing'])\n")
    manager = plugin_manager(enabled=["broken"], strict=False)
    decision = manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
    assert decision is not None and "KeyError" in decision.message and decision.plugin == "broken"


def test_pre_llm_call_collects_every_context_in_order(make_plugin, plugin_manager):
    make_plugin("a_first", "def register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: 'alpha')\n")
    make_plugin("b_second", "def register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: {'context': 'beta'})\n")
    make_plugin("c_none", "def register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: None)\n")
    manager = plugin_manager(enabled=["a_first", "b_second", "c_none"])
    assert manager.hooks.pre_llm_call(session_id="s", user_message="hi", conversation_history=[], is_first_turn=True, model="m", platform="cli") == "alpha\n\nbeta"


def test_transform_first_string_replaces(make_plugin, plugin_manager):
    make_plugin("a_none", "def register(ctx):\n    ctx.register_hook('transform_tool_result', lambda **kw: None)\n")
    make_plugin("b_upper", "def register(ctx):\n    ctx.register_hook('transform_tool_result', lambda result, **kw: result.upper())\n")
    make_plugin("c_other", "def register(ctx):\n    ctx.register_hook('transform_tool_result', lambda **kw: 'ignored')\n")
    manager = plugin_manager(enabled=["a_none", "b_upper", "c_other"])
    assert manager.hooks.transform("transform_tool_result", tool_name="x", arguments={}, result="ok", task_id="t") == "OK"
    assert plugin_manager(enabled=["a_none"]).hooks.transform("transform_terminal_output", command="ls", output="o", exit_code=0, cwd="/", task_id="t") is None


def test_order_is_discovery_order_with_tryfirst_and_trylast(make_plugin, plugin_manager):
    template = """
from hermes_core import hookimpl
ORDER = __import__('builtins').__dict__.setdefault('_hermes_test_order', [])

@hookimpl{opts}
def on_session_reset(session_id, platform):
    ORDER.append({name!r})
"""
    for name, opts in [("p1", "(trylast=True)"), ("p2", ""), ("p3", "(tryfirst=True)"), ("p4", ""), ("p5", "(trylast=True)")]:
        make_plugin(name, template.format(opts=opts, name=name))
    import builtins

    builtins.__dict__["_hermes_test_order"] = []
    try:
        manager = plugin_manager(enabled=["p1", "p2", "p3", "p4", "p5"])
        manager.hooks.notify("on_session_reset", session_id="s", platform="cli")
        assert builtins.__dict__["_hermes_test_order"] == ["p3", "p2", "p4", "p1", "p5"]
    finally:
        del builtins.__dict__["_hermes_test_order"]


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


def test_async_callbacks_are_awaited(make_plugin, plugin_manager):
    make_plugin("asyncp", "async def ctx_cb(**kw):\n    return 'from async'\ndef register(ctx):\n    ctx.register_hook('pre_llm_call', ctx_cb)\n")
    manager = plugin_manager(enabled=["asyncp"])
    assert manager.hooks.pre_llm_call(session_id="s", user_message="u", conversation_history=[], is_first_turn=False, model="m", platform="cli") == "from async"


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


def test_dict_subclasses_count_as_block_directives(make_plugin, plugin_manager):
    make_plugin("ordered", "from collections import OrderedDict\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: OrderedDict(action='block', message='ordered no'))\n")
    assert plugin_manager(enabled=["ordered"]).hooks.pre_tool_call(tool_name="x", args={}, task_id="t").message == "ordered no"


def test_call_reports_durations(make_plugin, plugin_manager):
    make_plugin("timed", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: sum(range(20000)))\n")
    (outcome,) = plugin_manager(enabled=["timed"]).hooks.call("on_session_reset", {"session_id": "s", "platform": "cli"})
    assert outcome.duration_ms > 0 and outcome.value == sum(range(20000))


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


def test_has_listeners_counts_callbacks_and_monitors(make_plugin, plugin_manager):
    make_plugin("quick", "def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: None)\n")
    hooks = plugin_manager(enabled=["quick"]).hooks
    assert hooks.has_listeners("post_tool_call") and not hooks.has_listeners("pre_llm_call")
    undo = hooks.add_monitor(lambda hook, kwargs: None, lambda *args: None)
    assert hooks.has_listeners("pre_llm_call")
    undo()
    assert not hooks.has_listeners("pre_llm_call")


# --- a quarantined plugin in a fail-closed chain -------------------------------------------------
# The quarantine is entered as a timeout leaves it (``hooks.quarantined``), so these need not wait for one.

QUARANTINE_PRE_TOOL = {"tool_name": "terminal", "args": {}, "task_id": "t"}


def _quarantined_manager(make_plugin, plugin_manager, quarantined="b_held", **plugins):
    for name, code in plugins.items():
        make_plugin(name, code)
    manager = plugin_manager(enabled=list(plugins), strict=False)
    manager.hooks.quarantined[quarantined] = "post_tool_call"
    return manager


def _pre_tool_hook(value: str) -> str:
    return f"def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {value})\n"


def test_a_quarantined_plugin_without_a_policy_hook_blocks_nothing(make_plugin, plugin_manager):
    manager = _quarantined_manager(
        make_plugin, plugin_manager,
        a_allows=_pre_tool_hook("None"),
        b_held="def register(ctx):\n    ctx.register_hook('post_tool_call', lambda **kw: None)\n",
    )
    assert manager.hooks.pre_tool_call(**QUARANTINE_PRE_TOOL) is None


def test_the_quarantined_check_answers_last_in_its_own_place(make_plugin, plugin_manager):
    manager = _quarantined_manager(make_plugin, plugin_manager, a_allows=_pre_tool_hook("None"), b_held=_pre_tool_hook("None"), c_later=_pre_tool_hook("None"))
    outcomes = manager.hooks.call("pre_tool_call", dict(QUARANTINE_PRE_TOOL))
    assert [(o.plugin, o.timed_out) for o in outcomes] == [("a_allows", False), ("b_held", True)]
    assert outcomes[1].duration_ms == 0.0  # it did not run
    decision = manager.hooks.pre_tool_call(**QUARANTINE_PRE_TOOL)
    assert decision.plugin == "b_held" and "quarantined since its post_tool_call hook timed out" in decision.message


def test_an_earlier_block_or_failure_answers_before_the_quarantine(make_plugin, plugin_manager):
    blocked = _quarantined_manager(make_plugin, plugin_manager, a_blocks=_pre_tool_hook("{'action': 'block', 'message': 'first no'}"), b_held=_pre_tool_hook("None"))
    decision = blocked.hooks.pre_tool_call(**QUARANTINE_PRE_TOOL)
    assert (decision.plugin, decision.message) == ("a_blocks", "first no")


def test_an_earlier_failure_answers_before_the_quarantine(make_plugin, plugin_manager):
    failed = _quarantined_manager(make_plugin, plugin_manager, a_fails=_pre_tool_hook("1 / 0"), b_held=_pre_tool_hook("None"))
    decision = failed.hooks.pre_tool_call(**QUARANTINE_PRE_TOOL)
    assert decision.plugin == "a_fails" and "ZeroDivisionError" in decision.message
    (outcome,) = failed.hooks.call("pre_tool_call", dict(QUARANTINE_PRE_TOOL))
    assert outcome.plugin == "a_fails" and isinstance(outcome.error, ZeroDivisionError)


def test_a_non_policy_hook_simply_leaves_the_plugin_out(make_plugin, plugin_manager):
    code = "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: '{name}')\n"
    manager = _quarantined_manager(make_plugin, plugin_manager, a_runs=code.format(name="a"), b_held=code.format(name="b"), c_runs=code.format(name="c"))
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["a", "c"]


def test_the_trace_names_a_quarantined_check_a_timeout(make_plugin, plugin_manager, monkeypatch, capsys):
    monkeypatch.setenv("HERMES_PLUGINS_DEBUG", "1")  # read when the dispatcher is built
    manager = _quarantined_manager(make_plugin, plugin_manager, b_held=_pre_tool_hook("None"))
    capsys.readouterr()
    manager.hooks.pre_tool_call(**QUARANTINE_PRE_TOOL)
    assert "hook pre_tool_call: plugin 'b_held' 0.000 ms -> timeout" in capsys.readouterr().err


def test_unloading_a_plugin_takes_its_callbacks_out_of_the_dispatcher(make_plugin, plugin_manager):
    make_plugin("both_kinds", "from hermes_core import hookimpl\n@hookimpl\ndef on_session_reset(session_id):\n    return 'impl'\ndef register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'ctx')\n")
    manager = plugin_manager(enabled=["both_kinds"])
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["impl", "ctx"]
    manager.unload("both_kinds")
    assert manager.hooks.callbacks("on_session_reset") == () and manager.hooks.pm.get_plugin("both_kinds") is None
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == []
