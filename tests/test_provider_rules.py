"""The manager's rules for what plugins register: one external memory provider across every source,
one context engine beside the builtin ones, nothing left behind by a failed or unloaded plugin,
and what each refusal tells the user."""

from __future__ import annotations

import logging
import os
import sys

import pytest

from hermes_core.errors import PluginLoadError

PROVIDER_CLASS = """
from hermes_core import MemoryProvider

class Vault(MemoryProvider):
    def __init__(self, name, origin=""):
        self._name, self.origin = name, origin
    @property
    def name(self): return self._name
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
"""

ENGINE_CLASS = """
from hermes_core import ContextEngine

class Squash(ContextEngine):
    def __init__(self, name):
        self._name = name
    @property
    def name(self): return self._name
    def update_from_response(self, usage): pass
    def should_compress(self, prompt_tokens=None): return False
    def compress(self, messages, current_tokens=None, focus_topic=None): return messages
"""


def _provider_plugin(*names: str, origin: str = "") -> str:
    calls = "".join(f"    ctx.register_memory_provider(Vault({n!r}, {origin!r}))\n" for n in names)
    return PROVIDER_CLASS + "\ndef register(ctx):\n" + calls


# --- one external memory provider -------------------------------------------------------------


def test_three_sources_one_provider_name_the_last_source_wins(make_plugin, plugin_manager, monkeypatch, tmp_path):
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "bundled"))
    exclusive = {"name": "vault", "kind": "exclusive"}
    make_plugin("vault", _provider_plugin("vault", origin="bundled"), manifest=exclusive, where=tmp_path / "bundled", category="a")
    make_plugin("vault", _provider_plugin("vault", origin="user"), manifest=exclusive, category="b")
    make_plugin("vault", _provider_plugin("vault", origin="project"), manifest=exclusive, where="project", category="c")
    manager = plugin_manager(config={"memory": {"provider": "vault"}}, cwd=tmp_path / "project")
    bundled, user, project = manager.get("a/vault"), manager.get("b/vault"), manager.get("c/vault")
    assert project.enabled and project.loaded and manager.active_memory_provider().origin == "project"
    for loser, source in ((bundled, "bundled"), (user, "user")):
        assert loser.candidate.source == source and loser.enabled is False and not loser.loaded
        assert loser.reason == "memory provider 'vault' is shadowed by 'c/vault' (project); only one external memory provider runs (memory.provider)"
    # the built-in memory is no external provider: it is never shadowed
    builtin = manager.get("memory")
    assert builtin.candidate.source == "builtin" and builtin.enabled and builtin.loaded
    assert set(manager.memory_providers) == {"builtin", "vault"}


def test_a_plugin_offering_two_external_providers_keeps_the_first(make_plugin, plugin_manager, caplog):
    make_plugin("pair", _provider_plugin("first", "second"), manifest={"name": "pair", "kind": "standalone"})
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["pair"])
    assert [n for n in manager.memory_providers if n != "builtin"] == ["first"]
    assert [p.name for p in manager.get("pair").registrations.memory_providers] == ["first"]
    assert (  # no setting can help: the plugin itself must offer one
        "plugin 'pair' registers more than one memory provider: 'first' is kept and 'second' ignored, since one external "
        "provider runs at a time -> register one provider per plugin"
    ) in caplog.messages


def test_a_provider_name_registered_twice_is_ignored_the_second_time(make_plugin, plugin_manager, caplog):
    make_plugin("twice", _provider_plugin("same", "same"), manifest={"name": "twice", "kind": "standalone"})
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["twice"])
    assert "plugin 'twice': memory provider 'same' is already registered; the second one is ignored" in caplog.messages
    assert len(manager.get("twice").registrations.memory_providers) == 1


def test_a_provider_named_builtin_cannot_replace_the_builtin_one(make_plugin, plugin_manager, caplog):
    make_plugin("fake", _provider_plugin("builtin"), manifest={"name": "fake", "kind": "standalone"})
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["fake"])
    assert type(manager.memory_providers["builtin"]).__name__ != "Vault"
    assert "plugin 'fake': memory provider 'builtin' is already registered; the second one is ignored" in caplog.messages


