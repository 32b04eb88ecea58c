"""What AgentSession tells plugins: every hook, memory provider and context engine call names the
session, turn, model and platform it belongs to, and gets data it may not change the conversation through."""

from __future__ import annotations

import json
import re

import pytest

from hermes_core.memory.manager import MemoryManager
from hermes_core.runtime.clients import OpenAIChatClient
from hermes_core.runtime.session import AgentSession
from hermes_core.runtime.system_prompt import PLATFORM_HINTS, collect_inputs
from hermes_core.testing_servers import OpenAIServer, text_reply, tool_call_reply
from hermes_plugins_builtin.state import SessionStore

# A memory provider that writes down every call it gets, with its arguments.
RECORDING_PROVIDER = """
from hermes_core import MemoryProvider

class Recording(MemoryProvider):
    name = "recording"
    def __init__(self):
        self.calls = []
    def is_available(self): return True
    def get_tool_schemas(self): return []
    def initialize(self, session_id, **kw):
        self.calls.append(("initialize", session_id, {k: v for k, v in kw.items() if k != "hermes_home"}))
    def on_turn_start(self, turn_number, message, **kw):
        self.calls.append(("on_turn_start", turn_number, message, kw))
    def prefetch(self, query, *, session_id=""):
        self.calls.append(("prefetch", query, session_id))
        return "Ada lives in Oslo."
    def queue_prefetch(self, query, *, session_id=""):
        self.calls.append(("queue_prefetch", query, session_id))
    def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None):
        self.calls.append(("sync_turn", user_content, assistant_content, session_id, [m["content"] for m in messages]))
    def on_session_end(self, messages):
        self.calls.append(("on_session_end", [m["content"] for m in messages]))
    def on_session_switch(self, new_session_id, *, parent_session_id="", reset=False, **kw):
        self.calls.append(("on_session_switch", new_session_id, parent_session_id, reset))

def register(ctx):
    ctx.register_memory_provider(Recording())
"""

# A context engine that records its lifecycle calls and never compresses.
RECORDING_ENGINE = """
from hermes_core import ContextEngine

class Recorder(ContextEngine):
    name = "recorder"
    def __init__(self):
        self.calls = []
    def update_from_response(self, usage):
        self.calls.append(("update_from_response", usage.get("prompt_tokens")))
    def should_compress(self, prompt_tokens=None):
        return True  # always asked to; with nothing to compress, no new session may be reported
    def has_content_to_compress(self, messages):
        return False
    def compress(self, messages, current_tokens=None, focus_topic=None):
        raise AssertionError("nothing to compress")
    def select_context(self, request_messages, *, conversation_messages, incoming_message, budget_tokens):
        self.calls.append(("select_context", incoming_message["content"][:12]))
        return None
    def on_session_start(self, session_id, **kw):
        self.calls.append(("on_session_start", session_id, kw.get("platform"), kw.get("model")))
    def on_session_end(self, session_id, messages):
        self.calls.append(("on_session_end", session_id, len(messages)))

def register(ctx):
    ctx.register_context_engine(Recorder())
"""

# Listeners that edit what they are given, and a transform of the final answer.
EDITING_HOOKS = """
SEEN = []

def _vandal(name):
    def callback(conversation_history, **kw):
        SEEN.append((name, kw.get("turn_id")))
        for message in conversation_history:
            message["content"] = "vandalised"
    return callback

def register(ctx):
    ctx.register_hook("pre_llm_call", _vandal("pre_llm_call"))
    ctx.register_hook("post_llm_call", _vandal("post_llm_call"))
    ctx.register_hook("transform_llm_output", lambda response_text, **kw: "[checked] " + response_text)
    ctx.register_hook("pre_api_request", lambda **kw: None)
"""

WEATHER_TOOL = """
import json
def register(ctx):
    schema = {"name": "weather", "description": "d", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
    ctx.register_tool("weather", "demo", schema, lambda args, **kw: json.dumps({"sky": "sunny"}))
"""


@pytest.fixture
def parts(make_plugin, plugin_manager, hook_recorder, hermes_home, tmp_path):
    make_plugin("recording", RECORDING_PROVIDER, manifest={"name": "recording", "kind": "exclusive"})
    make_plugin("recorder", RECORDING_ENGINE)
    make_plugin("weather", WEATHER_TOOL)
    plugins = plugin_manager(enabled=["weather"], config={"memory": {"provider": "recording"}, "context": {"engine": "recorder"}})
    store = SessionStore(hermes_home / "state.db")
    yield plugins, hook_recorder(plugins), store, MemoryManager.from_plugins(plugins)
    store.close()


