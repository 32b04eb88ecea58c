"""PluginContext: tools, slash and CLI commands, skills, memory providers, context engines."""

from __future__ import annotations

import json

import pytest

from hermes_core.errors import RegistrationError
from hermes_core.tools import ToolRegistry, check_tool_schema

SCHEMA = "{'name': NAME, 'description': 'd', 'parameters': {'type': 'object', 'properties': {'q': {'type': 'string'}}}}"


def _tool_plugin(name: str, tool: str = "lookup", extra: str = "") -> str:
    return f"""
NAME = {tool!r}
def handler(args, **kw):
    return '{{"from": "{name}", "q": "' + args.get('q', '') + '"}}'
def register(ctx):
    ctx.register_tool(NAME, "{name}_set", {SCHEMA}, handler{extra})
"""


def test_a_registered_tool_is_dispatched_and_grouped_in_its_toolset(make_plugin, plugin_manager):
    make_plugin("t1", _tool_plugin("t1"))
    manager = plugin_manager(enabled=["t1"])
    assert json.loads(manager.tools.dispatch("lookup", {"q": "x"})) == {"from": "t1", "q": "x"}
    assert manager.tools.toolsets()["t1_set"] == ["lookup"]
    definition = manager.tools.get_definitions()[0]
    assert definition["type"] == "function" and definition["function"]["name"] == "lookup"
    assert manager.describe(manager.get("t1"))["tools"] == ["lookup"]


def test_a_tool_name_clash_is_rejected(make_plugin, plugin_manager):
    make_plugin("a_owner", _tool_plugin("a_owner"))
    make_plugin("b_thief", _tool_plugin("b_thief"))
    manager = plugin_manager(enabled=["a_owner", "b_thief"], strict=False)
    assert "already registered by plugin 'a_owner'" in manager.get("b_thief").error
    assert json.loads(manager.tools.dispatch("lookup", {}))["from"] == "a_owner"


def test_override_needs_the_config_switch(make_plugin, plugin_manager):
    make_plugin("a_owner", _tool_plugin("a_owner"))
    make_plugin("b_over", _tool_plugin("b_over", extra=", override=True"))
    refused = plugin_manager(enabled=["a_owner", "b_over"], strict=False)
    assert "plugins.entries.b_over.allow_tool_override" in refused.get("b_over").error
    allowed = plugin_manager(
        enabled=["a_owner", "b_over"],
        config={"plugins": {"entries": {"b_over": {"allow_tool_override": True}}}},
    )
    assert json.loads(allowed.tools.dispatch("lookup", {}))["from"] == "b_over"
    allowed.unload("b_over")  # the replaced tool comes back
    assert json.loads(allowed.tools.dispatch("lookup", {}))["from"] == "a_owner"


@pytest.mark.parametrize(
    "schema, message",
    [
        ({"name": "other", "description": "", "parameters": {"type": "object"}}, "must equal the tool name"),
        ({"name": "t", "description": ""}, "no 'parameters'"),
        ({"name": "t", "parameters": {"type": "array"}}, "type 'object'"),
        ({"name": "t", "parameters": {"type": "object", "properties": {"x": {"type": "strng"}}}}, "not valid JSON Schema"),
    ],
)
def test_tool_schemas_are_checked(schema, message):
    assert any(message in p for p in check_tool_schema("t", schema))


def test_wrapped_function_schemas_are_unwrapped_and_bad_names_refused():
    registry = ToolRegistry()
    entry = registry.register("ok_tool", "s", {"type": "function", "function": {"name": "ok_tool", "parameters": {"type": "object"}}}, lambda a, **k: "r")
    assert entry.schema["name"] == "ok_tool"
    with pytest.raises(RegistrationError, match="1-64 letters"):
        registry.register("bad name", "s", {"name": "bad name", "parameters": {"type": "object"}}, lambda a, **k: "")


