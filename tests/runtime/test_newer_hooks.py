"""Hooks newer Hermes Agent releases added, fired where the runtime has the moment, and usage payloads."""

from __future__ import annotations

import json

import pytest

from hermes_core.hook_names import TELEMETRY_SCHEMA_VERSION
from hermes_core.models.clients import OpenAIChatClient
from hermes_core.models.pricing import PRICING_VERSION
from hermes_core.runtime.session import AgentSession
from hermes_core.testing_servers import OpenAIServer, error_reply, text_reply, tool_call_reply
from hermes_plugins_builtin.state import SessionStore

def recording_plugin(hooks: tuple[str, ...], more: str = "") -> str:
    """Source of a plugin that records every call of ``hooks`` in ``SEEN``; ``more`` is added to its register()."""
    return f"""
import json
SEEN = []

def _record(name):
    def callback(**kwargs):
        SEEN.append((name, kwargs))
    return callback

def register(ctx):
    for name in {hooks!r}:
        ctx.register_hook(name, _record(name))
{more}"""


OBSERVER = recording_plugin(
    ("on_stream_start", "on_stream_delta", "on_stream_end", "api_request_error", "post_api_request"),
    '    ctx.register_hook("transform_llm_output", lambda response_text, **kw: response_text.upper())\n')


@pytest.fixture
def session_parts(make_plugin, plugin_manager, hermes_home, caplog):
    make_plugin("observer", OBSERVER)
    plugins = plugin_manager(enabled=["observer"])
    assert "unknown hook" not in caplog.text  # newer names are known
    store = SessionStore(hermes_home / "state.db")
    yield plugins, store, plugins.get("observer").module.SEEN
    store.close()


def test_a_streamed_turn_fires_the_stream_hooks_and_the_answer_is_transformed(session_parts):
    plugins, store, seen = session_parts
    with OpenAIServer([text_reply("hello there", usage={"prompt_tokens": 20, "completion_tokens": 3})]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, model="m1")
        shown: list[str] = []
        result = session.run_turn("hi", stream=True, on_text=shown.append)
    names = [name for name, _ in seen]
    assert names[0] == "on_stream_start" and "on_stream_delta" in names and names.index("on_stream_end") < names.index("post_api_request")
    deltas = "".join(kw["delta"] for name, kw in seen if name == "on_stream_delta")
    assert deltas == "".join(shown) == "hello there"
    (end,) = [kw for name, kw in seen if name == "on_stream_end"]
    assert end["final_text"] == "hello there" and end["finished"] is True and end["error"] is None and end["model"] == "m1"
    (post,) = [kw for name, kw in seen if name == "post_api_request"]
    usage = post["usage"]
    assert usage["prompt_tokens"] == 20 and usage["completion_tokens"] == 3 and usage["total_tokens"] == 23 and usage["input_tokens"] == 20
    assert result.text == "HELLO THERE"
    assert store.get_messages(result.session_id)[-1]["content"] == "HELLO THERE"


def test_a_failed_model_call_fires_api_request_error(session_parts):
    plugins, store, seen = session_parts
    with OpenAIServer([error_reply(400, "bad request: unknown parameter")]) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1", max_retries=0), store=store, model="m1")
        with pytest.raises(Exception):
            session.run_turn("hi")
    (error,) = [kw for name, kw in seen if name == "api_request_error"]
    assert "unknown parameter" in error["error"]["message"] and error["model"] == "m1" and error["api_call_count"] == 1
    assert error["status_code"] == 400  # the provider's HTTP status, for a plugin that counts rejections
    assert 0 <= error["api_duration"] < 600  # a duration, not a clock reading


# -- the payloads a plugin gets, exactly ----------------------------------------------------------------

PAYLOADS = recording_plugin(
    ("pre_llm_call", "pre_api_request", "post_api_request", "transform_llm_output",
     "on_stream_start", "on_stream_delta", "on_stream_end"),
    '''    schema = {"name": "weather", "description": "d", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
    ctx.register_tool("weather", "payloads", schema, lambda args, **kw: json.dumps({"sky": "sunny", "city": args.get("city")}))
''')


def _of(seen, hook):
    return [kwargs for name, kwargs in seen if name == hook]


@pytest.fixture
def payload_parts(make_plugin, plugin_manager, hermes_home):
    # no hook recorder: a monitor counts as a listener, and these tests need to see what happens
    # when only the plugin listens (a copy is made, and redacted, for its hooks and no other)
    make_plugin("payloads", PAYLOADS)
    plugins = plugin_manager(enabled=["payloads"])
    store = SessionStore(hermes_home / "state.db")
    yield plugins, store, plugins.get("payloads").module.SEEN
    store.close()