def _kwargs(recorder, hook):
    """The kwargs each call of ``hook`` got, without the dispatcher's own telemetry field."""
    return [{k: v for k, v in call.kwargs.items() if k != "telemetry_schema_version"} for call in recorder.calls_of(hook)]


def test_a_conversation_names_its_session_turn_model_and_platform_everywhere(parts, tmp_path, hermes_home):
    plugins, recorder, store, memory = parts
    (hermes_home / "memories").mkdir()
    (hermes_home / "memories" / "MEMORY.md").write_text("Project uses Poetry, not pip.")
    provider = plugins.memory_providers["recording"]
    engine = plugins.active_context_engine()
    (tmp_path / "AGENTS.md").write_text("Run the tests with make check.")
    script = [tool_call_reply("weather", {"city": "Oslo"}), text_reply("Sunny in Oslo."), text_reply("You are welcome.")]
    with OpenAIServer(script) as server:
        session = AgentSession(
            plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory,
            context_engine=engine, model="m-test", platform="telegram", system_message="Answer in English.", cwd=tmp_path, task_id="task-7",
        )
        first = session.run_turn("What is the weather in Oslo today?")
        second = session.run_turn("Thanks for checking the weather!")
        bodies = server.bodies
    sid = session.session_id
    assert first.session_id == second.session_id == sid and first.compressed_into is None  # asked to compress, nothing to compress

    # the prompt: caller's system message, the project's context file from cwd, the platform
    assert "Project uses Poetry, not pip." in session.system_prompt  # the built-in memory's block
    assert "Answer in English." in session.system_prompt and "Run the tests with make check." in session.system_prompt
    assert session.system_prompt == store.get_session(sid)["system_prompt"] == bodies[0]["messages"][0]["content"]
    assert PLATFORM_HINTS["telegram"] in session.system_prompt
    assert store.get_session(sid)["source"] == "telegram" and store.get_session(sid)["model"] == "m-test"

    (start,) = _kwargs(recorder, "on_session_start")
    assert start == {"session_id": sid, "model": "m-test", "platform": "telegram"}
    pre_llm = _kwargs(recorder, "pre_llm_call")
    turn_ids = [kw["turn_id"] for kw in pre_llm]
    assert all(re.fullmatch(r"[0-9a-f]+", t) for t in turn_ids) and turn_ids[0] != turn_ids[1]
    assert {k: v for k, v in pre_llm[0].items() if k != "conversation_history"} == {
        "session_id": sid, "user_message": "What is the weather in Oslo today?", "is_first_turn": True,
        "model": "m-test", "platform": "telegram", "turn_id": turn_ids[0], "task_id": "task-7", "sender_id": "",
    }
    assert pre_llm[1]["is_first_turn"] is False and [m["content"] for m in pre_llm[1]["conversation_history"]][0] == "What is the weather in Oslo today?"

    api = _kwargs(recorder, "pre_api_request")
    post_api = _kwargs(recorder, "post_api_request")
    assert [kw["turn_id"] for kw in api] == [turn_ids[0], turn_ids[0], turn_ids[1]] and [kw["api_call_count"] for kw in api] == [1, 2, 1]
    for before, after in zip(api, post_api):
        identity = {k: before[k] for k in ("session_id", "task_id", "turn_id", "api_request_id", "platform", "model", "provider", "base_url")}
        assert identity == {k: after[k] for k in identity}
        assert identity["session_id"] == sid and identity["task_id"] == "task-7" and identity["platform"] == "telegram"
        assert identity["provider"] == "openai" and identity["base_url"] == server.base_url and identity["model"] == "m-test"
    assert len({kw["api_request_id"] for kw in api}) == 3 and all(kw["api_request_id"] for kw in api)

    (tool,) = _kwargs(recorder, "pre_tool_call")
    assert (tool["session_id"], tool["task_id"], tool["turn_id"]) == (sid, "task-7", turn_ids[0])
    (post_tool,) = _kwargs(recorder, "post_tool_call")
    assert (post_tool["session_id"], post_tool["task_id"], post_tool["turn_id"]) == (sid, "task-7", turn_ids[0])

    post_llm = _kwargs(recorder, "post_llm_call")
    assert {k: v for k, v in post_llm[0].items() if k != "conversation_history"} == {
        "session_id": sid, "user_message": "What is the weather in Oslo today?", "assistant_response": "Sunny in Oslo.",
        "model": "m-test", "platform": "telegram", "turn_id": turn_ids[0],
    }
    assert [m["role"] for m in post_llm[0]["conversation_history"]] == ["user", "assistant", "tool", "assistant"]
    ends = _kwargs(recorder, "on_session_end")
    assert ends[0] == {"session_id": sid, "completed": True, "interrupted": False, "model": "m-test", "platform": "telegram"}

    # the model got the recalled memory in a fence, and an assistant message without the stored finish_reason
    assert "Ada lives in Oslo." in bodies[0]["messages"][-1]["content"]
    assert set(bodies[1]["messages"][2]) == {"role", "content", "tool_calls"}
    assert [m.get("finish_reason") for m in store.get_messages(sid) if m["role"] == "assistant"] == ["tool_calls", "stop", "stop"]
    assert [m["content"] for m in first.messages] == [m["content"] for m in store.get_messages(sid)][:4]

    memory.flush(10)
    assert provider.calls[0] == ("initialize", sid, {"platform": "telegram", "agent_context": "primary", "parent_session_id": ""})
    assert ("on_turn_start", 1, "What is the weather in Oslo today?", {"model": "m-test", "platform": "telegram"}) in provider.calls
    assert ("on_turn_start", 2, "Thanks for checking the weather!", {"model": "m-test", "platform": "telegram"}) in provider.calls
    assert ("prefetch", "What is the weather in Oslo today?", sid) in provider.calls
    assert ("queue_prefetch", "Thanks for checking the weather!", sid) in provider.calls
    synced = [c for c in provider.calls if c[0] == "sync_turn"]
    assert synced[0][1:4] == ("What is the weather in Oslo today?", "Sunny in Oslo.", sid)
    assert synced[1][4] == [m["content"] for m in store.get_messages(sid)]  # the whole conversation as stored

    assert engine.calls[0] == ("on_session_start", sid, "telegram", "m-test")
    assert ("select_context", "What is the ") in engine.calls  # the engine chose from the incoming message