def test_tool_dispatch_never_raises():
    registry = ToolRegistry()
    registry.register("explode", "s", {"name": "explode", "parameters": {"type": "object"}}, lambda a, **k: 1 / 0)
    registry.register("gated", "s", {"name": "gated", "parameters": {"type": "object"}}, lambda a, **k: "x", check_fn=lambda: False)
    registry.register("data", "s", {"name": "data", "parameters": {"type": "object"}}, lambda a, **k: {"n": 1})
    assert "ZeroDivisionError" in json.loads(registry.dispatch("explode", {}))["error"]
    assert "not available" in json.loads(registry.dispatch("gated", {}))["error"]
    assert "unknown tool" in json.loads(registry.dispatch("missing", {}))["error"]
    assert json.loads(registry.dispatch("data", {})) == {"n": 1}
    assert registry.get_definitions() == [registry.get_entry("data").definition(), registry.get_entry("explode").definition()]


def test_slash_commands_are_normalized_and_builtins_protected(make_plugin, plugin_manager, caplog):
    make_plugin("cmds", "def register(ctx):\n    ctx.register_command('/My Cmd', lambda raw: raw.upper(), description='shout')\n    ctx.register_command('new', lambda raw: 'stolen')\n")
    manager = plugin_manager(enabled=["cmds"])
    assert manager.commands["my-cmd"].handler("hi") == "HI"
    assert "new" not in manager.commands
    assert "/new is a built-in command" in caplog.text


def test_cli_commands_reach_the_hermes_command_line(make_plugin, plugin_manager, run_hermes):
    make_plugin(
        "greeter",
        """
def setup(parser):
    parser.add_argument("who")

def handle(args):
    print(f"hello {args.who}")
    return 0

def register(ctx):
    ctx.register_cli_command("greet", "say hello", setup, handle)
""",
    )
    plugin_manager(enabled=["greeter"])
    result = run_hermes("greet", "world")
    assert result.exit_code == 0 and result.stdout == "hello world\n"
    assert run_hermes("nosuchcommand").exit_code == 2


def test_a_plugin_command_with_its_own_json_option_prints_its_answer_on_stdout(make_plugin, plugin_manager, run_hermes):
    # hermes's own groups keep stdout for their document under --json; a plugin's command prints its own
    make_plugin("dumper", """
import json

def setup(parser):
    parser.add_argument("--json", action="store_true")

def handle(args):
    print(json.dumps({"ok": True}) if args.json else "ok")
    return 0

def register(ctx):
    ctx.register_cli_command("dump", "dump things", setup, handle)
""")
    plugin_manager(enabled=["dumper"])
    result = run_hermes("dump", "--json")
    assert result.exit_code == 0 and result.stdout == '{"ok": true}\n', (result.stdout, result.stderr)


def test_cli_commands_cannot_take_core_names(make_plugin, plugin_manager):
    make_plugin("hijack", "def register(ctx):\n    ctx.register_cli_command('plugins', 'x', lambda p: None)\n")
    assert "core command" in plugin_manager(enabled=["hijack"], strict=False).get("hijack").error


def test_skills_resolve_as_plugin_colon_name(make_plugin, plugin_manager):
    make_plugin("skilled", "from pathlib import Path\ndef register(ctx):\n    ctx.register_skill('deploy', Path(__file__).parent / 'skills' / 'deploy' / 'SKILL.md', 'how to deploy')\n", files={"skills/deploy/SKILL.md": "# Deploy\n"})
    manager = plugin_manager(enabled=["skilled"])
    assert manager.skills["skilled:deploy"].path.read_text() == "# Deploy\n"
    make_plugin("badskill", "def register(ctx):\n    ctx.register_skill('bad:name', __file__)\n")
    assert "must match" in plugin_manager(enabled=["badskill"], strict=False).get("badskill").error


PROVIDER = """
from hermes_core import MemoryProvider
class P(MemoryProvider):
    name = {name!r}
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
def register(ctx):
    ctx.register_memory_provider(P())
"""


