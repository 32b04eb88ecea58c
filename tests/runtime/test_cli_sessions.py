"""`hermes sessions` over a real state.db: list, show, search, export/import round trip, prune, stats."""

from __future__ import annotations

import json
import time

import pytest

from hermes_plugins_builtin.state import SessionStore


@pytest.fixture
def stored(hermes_home):
    with SessionStore(hermes_home / "state.db") as store:
        first = store.create_session(source="cli", title="Deploy notes", model="m1")
        store.append_messages(first, [
            {"role": "user", "content": "How do we deploy the billing service?"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"deploy/billing.yaml\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "tool_name": "read_file", "content": "replicas: 3"},
            {"role": "assistant", "content": "Run make deploy-billing after the canary is green."},
        ])
        old = store.create_session(source="telegram", started_at=time.time() - 90 * 86400)
        store.append_messages(old, [{"role": "user", "content": "ancient question", "timestamp": time.time() - 90 * 86400}])
    return first, old


def test_list_show_and_search(stored, run_hermes):
    first, old = stored
    rows = run_hermes("sessions", "list", "--json").json()
    assert {r["id"] for r in rows} == {first, old}
    assert [r["id"] for r in run_hermes("sessions", "list", "--source", "telegram", "--json").json()] == [old]
    shown = run_hermes("sessions", "show", first)
    assert "Deploy notes" in shown.stdout and "-> read_file" in shown.stdout and "make deploy-billing" in shown.stdout
    hits = run_hermes("sessions", "search", "deploy/billing.yaml", "--json").json()
    assert hits and hits[0]["session_id"] == first
    assert run_hermes("sessions", "search", "canary", "--role", "user", "--json").json() == []
    missing = run_hermes("sessions", "show", "nope")
    assert missing.exit_code == 1 and "'hermes sessions list' shows the ids" in missing.stderr


def test_export_import_round_trip(stored, run_hermes, tmp_path):
    first, _ = stored
    out = tmp_path / "s.jsonl"
    assert run_hermes("sessions", "export", first, "--format", "jsonl", "-o", str(out)).exit_code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [m["role"] for m in lines] == ["user", "assistant", "tool", "assistant"]
    imported = run_hermes("sessions", "import", str(out), "--title", "Copy")
    assert imported.exit_code == 0, imported.stderr
    new_id = imported.stdout.split()[-1]
    copy = run_hermes("sessions", "show", new_id, "--json").json()
    assert [m["content"] for m in copy["messages"]] == [m["content"] for m in lines]
    assert copy["messages"][1]["tool_calls"][0]["function"]["name"] == "read_file"
    markdown = run_hermes("sessions", "export", first, "--format", "md").stdout
    assert markdown.startswith("# Deploy notes") and "## Tool (read_file)" in markdown


def test_import_refuses_a_bad_file_and_imports_nothing(stored, run_hermes, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "fine"}\nnot json\n')
    before = len(run_hermes("sessions", "list", "--json").json())
    result = run_hermes("sessions", "import", str(bad))
    assert result.exit_code == 1 and "bad.jsonl:2: not JSON" in result.stderr
    assert len(run_hermes("sessions", "list", "--json").json()) == before


def test_prune_and_stats(stored, run_hermes):
    first, old = stored
    assert run_hermes("sessions", "prune", "--older-than", "soon").exit_code == 1
    refused = run_hermes("sessions", "prune", "--older-than", "30d")  # stdin is not a terminal: no one to ask
    assert refused.exit_code == 1 and "add --yes" in refused.stderr
    assert run_hermes("sessions", "prune", "--older-than", "30d", "--yes").stdout.strip() == "deleted 1 session(s)"
    assert [r["id"] for r in run_hermes("sessions", "list", "--json").json()] == [first]
    stats = run_hermes("sessions", "stats", "--json").json()
    assert stats["sessions"] == 1 and stats["messages"] == 4 and stats["db_bytes"] > 0
    assert "database" in run_hermes("sessions", "stats").stdout


def test_import_takes_one_conversation_per_line_as_in_fine_tuning_files(hermes_home, run_hermes, tmp_path):
    data = tmp_path / "train.jsonl"
    data.write_text(
        json.dumps({"messages": [{"role": "system", "content": "You plan trips."}, {"role": "user", "content": "Oslo in May?"}, {"role": "assistant", "content": "Bring a coat."}]})
        + "\n"
        + json.dumps({"messages": [{"role": "user", "content": "Bergen in June?"}, {"role": "assistant", "content": "Rain gear."}]})
        + "\n"
    )
    result = run_hermes("sessions", "import", str(data), "--title", "Trips")
    assert result.exit_code == 0, result.stderr
    ids = [line.split()[-1] for line in result.stdout.splitlines()]
    assert len(ids) == 2 and result.stdout.startswith("imported 2 messages as session")
    with SessionStore(hermes_home / "state.db") as store:
        first, second = (store.get_session(i) for i in ids)
        assert (first["title"], second["title"]) == ("Trips", "Trips #2")
        assert first["system_prompt"] == "You plan trips." and second["system_prompt"] is None
        assert [m["content"] for m in store.get_messages(ids[1])] == ["Bergen in June?", "Rain gear."]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([{"messages": [{"role": "user", "content": "a"}]}, {"role": "user", "content": "b"}], "mixes conversation lines"),
        ([{"messages": [{"role": "user", "content": "a"}, {"content": "no role"}]}], "train.jsonl:1: message 2: the message has no 'role' -> add one of"),
        ([{"role": "robot", "content": "beep"}], "train.jsonl:1: 'role' is 'robot' -> use one of assistant, system, tool, user"),
        (["just text"], "train.jsonl:1: a chat message must be a JSON object"),
        ([{"messages": "not a list"}], "'messages' must be a list"),
    ],
)
def test_a_bad_conversation_file_imports_nothing(hermes_home, run_hermes, tmp_path, lines, message):
    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_hermes("sessions", "import", str(data))
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.stderr
    assert run_hermes("sessions", "list", "--json").json() == []