def test_finalize_reset_and_resume_tell_every_part(parts):
    plugins, recorder, store, memory = parts
    provider = plugins.memory_providers["recording"]
    engine = plugins.active_context_engine()
    with OpenAIServer([text_reply("one"), text_reply("two")]) as server:
        session = AgentSession(
            plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory, context_engine=engine, platform="discord"
        )
        old = session.run_turn("first question here").session_id
        new = session.reset()
        session.run_turn("second question here")
        session.finalize()
    memory.flush(10)
    assert ("on_session_end", ["first question here", "one"]) in provider.calls
    assert ("on_session_switch", new, old, True) in provider.calls
    assert ("on_session_end", old, 2) in engine.calls and ("on_session_end", new, 2) in engine.calls
    assert _kwargs(recorder, "on_session_finalize") == [{"session_id": old, "platform": "discord"}, {"session_id": new, "platform": "discord"}]
    assert _kwargs(recorder, "on_session_reset") == [{"session_id": new, "platform": "discord"}]
    assert store.get_session(new)["end_reason"] == "user"

    provider.calls.clear()
    engine.calls.clear()
    resumed = AgentSession(plugins=plugins, client=OpenAIChatClient("http://127.0.0.1:9", "m1"), store=store, memory=memory,
                           context_engine=engine, model="m2", platform="slack")
    assert resumed.resume(old) == old
    assert provider.calls[0] == ("initialize", old, {"platform": "slack", "agent_context": "primary"})
    assert engine.calls == [("on_session_start", old, "slack", "m2")]


def test_start_with_a_parent_and_a_given_prompt(parts):
    plugins, recorder, store, memory = parts
    provider = plugins.memory_providers["recording"]
    session = AgentSession(plugins=plugins, client=OpenAIChatClient("http://127.0.0.1:9", "m1"), store=store, memory=memory)
    parent = session.start()
    child = session.start(parent_session_id=parent, system_prompt="A prompt of the caller's own.")
    row = store.get_session(child)
    assert row["parent_session_id"] == parent and row["system_prompt"] == session.system_prompt == "A prompt of the caller's own."
    assert row["source"] == "cli"  # the default platform
    assert provider.calls[-1] == ("initialize", child, {"platform": "cli", "agent_context": "primary", "parent_session_id": parent})


def test_resuming_an_unknown_session_names_it_and_the_command_that_lists_them(parts):
    plugins, recorder, store, memory = parts
    session = AgentSession(plugins=plugins, client=OpenAIChatClient("http://127.0.0.1:9", "m1"), store=store)
    with pytest.raises(Exception) as caught:
        session.resume("no-such-session")
    assert str(caught.value) == "no session 'no-such-session' in the store -> 'hermes sessions list' shows the ids"