def test_loading_for_a_command_registers_no_provider(make_plugin, plugin_manager):
    make_plugin("setup_only", _provider_plugin("quiet"), manifest={"name": "setup_only", "kind": "exclusive"})
    manager = plugin_manager()
    record = manager.load("setup_only", for_command=True)
    assert record.loaded and "quiet" not in manager.memory_providers
    assert record.registrations.memory_providers == []


# --- context engines ----------------------------------------------------------------------------


def _engine_plugin(*names: str) -> str:
    return ENGINE_CLASS + "\ndef register(ctx):\n" + "".join(f"    ctx.register_context_engine(Squash({n!r}))\n" for n in names)


def test_only_one_plugin_engine_replaces_the_builtin_one(make_plugin, plugin_manager, caplog):
    make_plugin("e_one", _engine_plugin("one"))
    make_plugin("e_two", _engine_plugin("two"))
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["e_one", "e_two"])
    assert manager.context_engines["one"].name == "one" and "two" not in manager.context_engines
    assert "plugin 'e_two': context engine 'two' ignored: 'one' is already registered and only one replaces the built-in" in caplog.messages
    assert manager.get("e_two").loaded and manager.get("e_two").registrations.context_engines == []
    # once the first is unloaded, another may take its place
    manager.unload("e_one")
    assert "one" not in manager.context_engines
    manager.unload("e_two")
    manager.load("e_two")
    assert "two" in manager.context_engines


def test_an_engine_name_registered_twice_is_ignored(make_plugin, plugin_manager, caplog):
    make_plugin("e_dup", _engine_plugin("dup", "dup"))
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["e_dup"])
    assert "plugin 'e_dup': context engine 'dup' is already registered; ignored" in caplog.messages
    assert len(manager.get("e_dup").registrations.context_engines) == 1


def test_builtin_engines_do_not_count_against_the_one_plugin_engine(make_plugin, plugin_manager):
    make_plugin("e_mine", _engine_plugin("mine"))
    manager = plugin_manager(enabled=["e_mine"])
    builtin_engines = [n for n, owner in manager._engine_owners.items() if owner == "builtin"]
    assert builtin_engines, "the builtin compressor registers an engine"
    assert "mine" in manager.context_engines


# --- loading, failing and unloading -----------------------------------------------------------------


EVERYTHING = """
import pathlib

SCHEMA = {"name": "full_tool", "description": "", "parameters": {"type": "object", "properties": {}}}

def register(ctx):
    ctx.register_tool("full_tool", "full", SCHEMA, lambda args, **kw: "full")
    ctx.register_hook("on_session_reset", lambda **kw: "full-hook")
    ctx.register_command("fullcmd", lambda raw: "ran")
    ctx.register_cli_command("fullcli", "help", lambda parser: None, lambda args: 0)
    skill = pathlib.Path(__file__).with_name("SKILL.md")
    ctx.register_skill("fullskill", skill)
    ctx.register_middleware("llm_request", MIDDLE)
    ctx.register_auxiliary_task("full_task", display_name="Full", description="a task")
    ctx.register_web_search_provider(WEB)
    FAIL and ctx.register_hook("pre_tool_call", 42)

def MIDDLE(request, **kw):
    return request

class _Web:
    name = "fullweb"
    def is_available(self):
        return True
    def search(self, query, **kw):
        return []

WEB = _Web()
FAIL = False
"""


def test_unload_takes_back_everything_the_plugin_registered(make_plugin, plugin_manager):
    make_plugin("full", EVERYTHING, files={"SKILL.md": "# skill\n"})
    manager = plugin_manager(enabled=["full"])
    record = manager.get("full")
    assert record.loaded
    assert manager.tools.dispatch("full_tool", {}) == "full"
    assert "fullcmd" in manager.commands and "fullcli" in manager.cli_commands
    assert any(name.endswith("fullskill") for name in manager.skills)
    assert manager.middleware["llm_request"] and "full_task" in manager.auxiliary_tasks and "fullweb" in manager.web_search_providers
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["full-hook"]
    manager.unload("full")
    assert "full_tool" not in manager.tools and "fullcmd" not in manager.commands and "fullcli" not in manager.cli_commands
    assert not any(name.endswith("fullskill") for name in manager.skills)
    assert manager.middleware["llm_request"] == [] and "full_task" not in manager.auxiliary_tasks and "fullweb" not in manager.web_search_providers
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == []
    assert (record.loaded, record.registrations, record.holders, record.module) == (False, None, [], None)
    assert "hermes_plugins.full" not in sys.modules
    manager.unload("full")  # a second unload is a no-op
    manager.unload("never_was")


