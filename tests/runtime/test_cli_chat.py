"""`hermes chat` against a real OpenAI-protocol server: one-shot, the REPL and its commands, errors."""

from __future__ import annotations

import os
import subprocess
import sys

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


def test_the_repl_runs_turns_and_slash_commands(configured, run_hermes, hermes_home):
    turns = "".join(f"question {n}\n" for n in range(2, 7))  # enough to have a middle to compress
    script = [text_reply("first answer"), *[text_reply(f"answer {n}") for n in range(2, 7)], text_reply("second answer")]
    with OpenAIServer(script) as server:
        configured(server.base_url)
        result = run_hermes("chat", input=f"hello\n/compress\n/title Weekend plans\n/memory\n/sessions\n{turns}/compress\n/new\nsecond\n/exit\n")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "first answer" in out and "second answer" in out
    assert "title: Weekend plans" in out and "MEMORY [" in out and "Weekend plans" in out.split("title:")[1]
    assert "new session" in out
    assert "nothing to compress yet (2 messages" in out  # a short conversation is not split
    assert "compressed; continuing in session" in out
    from hermes_plugins_builtin.state import SessionStore

    with SessionStore(hermes_home / "state.db") as store:
        rows = {row["title"]: row for row in store.list_sessions_rich(limit=10, project_compression=False)}
    assert rows["Weekend plans"]["end_reason"] == "compression"
    assert rows["Weekend plans #2"]["parent_session_id"] == rows["Weekend plans"]["id"]


def test_no_model_configured_is_one_clear_message(run_hermes):
    result = run_hermes("chat", "-q", "hi")
    assert result.exit_code == 1 and result.stderr.startswith("hermes: error: no model is configured")
    assert "Traceback" not in result.stderr


def test_an_unreachable_endpoint_is_reported_without_a_traceback(configured, run_hermes):
    configured("http://127.0.0.1:9/v1")
    result = run_hermes("chat", "-q", "hi")
    assert result.exit_code == 1 and "127.0.0.1:9" in result.stderr and "Traceback" not in result.stderr
    # nothing was said, so no empty session is kept and no resume hint is given
    assert "--resume" not in result.stderr
    assert run_hermes("sessions", "list", "--json").json() == []


def test_a_bad_context_length_is_a_clear_error(configured, run_hermes, hermes_home):
    configured("http://127.0.0.1:9/v1")
    with (hermes_home / "config.yaml").open("a") as config:
        config.write("  context_length: big\n")
    result = run_hermes("chat", "-q", "hi")
    assert result.exit_code == 1 and "model.context_length is 'big', but it must be a whole number at least 1 (tokens)" in result.stderr


def test_an_unknown_context_engine_is_reported_at_start(configured, run_hermes, hermes_home):
    with OpenAIServer([text_reply("ok")]) as server:
        configured(server.base_url)
        with (hermes_home / "config.yaml").open("a") as config:
            config.write("context:\n  engine: nosuch\n")
        result = run_hermes("chat", "-q", "hi", "--no-stream")
    assert result.exit_code == 0 and result.stdout == "ok\n"
    assert "warning: context.engine is 'nosuch' but no loaded plugin provides it" in result.stderr


def test_a_plugin_command_that_raises_is_reported_and_the_chat_goes_on(configured, run_hermes, make_plugin, hermes_home):
    make_plugin("shaky", "def register(ctx):\n    ctx.register_command('shaky', lambda rest: 1 / 0, 'always fails')\n")
    with OpenAIServer([text_reply("still here")]) as server:
        configured(server.base_url)
        with (hermes_home / "config.yaml").open("a") as config:
            config.write("plugins:\n  enabled: [shaky]\n")
        result = run_hermes("chat", "--no-stream", input="/shaky\nhello\n/exit\n")
    assert result.exit_code == 0, result.stderr
    assert "hermes: error: /shaky (from a plugin) failed: ZeroDivisionError" in result.stderr
    assert "still here" in result.stdout