def test_a_hook_that_edits_message_dicts_changes_neither_the_store_nor_the_next_request(make_plugin, plugin_manager, hermes_home):
    make_plugin("editing", EDITING_HOOKS)
    plugins = plugin_manager(enabled=["editing"])
    store = SessionStore(hermes_home / "state.db")
    with OpenAIServer([text_reply("one"), text_reply("two")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store)
        session.run_turn("first")
        session.run_turn("second")
        bodies = server.bodies
    stored = [m["content"] for m in store.get_messages(session.session_id)]
    store.close()
    assert stored == ["first", "[checked] one", "second", "[checked] two"]
    assert [m["content"] for m in bodies[1]["messages"][1:3]] == ["first", "[checked] one"]
    assert "vandalised" not in json.dumps(bodies)


def test_a_turn_that_runs_out_of_tool_rounds_keeps_every_tool_result(make_plugin, plugin_manager, hermes_home):
    make_plugin("weather", WEATHER_TOOL)
    make_plugin("editing", EDITING_HOOKS)
    plugins = plugin_manager(enabled=["weather", "editing"])
    store = SessionStore(hermes_home / "state.db")
    looping = [tool_call_reply("weather", {"city": "Oslo"}, id="call_1"), tool_call_reply("weather", {"city": "Oslo"}, id="call_2", text="Checking once more.")]
    with OpenAIServer(looping) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, max_tool_rounds=2)
        result = session.run_turn("weather?")
        requests = len(server.bodies)
    stored = store.get_messages(session.session_id)
    store.close()
    assert requests == 2 and len(result.tool_calls) == 2
    # the last round's text is the answer, transformed; the tool result after it is stored untouched
    assert result.text == "[checked] Checking once more."
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "assistant", "tool"]
    assert json.loads(stored[-1]["content"]) == {"sky": "sunny"}


def test_an_answer_with_no_text_is_not_transformed(make_plugin, plugin_manager, hermes_home):
    make_plugin("weather", WEATHER_TOOL)
    make_plugin("editing", EDITING_HOOKS)
    plugins = plugin_manager(enabled=["weather", "editing"])
    store = SessionStore(hermes_home / "state.db")
    with OpenAIServer([tool_call_reply("weather", {"city": "Oslo"})]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, max_tool_rounds=1)
        result = session.run_turn("weather?")
    store.close()
    assert result.text == ""


class _OwnClient:
    """A model client of an integrator's own: no provider, base URL or model attribute, and a
    response object that reports usage only (no ``prompt_tokens``)."""

    def __init__(self, usage):
        self.usage = usage

    def complete(self, messages, **kwargs):
        class Reply:
            text, tool_calls, finish_reason, raw = "fine", [], "stop", None
            usage = self.usage
        return Reply()


def test_a_client_of_ones_own_is_named_by_what_it_has(parts):
    plugins, recorder, store, memory = parts
    engine = plugins.active_context_engine()
    usage = {"input_tokens": 12, "output_tokens": 3, "cache_read_tokens": 900, "cache_write_tokens": 300}
    session = AgentSession(plugins=plugins, client=_OwnClient(usage), store=store, context_engine=engine)
    session.run_turn("hello there, model")
    (api,) = _kwargs(recorder, "pre_api_request")
    assert (api["model"], api["provider"], api["base_url"]) == ("", "", "")
    assert re.fullmatch(r"[0-9a-f]+", session.task_id)
    # the whole prompt (uncached + cache read + cache written) is what fills the window
    assert ("update_from_response", 1212) in engine.calls


def test_a_client_that_reports_its_prompt_size_itself_is_believed(parts):
    plugins, recorder, store, memory = parts
    engine = plugins.active_context_engine()

    class Counting(_OwnClient):
        """Counts the prompt itself (a provider that adds a preamble of its own, say), apart from usage."""

        def complete(self, messages, **kwargs):
            reply = super().complete(messages, **kwargs)
            reply.prompt_tokens = 5000
            return reply

    session = AgentSession(plugins=plugins, client=Counting({"input_tokens": 12, "output_tokens": 3}), store=store, context_engine=engine)
    session.run_turn("hello there, model")
    assert ("update_from_response", 5000) in engine.calls