def test_a_plugin_sees_the_documented_payloads_of_a_turn_with_a_tool_call(payload_parts):
    plugins, store, seen = payload_parts
    script = [tool_call_reply("weather", {"city": "Oslo"}, id="call_1"), text_reply("Sunny in Oslo.", usage={"prompt_tokens": 40, "completion_tokens": 4}),
              text_reply("You are welcome.")]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "gpt-4o-mini"), store=store, model="gpt-4o-mini")
        result = session.run_turn("weather in Oslo?", on_text=lambda text: None)
        session.run_turn("thanks")
        bodies = server.bodies
    first_turn = _of(seen, "pre_llm_call")[0]["turn_id"]
    # transform_llm_output: the documented kwargs, and the turn the answer belongs to
    transform = _of(seen, "transform_llm_output")[0]
    assert transform == {"response_text": "Sunny in Oslo.", "session_id": result.session_id, "model": "gpt-4o-mini", "platform": "cli", "turn_id": first_turn,
                         "telemetry_schema_version": TELEMETRY_SCHEMA_VERSION}
    assert [kw["turn_id"] for kw in _of(seen, "pre_api_request")[:2]] == [first_turn, first_turn]
    # pre_api_request: the body as sent, tools included; the assistant's tool call is sent back
    # without the store's finish_reason column
    pre = _of(seen, "pre_api_request")
    assert pre[0]["request"]["body"]["tools"] == bodies[0]["tools"] and "weather" in [t["function"]["name"] for t in bodies[0]["tools"]]
    sent_back = [m for m in pre[1]["request"]["body"]["messages"] if m["role"] == "assistant"]
    assert len(sent_back) == 1 and "finish_reason" not in sent_back[0] and sent_back[0]["tool_calls"][0]["id"] == "call_1"
    # post_api_request: the provider's own reply (sanitized), not a summary of it
    post = _of(seen, "post_api_request")
    assert post[0]["response"]["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "weather"
    assert post[1]["response"]["choices"][0]["message"]["content"] == "Sunny in Oslo."
    assert post[1]["finish_reason"] == "stop" and 0 <= post[1]["api_duration"] < 600  # a duration, not a clock reading
    # a turn that was not streamed fires no stream hooks, even with a text callback
    assert not [name for name, _ in seen if name.startswith("on_stream")]
    # the next turn's history names the tool each result came from, as stored
    history = _of(seen, "pre_llm_call")[1]["conversation_history"]
    assert history[2] == {"role": "tool", "content": json.dumps({"sky": "sunny", "city": "Oslo"}), "tool_call_id": "call_1", "tool_name": "weather"}
    row = store.get_session(result.session_id)
    assert (row["cost_status"], row["cost_source"], row["pricing_version"]) == ("estimated", "list prices", PRICING_VERSION)


class _OwnReply:
    """What a client of one's own may return: text, tool calls, finish reason and usage, nothing more
    (no ``raw`` provider reply, no ``prompt_tokens``)."""

    def __init__(self, text: str) -> None:
        self.text, self.tool_calls, self.finish_reason = text, [], "stop"
        self.usage = {"input_tokens": 10, "output_tokens": 2}


class _OwnClient:
    """A model client of an integrator's own (the runtime takes any object with ``complete``): no
    ``provider``, ``base_url`` or ``model`` attribute."""

    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, messages, **kwargs):
        return _OwnReply(self.text)


def test_a_client_without_a_raw_reply_gives_post_api_request_a_redacted_summary_and_bills_no_provider(payload_parts):
    plugins, store, seen = payload_parts
    session = AgentSession(plugins=plugins, client=_OwnClient("the key is sk-proj-ABCDEFGHIJKLMNOPQRSTUV"), store=store)
    result = session.run_turn("which key?")
    (post,) = _of(seen, "post_api_request")
    assert post["response"] == {"text": "the key is [REDACTED]", "tool_calls": []}
    assert result.text == "the key is sk-proj-ABCDEFGHIJKLMNOPQRSTUV"  # the user still gets the answer as written
    row = store.get_session(result.session_id)
    assert (row["billing_provider"], row["billing_base_url"], row["billing_mode"]) == (None, None, "api")


def test_api_request_error_takes_the_status_from_an_error_of_another_library(make_plugin, plugin_manager, hermes_home):
    # the provider SDKs and httpx-based clients raise errors that carry the HTTP status as status_code
    class RateLimited(Exception):
        status_code = 429
        status = "too many requests"  # a word, not a status: not taken

    class SdkClient:
        def complete(self, messages, **kwargs):
            raise RateLimited("slow down")

    make_plugin("errors", "SEEN = []\ndef register(ctx):\n    ctx.register_hook('api_request_error', lambda **kw: SEEN.append(kw))\n")
    plugins = plugin_manager(enabled=["errors"])
    store = SessionStore(hermes_home / "state.db")
    with pytest.raises(RateLimited):
        AgentSession(plugins=plugins, client=SdkClient(), store=store).run_turn("hi")
    store.close()
    (error,) = plugins.get("errors").module.SEEN
    assert error["status_code"] == 429 and error["error"] == {"type": "RateLimited", "message": "slow down"}


def test_a_transformed_answer_replaces_the_last_assistant_message_only(session_parts):
    plugins, store, seen = session_parts  # the observer upper-cases the final answer
    script = [tool_call_reply("weather", {"city": "Oslo"}, text="let me look"), text_reply("sunny")]
    with OpenAIServer(script) as server:
        session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, model="m1")
        result = session.run_turn("weather?")
    stored = store.get_messages(result.session_id)
    assert [(m["role"], m["content"]) for m in stored if m["role"] == "assistant"] == [("assistant", "let me look"), ("assistant", "SUNNY")]
    assert result.text == "SUNNY" and session.history[-1]["content"] == "SUNNY"


def test_a_hookimpl_of_a_newer_hook_loads_and_is_called(make_plugin, plugin_manager, hermes_home):
    """``@hookimpl def transform_llm_output`` works as ``ctx.register_hook("transform_llm_output", ...)`` does: the hook
    has no pluggy spec, but the runtime fires it by name."""
    make_plugin("shouter", "from hermes_core import hookimpl\n\n@hookimpl\ndef transform_llm_output(response_text, **kwargs):\n    return response_text.upper()\n")
    plugins = plugin_manager(enabled=["shouter"])
    assert plugins.get("shouter").error is None
    store = SessionStore(hermes_home / "state.db")
    try:
        with OpenAIServer([text_reply("quiet words")]) as server:
            session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "m1"), store=store, model="m1")
            assert session.run_turn("hi").text == "QUIET WORDS"
    finally:
        store.close()
