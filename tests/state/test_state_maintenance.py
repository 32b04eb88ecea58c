"""Deleting and pruning, stats, index rebuilds, and keeping the batched index consistent."""
from __future__ import annotations

import sqlite3

from hermes_plugins_builtin.state import SCHEMA_VERSION, SessionStore
from hermes_plugins_builtin.state.indexing import BATCH_ROWS, MAX_WAITING

from state_support import sqlite_only


def fill(store, sid, n, *, started_at=None, word="alpha", at=None):
    store.create_session(sid, "cli", started_at=started_at)
    store.append_messages(sid, [{"role": "user", "content": f"{word} {i} 日志", "timestamp": at}
                                for i in range(n)])


def test_delete_session_removes_messages_and_index_entries(store):
    fill(store, "a", 50)
    fill(store, "b", 5, word="beta")
    store.create_session("child", "cli", parent_session_id="a")
    assert store.delete_session("a") is True
    assert store.delete_session("a") is False
    assert store.get_session("a") is None and store.get_messages("a") == []
    assert store.get_session("child")["parent_session_id"] is None  # the child lives on
    assert store.search("alpha") == [] and len(store.search("日志", limit=100)) == 5
    assert store.message_count() == 5
    assert store.check_integrity() == []


def test_prune_deletes_only_sessions_idle_longer_than_the_cutoff(store):
    fill(store, "old", 10, started_at=1_000.0, at=1_100.0)
    fill(store, "old_but_active_lately", 3, started_at=1_000.0, at=9_500.0)
    fill(store, "new", 3, started_at=9_000.0, at=9_001.0)
    store.end_session("old", "user", ended_at=1_200.0)
    assert store.prune_sessions(older_than_s=5_000, now=10_000.0) == 1
    assert store.get_session("old") is None
    assert {e["id"] for e in store.list_sessions_rich()} == {"old_but_active_lately", "new"}
    assert store.prune_sessions(older_than_s=5_000, now=10_000.0) == 0
    assert store.check_integrity() == []


def test_prune_keeps_every_ancestor_of_a_recently_active_session(store):
    fill(store, "root", 4, started_at=1_000.0, at=1_100.0)  # compressed long ago...
    store.create_session("middle", "cli", parent_session_id="root", started_at=1_200.0)
    store.append_messages("middle", [{"role": "user", "content": "later", "timestamp": 1_300.0}])
    store.create_session("tip", "cli", parent_session_id="middle", started_at=9_800.0)  # ...but still in use
    fill(store, "idle_chain_root", 2, started_at=1_000.0, at=1_000.0)
    store.create_session("idle_chain_tip", "cli", parent_session_id="idle_chain_root", started_at=1_500.0)
    assert store.prune_sessions(older_than_s=5_000, now=10_000.0) == 2
    assert store.get_session("root") is not None and store.get_session("middle") is not None
    assert store.get_session("idle_chain_root") is None and store.get_session("idle_chain_tip") is None


@sqlite_only
def test_stats_report_counts_sizes_and_index_bytes(store):
    fill(store, "a", BATCH_ROWS + 3)
    assert store.wait_for_index(timeout=60)
    store.append_message("a", "assistant", "reply")
    stats = store.stats()
    assert stats.schema_version == SCHEMA_VERSION and stats.sessions == 1 and stats.messages == BATCH_ROWS + 4
    assert stats.messages_by_role == {"user": BATCH_ROWS + 3, "assistant": 1}
    assert stats.db_bytes > 0 and stats.wal_bytes > 0
    assert 0 < stats.messages_awaiting_index < BATCH_ROWS
    for name in ("messages", "sessions", "messages_fts (index)", "messages_grams (index)", "idx_messages_session"):
        assert stats.object_bytes[name] > 0, name


@sqlite_only
def test_rebuild_reports_progress_and_restores_a_damaged_index(store):
    fill(store, "a", 300)
    store._conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('delete-all')")  # simulate damage
    assert store.search("alpha") == []
    calls = []
    assert store.rebuild_search_index(progress=lambda done, total: calls.append((done, total))) == 300
    assert calls[-1] == (300, 300)
    assert len(store.search("alpha", limit=500)) == 300
    assert store.check_integrity() == []


def test_close_indexes_waiting_rows_and_open_indexes_a_backlog(db_path):
    with SessionStore(db_path) as store:
        fill(store, "a", 5)
        assert store.stats().messages_awaiting_index == 5
    with SessionStore(db_path) as store:
        assert store.stats().messages_awaiting_index == 0
    # rows written by something that does not index (an older tool, raw SQL)
    with sqlite3.connect(db_path) as raw:
        raw.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('a', 'user', ?, 1.0)",
                        [(f"backlog {i} 缓存",) for i in range(MAX_WAITING)])
    with SessionStore(db_path) as store:
        assert store.stats().messages_awaiting_index == 0
        assert len(store.search("backlog 缓存", limit=500)) == MAX_WAITING


def test_opening_a_store_leaves_the_indexers_normal_lag_to_them(db_path):
    """Fewer than MAX_WAITING rows waiting is what writers' indexer threads lag by: a store
    opened to search reads them as they are and writes nothing."""
    with SessionStore(db_path) as store:
        fill(store, "a", 1)
    with sqlite3.connect(db_path) as raw:
        raw.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('a', 'user', ?, 1.0)",
                        [(f"lagging {i}",) for i in range(MAX_WAITING - 2)])
    with SessionStore(db_path) as store:
        assert store.stats().messages_awaiting_index == MAX_WAITING - 2
        assert len(store.search("lagging", limit=500)) == MAX_WAITING - 2
        assert store.stats().messages_awaiting_index == MAX_WAITING - 2  # the search indexed nothing


def test_changed_gram_rules_trigger_a_rebuild_on_open(db_path):
    with SessionStore(db_path) as store:
        fill(store, "a", 40)
    with sqlite3.connect(db_path) as raw:
        raw.execute("UPDATE state_meta SET value = 'bigram+last/v0' WHERE key = 'grams_format'")
        raw.execute("INSERT INTO messages_grams(messages_grams) VALUES ('delete-all')")
    with SessionStore(db_path) as store:
        assert len(store.search("日志", limit=100)) == 40
        assert store.check_integrity() == []


@sqlite_only
def test_deleting_rows_still_waiting_for_their_batch_keeps_indexes_consistent(store):
    fill(store, "a", BATCH_ROWS)          # indexed
    assert store.wait_for_index(timeout=60)
    fill(store, "b", 3, word="pending")   # waiting
    assert store.stats().messages_awaiting_index == 3
    assert store.delete_session("b")
    store.flush_search_index()
    assert store.search("pending") == []
    assert store.check_integrity() == []


def test_check_integrity_notices_an_index_out_of_step(db_path):
    with SessionStore(db_path) as store:
        fill(store, "a", BATCH_ROWS)
        assert store.check_integrity() == []
    with sqlite3.connect(db_path) as raw:  # delete behind the index's back
        raw.execute("DROP TRIGGER messages_fts_ad")
        raw.execute("DELETE FROM messages WHERE id = 3")
    with SessionStore(db_path) as store:
        problems = store.check_integrity()
        assert problems and "messages_fts" in problems[0]
