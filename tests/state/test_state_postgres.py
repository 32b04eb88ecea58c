"""What only a shared PostgreSQL store must do: many writer processes, kills, restarts, migrations, errors."""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading

import psycopg
import pytest

from hermes_plugins_builtin.state import SchemaTooNewError, StateStoreError
from hermes_plugins_builtin.state.postgres import open_postgres_store, redact_url
from hermes_plugins_builtin.state.postgres.schema import SCHEMA_VERSION

import state_support

SPAWN = mp.get_context("spawn")


def test_eight_writer_processes_lose_and_duplicate_nothing(pg_url):
    workers, per_worker, batch = 8, 240, 8
    open_postgres_store(pg_url).close()
    reports = state_support.run_workers(state_support.pg_append_worker, workers,
                                        lambda w, barrier, results: (pg_url, w, per_worker, batch, barrier, results))
    assert [r["errors"] for r in reports] == [[]] * workers
    with open_postgres_store(pg_url) as store:
        assert store.message_count() == workers * per_worker
        for report in reports:
            messages = store.get_messages(report["session"])
            assert [m["content"].split()[3] for m in messages] == [str(i) for i in range(per_worker)]
            assert store.get_session(report["session"])["message_count"] == per_worker
        assert len(store.search("payload-3-239")) == 1
        assert len(store.search("部署", limit=1000)) == 1000
        assert store.check_integrity() == []


def test_a_writer_killed_mid_stream_leaves_whole_batches(pg_url):
    batch = 300
    parent_end, child_end = SPAWN.Pipe()
    proc = SPAWN.Process(target=state_support.pg_endless_batches_worker, args=(pg_url, batch, child_end))
    proc.start()
    for expected in (1, 2):  # two batches committed, the third one is on its way when the kill lands
        assert parent_end.poll(120), "the worker stopped appending"
        assert parent_end.recv() == expected
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=60)
    assert proc.exitcode == -signal.SIGKILL
    with open_postgres_store(pg_url) as store:
        stored = store.message_count("victim")
        assert stored >= 2 * batch and stored % batch == 0
        assert store.get_session("victim")["message_count"] == stored
        assert store.check_integrity() == []


def test_an_append_retried_with_the_same_key_is_stored_once(pg_url):
    with open_postgres_store(pg_url) as store:
        store.create_session("s", "cli")
        first = store.append_messages("s", [{"role": "user", "content": "once", "append_key": "k1"},
                                            {"role": "assistant", "content": "twice?", "append_key": "k2"}])
        again = store.append_messages("s", [{"role": "user", "content": "once", "append_key": "k1"},
                                            {"role": "assistant", "content": "twice?", "append_key": "k2"}])
        assert again == first
        assert store.message_count("s") == 2 and store.get_session("s")["message_count"] == 2


def test_a_server_restart_mid_write_costs_a_reconnect_not_a_message(pg_server, pg_url):
    store = open_postgres_store(pg_url, pool_size=2)
    store.create_session("r", "cli")
    written: list[int] = []
    errors: list[BaseException] = []
    halfway = threading.Event()

    def writer() -> None:
        try:
            for i in range(120):
                written.extend(store.append_messages("r", [{"role": "user", "content": f"row {i}"}]))
                if i == 40:
                    halfway.set()
        except BaseException as exc:  # the assertion below reports it
            errors.append(exc)
            halfway.set()

    thread = threading.Thread(target=writer)
    thread.start()
    assert halfway.wait(120)
    pg_server.restart()
    thread.join(180)
    try:
        assert errors == []
        assert store.message_count("r") == 120 and len(set(written)) == 120
        assert [m["content"] for m in store.get_messages("r")] == [f"row {i}" for i in range(120)]
    finally:
        store.close()


def test_hosts_opening_an_empty_database_together_migrate_it_once(pg_url):
    results: list[object] = []

    def open_one() -> None:
        try:
            with open_postgres_store(pg_url, pool_size=1) as store:
                results.append(store.schema_version)
        except BaseException as exc:  # reported by the assertion
            results.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == [SCHEMA_VERSION] * 6


def test_a_database_of_a_newer_schema_is_refused_untouched(pg_url):
    open_postgres_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE hermes_state_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(SchemaTooNewError) as info:
        open_postgres_store(pg_url)
    assert "99" in str(info.value) and "hermes-test-secret" not in str(info.value)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT value FROM hermes_state_meta WHERE key = 'schema_version'").fetchone()[0] == "99"


def test_wrong_credentials_name_the_server_never_the_password(pg_server):
    url = pg_server.url("postgres", password="not-the-password")
    with pytest.raises(StateStoreError) as info:
        open_postgres_store(url)
    message = str(info.value)
    assert "credentials" in message and f"127.0.0.1:{pg_server.port}" in message and "'postgres'" in message
    assert "not-the-password" not in message


def test_an_unreachable_server_is_named_with_the_fix(pg_server):
    from hermes_core.testing.postgres import free_port

    port = free_port()
    url = pg_server.url("hermes", port=port)
    with pytest.raises(StateStoreError) as info:
        open_postgres_store(url)
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and "'hermes'" in message and "start the server" in message
    assert pg_server.password not in message


def test_a_missing_database_is_named(pg_server):
    with pytest.raises(StateStoreError) as info:
        open_postgres_store(pg_server.url("no_such_db"))
    assert "'no_such_db'" in str(info.value) and "createdb" in str(info.value)


def test_urls_are_redacted():
    assert redact_url("postgresql://u:s3cret@db:5432/h") == "postgresql://u:***@db:5432/h"
    assert redact_url("postgresql://db/h") == "postgresql://db/h"
