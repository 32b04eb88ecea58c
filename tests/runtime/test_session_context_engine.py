"""AgentSession and its context engine against a real OpenAI-protocol server: compression splits the
session, the threshold is judged on the last request, the engine's optional members are called."""

from __future__ import annotations

import json

import pytest

from hermes_core.memory.manager import MemoryManager
from hermes_core.models.clients import OpenAIChatClient
from hermes_core.runtime.session import AgentSession
from hermes_core.testing_servers import OpenAIServer, text_reply, tool_call_reply
from hermes_plugins_builtin.state import SessionStore


ENGINE_PLUGIN = """
from hermes_core import ContextEngine

class KeepLast(ContextEngine):
    name = "keeplast"
    def __init__(self):
        self.seen = []
    def update_from_response(self, usage):
        self.last_prompt_tokens = usage.get("prompt_tokens", 0)
    def should_compress(self, prompt_tokens=None):
        return (prompt_tokens or 0) >= 1000
    def compress(self, messages, current_tokens=None, focus_topic=None, memory_context=""):
        self.seen.append(memory_context)
        return [{"role": "user", "content": "[summary] earlier turns"}] + messages[-2:]

def register(ctx):
    ctx.register_context_engine(KeepLast())
"""

PROVIDER_PLUGIN = """
from hermes_core import MemoryProvider
class Watcher(MemoryProvider):
    name = "watcher"
    calls = []
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
    def on_pre_compress(self, messages):
        self.calls.append(("on_pre_compress", len(messages)))
        return "watcher notes"
    def on_session_switch(self, new_session_id, *, parent_session_id="", reset=False, **kw):
        self.calls.append(("on_session_switch", new_session_id, parent_session_id, kw.get("reason")))
def register(ctx):
    ctx.register_memory_provider(Watcher())
"""


def test_compression_mid_conversation_splits_the_session(make_plugin, plugin_manager, hook_recorder, hermes_home):
    make_plugin("keeplast", ENGINE_PLUGIN)
    make_plugin("watcher", PROVIDER_PLUGIN, manifest={"name": "watcher", "kind": "exclusive"})
    plugins = plugin_manager(config={"context": {"engine": "keeplast"}, "memory": {"provider": "watcher"}})
    engine = plugins.active_context_engine()
    memory = MemoryManager.from_plugins(plugins)
    store = SessionStore(hermes_home / "state.db")
    script = [text_reply("small", usage={"prompt_tokens": 10, "completion_tokens": 1}), text_reply("big", usage={"prompt_tokens": 5000, "completion_tokens": 1}), text_reply("after")]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory, context_engine=engine)
        first = session.start(title="Trip planning")
        session.run_turn("turn one")
        result = session.run_turn("turn two")
        assert result.compressed_into == session.session_id != first
        session.run_turn("turn three")
        third_request = server.bodies[2]["messages"]
    old, new = store.get_session(first), store.get_session(session.session_id)
    assert old["end_reason"] == "compression" and new["parent_session_id"] == first
    assert new["title"] == "Trip planning #2" and new["system_prompt"] == old["system_prompt"]
    assert store.get_compression_tip(first) == session.session_id
    assert [m["content"] for m in store.get_messages(session.session_id)][:3] == ["[summary] earlier turns", "turn two", "big"]
    assert third_request[1]["content"] == "[summary] earlier turns" and third_request[-1]["content"] == "turn three"
    watcher = plugins.memory_providers["watcher"]
    assert [c[0] for c in watcher.calls] == ["on_pre_compress", "on_session_switch"]
    assert watcher.calls[1][1:] == (session.session_id, first, "compression")
    assert engine.seen == ["watcher notes"]
    store.close()


def test_the_builtin_compressor_compresses_through_the_runtime_offline(setup):
    plugins, recorder, store, memory = setup
    engine = plugins.active_context_engine()
    assert engine is not None and engine.name == "compressor"
    script = [text_reply(f"answer {i} " + "detail " * 40) for i in range(8)]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory, context_engine=engine)
        first = session.start(title="Long chat")
        for i in range(8):
            session.run_turn(f"question {i} about /srv/app/config.yaml " + "context " * 40)
        new = session.compress()
    kept = store.get_messages(new)
    assert store.get_session(new)["parent_session_id"] == first and store.get_session(first)["end_reason"] == "compression"
    assert len(kept) < 16 and any("/srv/app/config.yaml" in (m["content"] or "") for m in kept)
    assert kept[-1]["content"].startswith("answer 7")


THRESHOLD_ENGINE = """
from hermes_core import ContextEngine

class Threshold(ContextEngine):
    name = "threshold"
    def __init__(self):
        self.usages, self.checked, self.started = [], [], []
    def update_from_response(self, usage):
        self.usages.append(dict(usage))
        self.last_prompt_tokens = usage.get("prompt_tokens", 0)
    def should_compress(self, prompt_tokens=None):
        self.checked.append(prompt_tokens)
        return (prompt_tokens or 0) >= 1000
    def compress(self, messages, current_tokens=None, focus_topic=None):
        return [{"role": "user", "content": "[summary]"}] + messages[-2:]
    def on_session_start(self, session_id, **kw):
        self.started.append(session_id)

def register(ctx):
    ctx.register_context_engine(Threshold())
"""


@pytest.fixture
def threshold_setup(make_plugin, plugin_manager, hook_recorder, hermes_home):
    make_plugin("threshold", THRESHOLD_ENGINE)
    plugins = plugin_manager(config={"context": {"engine": "threshold"}})
    store = SessionStore(hermes_home / "state.db")
    yield plugins, plugins.active_context_engine(), hook_recorder(plugins), store
    store.close()