def test_a_failing_registration_is_rolled_back_and_reported(make_plugin, plugin_manager, caplog):
    make_plugin("full", EVERYTHING.replace("FAIL = False", "FAIL = True"), files={"SKILL.md": "# skill\n"})
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["full"], strict=False)
    record = manager.get("full")
    assert not record.loaded and "must be callable" in record.error
    assert "full_tool" not in manager.tools and "fullcmd" not in manager.commands and "fullweb" not in manager.web_search_providers
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == []
    (message,) = [m for m in caplog.messages if "failed to load" in m]
    assert message.startswith(f"plugin 'full' (user, {record.candidate.path}) failed to load: {record.error} -> ")
    assert record.loaded is False
    assert message.endswith("-> it was skipped; disable it with 'hermes plugins disable full'")


def test_a_plugin_that_raises_is_recorded_with_the_exception_type(make_plugin, plugin_manager):
    directory = make_plugin("boom", "def register(ctx):\n    raise ValueError('no config')\n")
    record = plugin_manager(enabled=["boom"], strict=False).get("boom")
    assert record.error == f"register(ctx) raised ValueError: no config (at {directory / '__init__.py'}:2)" and not record.loaded


def test_a_tool_put_straight_into_the_registry_goes_with_a_failed_plugin(make_plugin, plugin_manager):
    code = """
from tools.registry import registry  # the import a plugin written for Hermes Agent uses

def register(ctx):
    registry.register(name="sneaky", toolset="x", schema={"name": "sneaky", "description": "", "parameters": {"type": "object", "properties": {}}}, handler=lambda a, **k: "s")
    raise RuntimeError("after the direct registration")
"""
    make_plugin("sneak", code)
    manager = plugin_manager(enabled=["sneak"], strict=False)
    assert "RuntimeError: after the direct registration" in manager.get("sneak").error
    assert "sneaky" not in manager.tools


def test_strict_mode_raises_with_the_plugin_and_its_path(make_plugin, plugin_manager):
    directory = make_plugin("boom", "def register(ctx):\n    raise ValueError('no config')\n")
    with pytest.raises(PluginLoadError) as raised:
        plugin_manager(enabled=["boom"], strict=True)
    assert str(raised.value) == f"plugin 'boom' (user, {directory}) failed to load: register(ctx) raised ValueError: no config (at {directory / '__init__.py'}:2)"


def test_a_plugin_refused_before_import_is_reported_or_raised(make_plugin, plugin_manager, caplog):
    make_plugin("future", "raise RuntimeError('imported')\n", manifest={"name": "future", "requires_hermes": ">=99"})
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        manager = plugin_manager(enabled=["future"], strict=False)
    record = manager.get("future")
    assert not record.loaded and record.error == str(record.candidate.problems[0])
    (message,) = [m for m in caplog.messages if "plugin 'future'" in m]
    assert message == f"plugin 'future' (user, {record.candidate.path}) is enabled but was not loaded: {record.error}"
    assert manager.load("future") is record and not record.loaded  # load() refuses it the same way
    with pytest.raises(PluginLoadError, match=r"^plugin 'future' \(user, .*'requires_hermes': needs "):
        plugin_manager(enabled=["future"], strict=True)


def test_loading_an_unknown_key_is_an_error(plugin_manager):
    with pytest.raises(PluginLoadError, match="no plugin with key 'nope'"):
        plugin_manager(load=False).load("nope")


def test_load_builtins_loads_only_the_builtins(make_plugin, plugin_manager):
    make_plugin("mine", "def register(ctx): pass\n")
    manager = plugin_manager(enabled=["mine"], load=False)
    loaded = manager.load_builtins()
    assert loaded and all(r.candidate.source == "builtin" and r.loaded for r in loaded)
    assert not manager.get("mine").loaded


