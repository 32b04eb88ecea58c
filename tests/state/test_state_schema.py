"""Schema layout, pragmas, file modes, migrations from every earlier version, refusal of newer ones."""
from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from state_support import sqlite_only

from hermes_plugins_builtin.state import (SCHEMA_VERSION, NotAStateDatabaseError, SchemaTooNewError,
                                          SessionStore)
from hermes_core.errors import HermesError
from hermes_plugins_builtin.state import schema

SEED_SESSION_COLUMNS = {
    "id", "source", "user_id", "model", "model_config", "system_prompt", "parent_session_id",
    "started_at", "ended_at", "end_reason", "message_count", "tool_call_count", "input_tokens",
    "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "billing_provider",
    "billing_base_url", "billing_mode", "estimated_cost_usd", "actual_cost_usd", "cost_status",
    "cost_source", "pricing_version", "title", "api_call_count",
}
SEED_MESSAGE_COLUMNS = {
    "id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp",
    "token_count", "finish_reason", "reasoning", "reasoning_content", "reasoning_details",
    "codex_reasoning_items", "codex_message_items",
}


def columns(path: Path, table: str) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[1] for r in conn.execute(f"PRAGMA table_xinfo({table})")}


def build_old_database(path: Path, version: int) -> None:
    """A database exactly as an earlier release of this store left it, with some rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    schema.migrate(conn, str(path), target=version)
    conn.execute("INSERT INTO sessions (id, source, started_at, title) VALUES ('old', 'cli', 1000.0, 'Old one')")
    conn.execute("INSERT INTO messages (session_id, role, content, timestamp) "
                 "VALUES ('old', 'user', 'legacy quillwort text 数据库服务器', 1001.0)")
    conn.execute("INSERT INTO messages (session_id, role, content, tool_calls, tool_name, timestamp) VALUES "
                 "('old', 'assistant', NULL, '[{\"id\":\"c1\",\"type\":\"function\",\"function\":"
                 "{\"name\":\"terminal\",\"arguments\":\"{\\\"command\\\": \\\"kubectl rollout\\\"}\"}}]', NULL, 1002.0)")
    conn.execute("COMMIT")
    conn.close()


@sqlite_only
def test_fresh_database_has_every_seed_column_and_current_version(store, db_path):
    assert columns(db_path, "sessions") >= SEED_SESSION_COLUMNS
    assert columns(db_path, "messages") >= SEED_MESSAGE_COLUMNS
    with sqlite3.connect(db_path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"sessions", "messages", "state_meta", "schema_version", "messages_fts", "messages_grams"} <= tables
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    assert store.schema_version == SCHEMA_VERSION == 5


@sqlite_only
def test_wal_foreign_keys_and_private_file_modes(store, db_path):
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    store.create_session("s", "cli")
    store.append_message("s", "user", "hello")
    for suffix in ("", "-wal", "-shm"):
        assert os.stat(str(db_path) + suffix).st_mode & 0o777 == 0o600, suffix


def test_existing_world_readable_file_is_tightened(db_path):
    SessionStore(db_path).close()
    os.chmod(db_path, 0o644)
    with SessionStore(db_path):
        assert os.stat(db_path).st_mode & 0o777 == 0o600


@sqlite_only
def test_title_is_unique_only_when_set(store):
    store.create_session("a", "cli")
    store.create_session("b", "cli")  # two NULL titles are fine
    with pytest.raises(sqlite3.IntegrityError):
        store._conn.execute("UPDATE sessions SET title = 'x' WHERE id IN ('a', 'b')")


@pytest.mark.parametrize("old_version", range(1, SCHEMA_VERSION))
def test_migrates_forward_from_every_earlier_version(db_path, old_version):
    build_old_database(db_path, old_version)
    with sqlite3.connect(db_path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert ("search_text" in columns(db_path, "messages")) == (old_version >= 3)
    assert "rank_lists" not in tables
    with SessionStore(db_path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.get_session("old")["title"] == "Old one"
        assert store.get_session("old")["cache_read_tokens"] == 0
        assert [m["content"] for m in store.get_messages("old")] == ["legacy quillwort text 数据库服务器", None]
        # old rows are in both indexes: words, tool-call arguments, and CJK substrings
        assert [h.session_id for h in store.search("quillwort")] == ["old"]
        assert len(store.search("kubectl")) == 1
        assert len(store.search("服务")) == 1
        assert store.check_integrity() == []
    assert columns(db_path, "messages") >= SEED_MESSAGE_COLUMNS
    with sqlite3.connect(db_path) as conn:  # v4: the memory backfill checkpoints
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"memory_backfill_jobs", "memory_backfill_done"} <= tables


def test_reopening_is_idempotent(db_path):
    with SessionStore(db_path) as store:
        store.create_session("s", "cli")
        store.append_message("s", "user", "first words")
    for _ in range(2):
        with SessionStore(db_path) as store:
            assert store.schema_version == SCHEMA_VERSION
            assert store.message_count() == 1
            assert len(store.search("words")) == 1
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 1


def test_failed_migration_leaves_the_old_version_intact(db_path, monkeypatch):
    build_old_database(db_path, 2)

    original = schema.MIGRATIONS[3]

    def broken(conn):
        original(conn)  # do all of the work, then fail before the commit
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(schema.MIGRATIONS, 3, broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        SessionStore(db_path)
    assert "reasoning" not in columns(db_path, "messages")
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 2
    monkeypatch.undo()
    with SessionStore(db_path) as store:  # and a later, working run still migrates it
        assert store.schema_version == SCHEMA_VERSION


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_newer_schema_is_refused_and_left_untouched(db_path):
    with SessionStore(db_path) as store:
        store.create_session("s", "cli")
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 5,))
    before = _digest(db_path)
    with pytest.raises(SchemaTooNewError) as info:
        SessionStore(db_path)
    message = str(info.value)
    assert message.startswith(str(db_path)) and f"version {SCHEMA_VERSION + 5}" in message
    assert "-> upgrade hermes" in message and "not modified" in message
    assert isinstance(info.value, HermesError)  # the CLI reports it as a user error
    assert info.value.found == SCHEMA_VERSION + 5
    assert _digest(db_path) == before


def test_newer_rollback_journal_database_is_not_switched_to_wal(db_path):
    db_path.parent.mkdir(parents=True)
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version VALUES (99)")
    before = _digest(db_path)
    with pytest.raises(SchemaTooNewError):
        SessionStore(db_path)
    assert _digest(db_path) == before
    assert not Path(str(db_path) + "-wal").exists()


def test_foreign_sqlite_database_is_refused_and_kept(db_path):
    db_path.parent.mkdir(parents=True)
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE something_else (x)")
    before = _digest(db_path)
    with pytest.raises(NotAStateDatabaseError) as info:
        SessionStore(db_path)
    message = str(info.value)
    assert message.startswith(f"{db_path} is not a hermes session store") and "no schema_version table" in message
    assert "-> move it aside" in message and "not modified" in message
    assert _digest(db_path) == before and not Path(str(db_path) + "-wal").exists()


def test_a_file_that_is_not_sqlite_is_refused_and_kept(db_path):
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"these are my notes, not a database" * 200)
    before = _digest(db_path)
    with pytest.raises(NotAStateDatabaseError, match="SQLite cannot open it: file is not a database") as info:
        SessionStore(db_path)
    assert isinstance(info.value, HermesError) and "-> move it aside" in str(info.value)
    assert _digest(db_path) == before


def test_a_migration_reports_its_indexing_progress(db_path):
    build_old_database(db_path, 2)
    with sqlite3.connect(db_path) as conn:
        conn.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('old', 'user', ?, 2000.0)",
                         [(f"bulk row {i}",) for i in range(4500)])
    calls = []
    with SessionStore(db_path, progress=lambda done, total: calls.append((done, total))) as store:
        assert len(store.search("bulk")) == 20
    # rows are indexed 2,000 at a time, each chunk reported
    assert calls == [(2000, 4502), (4000, 4502), (4502, 4502)]
    calls.clear()
    SessionStore(db_path, progress=lambda done, total: calls.append((done, total))).close()
    assert calls == []  # an up-to-date store has nothing to report
