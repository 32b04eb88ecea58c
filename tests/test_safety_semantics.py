"""Safety semantics that a one-character change would break: block directives without a message,
keyword-only callbacks, safe-mode spellings, the one-external-provider rule across sources, and
registration that fails half-way."""

from __future__ import annotations

import logging

import pytest

PRE_TOOL = {"tool_name": "terminal", "args": {"command": "ls"}, "task_id": "t"}


def _hooks(make_plugin, plugin_manager, **plugins):
    for name, code in plugins.items():
        make_plugin(name, code)
    return plugin_manager(enabled=list(plugins), strict=False).hooks


@pytest.mark.parametrize(
    "directive",
    [{"action": "block"}, {"action": "block", "message": ""}, {"decision": "block"}, {"decision": "block", "reason": None}],
)
def test_a_block_without_a_message_still_blocks_with_a_default_message(make_plugin, plugin_manager, directive):
    hooks = _hooks(make_plugin, plugin_manager, bare=f"def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {directive!r})\n")
    decision = hooks.pre_tool_call(**PRE_TOOL)
    assert decision is not None and decision.message == "blocked by a plugin" and decision.plugin == "bare"


@pytest.mark.parametrize(
    ("directive", "message"),
    [
        ({"decision": "block", "message": "from message"}, "from message"),
        ({"decision": "block", "reason": "from reason", "message": "no"}, "from reason"),
    ],
)
def test_a_decision_block_uses_its_reason_then_its_message(make_plugin, plugin_manager, directive, message):
    hooks = _hooks(make_plugin, plugin_manager, deciding=f"def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {directive!r})\n")
    assert hooks.pre_tool_call(**PRE_TOOL).message == message


def test_the_block_is_attributed_to_the_plugin_that_blocked(make_plugin, plugin_manager):
    hooks = _hooks(
        make_plugin, plugin_manager,
        a_allow="def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: None)\n",
        b_block="def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'block', 'message': 'no'})\n",
        c_never="CALLED = []\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: CALLED.append(1))\n",
    )
    decision = hooks.pre_tool_call(**PRE_TOOL)
    assert (decision.message, decision.plugin) == ("no", "b_block")


def test_a_failing_pre_tool_call_blocks_in_its_plugins_name_and_stops_the_chain(make_plugin, plugin_manager, hermes_home):
    make_plugin("a_fails", "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: 1 / 0)\n")
    make_plugin("b_later", "CALLED = []\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: CALLED.append(1))\n")
    manager = plugin_manager(enabled=["a_fails", "b_later"], strict=False)
    decision = manager.hooks.pre_tool_call(**PRE_TOOL)
    assert decision.plugin == "a_fails" and "ZeroDivisionError" in decision.message
    assert manager.get("b_later").module.CALLED == []  # the tool is blocked already: no later check runs


def test_a_keyword_only_callback_receives_only_what_it_declares(make_plugin, plugin_manager):
    code = """
SEEN = []
def register(ctx):
    def only_name(*, tool_name):
        SEEN.append(("only_name", tool_name))
    def name_and_default(*, tool_name, task_id="none", missing="default"):
        SEEN.append(("name_and_default", tool_name, task_id, missing))
    ctx.register_hook("pre_tool_call", only_name)
    ctx.register_hook("pre_tool_call", name_and_default)
"""
    make_plugin("kwonly", code)
    manager = plugin_manager(enabled=["kwonly"])
    assert manager.hooks.pre_tool_call(**PRE_TOOL) is None
    assert manager.get("kwonly").module.SEEN == [("only_name", "terminal"), ("name_and_default", "terminal", "t", "default")]


def test_invoke_keeps_the_values_of_callbacks_that_succeeded_only(make_plugin, plugin_manager):
    hooks = _hooks(
        make_plugin, plugin_manager,
        a_value="def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'kept')\n",
        b_fails="def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 1 / 0)\n",
        c_none="def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: None)\n",
        d_value="def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'also kept')\n",
    )
    assert hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["kept", "also kept"]


def test_a_blank_pre_llm_context_is_dropped(make_plugin, plugin_manager):
    hooks = _hooks(
        make_plugin, plugin_manager,
        a_blank="def register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: '   ')\n",
        b_text="def register(ctx):\n    ctx.register_hook('pre_llm_call', lambda **kw: {'context': 'real'})\n",
    )
    kwargs = dict(session_id="s", user_message="u", conversation_history=[], is_first_turn=True, model="m", platform="cli")
    assert hooks.pre_llm_call(**kwargs) == "real"


