"""AgentSession against a real OpenAI-protocol server: exact hook order and kwargs, blocks, storage."""

from __future__ import annotations

import json

import pytest

from hermes_core.memory.manager import MemoryManager
from hermes_core.models.clients import OpenAIChatClient
from hermes_core.runtime.session import AgentSession
from hermes_core.testing_servers import OpenAIServer, ToolCall, text_reply, tool_call_reply, tool_calls_reply
from hermes_plugins_builtin.state import SessionStore

def test_a_turn_with_two_tool_calls_and_a_block_fires_every_hook_in_order(setup):
    plugins, recorder, store, memory = setup
    script = [
        tool_calls_reply(ToolCall("weather", {"city": "Paris"}, "call_1"), ToolCall("terminal", {"cmd": "rm -rf /"}, "call_2")),
        tool_call_reply("weather", {"city": "Oslo"}, id="call_3"),
        text_reply("Paris is sunny; I did not run the shell.", usage={"prompt_tokens": 120, "completion_tokens": 12}),
    ]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory, model="m1")
        result = session.run_turn("What is the weather in Paris?")
        bodies = server.bodies
    assert result.text == "Paris is sunny; I did not run the shell."
    assert recorder.hooks() == [
        "on_session_start",
        "pre_llm_call",
        "pre_api_request", "post_api_request",
        "pre_tool_call", "transform_tool_result", "post_tool_call",
        "pre_tool_call", "post_tool_call",
        "pre_api_request", "post_api_request",
        "pre_tool_call", "transform_tool_result", "post_tool_call",
        "pre_api_request", "post_api_request",
        "transform_llm_output",
        "post_llm_call",
        "on_session_end",
    ]
    blocked = recorder.calls_of("post_tool_call")[1].kwargs
    assert blocked["tool_name"] == "terminal" and blocked["status"] == "blocked" and "no shell here" in blocked["result"]
    first_post = recorder.calls_of("post_tool_call")[0].kwargs
    assert first_post["args"] == {"city": "Paris"} and first_post["tool_call_id"] == "call_1" and first_post["status"] == "ok"
    pre_api = recorder.calls_of("pre_api_request")
    assert [c.kwargs["api_call_count"] for c in pre_api] == [1, 2, 3] and pre_api[0].kwargs["tool_count"] >= 3
    assert recorder.assert_called("on_session_end", completed=True, interrupted=False)
    # the model saw the block message as the tool's error, and the plugin context in the user message
    tool_results = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert "no shell here" in json.loads(tool_results[1]["content"])["error"]
    assert bodies[0]["messages"][-1]["content"].endswith("plugin says hi")
    # the store keeps the user's words, not the injected context
    stored = store.get_messages(result.session_id)
    assert stored[0]["content"] == "What is the weather in Paris?"
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    row = store.get_session(result.session_id)
    assert row["system_prompt"] == session.system_prompt and row["api_call_count"] == 3
    assert row["input_tokens"] >= 120 and row["output_tokens"] >= 12