def test_cached_prompt_tokens_count_toward_the_compression_threshold(threshold_setup):
    from hermes_core.models.clients import AnthropicMessagesClient
    from hermes_core.testing_servers import AnthropicServer

    plugins, engine, recorder, store = threshold_setup
    # Anthropic reports the cached part of the prompt apart from input_tokens: 12 + 900 + 300 = 1212
    usage = {"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 900, "cache_creation_input_tokens": 300}
    with AnthropicServer([text_reply("ok", usage=usage), text_reply("after")]) as server:
        session = AgentSession(plugins=plugins, client=AnthropicMessagesClient(server.base_url, "claude-test"), store=store, context_engine=engine)
        first = session.start()
        result = session.run_turn("hello")
        session.run_turn("next")
    assert engine.usages[0]["prompt_tokens"] == 1212 and engine.checked[0] == 1212
    assert (engine.usages[0]["output_tokens"], engine.usages[0]["cache_read_tokens"]) == (3, 900)  # the call's usage, besides the prompt size
    assert result.compressed_into is not None and result.compressed_into != first
    # the turn ran in the first session; on_session_end names it, not the one compression opened
    assert recorder.calls_of("on_session_end")[0].kwargs["session_id"] == first
    assert recorder.calls_of("on_session_end")[1].kwargs["session_id"] == result.compressed_into


def test_the_threshold_is_judged_on_the_last_request_not_a_sum_over_tool_rounds(threshold_setup):
    plugins, engine, recorder, store = threshold_setup
    usage = {"prompt_tokens": 400, "completion_tokens": 5}
    script = [tool_call_reply("memory", {"action": "add", "target": "memory", "content": "a"}, usage=usage),
              tool_call_reply("memory", {"action": "add", "target": "memory", "content": "b"}, usage={"prompt_tokens": 450, "completion_tokens": 5}),
              text_reply("done", usage={"prompt_tokens": 500, "completion_tokens": 5})]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, context_engine=engine)
        result = session.run_turn("note two things")
    assert result.usage["input_tokens"] == 1350  # the turn's bill is the sum ...
    assert engine.checked == [500] and result.compressed_into is None  # ... the window is the last prompt


def test_resume_tells_the_context_engine_which_session_it_is_in(threshold_setup):
    plugins, engine, recorder, store = threshold_setup
    with OpenAIServer([text_reply("hi")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, context_engine=engine)
        session_id = session.run_turn("hello").session_id
    resumed = AgentSession(plugins=plugins, client=OpenAIChatClient("http://127.0.0.1:9", "m1"), store=store, context_engine=engine)
    resumed.resume(session_id)
    assert engine.started == [session_id, session_id]


FULL_ENGINE = """
import json
from hermes_core import ContextEngine

class Full(ContextEngine):
    name = "full"
    def __init__(self):
        self.events = []
    def update_from_response(self, usage):
        pass
    def should_compress(self, prompt_tokens=None):
        return False
    def should_compress_preflight(self, messages):
        return len(messages) >= 4  # a resumed long session
    def has_content_to_compress(self, messages):
        return len(messages) >= 4
    def compress(self, messages, current_tokens=None, focus_topic=None):
        self.events.append(("compress", len(messages)))
        return [{"role": "user", "content": "[summary]"}] + messages[-1:]
    def on_session_start(self, session_id, **kw):
        self.events.append(("on_session_start", kw.get("boundary_reason")))
    def on_turn_complete(self, messages, usage=None, **kw):
        self.events.append(("on_turn_complete", len(messages), (usage or {}).get("input_tokens")))
    def get_tool_schemas(self):
        return [{"name": "context_status", "description": "how full the context is", "parameters": {"type": "object", "properties": {}}}]
    def handle_tool_call(self, name, args, **kw):
        return json.dumps({"messages_seen": len(kw["messages"]), "tool": name})

def register(ctx):
    ctx.register_context_engine(Full())
"""


def test_the_engine_hook_points_tools_preflight_and_boundaries(make_plugin, plugin_manager, hermes_home):
    make_plugin("full", FULL_ENGINE)
    plugins = plugin_manager(config={"context": {"engine": "full"}})
    engine = plugins.active_context_engine()
    store = SessionStore(hermes_home / "state.db")
    script = [tool_call_reply("context_status", {}, usage={"prompt_tokens": 30, "completion_tokens": 2}), text_reply("fine", usage={"prompt_tokens": 40, "completion_tokens": 2})]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, context_engine=engine)
        first = session.start()
        assert session.compress() == first  # nothing to compress yet: no split, no copy
        result = session.run_turn("how full?")
        offered = [t["function"]["name"] for t in server.bodies[0]["tools"]]
    assert "context_status" in offered
    # the engine's tool sees the conversation so far, this turn included (the question and the call)
    assert json.loads(result.tool_calls[0].result) == {"messages_seen": 2, "tool": "context_status"}
    assert ("on_turn_complete", 4, 70) in engine.events
    assert [r["id"] for r in store.list_sessions_rich(limit=10, project_compression=False)] == [first]
    # resumed with four messages: the preflight check compresses before the first request
    with OpenAIServer([text_reply("resumed")]) as server:
        later = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, context_engine=engine)
        later.resume(first)
        later.run_turn("and now?")
        sent = [m["content"] for m in server.bodies[0]["messages"] if m["role"] != "system"]
    assert sent[0] == "[summary]" and sent[-1] == "and now?" and later.session_id != first
    assert ("on_session_start", "compression") in engine.events
    store.close()