def _hermes(hermes_home, *argv: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own, as a user runs it."""

    env = dict(os.environ, HERMES_HOME=str(hermes_home))
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True, env=env, timeout=120)


def test_resume_in_a_new_process_sends_the_stored_prompt_byte_for_byte(configured, hermes_home):
    with OpenAIServer([text_reply("We talked about Oslo."), text_reply("Still Oslo.")]) as server:
        configured(server.base_url)
        first = _hermes(hermes_home, "chat", "-q", "Let us talk about Oslo", "--no-stream")
        assert first.returncode == 0, first.stderr
        session_id = first.stderr.split("--resume ")[1].split(")")[0]
        # everything the prompt is built from changes between the two processes
        (hermes_home / "SOUL.md").write_text("You are a different assistant now.")
        (hermes_home / "memories").mkdir(exist_ok=True)
        (hermes_home / "memories" / "USER.md").write_text("Moved to Bergen")
        second = _hermes(hermes_home, "chat", "--resume", session_id, "-q", "Where were we?", "--no-stream")
        assert second.returncode == 0, second.stderr
        first_body, second_body = server.bodies
    assert second.stdout == "Still Oslo.\n"
    assert second_body["messages"][0] == first_body["messages"][0]
    assert "different assistant" not in second_body["messages"][0]["content"]
    assert [m["content"] for m in second_body["messages"][1:]] == ["Let us talk about Oslo", "We talked about Oslo.", "Where were we?"]


def test_review_saves_to_memory_from_the_repl(configured, run_hermes, hermes_home):
    from hermes_core.testing_servers import tool_call_reply

    script = [text_reply("Nice city."), tool_call_reply("memory", {"action": "add", "target": "user", "content": "Lives in Oslo"}), text_reply("Saved: lives in Oslo.")]
    with OpenAIServer(script) as server:
        configured(server.base_url)
        result = run_hermes("chat", "--no-stream", input="I live in Oslo\n/review\n/exit\n")
    assert result.exit_code == 0, result.stderr
    assert "review: Saved: lives in Oslo." in result.stdout
    assert "Lives in Oslo" in (hermes_home / "memories" / "USER.md").read_text()


def test_a_failing_slash_command_is_reported_and_the_chat_goes_on(configured, run_hermes):
    from hermes_core.testing_servers import error_reply

    with OpenAIServer([text_reply("hi"), error_reply(401, "bad key"), text_reply("yes")]) as server:
        configured(server.base_url)
        result = run_hermes("chat", "--no-stream", input="hello\n/review\nstill here?\n/exit\n")
    assert result.exit_code == 0, result.stderr
    assert "hermes: error:" in result.stderr and "Traceback" not in result.stderr
    assert "> yes\n" in result.stdout  # the turn after the failed command went through


@pytest.mark.parametrize("url", ["notaurl", "ftp://x/v1", "http://"])
def test_an_endpoint_that_is_not_an_http_url_is_one_clear_error(run_hermes, url):
    result = run_hermes("chat", "-q", "hi", "--model", "m", "--base-url", url)
    assert result.exit_code == 1 and "is not an http(s) URL" in result.stderr and "model.base_url" in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


HANGS_IN_EVERY_HOOK = """
import threading
from hermes_core.hookspecs import HOOK_NAMES
RELEASE = threading.Event()
CALLS = []

def register(ctx):
    for hook in HOOK_NAMES:
        def hang(_hook=hook, **kwargs):
            CALLS.append(_hook)
            RELEASE.wait()
        ctx.register_hook(hook, hang)
"""


def test_a_plugin_hanging_in_every_hook_costs_one_timeout_per_chat(configured, run_hermes, make_plugin, hermes_home, caplog):
    import logging

    make_plugin("hang", HANGS_IN_EVERY_HOOK)
    with OpenAIServer([text_reply("answered anyway")]) as server:
        configured(server.base_url)
        with (hermes_home / "config.yaml").open("a") as config:
            config.write("plugins:\n  enabled: [hang]\n  hook_callback_timeout: 0.3\n")
        try:
            with caplog.at_level(logging.WARNING, logger="hermes.plugins"):
                result = run_hermes("chat", "-q", "hi", "--no-stream")
        finally:
            plugin_modules = [m for m in list(sys.modules.values()) if hasattr(m, "RELEASE") and hasattr(m, "CALLS")]
            for module in plugin_modules:
                module.RELEASE.set()
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "answered anyway\n"
    (plugin,) = plugin_modules
    assert len(plugin.CALLS) == 1, plugin.CALLS  # the first hook timed out; none of the plugin's hooks ran again
    (warning,) = [r.getMessage() for r in caplog.records if "quarantined" in r.getMessage()]
    assert "plugin 'hang'" in warning and "hermes plugins disable hang" in warning