def test_disabled_and_already_loaded_plugins_are_left_alone_by_load_all(make_plugin, plugin_manager):
    make_plugin("on", "COUNT = []\ndef register(ctx):\n    COUNT.append(1)\n")
    make_plugin("off", "raise RuntimeError('must not import')\n")
    manager = plugin_manager(enabled=["on"])
    manager.load_all()
    assert manager.get("on").module.COUNT == [1] and manager.get("on").error is None
    assert not manager.get("off").loaded and manager.get("off").error is None


def test_get_finds_a_key_or_a_unique_name(make_plugin, plugin_manager, monkeypatch, tmp_path):
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    make_plugin("tool", "def register(ctx): pass\n", category="web")
    make_plugin("twin", "def register(ctx): pass\n", category="a")
    make_plugin("twin", "def register(ctx): pass\n", category="b", where="project")
    manager = plugin_manager(load=False, cwd=tmp_path / "project")
    assert manager.get("tool").key == "web/tool" and manager.get("web/tool").key == "web/tool"
    assert manager.get("twin") is None  # two plugins share the name: the key is needed
    assert manager.get("a/twin").candidate.source == "user"


def test_discover_is_cached_until_forced_and_forcing_unloads_first(make_plugin, plugin_manager):
    make_plugin("early", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'early')\n")
    manager = plugin_manager(enabled=["early"])
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["early"]
    make_plugin("late", "def register(ctx): pass\n")
    assert manager.get("late") is None
    records = manager.discover(force=True)
    assert "late" in {r.key for r in records}
    assert not manager.get("early").loaded
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == []


def test_problems_are_joined_into_the_records_error(make_plugin, plugin_manager):
    directory = make_plugin("twofold", None, manifest={"name": "twofold", "provides_hooks": "nonsense"})
    directory.chmod(0o777)
    manager = plugin_manager(load=False, strict=False)
    error = manager.get("twofold").error
    assert error.count("; plugin 'twofold'") == 2 and "'provides_hooks'" in error and "__init__.py" in error and "world-writable" in error
    record = manager.load("twofold")  # an explicit load refuses it with the same words
    assert not record.loaded and record.error == error


def test_the_debug_trace_names_each_policy_decision_and_load(make_plugin, plugin_manager, monkeypatch, capsys):
    monkeypatch.setenv("HERMES_PLUGINS_DEBUG", "1")
    make_plugin("traced", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: None)\n")
    make_plugin("future", "", manifest={"name": "future", "requires_hermes": ">=99"})
    make_plugin("idle", "def register(ctx): pass\n")
    plugin_manager(enabled=["traced", "future"], strict=False)
    err = capsys.readouterr().err
    assert "hermes[plugins]: policy: user plugin 'traced' enabled: " in err
    assert "hermes[plugins]: policy: user plugin 'idle' skipped: " in err
    assert "hermes[plugins]: load: plugin 'traced' loaded: hooks=['on_session_reset'] tools=[]" in err
    assert "hermes[plugins]: load: plugin 'future' refused: plugin 'future' (user," in err


def test_the_hook_timeout_setting_is_read_and_a_bad_one_falls_back(plugin_manager, hermes_home, caplog):
    from hermes_core.config import Config
    from hermes_core.manager import PluginManager

    assert plugin_manager(load=False).hooks.timeout == 30.0
    assert plugin_manager(config={"plugins": {"hook_callback_timeout": 2.5}}, load=False).hooks.timeout == 2.5
    # config.yaml refuses such a value on load; a program may still hand one over in its own Config
    odd = PluginManager(home=hermes_home, config=Config({"plugins": {"hook_callback_timeout": [1]}}))
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        assert odd.hooks.timeout == 30.0
    assert "plugins.hook_callback_timeout must be a number of seconds, got [1]; using 30" in caplog.messages


