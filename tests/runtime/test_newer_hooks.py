"""Hooks newer Hermes Agent releases added, fired where the runtime has the moment, and usage payloads."""

from __future__ import annotations

import pytest

from hermes_core.models.clients import OpenAIChatClient
from hermes_core.runtime.session import AgentSession
from hermes_core.testing_servers import OpenAIServer, error_reply, text_reply
from hermes_plugins_builtin.state import SessionStore

OBSERVER = """
SEEN = []

def _record(name):
    def callback(**kwargs):
        SEEN.append((name, kwargs))
    return callback

def register(ctx):
    for name in ("on_stream_start", "on_stream_delta", "on_stream_end", "api_request_error", "post_api_request"):
        ctx.register_hook(name, _record(name))
    ctx.register_hook("transform_llm_output", lambda response_text, **kw: response_text.upper())
"""


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
