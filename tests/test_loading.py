"""Loading: both hook styles, relative imports, rollback, and every faulty-plugin case."""

from __future__ import annotations

import logging
import sys

import pytest


def _record(manager, key):
    return manager.get(key)


def test_hookimpl_functions_and_register_hook_land_in_the_same_relay(make_plugin, plugin_manager):
    make_plugin(
        "both",
        """
from hermes_core import hookimpl
SEEN = []

@hookimpl
def on_session_finalize(session_id, platform):
    SEEN.append(("hookimpl", session_id))

def register(ctx):
    ctx.register_hook("on_session_finalize", lambda session_id, **kw: SEEN.append(("ctx", session_id)))
""",
    )
    manager = plugin_manager(enabled=["both"])
    impls = manager.hooks.pm.hook.on_session_finalize.get_hookimpls()
    assert len(impls) == 2
    manager.hooks.notify("on_session_finalize", session_id="s9", platform="cli")
    assert _record(manager, "both").module.SEEN == [("hookimpl", "s9"), ("ctx", "s9")]
    assert manager.describe(_record(manager, "both"))["hooks"] == ["on_session_finalize"]


def test_a_plugin_may_consist_of_hookimpls_only(make_plugin, plugin_manager):
    make_plugin("only", "from hermes_core import hookimpl\n@hookimpl\ndef subagent_stop(child_status):\n    return child_status\n")
    manager = plugin_manager(enabled=["only"])
    assert manager.hooks.invoke("subagent_stop", parent_session_id="p", child_role="r", child_summary="", child_status="completed", tool_call_history=[], duration_ms=1) == ["completed"]


def test_a_misspelled_hookimpl_fails_loudly(make_plugin, plugin_manager):
    make_plugin("typo", "from hermes_core import hookimpl\n@hookimpl\ndef pre_tool_cal(tool_name):\n    pass\ndef register(ctx):\n    pass\n")
    manager = plugin_manager(enabled=["typo"], strict=False)
    record = _record(manager, "typo")
    assert not record.loaded
    assert "'pre_tool_cal'" in record.error and "did you mean 'pre_tool_call'" in record.error
    with pytest.raises(Exception, match="pre_tool_cal"):
        plugin_manager(enabled=["typo"], strict=True)


def test_a_hookimpl_with_an_argument_the_hook_lacks_fails_loudly(make_plugin, plugin_manager):
    make_plugin("badarg", "from hermes_core import hookimpl\n@hookimpl\ndef pre_tool_call(tool_name, colour):\n    pass\n")
    record = _record(plugin_manager(enabled=["badarg"], strict=False), "badarg")
    assert not record.loaded and "colour" in record.error


def test_an_unknown_register_hook_name_is_kept_with_a_warning(make_plugin, plugin_manager, caplog):
    make_plugin("future", "def register(ctx):\n    ctx.register_hook('on_future_event', lambda **kw: 'heard')\n")
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["future"])
    assert "unknown hook 'on_future_event'" in caplog.text
    assert _record(manager, "future").loaded
    assert manager.hooks.invoke("on_future_event", anything=1) == ["heard"]


def test_a_callback_needing_an_argument_never_passed_is_kept_but_never_called(make_plugin, plugin_manager):
    code = (
        "import os, pathlib\n"
        "def needy(session_id, colour):\n"
        "    pathlib.Path(os.environ['HERMES_HOME'], 'CALLED').touch()\n"
        "def register(ctx):\n"
        "    ctx.register_hook('on_session_start', needy)\n"
        "    ctx.register_hook('on_session_start', lambda **kw: 'fine')\n"
    )
    make_plugin("needy", code)
    manager = plugin_manager(enabled=["needy"], strict=False)
    record = _record(manager, "needy")
    assert record.loaded and record.error is None
    [warning] = [w for w in record.warnings if "never passes" in w]
    assert "'colour'" in warning and "never called" in warning
    assert manager.describe(record)["uncallable_hooks"] == ["on_session_start"]
    assert manager.hooks.invoke("on_session_start", session_id="s", model="m", platform="cli") == ["fine"]
    assert not (manager.home / "CALLED").exists()


def test_hook_wrappers_are_refused(make_plugin, plugin_manager):
    make_plugin("wrap", "from hermes_core import hookimpl\n@hookimpl(wrapper=True)\ndef on_session_start(session_id):\n    return (yield)\n")
    record = _record(plugin_manager(enabled=["wrap"], strict=False), "wrap")
    assert not record.loaded and "wrappers are not supported" in record.error