def test_the_env_file_is_exported_once_and_only_into_the_real_environment(make_plugin, plugin_manager, hermes_home, monkeypatch):
    from hermes_core.manager import PluginManager

    (hermes_home / ".env").write_text("PROVIDER_RULES_TOKEN=from-file\n")
    monkeypatch.delenv("PROVIDER_RULES_TOKEN", raising=False)
    make_plugin("reader", "import os\nSEEN = os.environ.get('PROVIDER_RULES_TOKEN')\ndef register(ctx): pass\n")
    private = PluginManager(home=hermes_home, env={"HERMES_HOME": str(hermes_home)}, config=None)
    private.load("reader")
    assert private.get("reader").module.SEEN is None and "PROVIDER_RULES_TOKEN" not in os.environ
    private.unload("reader")
    try:
        manager = plugin_manager(enabled=["reader"])
        assert manager.get("reader").module.SEEN == "from-file"
    finally:
        os.environ.pop("PROVIDER_RULES_TOKEN", None)


def _lookup_plugin(owner: str, extra: str = "") -> str:
    return (
        "SCHEMA = {'name': 'lookup', 'description': '', 'parameters': {'type': 'object', 'properties': {}}}\n"
        "def register(ctx):\n"
        f"    ctx.register_tool('lookup', 'set', SCHEMA, lambda args, **kw: {owner!r}{extra})\n"
    )


def test_a_replaced_tool_is_given_back_on_every_unload(make_plugin, plugin_manager):
    make_plugin("a_owner", _lookup_plugin("a_owner"))
    make_plugin("b_over", _lookup_plugin("b_over", extra=", override=True"))
    manager = plugin_manager(enabled=["a_owner", "b_over"], config={"plugins": {"entries": {"b_over": {"allow_tool_override": True}}}})
    record = manager.get("b_over")
    for _ in range(2):  # the second round proves the first unload left the record reusable
        assert manager.tools.dispatch("lookup", {}) == "b_over" and set(record.replaced_tools) == {"lookup"}
        manager.unload("b_over")
        assert manager.tools.dispatch("lookup", {}) == "a_owner" and record.replaced_tools == {}
        manager.load("b_over")


def test_unloading_a_hookimpl_plugin_unregisters_its_module(make_plugin, plugin_manager):
    make_plugin("impl", "from hermes_core import hookimpl\n@hookimpl\ndef on_session_reset(session_id):\n    return 'impl'\n")
    manager = plugin_manager(enabled=["impl"])
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["impl"]
    manager.unload("impl")
    assert manager.hooks.pm.get_plugin("impl") is None
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == []
    manager.load("impl")
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["impl"]


def test_a_tool_put_straight_into_the_registry_goes_with_its_plugin_on_unload(make_plugin, plugin_manager):
    code = """
from tools.registry import registry  # the import a plugin written for Hermes Agent uses

def register(ctx):
    registry.register(name="direct", toolset="x", schema={"name": "direct", "description": "", "parameters": {"type": "object", "properties": {}}}, handler=lambda a, **k: "d")
"""
    make_plugin("direct_owner", code)
    make_plugin("bystander", _lookup_plugin("bystander"))
    manager = plugin_manager(enabled=["direct_owner", "bystander"])
    assert "direct" in manager.tools
    manager.unload("direct_owner")
    assert "direct" not in manager.tools and "lookup" in manager.tools


def test_unloading_the_store_plugin_gives_up_the_session_store(plugin_manager):
    manager = plugin_manager(load=False)
    manager.load_builtins()
    factory = manager.session_store_factory
    assert factory is not None
    manager.unload("state")
    assert manager.session_store_factory is None
    manager.load("state")
    assert manager.session_store_factory is not None
    manager.unload("memory")  # a plugin without a store leaves the store alone
    assert manager.session_store_factory is not None


def test_unloading_a_provider_plugin_removes_its_provider(make_plugin, plugin_manager):
    make_plugin("vault", _provider_plugin("vault"), manifest={"name": "vault", "kind": "exclusive"})
    manager = plugin_manager(config={"memory": {"provider": "vault"}})
    assert "vault" in manager.memory_providers
    manager.unload("vault")
    assert "vault" not in manager.memory_providers and "builtin" in manager.memory_providers


