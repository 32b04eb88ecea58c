"""`hermes chat` against a real OpenAI-protocol server: one-shot, the REPL and its commands, errors."""

from __future__ import annotations

import io

import pytest

from hermes_core.testing_servers import OpenAIServer, text_reply


@pytest.fixture
def configured(hermes_home):
    def configure(base_url: str) -> None:
        (hermes_home / "config.yaml").write_text(f"model:\n  provider: openai\n  name: chat-model\n  base_url: {base_url}\n")

    return configure


def test_one_shot_query_prints_the_answer_and_stores_the_session(configured, run_hermes, hermes_home):
    with OpenAIServer([text_reply("Hello there.")]) as server:
        configured(server.base_url)
        result = run_hermes("chat", "-q", "hi", "--no-stream")
        assert server.bodies[0]["model"] == "chat-model"
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Hello there.\n"
    from hermes_plugins_builtin.state import SessionStore

    with SessionStore(hermes_home / "state.db") as store:
        (row,) = store.list_sessions_rich(limit=5)
        assert [m["content"] for m in store.get_messages(row["id"])] == ["hi", "Hello there."]


def test_the_repl_runs_turns_and_slash_commands(configured, run_hermes, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\n/title Weekend plans\n/memory\n/sessions\n/new\nsecond\n/exit\n"))
    with OpenAIServer([text_reply("first answer"), text_reply("second answer")]) as server:
        configured(server.base_url)
        result = run_hermes("chat")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "first answer" in out and "second answer" in out
    assert "title: Weekend plans" in out and "MEMORY [" in out and "Weekend plans" in out.split("title:")[1]
    assert "new session" in out


def test_no_model_configured_is_one_clear_message(run_hermes):
    result = run_hermes("chat", "-q", "hi")
    assert result.exit_code == 1 and result.stderr.startswith("hermes: error: no model is configured")
    assert "Traceback" not in result.stderr


def test_an_unreachable_endpoint_is_reported_without_a_traceback(configured, run_hermes):
    configured("http://127.0.0.1:9/v1")
    result = run_hermes("chat", "-q", "hi")
    assert result.exit_code == 1 and "127.0.0.1:9" in result.stderr and "Traceback" not in result.stderr