def test_directory_plugins_import_under_hermes_plugins_with_relative_imports(make_plugin, plugin_manager):
    make_plugin(
        "rel-pkg",
        "from .helpers_mod import VALUE\nfrom . import sub\ndef register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: VALUE + sub.OTHER)\n",
        files={"helpers_mod.py": "VALUE = 'a'\n", "sub/__init__.py": "OTHER = 'b'\n"},
    )
    manager = plugin_manager(enabled=["rel-pkg"])
    record = _record(manager, "rel-pkg")
    assert record.module.__name__ == "hermes_plugins.rel_pkg"
    assert "hermes_plugins.rel_pkg.helpers_mod" in sys.modules
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["ab"]


def test_category_plugins_get_a_category_key_and_slug(make_plugin, plugin_manager):
    make_plugin("openai", "def register(ctx):\n    pass\n", category="image_gen")
    manager = plugin_manager(enabled=["image_gen/openai"])
    record = _record(manager, "image_gen/openai")
    assert record.loaded and record.module.__name__ == "hermes_plugins.image_gen__openai"


TOOL_SCHEMA = {"name": "{name}", "description": "d", "parameters": {"type": "object", "properties": {}}}


def test_register_raising_midway_rolls_back_every_registration(make_plugin, plugin_manager):
    make_plugin(
        "halfway",
        """
def register(ctx):
    ctx.register_tool("half_tool", "half", {"name": "half_tool", "description": "d", "parameters": {"type": "object", "properties": {}}}, lambda args, **kw: "{}")
    ctx.register_hook("pre_tool_call", lambda **kw: {"action": "block", "message": "x"})
    ctx.register_command("halfcmd", lambda raw: "x")
    ctx.register_skill("s", __file__)
    raise RuntimeError("config missing")
""",
    )
    manager = plugin_manager(enabled=["halfway"], strict=False)
    record = _record(manager, "halfway")
    assert not record.loaded and "RuntimeError: config missing" in record.error
    assert "half_tool" not in manager.tools
    assert manager.hooks.callbacks("pre_tool_call") == ()
    assert "halfcmd" not in manager.commands and not manager.skills
    assert manager.hooks.pm.get_plugins() == set()
    assert "hermes_plugins.halfway" not in sys.modules


def test_an_import_error_is_recorded_and_the_host_goes_on(make_plugin, plugin_manager):
    make_plugin("broken_import", "import module_that_does_not_exist\n")
    make_plugin("healthy", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'ok')\n")
    manager = plugin_manager(enabled=["broken_import", "healthy"], strict=False)
    assert "ModuleNotFoundError" in _record(manager, "broken_import").error
    assert _record(manager, "healthy").loaded
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["ok"]


def test_sys_exit_at_import_does_not_end_the_host(make_plugin, plugin_manager):
    make_plugin("exits", "import sys\nsys.exit(3)\n")
    record = _record(plugin_manager(enabled=["exits"], strict=False), "exits")
    assert not record.loaded and "SystemExit" in record.error


def test_sys_exit_in_register_is_rolled_back_and_does_not_end_the_host(make_plugin, plugin_manager):
    make_plugin("quits", "import sys\ndef register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'x')\n    sys.exit(5)\n")
    manager = plugin_manager(enabled=["quits"], strict=False)
    record = _record(manager, "quits")
    assert not record.loaded and "register(ctx) raised SystemExit: 5" in record.error
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == []


def test_sys_exit_in_a_hook_is_isolated_and_pre_tool_call_fails_closed(make_plugin, plugin_manager):
    make_plugin("quitter", "import sys\ndef register(ctx):\n    for name in ('pre_tool_call', 'on_session_reset'):\n        ctx.register_hook(name, lambda **kw: sys.exit(3))\n")
    make_plugin("zz_after", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'still called')\n")
    manager = plugin_manager(enabled=["quitter", "zz_after"], strict=False)
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["still called"]
    decision = manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
    assert decision is not None and "SystemExit" in decision.message


def test_a_plugin_without_register_or_hookimpls_is_an_error(make_plugin, plugin_manager):
    make_plugin("empty", "X = 1\n")
    record = _record(plugin_manager(enabled=["empty"], strict=False), "empty")
    assert "no register(ctx) function" in record.error


def test_a_hook_raising_in_every_hook_leaves_the_host_working(make_plugin, plugin_manager):
    from hermes_core.hookspecs import HOOK_NAMES

    make_plugin("raiser", "from hermes_core.hookspecs import HOOK_NAMES\ndef register(ctx):\n    for name in HOOK_NAMES:\n        ctx.register_hook(name, lambda **kw: 1 / 0)\n")
    manager = plugin_manager(enabled=["raiser"], strict=False)
    for hook in HOOK_NAMES:
        outcomes = manager.hooks.call(hook, {})
        assert len(outcomes) == 1 and isinstance(outcomes[0].error, ZeroDivisionError)
    assert manager.hooks.pre_tool_call(tool_name="t", args={}, task_id="x") is not None  # fails closed


