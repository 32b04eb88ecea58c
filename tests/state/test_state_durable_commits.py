"""synchronous: full: every durable write flushes the WAL once before it returns, after
letting go of the write lock; index batches never flush; writer processes lose nothing."""
from __future__ import annotations

import os
import sqlite3

import pytest

from hermes_plugins_builtin.state import SessionStore, StateStoreError, indexing, walsync
from hermes_plugins_builtin.state.connection import write_transaction
from hermes_plugins_builtin.state.writelock import WriterLock

import state_support


def test_a_durable_store_flushes_once_per_write_and_never_for_an_index_batch(db_path):
    appends = 3 * indexing.BATCH_ROWS + 5  # three batches indexed by the appenders, five waiting
    with SessionStore(db_path, durable=True, background_index=False) as store:
        flush = store._conn.commit_sync
        assert isinstance(flush, walsync.WalSync)
        # SQLite's own fsync inside COMMIT is off: the store flushes after the lock is free
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 1
        opened = flush.flushes  # the schema's creation
        assert opened == 1
        store.create_session("s", "cli")
        for i in range(appends):
            store.append_message("s", "user", f"durable note {i}")
        store.append_messages("s", [{"role": "user", "content": "a turn"}, {"role": "assistant", "content": "of two"}])
        store.end_session("s")
        assert indexing.indexed_upto(store._conn) >= 3 * indexing.BATCH_ROWS  # the batches did commit
        # create, each append, the turn (one transaction), the end: one flush each, none for the batches
        assert flush.flushes - opened == 1 + appends + 1 + 1


def test_a_deferred_flush_happens_even_if_an_index_commit_runs_in_between(db_path):
    """The append flushes after letting go of the store's lock; by then the indexer thread may be
    inside an index commit, which turns the connection's flush off while it runs."""
    with SessionStore(db_path, durable=True) as store:
        store.create_session("s", "cli")
        flush = store._conn.commit_sync
        before = flush.flushes
        transaction = write_transaction(store._conn, defer_sync=True)
        with transaction as conn:
            conn.execute("UPDATE sessions SET title = 'kept' WHERE id = 's'")
        with store._index_commits():  # what _apply_prepared does on the indexer thread
            transaction.sync()
        assert flush.flushes == before + 1
        transaction.sync()  # a second call has nothing left to flush
        assert flush.flushes == before + 1


def test_a_store_at_normal_never_flushes(db_path, monkeypatch):
    calls = []
    monkeypatch.setattr(walsync, "_flush", lambda fd: calls.append(fd))
    with SessionStore(db_path) as store:
        assert store._conn.commit_sync is None
        store.create_session("s", "cli")
        for i in range(indexing.BATCH_ROWS + 1):
            store.append_message("s", "user", f"note {i}")
    assert calls == []


def test_the_flush_comes_after_the_commit_with_the_write_lock_free(db_path, monkeypatch):
    """What the other writers gain: while one writer waits for the disk, the lock is free and
    its commit is already in the WAL. (The real flush runs; the wrapper only looks around.)"""
    real = walsync._flush
    seen: list[tuple[str, bool, int]] = []
    other_writer = WriterLock(db_path)

    def looking(fd: int) -> None:
        free = other_writer.acquire(blocking=False)  # another process's writer would get in now
        if free:
            other_writer.release()
        reader = sqlite3.connect(db_path)
        try:
            rows = reader.execute("SELECT count(*) FROM messages").fetchone()[0]
        finally:
            reader.close()
        seen.append((os.readlink(f"/proc/self/fd/{fd}"), free, rows))
        real(fd)

    monkeypatch.setattr(walsync, "_flush", looking)
    try:
        with SessionStore(db_path, durable=True) as store:
            store.create_session("s", "cli")
            first = store.append_message("s", "user", "one")
            store.append_message("s", "user", "two")
    finally:
        other_writer.close()
    assert first
    # the schema, the session, two appends
    assert [(path.endswith("state.db-wal"), free) for path, free, _ in seen] == [(True, True)] * 4
    assert [rows for _, _, rows in seen] == [0, 0, 1, 2]  # each append's row was committed before its flush


def test_a_flush_the_disk_refuses_is_a_clear_error_and_the_row_stays(db_path, monkeypatch):
    # a disk that fails fsync cannot be had here: the flush is made to fail as the OS reports it
    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    with SessionStore(db_path, durable=True) as store:
        store.create_session("s", "cli")
        monkeypatch.setattr(walsync, "_flush", failing)
        with pytest.raises(StateStoreError, match=r"state\.db-wal could not be flushed.*Input/output error.*"
                                                  r"may not survive a power cut.*check the disk"):
            store.append_message("s", "user", "stored anyway")
        monkeypatch.undo()
        assert [m["content"] for m in store.get_messages("s")] == ["stored anyway"]
        store.append_message("s", "user", "and the next")  # the store carries on
        assert store.get_session("s")["message_count"] == 2


def test_four_durable_writer_processes_lose_nothing_and_flush_every_append(db_path):
    workers, per_worker, sessions = 4, 300, 3
    SessionStore(db_path).close()
    reports = state_support.run_workers(state_support.append_worker, workers,
                                        lambda w, barrier, results: (str(db_path), w, per_worker, sessions,
                                                                     barrier, results, True))
    assert [r["errors"] for r in reports] == [[]] * workers
    # each process: one flush per session it created and per append, whatever the others did meanwhile
    assert [r["flushes"] for r in reports] == [sessions + per_worker] * workers
    with SessionStore(db_path) as store:
        assert store.message_count() == workers * per_worker
        for report in reports:
            for sid, ok in report["ok"].items():
                assert store.get_session(sid)["message_count"] == ok
        assert len(store.search("payload-2-299")) == 1
        assert store.check_integrity() == []


def _wal_descriptors(db_path) -> int:
    """Descriptors this process holds on *db_path*'s WAL file, deleted or not (Linux's /proc)."""
    wal = f"{db_path}-wal"
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").split(" (deleted)")[0] == wal
        except OSError:
            pass
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors through Linux's /proc")
def test_a_durable_store_dropped_without_close_leaves_no_wal_descriptor(db_path):
    import gc
    import threading

    SessionStore(db_path).close()
    before = _wal_descriptors(db_path)
    for n in range(3):
        store = SessionStore(db_path, durable=True)
        store.create_session(f"s{n}", "cli")
        del store
        gc.collect()
    assert _wal_descriptors(db_path) == before
    # two first flushes at once open the file once
    with SessionStore(db_path, durable=True) as store:
        barrier = threading.Barrier(2)

        def append(n: int) -> None:
            barrier.wait()
            store.append_message("s0", "user", f"message {n}")

        threads = [threading.Thread(target=append, args=(n,)) for n in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert _wal_descriptors(db_path) <= before + 2  # the store's own and SQLite's
    assert _wal_descriptors(db_path) == before