def test_if_pluggy_refuses_a_callback_half_way_everything_registered_before_is_taken_back(make_plugin, plugin_manager, monkeypatch):
    # Fault injection: pluggy accepts every CallbackHolder today (a **kwargs shim marked optional),
    # so the rollback of holders and module can only be reached by making pluggy refuse one.
    from hermes_core.hooks import CallbackHolder, HermesPluginManager

    make_plugin(
        "halfway",
        "from hermes_core import hookimpl\n"
        "@hookimpl\ndef on_session_reset(session_id):\n    return 'module'\n"
        "def register(ctx):\n"
        "    ctx.register_hook('on_session_start', lambda **kw: 'first')\n"
        "    ctx.register_hook('post_tool_call', lambda **kw: 'second')\n",
    )
    real_register = HermesPluginManager.register

    def refuse_the_second_callback(self, plugin, name=None):
        if isinstance(plugin, CallbackHolder) and plugin.hermes_hook_name == "post_tool_call":
            raise ValueError("refused by pluggy")
        return real_register(self, plugin, name)

    monkeypatch.setattr(HermesPluginManager, "register", refuse_the_second_callback)
    manager = plugin_manager(enabled=["halfway"], strict=False)
    record = manager.get("halfway")
    assert not record.loaded and record.error == "hook registration failed: refused by pluggy"
    assert manager.hooks.pm.get_plugins() == set()
    for hook in ("on_session_reset", "on_session_start", "post_tool_call"):
        assert manager.hooks.callbacks(hook) == ()
    assert "hermes_plugins.halfway" not in sys.modules


def test_the_env_file_is_read_once_per_manager(make_plugin, plugin_manager, hermes_home, monkeypatch):
    env_file = hermes_home / ".env"
    env_file.write_text("RULES_FIRST=1\n")
    for name in ("RULES_FIRST", "RULES_LATER"):
        monkeypatch.delenv(name, raising=False)
    make_plugin("one", "import os\nSEEN = os.environ.get('RULES_LATER')\ndef register(ctx): pass\n")
    make_plugin("two", "import os\nSEEN = os.environ.get('RULES_LATER')\ndef register(ctx): pass\n")
    try:
        manager = plugin_manager(load=False)
        manager.load("one")
        assert os.environ.get("RULES_FIRST") == "1"
        env_file.write_text("RULES_FIRST=1\nRULES_LATER=2\n")
        manager.load("two")
        assert manager.get("two").module.SEEN is None  # the file was read when the first plugin loaded
    finally:
        for name in ("RULES_FIRST", "RULES_LATER"):
            os.environ.pop(name, None)


def test_a_builtin_engine_registers_even_after_a_plugin_engine(make_plugin, plugin_manager):
    make_plugin("e_plugin", _engine_plugin("plugin_engine"))
    manager = plugin_manager(enabled=["e_plugin"])
    builtin_engines = {n for n, owner in manager._engine_owners.items() if owner == "builtin"}
    owners = {r.key for r in manager.plugins if r.loaded and r.candidate.source == "builtin" and r.registrations.context_engines}
    assert builtin_engines and owners and "plugin_engine" in manager.context_engines
    for key in owners:  # the builtin comes back after the plugin's engine took the one plugin place
        manager.unload(key)
        manager.load(key)
    assert builtin_engines <= set(manager.context_engines) and "plugin_engine" in manager.context_engines


def test_a_manager_reads_home_strictness_and_config_from_its_environment(hermes_home, monkeypatch, tmp_path):
    from hermes_core.manager import PluginManager

    (hermes_home / "config.yaml").write_text("plugins:\n  hook_callback_timeout: 7\n")
    monkeypatch.setenv("HERMES_STRICT_PLUGINS", "1")
    default = PluginManager()
    assert default.home == hermes_home and default.env is os.environ and default.strict is True
    assert default.config.get("plugins.hook_callback_timeout") == 7 and default.cwd is None
    other_home = tmp_path / "other_home"
    other_home.mkdir()
    given = PluginManager(env={"HERMES_HOME": str(other_home)}, cwd=tmp_path)
    assert given.home == other_home and given.strict is False and given.cwd == tmp_path  # the given mapping, not the process
    assert given.config.get("plugins.hook_callback_timeout") == 30  # the default: the other home has no config.yaml
    assert PluginManager(strict=False).strict is False
    empty = PluginManager(home=other_home)
    assert (empty.commands, empty.cli_commands, empty.skills, empty.memory_providers, empty.context_engines) == ({}, {}, {}, {}, {})
    assert (empty.middleware, empty.auxiliary_tasks, empty.web_search_providers, empty.plugins, empty.clashes) == ({}, {}, {}, [], [])
    assert empty.session_store_factory is None and empty.message_sink is None and empty.home_path == other_home