def test_unload_removes_everything_and_allows_a_reload(make_plugin, plugin_manager):
    make_plugin("cycle", "def register(ctx):\n    ctx.register_tool('cycle_tool', 'c', {'name': 'cycle_tool', 'description': '', 'parameters': {'type': 'object', 'properties': {}}}, lambda a, **k: 'one')\n")
    manager = plugin_manager(enabled=["cycle"])
    assert manager.tools.dispatch("cycle_tool", {}) == "one"
    manager.unload("cycle")
    assert "cycle_tool" not in manager.tools and "hermes_plugins.cycle" not in sys.modules
    manager.load("cycle")
    assert manager.tools.dispatch("cycle_tool", {}) == "one"


def test_an_import_failure_names_the_file_and_line_that_raised(make_plugin, plugin_manager):
    directory = make_plugin("trips", "import os\n\nLIMIT = int(os.environ.get('TRIPS_LIMIT', 'ten'))\n")
    record = _record(plugin_manager(enabled=["trips"], strict=False), "trips")
    assert record.error.startswith("import failed: ValueError: invalid literal for int() with base 10: 'ten'")
    assert f"(at {directory / '__init__.py'}:3)" in record.error


def test_a_failure_in_a_module_of_the_plugin_names_that_module(make_plugin, plugin_manager):
    directory = make_plugin("layered", "from .settings import LIMIT\n", files={"settings.py": "LIMIT = 1\nLIMIT = undefined_name\n"})
    record = _record(plugin_manager(enabled=["layered"], strict=False), "layered")
    assert f"NameError: name 'undefined_name' is not defined (at {directory / 'settings.py'}:2)" in record.error


def test_a_syntax_error_names_the_file_and_line(make_plugin, plugin_manager):
    directory = make_plugin("typo", "def register(ctx)\n    pass\n")
    record = _record(plugin_manager(enabled=["typo"], strict=False), "typo")
    assert "SyntaxError" in record.error and f"(at {directory / '__init__.py'}:1)" in record.error


def test_register_raising_names_the_line_in_the_plugin_not_in_hermes(make_plugin, plugin_manager):
    directory = make_plugin("needs_key", "import os\n\ndef register(ctx):\n    key = os.environ['NEEDS_KEY_TOKEN']\n")
    record = _record(plugin_manager(enabled=["needs_key"], strict=False), "needs_key")
    assert record.error == f"register(ctx) raised KeyError: 'NEEDS_KEY_TOKEN' (at {directory / '__init__.py'}:4)"


def test_a_hookimpl_taking_an_argument_the_hook_does_not_pass_is_named_with_the_fix(make_plugin, plugin_manager):
    plugin = make_plugin("typo_arg", "from hermes_core import hookimpl\n\n@hookimpl\ndef on_session_start(session_id, platfrom):\n    pass\n")
    error = plugin_manager(enabled=["typo_arg"], strict=False).get("typo_arg").error
    assert "\n" not in error
    assert f"@hookimpl on_session_start ({plugin / '__init__.py'}:3) takes 'platfrom'" in error
    assert "'platfrom' -> did you mean 'platform'?" in error and "take only arguments it passes:" in error and "session_id" in error


@pytest.mark.parametrize("body, expected", [
    ("    name = 'vault'\n    def is_available(self): return True\n    def initialize(self, session_id, **kw): pass\n",
     "the memory provider class Vault has no register(ctx) to offer it and cannot be made as it is: it does not define get_tool_schemas -> define get_tool_schemas"),
    ("    name = 'vault'\n    def __init__(self, url): self.url = url\n    def is_available(self): return True\n"
     "    def initialize(self, session_id, **kw): pass\n    def get_tool_schemas(self): return []\n",
     "Vault() failed (TypeError: "),
])
def test_a_provider_module_without_register_says_why_its_class_was_not_used(make_plugin, plugin_manager, body, expected):
    make_plugin("vault", "from hermes_core import MemoryProvider\n\nclass Vault(MemoryProvider):\n" + body, manifest={"name": "vault", "kind": "exclusive"})
    error = plugin_manager(strict=False, config={"memory": {"provider": "vault"}}).get("vault").error
    assert expected in error, error


def test_only_the_hookimpl_pluggy_refuses_is_named(make_plugin, plugin_manager):
    # a defaulted extra argument passes pluggy; the required misspelt one in another function is the cause
    make_plugin("two_hooks", "from hermes_core import hookimpl\n\n@hookimpl\ndef on_session_end(session_id, telemetry_schema_version=None):\n"
                "    pass\n\n@hookimpl\ndef pre_tool_call(tool_nam):\n    pass\n")
    error = plugin_manager(enabled=["two_hooks"], strict=False).get("two_hooks").error
    assert error.startswith("@hookimpl pre_tool_call (") and "'tool_nam' -> did you mean 'tool_name'?" in error, error
