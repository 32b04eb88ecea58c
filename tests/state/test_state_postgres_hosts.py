"""Two hosts (two HERMES_HOMEs) on one PostgreSQL database: `hermes chat` on one, search and resume on the other."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hermes_core.testing_servers import OpenAIServer, text_reply
from hermes_plugins_builtin.state.postgres import open_postgres_store


def _host(root: Path, name: str, base_url: str, state_url: str) -> Path:
    home = root / name
    home.mkdir()
    (home / "config.yaml").write_text(
        f"model:\n  provider: openai\n  name: chat-model\n  base_url: {base_url}\nstate:\n  backend: postgres\n")
    (home / ".env").write_text(f"HERMES_STATE_URL={state_url}\n")
    os.chmod(home / ".env", 0o600)
    return home


def _hermes(home: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "HERMES_STATE_URL"}
    env["HERMES_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True, env=env,
                          input=stdin, timeout=120)


def test_a_conversation_on_one_host_is_found_and_resumed_on_another(pg_url, tmp_path):
    script = [text_reply("Noted: the staging password rotates on Fridays."), text_reply("On Fridays, as you said.")]
    with OpenAIServer(script) as server:
        laptop = _host(tmp_path, "laptop", server.base_url, pg_url)
        gateway = _host(tmp_path, "gateway", server.base_url, pg_url)
        first = _hermes(laptop, "chat", "-q", "Remember that the staging password rotates weekly", "--no-stream")
        assert first.returncode == 0, first.stderr
        session_id = first.stderr.split("--resume ")[1].split(")")[0]

        found = _hermes(gateway, "sessions", "search", "rotates", "--json")
        assert found.returncode == 0, found.stderr
        assert session_id in found.stdout

        resumed = _hermes(gateway, "chat", "--resume", session_id, "-q", "When does it rotate?", "--no-stream")
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout == "On Fridays, as you said.\n"
        second_body = server.bodies[1]
    assert [m["content"] for m in second_body["messages"][1:]] == [
        "Remember that the staging password rotates weekly", "Noted: the staging password rotates on Fridays.",
        "When does it rotate?"]
    assert not (laptop / "state.db").exists() and not (gateway / "state.db").exists()
    with open_postgres_store(pg_url) as store:
        assert store.message_count(session_id) == 4
        assert store.get_session(session_id)["api_call_count"] == 2


def test_compression_in_the_repl_links_sessions_in_postgres(pg_url, tmp_path):
    turns = "".join(f"question {n}\n" for n in range(2, 7))
    script = [text_reply("first answer"), *[text_reply(f"answer {n}") for n in range(2, 7)]]
    with OpenAIServer(script) as server:
        home = _host(tmp_path, "host", server.base_url, pg_url)
        result = _hermes(home, "chat", stdin=f"hello\n/title Weekend plans\n{turns}/compress\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "compressed; continuing in session" in result.stdout
    with open_postgres_store(pg_url) as store:
        rows = {row["title"]: row for row in store.list_sessions_rich(limit=10, project_compression=False)}
        assert rows["Weekend plans"]["end_reason"] == "compression"
        assert rows["Weekend plans #2"]["parent_session_id"] == rows["Weekend plans"]["id"]
        assert store.get_compression_tip(rows["Weekend plans"]["id"]) == rows["Weekend plans #2"]["id"]