def test_a_load_failure_carries_its_traceback_only_when_debugging(make_plugin, plugin_manager, monkeypatch, caplog):
    make_plugin("boom", "def register(ctx):\n    raise ValueError('no config')\n")
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        plugin_manager(enabled=["boom"], strict=False)
    (quiet,) = [r for r in caplog.records if "failed to load" in r.getMessage()]
    assert quiet.exc_info is None
    caplog.clear()
    monkeypatch.setenv("HERMES_PLUGINS_DEBUG", "1")
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        plugin_manager(enabled=["boom"], strict=False)
    (loud,) = [r for r in caplog.records if "failed to load" in r.getMessage()]
    assert loud.exc_info is not None and loud.exc_info[0] is PluginLoadError


def test_discovery_reads_the_managers_own_environment(make_plugin, hermes_home, tmp_path, monkeypatch):
    from hermes_core.manager import PluginManager

    make_plugin("proj", "def register(ctx): pass\n", where="project")
    monkeypatch.delenv("HERMES_ENABLE_PROJECT_PLUGINS", raising=False)
    given = PluginManager(home=hermes_home, env={"HERMES_HOME": str(hermes_home), "HERMES_ENABLE_PROJECT_PLUGINS": "1"}, cwd=tmp_path / "project")
    assert given.get("proj") is not None and given.get("proj").candidate.source == "project"
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    assert PluginManager(home=hermes_home, env={"HERMES_HOME": str(hermes_home)}, cwd=tmp_path / "project").get("proj") is None


def test_a_two_part_plugin_selected_as_provider_shadows_an_exclusive_one_of_its_name(make_plugin, plugin_manager, tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "prx_dual").mkdir(parents=True)
    (site / "prx_dual" / "__init__.py").write_text(
        PROVIDER_CLASS + "\ndef register(ctx): pass\ndef register_provider(ctx):\n    ctx.register_memory_provider(Vault('dual', 'package'))\n"
    )
    info = site / "prx_dual-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: prx-dual\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hermes_agent.plugins]\ndual = prx_dual\n[hermes_agent.memory_providers]\ndual = prx_dual:register_provider\n")
    monkeypatch.syspath_prepend(str(site))
    make_plugin("dual", _provider_plugin("dual", origin="directory"), manifest={"name": "dual", "kind": "exclusive"}, category="mem")
    try:
        manager = plugin_manager(config={"memory": {"provider": "dual"}})
        package = manager.get("dual")
        directory = manager.get("mem/dual")
        assert package.candidate.source == "entrypoint" and package.loaded and manager.active_memory_provider().origin == "package"
        assert directory.enabled is False and "shadowed by 'dual' (entrypoint)" in directory.reason
    finally:
        for name in [m for m in sys.modules if m.startswith("prx_dual")]:
            del sys.modules[name]


def test_a_builtin_that_fails_to_load_is_reported_with_a_fix_that_is_not_disable(make_plugin, plugin_manager, caplog):
    make_plugin("store_first", "def register(ctx):\n    ctx.register_session_store(lambda home: None)\n")
    manager = plugin_manager(enabled=["store_first"], load=False, strict=False)
    manager.load("store_first")  # a program that loads its own store before the builtin one
    with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
        record = manager.load("state")
    assert record.candidate.source == "builtin" and record.loaded is False and "already registered" in record.error
    (message,) = [m for m in caplog.messages if "plugin 'state'" in m]
    assert message.endswith("-> it was skipped; fix the setting or file it names (builtins cannot be disabled)")


def test_a_given_home_and_environment_are_both_used_for_the_config(hermes_home, tmp_path, monkeypatch):
    from hermes_core.manager import PluginManager

    (hermes_home / "config.yaml").write_text("memory:\n  provider: ${RULES_PROVIDER}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.delenv("RULES_PROVIDER", raising=False)
    manager = PluginManager(home=hermes_home, env={"HERMES_HOME": str(elsewhere), "RULES_PROVIDER": "from-given-env"})
    assert manager.home == hermes_home
    assert manager.config.get("memory.provider") == "from-given-env"  # hermes_home's file, the given mapping's value
