"""The session the runtime tests share: a plugin with two tools, a block and a pre_llm_call context."""

from __future__ import annotations

import pytest

from hermes_core.memory.manager import MemoryManager
from hermes_plugins_builtin.state import SessionStore

TOOLS_PLUGIN = """
import json
def register(ctx):
    schema = {"name": "{name}", "description": "d", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
    ctx.register_tool("weather", "demo", dict(schema, name="weather"), lambda args, **kw: json.dumps({"sky": "sunny", "city": args.get("city")}))
    ctx.register_tool("terminal", "demo", dict(schema, name="terminal"), lambda args, **kw: json.dumps({"ran": True}))
    ctx.register_hook("pre_tool_call", lambda tool_name, **kw: {"action": "block", "message": "no shell here"} if tool_name == "terminal" else None)
    ctx.register_hook("pre_llm_call", lambda **kw: "plugin says hi")
"""


@pytest.fixture
def setup(make_plugin, plugin_manager, hook_recorder, hermes_home):
    make_plugin("demo", TOOLS_PLUGIN)
    plugins = plugin_manager(enabled=["demo"])
    recorder = hook_recorder(plugins)
    store = SessionStore(hermes_home / "state.db")
    memory = MemoryManager.from_plugins(plugins)
    yield plugins, recorder, store, memory
    store.close()