def test_a_monitor_sees_every_call_until_removed(make_plugin, plugin_manager):
    hooks = _hooks(make_plugin, plugin_manager, quiet="def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 7)\n")
    seen = []
    undo = hooks.add_monitor(lambda hook, kwargs: seen.append(("before", hook)), lambda hook, kwargs, outcomes: seen.append(("after", [o.value for o in outcomes])))
    hooks.notify("on_session_reset", session_id="s", platform="cli")
    undo()
    hooks.notify("on_session_reset", session_id="s", platform="cli")
    assert seen == [("before", "on_session_reset"), ("after", [7])]


@pytest.mark.parametrize("spelling", ["1", "true", "TRUE", "yes", "Yes", "on", " on "])
def test_safe_mode_accepts_the_usual_truthy_spellings(make_plugin, plugin_manager, monkeypatch, spelling):
    make_plugin("opt", "def register(ctx): pass\n")
    monkeypatch.setenv("HERMES_SAFE_MODE", spelling)
    record = plugin_manager(enabled=["opt"]).get("opt")
    assert not record.enabled and not record.loaded and "HERMES_SAFE_MODE" in record.reason


@pytest.mark.parametrize("spelling", ["0", "false", "no", "off", ""])
def test_safe_mode_is_off_for_falsy_spellings(make_plugin, plugin_manager, monkeypatch, spelling):
    make_plugin("opt", "def register(ctx): pass\n")
    monkeypatch.setenv("HERMES_SAFE_MODE", spelling)
    assert plugin_manager(enabled=["opt"]).get("opt").loaded


PROVIDER = """
from hermes_core import MemoryProvider

class Vault(MemoryProvider):
    name = "vault"
    ORIGIN = {origin!r}
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []

def register(ctx):
    ctx.register_memory_provider(Vault())
"""


def test_two_exclusive_providers_of_one_name_from_two_sources_the_later_wins_and_the_other_is_shadowed(make_plugin, plugin_manager, monkeypatch, tmp_path):
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    make_plugin("vault", PROVIDER.format(origin="user"), manifest={"name": "vault", "kind": "exclusive"})
    make_plugin("vault", PROVIDER.format(origin="project"), manifest={"name": "vault", "kind": "exclusive"}, where="project", category="mem")
    manager = plugin_manager(config={"memory": {"provider": "vault"}}, cwd=tmp_path / "project")
    user, project = manager.get("vault"), manager.get("mem/vault")
    assert (user.candidate.source, project.candidate.source) == ("user", "project")
    assert project.enabled and project.loaded
    assert not user.enabled and not user.loaded
    assert "shadowed by 'mem/vault' (project)" in user.reason and "only one external memory provider" in user.reason
    assert manager.active_memory_provider().ORIGIN == "project"


def test_a_registration_failing_half_way_leaves_no_hook_behind(make_plugin, plugin_manager):
    make_plugin(
        "halfhook",
        """
def register(ctx):
    ctx.register_hook("on_session_start", lambda **kw: "first")
    ctx.register_hook("post_tool_call", lambda **kw: "second")
    ctx.register_hook("pre_tool_call", 42)  # not callable: the registration fails here
""",
    )
    manager = plugin_manager(enabled=["halfhook"], strict=False)
    record = manager.get("halfhook")
    assert not record.loaded and "must be callable" in record.error
    for hook in ("on_session_start", "post_tool_call", "pre_tool_call"):
        assert manager.hooks.callbacks(hook) == ()
    assert manager.hooks.invoke("on_session_start", session_id="s", model="m", platform="cli") == []
    assert manager.hooks.hooks_of("halfhook") == []


def test_a_hookimpl_module_failing_half_way_leaves_no_hook_behind(make_plugin, plugin_manager):
    make_plugin(
        "halfimpl",
        """
import pluggy
hookimpl = pluggy.HookimplMarker("hermes")

@hookimpl
def on_session_start(session_id):
    return "registered first"

@hookimpl
def post_tool_call(tool_name, no_such_argument):
    return "refused"
""",
    )
    manager = plugin_manager(enabled=["halfimpl"], strict=False)
    assert not manager.get("halfimpl").loaded
    assert manager.hooks.callbacks("on_session_start") == () and manager.hooks.callbacks("post_tool_call") == ()
    assert manager.hooks.pm.get_plugins() == set()
