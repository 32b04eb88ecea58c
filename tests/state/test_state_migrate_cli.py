"""`hermes sessions migrate` both ways, resuming after an interruption, and the postgres backend from config."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hermes_core.cli.sessions_migrate import Migration
from hermes_plugins_builtin.state import SessionStore
from hermes_plugins_builtin.state.postgres import open_postgres_store

from state_support import tool_call


def _fill(store) -> dict[str, str]:
    root = store.create_session("root", "cli", title="Deploy notes", started_at=time.time() - 100, model="m1")
    store.append_messages(root, [
        {"role": "user", "content": "How do we deploy the billing service? 数据库服务器"},
        {"role": "assistant", "content": None, "tool_calls": [tool_call("read_file", json.dumps({"path": "deploy/billing.yaml"}))]},
        {"role": "tool", "tool_call_id": "call_1", "tool_name": "read_file", "content": "replicas: 3"},
    ])
    store.update_token_counts(root, input_tokens=120, output_tokens=30, estimated_cost_usd=0.25, model="m1")
    store.end_session(root, "compression", ended_at=time.time() - 50)
    tip = store.create_session("tip", "cli", parent_session_id=root, title="Deploy notes #2", started_at=time.time() - 40)
    store.append_messages(tip, [{"role": "user", "content": f"follow-up {i} quillwort"} for i in range(30)])
    other = store.create_session("other", "telegram", started_at=time.time() - 30)
    store.append_message(other, "user", "C++ (pointer arithmetic) in path/to/file.py:42")
    return {"root": root, "tip": tip, "other": other}


@pytest.fixture
def sqlite_home(hermes_home: Path) -> Path:
    with SessionStore(hermes_home / "state.db") as store:
        _fill(store)
    return hermes_home


def _use_postgres(monkeypatch, hermes_home: Path, url: str) -> None:
    (hermes_home / "config.yaml").write_text("state:\n  backend: postgres\n")
    monkeypatch.setenv("HERMES_STATE_URL", url)


def test_migrate_to_postgres_and_back_keeps_everything(sqlite_home, pg_url, run_hermes, monkeypatch, tmp_path):
    result = run_hermes("sessions", "migrate", "--to", pg_url, "--json")
    assert result.exit_code == 0, result.stderr
    summary = result.json()
    assert summary["verified"] and summary["sessions_copied"] == 3 and summary["messages_copied"] == 34
    assert summary["target_messages"] == summary["source_messages"] == 34
    assert "hermes-test-secret" not in result.stdout + result.stderr

    sqlite_search = run_hermes("sessions", "search", "deploy/billing.yaml", "--json").json()
    _use_postgres(monkeypatch, sqlite_home, pg_url)
    listed = run_hermes("sessions", "list", "--json").json()
    assert [r["id"] for r in listed][:2] == ["other", "tip"] and listed[1]["chain"] == ["root", "tip"]
    pg_search = run_hermes("sessions", "search", "deploy/billing.yaml", "--json").json()
    assert [h["session_id"] for h in pg_search] == [h["session_id"] for h in sqlite_search] == ["root"]
    assert run_hermes("sessions", "search", "服务器", "--json").json()[0]["session_id"] == "root"
    with open_postgres_store(pg_url) as pg:
        root = pg.get_session("root")
        assert (root["input_tokens"], root["estimated_cost_usd"], root["end_reason"]) == (120, 0.25, "compression")
        assert pg.get_compression_tip("root") == "tip"

    back = tmp_path / "back" / "state.db"
    result = run_hermes("sessions", "migrate", "--to", str(back), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["verified"] and result.json()["target_messages"] == 34
    with SessionStore(back) as copy, SessionStore(sqlite_home / "state.db") as original:
        for sid in ("root", "tip", "other"):
            assert [{k: v for k, v in m.items() if k != "id"} for m in copy.get_messages(sid)] == \
                   [{k: v for k, v in m.items() if k != "id"} for m in original.get_messages(sid)]


class _CutOff(KeyboardInterrupt):
    pass


class _InterruptingTarget:
    """The real target store, interrupted (as by Ctrl-C) right after the second session was created."""

    def __init__(self, store) -> None:
        self._store, self._created = store, 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def append_messages(self, session_id, messages):
        if self._created == 2:
            raise _CutOff()
        return self._store.append_messages(session_id, messages)

    def create_session(self, *args, **kwargs):
        self._created += 1
        return self._store.create_session(*args, **kwargs)


def test_an_interrupted_migration_resumes_without_duplicates(sqlite_home, pg_url, run_hermes):
    with SessionStore(sqlite_home / "state.db") as source, open_postgres_store(pg_url) as target:
        with pytest.raises(_CutOff):
            Migration(source, _InterruptingTarget(target)).run()
        assert target.message_count() == 3  # the first session whole, the second cut off empty
    result = run_hermes("sessions", "migrate", "--to", pg_url, "--json")
    assert result.exit_code == 0, result.stderr
    summary = result.json()
    assert (summary["sessions_already_there"], summary["sessions_redone"], summary["sessions_copied"]) == (1, 1, 2)
    assert summary["verified"] and summary["target_messages"] == 34
    again = run_hermes("sessions", "migrate", "--to", pg_url, "--json").json()
    assert again["sessions_copied"] == 0 and again["sessions_already_there"] == 3 and again["target_messages"] == 34


class _CutBeforeCounters(_InterruptingTarget):
    """Interrupted after a session's messages arrived, before its token counters were set."""

    def update_token_counts(self, session_id, **values):
        raise _CutOff()