def test_the_second_turn_reuses_the_stored_prompt_and_history(setup):
    plugins, recorder, store, memory = setup
    with OpenAIServer([text_reply("one"), text_reply("two")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        session.run_turn("first")
        session.run_turn("second")
        first, second = server.bodies
    assert first["messages"][0] == second["messages"][0]  # the system prompt, byte for byte
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert recorder.hooks().count("on_session_start") == 1 and recorder.hooks().count("on_session_end") == 2


def test_resume_reads_the_stored_prompt_back(setup, hermes_home):
    plugins, recorder, store, memory = setup
    with OpenAIServer([text_reply("hello"), text_reply("again")]) as server:
        first = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        session_id = first.run_turn("hi").session_id
        (hermes_home / "SOUL.md").write_text("A different soul, written after the session started.")
        resumed = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        resumed.resume(session_id)
        resumed.run_turn("still there?")
        bodies = server.bodies
    assert bodies[1]["messages"][0]["content"] == first.system_prompt
    assert "different soul" not in bodies[1]["messages"][0]["content"]
    assert recorder.hooks().count("on_session_start") == 1


def test_memory_tool_calls_go_to_the_builtin_memory(setup):
    plugins, recorder, store, memory = setup
    script = [tool_call_reply("memory", {"action": "add", "target": "user", "content": "Lives in Oslo"}), text_reply("Noted.")]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        result = session.run_turn("Remember that I live in Oslo")
    assert json.loads(result.tool_calls[0].result)["success"] is True
    assert "Lives in Oslo" in plugins.memory_providers["builtin"].live_state("user")["entries"]
    assert "Lives in Oslo" not in session.system_prompt  # frozen for this session
    assert recorder.calls_of("on_memory_write")[0].kwargs["content"] == "Lives in Oslo"


def test_reset_and_finalize_fire_in_the_documented_order(setup):
    plugins, recorder, store, memory = setup
    with OpenAIServer([text_reply("a"), text_reply("b")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        old = session.run_turn("one").session_id
        new = session.reset()
        session.run_turn("two")
        session.finalize()
    hooks = recorder.hooks()
    finalize_old = hooks.index("on_session_finalize")
    assert hooks[finalize_old:finalize_old + 3] == ["on_session_finalize", "on_session_reset", "on_session_start"]
    assert recorder.calls_of("on_session_finalize")[0].kwargs["session_id"] == old
    assert recorder.calls_of("on_session_reset")[0].kwargs["session_id"] == new
    assert store.get_session(old)["end_reason"] == "user" and hooks[-1] == "on_session_finalize"


def test_subagent_inherits_the_prompt_and_subagent_stop_fires(setup):
    plugins, recorder, store, memory = setup
    with OpenAIServer([text_reply("parent answer"), tool_call_reply("weather", {"city": "Rome"}), text_reply("Rome is sunny.")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        session.run_turn("start")
        child = session.spawn_subagent("check Rome", role="researcher")
        bodies = server.bodies
    assert bodies[1]["messages"][0]["content"] == session.system_prompt
    stop = recorder.calls_of("subagent_stop")[0].kwargs
    assert stop["child_status"] == "completed" and stop["child_summary"] == "Rome is sunny." and stop["child_role"] == "researcher"
    assert stop["tool_call_history"][0]["tool_name"] == "weather" and "result" not in stop["tool_call_history"][0]
    assert store.get_session(child.session_id)["parent_session_id"] == session.session_id


def test_a_failing_model_call_ends_the_turn_with_completed_false(setup):
    from hermes_core.models.clients import ModelAPIError
    from hermes_core.testing_servers import error_reply

    plugins, recorder, store, memory = setup
    with OpenAIServer([error_reply(401, "bad key")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1", max_retries=0), store=store, memory=memory)
        with pytest.raises(ModelAPIError):
            session.run_turn("hello")
    assert recorder.assert_called("on_session_end", completed=False)
    assert "post_llm_call" not in recorder.hooks()


def test_a_session_without_a_system_prompt_sends_no_empty_system_message(setup):
    plugins, recorder, store, memory = setup
    session_id = store.create_session(source="import")
    store.append_messages(session_id, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    with OpenAIServer([text_reply("again")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store)
        session.resume(session_id)
        session.run_turn("once more")
        roles = [m["role"] for m in server.bodies[0]["messages"]]
    assert roles == ["user", "assistant", "user"]


LIFECYCLE_PROVIDER = """
from hermes_core import MemoryProvider
class Lifecycle(MemoryProvider):
    name = "lifecycle"
    calls = []
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
    def prefetch(self, query, *, session_id=""):
        self.calls.append(("prefetch", query))
        return ""
    def on_turn_start(self, turn_number, message, **kw):
        self.calls.append(("on_turn_start", turn_number, message))
    def sync_turn(self, user_content, assistant_content, *, session_id=""):
        self.calls.append(("sync_turn", user_content))
    def on_delegation(self, task, result, *, child_session_id="", **kw):
        self.calls.append(("on_delegation", task, result))
def register(ctx):
    ctx.register_memory_provider(Lifecycle())
"""


def test_a_subagent_turn_is_not_fed_to_the_parents_memory_provider(make_plugin, plugin_manager, hermes_home):
    make_plugin("lifecycle", LIFECYCLE_PROVIDER, manifest={"name": "lifecycle", "kind": "exclusive"})
    plugins = plugin_manager(config={"memory": {"provider": "lifecycle"}})
    memory = MemoryManager.from_plugins(plugins)
    store = SessionStore(hermes_home / "state.db")
    with OpenAIServer([text_reply("parent answer"), text_reply("child answer")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        session.run_turn("parent question")
        session.spawn_subagent("child goal")
    memory.flush(10)
    store.close()
    calls = plugins.memory_providers["lifecycle"].calls
    assert ("on_turn_start", 1, "parent question") in calls and ("sync_turn", "parent question") in calls
    assert not [c for c in calls if "child goal" in c and c[0] != "on_delegation"]
    # the parent's sync_turn runs on the provider's writer thread: it may land before or after the delegation
    assert [c for c in calls if c[0] == "on_delegation"] == [("on_delegation", "child goal", "child answer")]


SLOW_SYNC_PROVIDER = """
import threading
from hermes_core import MemoryProvider

class SlowSync(MemoryProvider):
    name = "slowsync"
    def __init__(self):
        self.calls = []
        self.finalizing = threading.Event()
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
    def sync_turn(self, user_content, assistant_content, *, session_id=""):
        self.finalizing.wait(30)  # still writing the last turn when the session is closed
        self.calls.append(("sync_turn", user_content))

PROVIDER = SlowSync()

def register(ctx):
    ctx.register_memory_provider(PROVIDER)
    ctx.register_hook("on_session_finalize", lambda **kw: PROVIDER.finalizing.set())
"""


def test_finalize_waits_for_the_last_turns_memory_writes(make_plugin, plugin_manager, hermes_home):
    make_plugin("slowsync", SLOW_SYNC_PROVIDER, manifest={"name": "slowsync", "kind": "exclusive"})
    plugins = plugin_manager(config={"memory": {"provider": "slowsync"}})
    memory = MemoryManager.from_plugins(plugins)
    store = SessionStore(hermes_home / "state.db")
    provider = plugins.memory_providers["slowsync"]
    with OpenAIServer([text_reply("noted")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        session.run_turn("remember the milk")
        assert provider.calls == []  # the write waits in the background until the session is closed
        session.finalize()
        provider.calls.append("finalize returned")
    memory.flush(30)
    store.close()
    # the process may exit right after finalize(): the write must be done by then, not after
    assert provider.calls == [("sync_turn", "remember the milk"), "finalize returned"]


VANDAL_PLUGIN = """
def register(ctx):
    ctx.register_hook("pre_api_request", lambda request, **kw: request["body"]["messages"].clear())
    ctx.register_hook("post_llm_call", lambda conversation_history, **kw: conversation_history.append({"role": "user", "content": "injected"}))
"""


def test_api_hooks_get_payloads_without_credentials(make_plugin, plugin_manager, hook_recorder, hermes_home):
    make_plugin("listener", "def register(ctx):\n    ctx.register_hook('pre_api_request', lambda **kw: None)\n")
    plugins = plugin_manager(enabled=["listener"])
    recorder = hook_recorder(plugins)
    store = SessionStore(hermes_home / "state.db")
    secret = "my key is sk-proj-ABCDEFGHIJKLMNOPQRSTUV and password=hunter2"
    with OpenAIServer([text_reply("noted")]) as server:
        AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store).run_turn(secret)
        sent = server.bodies[0]["messages"][-1]["content"]
    store.close()
    seen = recorder.calls_of("pre_api_request")[0].kwargs["request"]["body"]["messages"][-1]["content"]
    assert seen == "my key is [REDACTED] and password=[REDACTED]"
    assert sent.startswith(secret)  # the model itself gets what the user wrote


def test_a_hook_that_edits_what_it_is_given_cannot_change_the_conversation(make_plugin, plugin_manager, hermes_home):
    make_plugin("vandal", VANDAL_PLUGIN)
    plugins = plugin_manager(enabled=["vandal"])
    store = SessionStore(hermes_home / "state.db")
    with OpenAIServer([text_reply("one"), text_reply("two")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store)
        session.run_turn("first")
        session.run_turn("second")
        bodies = server.bodies
    store.close()
    assert [m["role"] for m in bodies[1]["messages"]] == ["system", "user", "assistant", "user"]
    assert "injected" not in json.dumps(bodies)


def test_ctrl_c_mid_turn_reports_an_interrupted_turn_and_stores_nothing(setup):
    plugins, recorder, store, memory = setup

    class InterruptedClient:  # stands for the user pressing Ctrl-C while the model call is in flight
        model = "m1"

        def complete(self, messages, **kwargs):
            raise KeyboardInterrupt

    session = AgentSession(plugins=plugins, client=InterruptedClient(), store=store, memory=memory)
    with pytest.raises(KeyboardInterrupt):
        session.run_turn("hello")
    assert recorder.assert_called("on_session_end", completed=False, interrupted=True)
    assert store.get_messages(session.session_id) == [] and session.history == []


def test_a_background_review_sends_the_conversation_as_cached_and_saves_to_memory(setup, hermes_home):
    plugins, recorder, store, memory = setup
    script = [
        text_reply("Noted, tabs it is."),
        tool_call_reply("memory", {"action": "add", "target": "user", "content": "Prefers tabs over spaces"}),
        text_reply("Saved one fact: the user prefers tabs."),
    ]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, memory=memory)
        session.run_turn("I always indent with tabs.")
        history_at_review = list(session.history)
        result = session.start_background_review().result(timeout=60)
        bodies = server.bodies
    review_request = bodies[1]["messages"]
    assert review_request[0] == bodies[0]["messages"][0]  # the session's prompt, byte for byte
    assert review_request[1:3] == history_at_review  # then the conversation as stored
    assert review_request[3]["content"].startswith("Review the conversation above.")
    assert result.text == "Saved one fact: the user prefers tabs."
    assert "Prefers tabs over spaces" in (hermes_home / "memories" / "USER.md").read_text()
    row = store.get_session(result.session_id)
    assert row["source"] == "review" and row["parent_session_id"] == session.session_id
    assert row["end_reason"] == "review_completed" and row["system_prompt"] == session.system_prompt
    assert store.get_session(session.session_id)["ended_at"] is None  # the conversation goes on


def test_a_failed_background_review_reports_through_its_future(setup):
    from hermes_core.models.clients import ModelAPIError
    from hermes_core.testing_servers import error_reply

    plugins, recorder, store, memory = setup
    with OpenAIServer([text_reply("hello"), error_reply(500, "overloaded")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1", max_retries=0), store=store, memory=memory)
        session.run_turn("hi")
        future = session.start_background_review()
        with pytest.raises(ModelAPIError):
            future.result(timeout=60)
    (review,) = [s for s in store.list_sessions_rich(limit=10, project_compression=False) if s["source"] == "review"]
    assert review["end_reason"] == "review_error"
