"""Several writer processes on one file: nothing lost, no lock errors; SIGKILL keeps it intact."""
from __future__ import annotations

import os
import sqlite3

import pytest

from hermes_plugins_builtin.state import SessionStore, StoreBusyError
from hermes_plugins_builtin.state import connection

import state_support


def test_eight_writer_processes_lose_nothing(db_path):
    workers, per_worker, sessions = 8, 2000, 4
    SessionStore(db_path).close()  # create the schema once, up front
    reports = state_support.run_workers(state_support.append_worker, workers,
                                        lambda w, barrier, results: (str(db_path), w, per_worker, sessions,
                                                                     barrier, results))
    assert [r["errors"] for r in reports] == [[]] * workers
    with SessionStore(db_path) as store:
        assert store.message_count() == workers * per_worker
        for report in reports:
            for sid, ok in report["ok"].items():
                assert len(store.get_messages(sid)) == ok
                assert store.get_session(sid)["message_count"] == ok
        # every row is searchable, whichever process indexed it
        assert len(store.search("payload-3-1999")) == 1
        assert len(store.search("部署", limit=1000)) == 1000
        assert store.check_integrity() == []


def test_sigkill_inside_a_write_transaction_leaves_a_sound_file(db_path):
    batch = 400
    state_support.sigkill_when_it_says(state_support.killed_mid_batch_worker, (str(db_path), batch), "inside")
    with sqlite3.connect(db_path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with SessionStore(db_path) as store:
        # the committed batch is whole, the interrupted one left nothing behind
        assert store.message_count("victim") == batch
        assert store.get_session("victim")["message_count"] == batch
        assert store.search("doomed") == []
        assert len(store.search("committed 数据库", limit=1000)) == batch
        assert store.check_integrity() == []


def test_a_held_lock_surfaces_as_store_busy_after_bounded_retries(db_path, monkeypatch):
    monkeypatch.setattr(connection, "WRITE_ATTEMPTS", 3)
    monkeypatch.setattr(connection, "RETRY_SLEEP_S", (0.001, 0.002))
    with SessionStore(db_path) as store:
        store.create_session("s", "cli")
        store._conn.execute("PRAGMA busy_timeout = 10")  # keep the test quick
        blocker = sqlite3.connect(db_path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreBusyError, match="locked after 3 attempts"):
                store.append_message("s", "user", "blocked")
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        store.append_message("s", "user", "now it goes through")
        assert store.message_count() == 1


def test_a_hermes_writer_waits_for_another_on_the_file_lock_not_on_sqlite_retries(db_path, monkeypatch):
    """With SQLite's busy handler and retries switched off, a second store's append still
    succeeds: it queues on state.db-lock until the first store's transaction ends."""
    import threading

    from hermes_plugins_builtin.state.connection import write_transaction, write_transaction_if_free

    monkeypatch.setattr(connection, "WRITE_ATTEMPTS", 1)
    first, second = SessionStore(db_path), SessionStore(db_path)
    first.create_session("s", "cli")
    second._conn.execute("PRAGMA busy_timeout = 0")
    outcome: list[object] = []
    ready = threading.Event()

    def append() -> None:
        ready.set()
        try:
            outcome.append(second.append_message("s", "user", "after the first writer"))
        except Exception as exc:  # reported by the assertion below
            outcome.append(exc)

    try:
        with write_transaction(first._conn):
            with write_transaction_if_free(second._conn) as free:
                assert free is False  # the lock is taken: the opportunistic path backs off
            waiter = threading.Thread(target=append)
            waiter.start()
            ready.wait(10)
            waiter.join(0.2)
            assert waiter.is_alive() and outcome == []  # still queued, not failed
        waiter.join(10)
        assert len(outcome) == 1 and isinstance(outcome[0], int), outcome
        assert second.message_count("s") == 1
        assert oct(os.stat(str(db_path) + "-lock").st_mode & 0o777) == oct(0o600)
    finally:
        first.close()
        second.close()


def test_wal_pages_are_copied_back_by_the_background_checkpointer(db_path):
    from hermes_plugins_builtin.state.checkpoint import AUTOCHECKPOINT_PAGES, CHECKPOINT_EVERY_MESSAGES

    with SessionStore(db_path) as store:
        store.create_session("s", "cli")
        size_before = os.path.getsize(db_path)
        appends = CHECKPOINT_EVERY_MESSAGES * 2
        for i in range(appends):
            store.append_message("s", "user", f"message {i} " + "padding " * 50)
        assert store._checkpointer.wait_for(1, timeout=60)
        # the WAL is still far below the auto-checkpoint size (so SQLite itself has not
        # checkpointed); only the background pass can have grown the main file
        wal_pages = os.path.getsize(str(db_path) + "-wal") // 4096
        assert wal_pages < AUTOCHECKPOINT_PAGES
        assert os.path.getsize(db_path) > size_before
        assert store.message_count() == appends


def test_a_long_wal_is_started_over_from_the_background_thread(db_path, monkeypatch):
    from hermes_plugins_builtin.state import checkpoint

    monkeypatch.setattr(checkpoint, "RESTART_FRAMES", 5)
    with SessionStore(db_path) as store, SessionStore(db_path) as reader:
        store.create_session("s", "cli")
        for i in range(checkpoint.CHECKPOINT_EVERY_MESSAGES):
            store.append_message("s", "user", f"message {i} " + "padding " * 50)
            assert reader.search(f"message {i}")  # a reader between the commits
        assert store._checkpointer.wait_for(1, timeout=60)
        assert store._checkpointer.restarts == 1
        store.append_message("s", "user", "after the restart")
        probe = sqlite3.connect(db_path)
        try:
            frames = probe.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
        finally:
            probe.close()
        assert 0 < frames < 5  # the commit after the restart wrote from the start of the WAL
        assert reader.message_count("s") == checkpoint.CHECKPOINT_EVERY_MESSAGES + 1