def test_only_one_external_memory_provider_is_accepted(make_plugin, plugin_manager, caplog):
    make_plugin("m_one", PROVIDER.format(name="one"), manifest={"name": "m_one", "kind": "standalone"})
    make_plugin("m_two", PROVIDER.format(name="two"), manifest={"name": "m_two", "kind": "standalone"})
    manager = plugin_manager(enabled=["m_one", "m_two"])
    assert [name for name in manager.memory_providers if name != "builtin"] == ["one"]
    assert "provider 'one' is already active" in caplog.text and "memory.provider" in caplog.text


def test_register_memory_provider_checks_the_type(make_plugin, plugin_manager):
    make_plugin("notprov", "def register(ctx):\n    ctx.register_memory_provider(object())\n", manifest={"name": "notprov", "kind": "standalone"})
    assert "expects a MemoryProvider" in plugin_manager(enabled=["notprov"], strict=False).get("notprov").error


def test_registering_the_class_instead_of_an_instance_names_the_call_to_make(make_plugin, plugin_manager):
    code = PROVIDER.format(name="vault").replace("ctx.register_memory_provider(P())", "ctx.register_memory_provider(P)")
    assert "register_memory_provider(P)" in code
    make_plugin("byclass", code, manifest={"name": "byclass", "kind": "standalone"})
    error = plugin_manager(enabled=["byclass"], strict=False).get("byclass").error
    assert "was given the class P, not an instance of it -> pass P()" in error


def test_plugin_settings_are_read_from_entries(make_plugin, plugin_manager):
    make_plugin("cfg", "SEEN = {}\ndef register(ctx):\n    SEEN['depth'] = ctx.get_config('depth', 1)\n    SEEN['nested'] = ctx.get_config('a.b')\n    SEEN['missing'] = ctx.get_config('nope', 'dflt')\n")
    manager = plugin_manager(enabled=["cfg"], config={"plugins": {"entries": {"cfg": {"settings": {"depth": 5, "a": {"b": "c"}}}}}})
    assert manager.get("cfg").module.SEEN == {"depth": 5, "nested": "c", "missing": "dflt"}


def test_dispatch_tool_and_inject_message(make_plugin, plugin_manager):
    make_plugin("user_of_tools", _tool_plugin("user_of_tools") + "\nCTX = []\n_old = register\ndef register(ctx):\n    _old(ctx)\n    CTX.append(ctx)\n")
    manager = plugin_manager(enabled=["user_of_tools"])
    ctx = manager.get("user_of_tools").module.CTX[0]
    assert json.loads(ctx.dispatch_tool("lookup", {"q": "z"}))["q"] == "z"
    assert ctx.inject_message("hi") is False
    received = []
    manager.message_sink = lambda content, role: received.append((content, role)) or True
    assert ctx.inject_message("hi", role="user") is True and received == [("hi", "user")]


def test_hermes_own_tool_schemas_are_valid_json_schema_the_check_loading_skips(plugin_manager):
    # a builtin's tool is registered without the meta-schema check (it would import jsonschema in every command):
    # the check runs here instead, on every tool the builtins register
    manager = plugin_manager()
    manager.load_builtins()
    builtin_tools = [manager.tools.get_entry(name) for name in manager.tools.names()]
    builtin_tools = [entry for entry in builtin_tools if entry is not None and manager.get(entry.plugin).candidate.source == "builtin"]
    assert {entry.name for entry in builtin_tools} >= {"session_search"}
    for entry in builtin_tools:
        assert check_tool_schema(entry.name, entry.schema) == [], entry.name


def test_a_plugins_tool_schema_is_still_checked_against_json_schema(make_plugin, plugin_manager):
    make_plugin("badtool", "def register(ctx):\n    ctx.register_tool('bad', 'x', {'name': 'bad', 'description': '', "
                           "'parameters': {'type': 'object', 'properties': {'q': {'type': 'strng'}}}}, lambda args, **kw: '{}')\n")
    manager = plugin_manager(enabled=["badtool"], strict=False)
    record = manager.get("badtool")
    assert not record.loaded and "not valid JSON Schema" in record.error and "bad" not in manager.tools