def test_a_copy_cut_off_before_the_counters_is_redone_not_skipped(sqlite_home, pg_url, run_hermes):
    with SessionStore(sqlite_home / "state.db") as source, open_postgres_store(pg_url) as target:
        with pytest.raises(_CutOff):
            Migration(source, _CutBeforeCounters(target)).run()
        assert target.message_count("root") == 3 and target.get_session("root")["input_tokens"] == 0
        assert any("input_tokens" in p for p in Migration(source, target).verify())
    summary = run_hermes("sessions", "migrate", "--to", pg_url, "--json").json()
    assert summary["verified"] and summary["sessions_redone"] == 1
    with open_postgres_store(pg_url) as target:
        assert target.get_session("root")["input_tokens"] == 120 and target.message_count() == 34


def test_a_target_holding_other_sessions_is_refused_unless_forced(sqlite_home, pg_url, run_hermes):
    with open_postgres_store(pg_url) as target:
        target.create_session("someone-else", "cli")
    refused = run_hermes("sessions", "migrate", "--to", pg_url)
    assert refused.exit_code == 1 and "--force" in refused.stderr and "Traceback" not in refused.stderr
    with open_postgres_store(pg_url) as target:
        assert target.message_count() == 0
    forced = run_hermes("sessions", "migrate", "--to", pg_url, "--force", "--json")
    assert forced.exit_code == 0 and forced.json()["target_messages"] == 34 + 0


def test_a_password_written_into_config_yaml_is_refused(hermes_home, pg_server, run_hermes):
    (hermes_home / "config.yaml").write_text(f"state:\n  backend: postgres\n  url: {pg_server.url('postgres')}\n")
    result = run_hermes("sessions", "list")
    assert result.exit_code == 1 and "HERMES_STATE_URL" in result.stderr and ".env" in result.stderr
    assert pg_server.password not in result.stderr + result.stdout and "Traceback" not in result.stderr


def test_an_unreachable_database_is_one_clear_line(hermes_home, monkeypatch, run_hermes):
    from hermes_core.testing.postgres import free_port

    port = free_port()
    _use_postgres(monkeypatch, hermes_home, f"postgresql://hermes:pw-never-shown@127.0.0.1:{port}/history")
    result = run_hermes("sessions", "list")
    assert result.exit_code == 1 and f"127.0.0.1:{port}" in result.stderr and "'history'" in result.stderr
    assert "pw-never-shown" not in result.stderr and "Traceback" not in result.stderr


def test_an_unknown_backend_names_the_choices(hermes_home, run_hermes):
    (hermes_home / "config.yaml").write_text("state:\n  backend: mysql\n")
    result = run_hermes("sessions", "list")
    assert result.exit_code == 1 and "'sqlite'" in result.stderr and "'postgres'" in result.stderr


def test_migrating_onto_the_store_in_use_is_refused_without_showing_the_password(pg_url, hermes_home, monkeypatch,
                                                                                  run_hermes):
    _use_postgres(monkeypatch, hermes_home, pg_url)
    result = run_hermes("sessions", "migrate", "--to", pg_url)
    assert result.exit_code == 1 and "already uses" in result.stderr
    assert "hermes-test-secret" not in result.stderr and ":***@" in result.stderr


def test_importing_a_file_again_on_postgresql_skips_it_and_completes_a_half_written_one(hermes_home, pg_url, run_hermes,
                                                                                        monkeypatch, tmp_path):
    from hermes_core.cli.sessions_transfer import conversation_session_id, read_chat_jsonl

    _use_postgres(monkeypatch, hermes_home, pg_url)
    chats = tmp_path / "chats.jsonl"
    whole = [{"role": "user", "content": "Which port does postgres use?"}, {"role": "assistant", "content": "5432 by default."}]
    half = [{"role": "user", "content": f"step {i} of the runbook"} for i in range(6)]
    chats.write_text("".join(json.dumps({"messages": c}) + "\n" for c in (whole, half)))
    # another host was killed after storing the first three messages of the second conversation
    with open_postgres_store(pg_url) as store:
        half_id = conversation_session_id(read_chat_jsonl(chats)[1])
        store.create_session(half_id, "import")
        store.append_messages(half_id, half[:3])

    first = run_hermes("sessions", "import", str(chats), "--json")
    assert first.exit_code == 0, first.stderr
    assert [s["status"] for s in first.json()["sessions"]] == ["imported", "completed"]
    again = run_hermes("sessions", "import", str(chats), "--json")
    assert [s["status"] for s in again.json()["sessions"]] == ["skipped", "skipped"]
    with open_postgres_store(pg_url) as store:
        assert [m["content"] for m in store.get_messages(half_id)] == [m["content"] for m in half]
        assert store.message_count() == 8
