"""Hook dispatch: isolation, kwargs filtering, return semantics, order, strict mode (timeouts: test_hook_timeouts.py)."""

from __future__ import annotations

import logging

import pytest


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


def test_async_callbacks_are_awaited(make_plugin, plugin_manager):
    make_plugin("asyncp", "async def ctx_cb(**kw):\n    return 'from async'\ndef register(ctx):\n    ctx.register_hook('pre_llm_call', ctx_cb)\n")
    manager = plugin_manager(enabled=["asyncp"])
    assert manager.hooks.pre_llm_call(session_id="s", user_message="u", conversation_history=[], is_first_turn=False, model="m", platform="cli") == "from async"


def test_dict_subclasses_count_as_block_directives(make_plugin, plugin_manager):
    make_plugin("ordered", "from collections import OrderedDict\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: OrderedDict(action='block', message='ordered no'))\n")
    assert plugin_manager(enabled=["ordered"]).hooks.pre_tool_call(tool_name="x", args={}, task_id="t").message == "ordered no"


def test_call_reports_durations(make_plugin, plugin_manager):
    make_plugin("timed", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: sum(range(20000)))\n")
    (outcome,) = plugin_manager(enabled=["timed"]).hooks.call("on_session_reset", {"session_id": "s", "platform": "cli"})
    assert outcome.duration_ms > 0 and outcome.value == sum(range(20000))


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


def test_a_host_calling_a_misspelt_hook_is_warned_once(plugin_manager, caplog):
    manager = plugin_manager()
    manager.hooks.notify("on_sesion_start", session_id="s1", platform="cli")
    manager.hooks.notify("on_sesion_start", session_id="s2", platform="cli")
    warnings = [r.getMessage() for r in caplog.records if "on_sesion_start" in r.getMessage()]
    assert warnings == ["hook 'on_sesion_start' was called, but it is no hermes hook and no plugin registered it (did you mean 'on_session_start'?); nothing ran"]
    manager.hooks.notify("on_session_start", session_id="s3", platform="cli")  # a real hook with no listener says nothing
    assert len([r for r in caplog.records if "no hermes hook" in r.getMessage()]) == 1


def test_looking_a_hook_up_is_not_calling_it(plugin_manager, caplog):
    manager = plugin_manager()
    assert manager.hooks.has_listeners("on_sesion_start") is False
    assert not [r for r in caplog.records if "no hermes hook" in r.getMessage()]
