"""Mem0 through the CLI: setup (scripted and interactive), status, a full `hermes chat -q` turn, import cost."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from hermes_core.testing_servers import error_reply, text_reply

from mem0_testkit import DIMS


def test_scripted_setup_writes_settings_to_config_yaml_and_the_key_to_env(run_hermes, hermes_home):
    result = run_hermes(
        "memory", "setup", "mem0", "--set", "mode=local", "--set", "llm.model=qwen3", "--set", "llm.base_url=http://127.0.0.1:11434/v1",
        "--set", "embedder.model=nomic-embed-text", "--set", f"embedder.dims={DIMS}", "--set", "api_key=m0-secret", "--yes",
    )
    assert result.exit_code == 0, result.stderr
    import yaml

    config = yaml.safe_load((hermes_home / "config.yaml").read_text())
    assert config["memory"]["provider"] == "mem0"
    section = config["memory"]["mem0"]
    assert section["mode"] == "local" and section["llm"] == {"model": "qwen3", "base_url": "http://127.0.0.1:11434/v1"}
    assert section["embedder"] == {"model": "nomic-embed-text", "dims": DIMS} and section["infer"] is True
    assert "m0-secret" not in (hermes_home / "config.yaml").read_text()
    env_file = hermes_home / ".env"
    assert "MEM0_API_KEY=m0-secret" in env_file.read_text() and stat.S_IMODE(env_file.stat().st_mode) == 0o600


def test_bad_setup_values_are_refused_before_anything_is_written(run_hermes, hermes_home):
    bad = run_hermes("memory", "setup", "mem0", "--set", "embedder.dims=many", "--yes")
    assert bad.exit_code != 0 and "embedder.dims" in bad.stderr and "Traceback" not in bad.stderr
    wrong_mode = run_hermes("memory", "setup", "mem0", "--set", "mode=cloud", "--yes")
    assert wrong_mode.exit_code != 0 and "auto, local, platform" in wrong_mode.stderr
    unknown = run_hermes("memory", "setup", "mem0", "--set", "colour=blue", "--yes")
    assert unknown.exit_code != 0 and "colour" in unknown.stderr
    assert not (hermes_home / "config.yaml").exists() and not (hermes_home / ".env").exists()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_interactive_setup_walks_every_field(hermes_home, monkeypatch, capsys):
    from hermes_core.cli.main import main

    answers = ["local", "", "", "alice", "", "false", "", "llama3", "http://127.0.0.1:8080/v1", "", "384"]
    monkeypatch.setattr(sys, "stdin", _Terminal("\n".join(answers) + "\n"))
    # getpass reads the controlling terminal, which a test run does not have; the answer comes from stdin instead.
    monkeypatch.setattr("getpass.getpass", lambda prompt="": input(prompt))
    assert main(["memory", "setup", "mem0", "--set", "embedder.base_url=http://127.0.0.1:8081/v1"]) == 0
    import yaml

    section = yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["mem0"]
    assert section["user_id"] == "alice" and section["infer"] is False and section["rerank"] is False and section["llm"]["model"] == "llama3"
    assert section["embedder"] == {"model": "text-embedding-3-small", "base_url": "http://127.0.0.1:8081/v1", "dims": 384}
    assert not (hermes_home / ".env").exists(), "an empty platform key is not stored"


def test_status_shows_mode_store_counts_and_the_last_error(run_hermes, open_provider, server, mem0_home):
    provider = open_provider()
    provider.handle_tool_call("mem0_conclude", {"conclusion": "postgres listens on port 5433"})
    server.fail_next("embeddings", error_reply(503, "embedder overloaded"))
    provider.sync_turn("this write fails once", "")
    assert provider.flush(30)
    provider.shutdown()

    result = run_hermes("memory", "status")
    assert result.exit_code == 0, result.stderr
    lines = dict(line.split(":", 1) for line in result.stdout.splitlines() if ":" in line)
    assert lines["mode"].strip() == "local"
    assert lines["store"].strip() == str(mem0_home / "mem0" / "qdrant")
    assert lines["memories"].strip() == "1" and lines["pending writes"].strip() == "1"
    assert "embedder overloaded" in lines["last error"] and "MEM0_API_KEY" not in result.stdout
    details = run_hermes("memory", "status", "--json").json()["details"]
    assert details["memories"] == 1 and details["pending_writes"] == 1 and details["mode"] == "local"


def test_a_one_shot_chat_recalls_on_its_first_turn_and_stores_the_turn(run_hermes, open_provider, server, mem0_home):
    provider = open_provider()
    provider.handle_tool_call("mem0_conclude", {"conclusion": "postgres listens on port 5433 on staging"})
    provider.handle_tool_call("mem0_conclude", {"conclusion": "the office cat likes tuna"})
    provider.shutdown()
    server.reset(text_reply("Port 5433."))

    result = run_hermes("chat", "-q", "which port does postgres use?", "--no-stream")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Port 5433.\n"
    (chat,) = server.requests_of("chat")
    user_message = chat.body["messages"][-1]["content"]
    user_text = user_message if isinstance(user_message, str) else json.dumps(user_message)
    assert "<memory-context>" in user_text and "postgres listens on port 5433 on staging" in user_text
    assert "cat" not in user_text
    assert any(t["function"]["name"] == "mem0_search" for t in chat.body.get("tools", []))
    # The turn was written (extraction ran) before the process would have ended.
    assert len(server.requests_of("extraction")) == 1
    again = open_provider("s2")
    assert "which port does postgres use?" in [r["text"] for r in again.export_memories()]


def _run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=120)


def test_listing_plugins_never_imports_mem0_and_a_session_keeps_mem0_under_hermes_home(server, mem0_home, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM0_")}
    env.update(HERMES_HOME=str(mem0_home), HOME=str(tmp_path / "home"))
    listing = _run_python(
        """
        import sys
        from hermes_core.cli.main import main
        for argv in (["--help"], ["plugins", "list"], ["plugins", "list", "--json"], ["plugins", "list", "--load"]):
            try:
                main(argv)
            except SystemExit:
                pass
        assert "mem0" not in sys.modules, "mem0 was imported"
        print("NOT IMPORTED")
        """,
        env,
    )
    assert listing.returncode == 0, listing.stderr
    assert "NOT IMPORTED" in listing.stdout and "memory/mem0" in listing.stdout

    session = _run_python(
        f"""
        import os, sys
        from hermes_core.manager import PluginManager
        plugins = PluginManager(); plugins.load_all()
        provider = plugins.active_memory_provider()
        provider.initialize("s1", hermes_home={str(mem0_home)!r}, platform="cli")
        provider.handle_tool_call("mem0_conclude", {{"conclusion": "x"}})
        provider.shutdown()
        print(os.environ["MEM0_DIR"], os.environ["MEM0_TELEMETRY"], "posthog" in sys.modules and bool(getattr(sys.modules.get("mem0.memory.telemetry"), "MEM0_TELEMETRY", True)))
        """,
        env,
    )
    assert session.returncode == 0, session.stderr
    assert session.stdout.split() == [str(mem0_home / "mem0"), "False", "False"]
    assert (mem0_home / "mem0" / "config.json").is_file()
    assert not (tmp_path / "home" / ".mem0").exists()


@pytest.mark.parametrize("query", ["ok", "/new"])
def test_trivial_prompts_do_not_search(open_provider, server, query):
    provider = open_provider()
    before = len(server.requests_of("embeddings"))
    assert provider.prefetch(query) == ""
    assert len(server.requests_of("embeddings")) == before


def test_a_chat_of_two_turns_recalls_from_the_background_search_on_the_second(run_hermes, open_provider, server, mem0_home):
    provider = open_provider()
    provider.handle_tool_call("mem0_conclude", {"conclusion": "postgres listens on port 5433 on staging"})
    provider.shutdown()
    server.reset(text_reply("Port 5433."), text_reply("Yes, 5433."))

    result = run_hermes("chat", "--no-stream", input="which port does postgres use?\nare you sure about that port?\n")
    assert result.exit_code == 0, result.stderr
    first, second = server.requests_of("chat")
    for request in (first, second):
        assert "postgres listens on port 5433 on staging" in json.dumps(request.body["messages"][-1]["content"])
    assert "Port 5433." in result.stdout and "Yes, 5433." in result.stdout
