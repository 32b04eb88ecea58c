"""state.db made read-only, or a link to a file that is not there: the user's choice is kept and
the error names the file; nothing is created where the user did not ask for it."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from hermes_plugins_builtin.state import SessionStore
from hermes_plugins_builtin.state.errors import StateStoreError


def test_a_read_only_store_stays_read_only(db_path: Path):
    SessionStore(db_path).close()
    os.chmod(db_path, 0o400)
    with SessionStore(db_path) as store:
        assert list(store.iter_sessions()) == []
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(str(db_path) + suffix):
                assert os.stat(str(db_path) + suffix).st_mode & 0o777 == 0o400, suffix
    os.chmod(db_path, 0o440)  # group access is still taken away
    SessionStore(db_path).close()
    assert os.stat(db_path).st_mode & 0o777 == 0o400


def test_a_write_sqlite_refuses_as_read_only_names_the_file(db_path: Path):
    # root may write any file, so the read-only answer is asked of SQLite itself
    with SessionStore(db_path) as store:
        store._conn.execute("PRAGMA query_only = 1")
        with pytest.raises(StateStoreError) as refused:
            store.create_session("s1", "cli")
        assert str(refused.value).startswith(f"{db_path} cannot be written (attempt to write a readonly database) -> give your user write access")
        assert isinstance(refused.value.__cause__, sqlite3.OperationalError)
        store._conn.execute("PRAGMA query_only = 0")
        store.create_session("s1", "cli")  # the lock was let go and the transaction rolled back
        assert [s["id"] for s in store.iter_sessions()] == ["s1"]


def test_the_cli_reports_a_read_only_store_as_one_line(run_hermes, hermes_home, tmp_path, monkeypatch):
    from hermes_plugins_builtin.state import store

    configure = store.configure

    def read_only(conn, *, durable):
        configure(conn, durable=durable)
        conn.execute("PRAGMA query_only = 1")

    monkeypatch.setattr(store, "configure", read_only)  # a read-only file, as root cannot have one
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hello"}\n', encoding="utf-8")
    result = run_hermes("sessions", "import", str(path), "--json")
    assert result.exit_code == 1 and "internal error" not in result.stderr
    assert result.json()["cause"] == f"{hermes_home / 'state.db'} cannot be written (attempt to write a readonly database)"


@pytest.mark.parametrize("target", ["unmounted/state.db", "state-elsewhere.db"])
def test_a_link_to_a_store_that_is_not_there_is_refused_and_nothing_is_created(run_hermes, hermes_home, tmp_path, target):
    gone = tmp_path / target
    (hermes_home / "state.db").symlink_to(gone)
    result = run_hermes("sessions", "list")
    assert result.exit_code == 1
    assert f"state.db is a symbolic link to {gone}, which does not exist -> mount or restore" in result.stderr
    assert not gone.exists() and (hermes_home / "state.db").is_symlink()


def test_a_link_to_an_existing_store_is_used(run_hermes, hermes_home, tmp_path):
    elsewhere = tmp_path / "disk" / "state.db"
    with SessionStore(elsewhere) as store:
        store.create_session("kept-session", "cli")
    (hermes_home / "state.db").symlink_to(elsewhere)
    result = run_hermes("sessions", "list", "--json")
    assert result.exit_code == 0, result.stderr
    assert [s["id"] for s in result.json()] == ["kept-session"]


@pytest.mark.parametrize(("make", "kind"), [
    (lambda path: os.mkfifo(path), "a FIFO"),
    (lambda path: path.symlink_to("/dev/zero"), "a device or socket"),
])
def test_a_state_db_that_is_no_file_is_named_not_an_internal_error(run_hermes, hermes_home, make, kind):
    make(hermes_home / "state.db")
    result = run_hermes("sessions", "list", "--json")
    assert result.exit_code == 1 and "internal error" not in result.stderr
    assert result.json()["cause"] == f"{hermes_home / 'state.db'} is {kind}, not a database file"
    assert not (hermes_home / "state.db-wal").exists()