def test_sub_agents_run_as_their_parent_with_ids_of_their_own(make_plugin, plugin_manager, hook_recorder, hermes_home):
    make_plugin("weather", WEATHER_TOOL)
    plugins = plugin_manager(enabled=["weather"])
    recorder = hook_recorder(plugins)
    store = SessionStore(hermes_home / "state.db")
    script = [tool_call_reply("weather", {"city": "Rome"}), text_reply("Oslo: sunny.")]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, model="m-test", platform="telegram", max_tool_rounds=1)
        session.start()
        first = session.spawn_subagent("check Rome")
        second = session.spawn_subagent("check Oslo")
        requests = len(server.bodies)
    rows = [store.get_session(first.session_id), store.get_session(second.session_id)]
    store.close()
    assert requests == 2 and first.text == "" and second.text == "Oslo: sunny."  # one tool round each, as for the parent
    assert first.session_id != second.session_id and all(r["model"] == "m-test" and r["parent_session_id"] == session.session_id for r in rows)
    child_calls = _kwargs(recorder, "pre_llm_call")
    assert {(kw["model"], kw["platform"]) for kw in child_calls} == {("m-test", "telegram")}
    task_ids = {kw["task_id"] for kw in child_calls}
    assert len(task_ids) == 2 and session.task_id not in task_ids and all(re.fullmatch(r"[0-9a-f]+", t) for t in task_ids)


def test_the_prompt_without_a_caller_message_is_the_built_in_one(parts, tmp_path):
    plugins, recorder, store, memory = parts
    session = AgentSession(plugins=plugins, client=OpenAIChatClient("http://127.0.0.1:9", "m1"), store=store, cwd=tmp_path)
    session.start()
    expected = collect_inputs(home=plugins.home, cwd=tmp_path, platform="cli").render()
    # the date line may tick between the two renders; everything else is the same
    strip = lambda text: re.sub(r".*\d{4}-\d{2}-\d{2}.*", "", text)  # noqa: E731
    assert strip(session.system_prompt) == strip(expected)


def test_each_request_is_billed_in_the_store_and_told_to_the_api_hooks(make_plugin, plugin_manager, hook_recorder, hermes_home):
    make_plugin("listener", "def register(ctx):\n    ctx.register_hook('post_api_request', lambda **kw: None)\n")
    pricing = {"input": 1.0, "output": 2.0, "cache_read": 0.5, "cache_write": 1.5}  # USD per million tokens
    plugins = plugin_manager(enabled=["listener"], config={"model": {"pricing": pricing}})
    recorder = hook_recorder(plugins)
    store = SessionStore(hermes_home / "state.db")
    usage = {"prompt_tokens": 1000, "completion_tokens": 50, "prompt_tokens_details": {"cached_tokens": 600, "cache_write_tokens": 100},
             "completion_tokens_details": {"reasoning_tokens": 20}}
    with OpenAIServer([text_reply("billed", usage=usage)]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store)
        session.run_turn("what does this cost?")
    row = store.get_session(session.session_id)
    store.close()
    assert (row["input_tokens"], row["output_tokens"], row["cache_read_tokens"], row["cache_write_tokens"], row["reasoning_tokens"]) == (300, 50, 600, 100, 20)
    assert row["estimated_cost_usd"] == pytest.approx((300 * 1.0 + 50 * 2.0 + 600 * 0.5 + 100 * 1.5) / 1e6)
    assert (row["cost_status"], row["cost_source"], row["billing_mode"]) == ("estimated", "config", "api")
    assert (row["billing_provider"], row["billing_base_url"]) == ("openai", server.base_url)
    (pre,) = _kwargs(recorder, "pre_api_request")
    assert pre["request"]["method"] == "POST" and pre["request"]["body"]["model"] == session.model
    assert [m["role"] for m in pre["request"]["body"]["messages"]] == ["system", "user"] and pre["message_count"] == 2
    assert pre["approx_input_tokens"] > 0
    (post,) = _kwargs(recorder, "post_api_request")
    assert post["finish_reason"] == "stop" and post["api_duration"] >= 0 and post["response"]
    assert post["api_request_id"] == pre["api_request_id"]


def test_a_stream_cut_by_an_error_ends_unfinished_and_names_the_error(make_plugin, plugin_manager, hook_recorder, hermes_home):
    make_plugin("listener", "def register(ctx):\n    ctx.register_hook('on_stream_end', lambda **kw: None)\n")
    plugins = plugin_manager(enabled=["listener"])
    recorder = hook_recorder(plugins)
    store = SessionStore(hermes_home / "state.db")
    with OpenAIServer([text_reply("partial answer", stream_error="server overloaded")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1", max_retries=0), store=store)
        with pytest.raises(Exception) as caught:
            session.run_turn("hi there", stream=True, on_text=lambda text: None)
    store.close()
    (end,) = _kwargs(recorder, "on_stream_end")
    assert end["finished"] is False and end["error"] == f"{type(caught.value).__name__}: {caught.value}"
    (error,) = _kwargs(recorder, "api_request_error")
    assert error["error"] == {"type": type(caught.value).__name__, "message": str(caught.value)} and error["api_duration"] >= 0
    assert error["status_code"] == getattr(caught.value, "status_code", None)
