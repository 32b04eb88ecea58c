"""The append path: batches indexed after the append that fills them (by it, or by an indexer thread),
a crash inside a batch or inside the indexer, the lag bound,
the impact lists' word tokens and promotions, the row encoding, the durability setting."""
from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from hermes_plugins_builtin.state import SessionStore, StateStoreError, impact_upkeep, indexing, open_configured_store
from hermes_plugins_builtin.state.records import MESSAGE_COLUMNS, encode_message
from hermes_plugins_builtin.state.ranking import _TOKEN, fold, tokens

import state_support


def _waiting(store: SessionStore) -> int:
    return store._conn.execute("SELECT count(*) FROM messages WHERE id > ?",
                               (indexing.indexed_upto(store._conn),)).fetchone()[0]


def test_two_writers_taking_turns_index_every_batch(db_path):
    """Each writer remembers the mark it last read; the other writer's batches move it on."""
    with SessionStore(db_path, background_index=False) as first, SessionStore(db_path, background_index=False) as second:
        first.create_session("a", "cli")
        second.create_session("b", "cli")
        for i in range(5 * indexing.BATCH_ROWS + 3):
            writer, sid = (first, "a") if (i // 3) % 2 == 0 else (second, "b")
            writer.append_message(sid, "user", f"turn {i} marker{i}")
            assert _waiting(first) < indexing.BATCH_ROWS
        assert indexing.indexed_upto(first._conn) >= 5 * indexing.BATCH_ROWS
        assert first.check_integrity() == []
        for i in (0, 77, 5 * indexing.BATCH_ROWS + 2):
            assert len(first.search(f"marker{i}")) == 1


def test_an_index_batch_that_fails_leaves_the_append_committed_and_the_next_append_indexes(db_path, monkeypatch):
    with SessionStore(db_path, background_index=False) as store:
        store.create_session("s", "cli")
        for i in range(indexing.BATCH_ROWS - 1):
            store.append_message("s", "user", f"row {i}")
        real_merge = indexing.merge_step
        failures = []

        def failing_merge(conn, *, grams):
            failures.append(1)
            raise sqlite3.OperationalError("disk I/O error")  # what a failing disk reports

        monkeypatch.setattr(indexing, "merge_step", failing_merge)
        mid = store.append_message("s", "user", "this append fills the batch; its indexing fails")
        assert failures  # the batch was tried, in a transaction of its own
        monkeypatch.setattr(indexing, "merge_step", real_merge)
        assert store.message_count() == indexing.BATCH_ROWS  # the append itself stands
        assert _waiting(store) == indexing.BATCH_ROWS  # the batch rolled back whole
        assert [h.message_id for h in store.search("fills")] == [mid]  # found while waiting
        store.append_message("s", "user", "the next one")
        assert _waiting(store) == 0
        assert store.check_integrity() == []


def test_sigkill_inside_the_indexer_loses_nothing_and_the_rows_are_indexed_later(db_path):
    batch = indexing.BATCH_ROWS
    with SessionStore(db_path, background_index=True) as survivor:  # open before the crash: it has no backlog to index on open
        state_support.sigkill_when_it_says(state_support.killed_while_indexing_worker, (str(db_path), batch),
                                           "indexing")
        assert survivor.message_count("victim") == batch  # every acknowledged append is there
        assert survivor.get_session("victim")["message_count"] == batch
        assert indexing.indexed_upto(survivor._conn) == 0  # the killed indexer's batch never committed
        assert len(survivor.search("acknowledged 数据库", limit=100)) == batch  # read while waiting
        assert indexing.indexed_upto(survivor._conn) == 0  # and the search indexed nothing
        assert survivor.wait_for_index(timeout=60)  # this store's indexer thread takes the rows over
        assert _waiting(survivor) == 0
        assert survivor.index_status()["indexer_rows"] == batch
        assert len(survivor.search("acknowledged 数据库", limit=100)) == batch  # now from the indexes
        assert survivor.check_integrity() == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127)) | st.text())
def test_word_tokens_are_the_word_pattern_whatever_the_text(text):
    assert tokens(text) == _TOKEN.findall(fold(text))


def test_encoded_values_follow_the_column_order():
    message = {"role": "tool", "content": "c", "tool_call_id": "id", "tool_calls": [{"x": 1}], "name": "n",
               "timestamp": 5, "token_count": 7, "finish_reason": "stop", "reasoning": "r",
               "reasoning_content": "rc", "reasoning_details": {"d": 1}, "codex_reasoning_items": [1],
               "codex_message_items": [2]}
    encoded = encode_message("sid", message)
    assert dict(zip(MESSAGE_COLUMNS, encoded.values)) == {
        "session_id": "sid", "role": "tool", "content": "c", "tool_call_id": "id", "tool_calls": '[{"x":1}]',
        "tool_name": "n", "timestamp": 5.0, "token_count": 7, "finish_reason": "stop", "reasoning": "r",
        "reasoning_content": "rc", "reasoning_details": '{"d":1}', "codex_reasoning_items": "[1]",
        "codex_message_items": "[2]"}
    assert encoded.tool_call_count == 1


def _tracked_words(store: SessionStore) -> set[str]:
    return {r[0] for r in store._conn.execute("SELECT term FROM rank_terms WHERE tracked = 1")}


def test_a_batch_of_appends_builds_one_impact_list_and_leaves_the_rest_for_later(db_path, monkeypatch):
    monkeypatch.setattr(impact_upkeep, "TRACK_DF", 40)
    batch = indexing.BATCH_ROWS
    with SessionStore(db_path, background_index=False) as store:
        store.create_session("s", "cli")
        grown = []
        for i in range(5 * batch):
            store.append_message("s", "user", f"alpha beta gamma unique{i}")
            if (i + 1) % batch == 0:
                grown.append(len(_tracked_words(store) & {"alpha", "beta", "gamma"}))
        # a batch sees the document count of the index before it (FTS5 writes the count
        # when the batch's rows leave its memory), so the third batch is the first to
        # see 40 rows: all three words qualify there, and one list is built per batch
        assert grown == [0, 0, 1, 2, 3]
        hits = store.search("beta", limit=5)
        assert len(hits) == 5 and store.check_integrity() == []


def test_a_bulk_flush_builds_as_many_lists_as_its_batches_allow(db_path, monkeypatch):
    monkeypatch.setattr(impact_upkeep, "TRACK_DF", 40)
    with SessionStore(db_path, background_index=False) as store:
        store.create_session("s", "cli")
        for turn in range(2):  # each turn indexes its own rows; the second sees the first's count
            store.append_messages("s", [{"role": "user", "content": f"alpha beta gamma unique{turn}-{i}"}
                                        for i in range(4 * indexing.BATCH_ROWS)])
        assert {"alpha", "beta", "gamma"} <= _tracked_words(store)


def test_the_promotion_budget_counts_rows_in_batches_of_the_index():
    assert impact_upkeep.ROWS_PER_BUDGET == indexing.BATCH_ROWS


@pytest.mark.parametrize(("setting", "durable"), [(None, False), ("normal", False), ("FULL", True), (" full ", True)])
def test_the_synchronous_setting_chooses_the_durability_of_every_commit(tmp_path, setting, durable):
    config = {"state": {"synchronous": setting}} if setting is not None else {}
    store = open_configured_store(tmp_path, config, {})
    try:
        # SQLite commits at NORMAL either way; full flushes the WAL after each commit (walsync.py)
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 1
        store.create_session("s", "cli")
        store.append_message("s", "user", "kept")
        assert store.search("kept")
        flush = store._conn.commit_sync
        assert (flush.flushes if flush is not None else 0) == (3 if durable else 0)  # the schema, the session, the append
    finally:
        store.close()


def test_an_unknown_synchronous_setting_names_the_setting_and_the_fix(tmp_path):
    with pytest.raises(StateStoreError, match=r"state\.synchronous is 'off'.*'normal'.*'full'.*hermes config set"):
        open_configured_store(tmp_path, {"state": {"synchronous": "off"}}, {})
    assert not (tmp_path / "state.db").exists()  # refused before anything was created


def test_a_starved_indexer_bounds_the_lag_the_appenders_index_past_it(db_path):
    """With the indexer thread stuck (another process's indexer holds <db>-indexer), rows wait
    only up to MAX_WAITING: the append that reaches it indexes them itself."""
    from hermes_plugins_builtin.state.indexer import INDEXER_LOCK_SUFFIX
    from hermes_plugins_builtin.state.writelock import WriterLock

    held = WriterLock(db_path, INDEXER_LOCK_SUFFIX)
    with SessionStore(db_path, background_index=True) as store:
        store.create_session("s", "cli")
        held.acquire()
        try:
            most = 0
            for i in range(indexing.MAX_WAITING + indexing.BATCH_ROWS):
                store.append_message("s", "user", f"starved {i} term{i}")
                most = max(most, _waiting(store))
            assert most == indexing.MAX_WAITING - 1  # never more; the append that made it MAX indexed
            assert store.index_status()["indexer_rows"] == 0  # the thread did none of it
            assert indexing.indexed_upto(store._conn) >= indexing.MAX_WAITING
            assert len(store.search("starved", limit=1000)) == indexing.MAX_WAITING + indexing.BATCH_ROWS
        finally:
            held.release()
        assert store.wait_for_index(timeout=60)  # the thread, free again, takes what waits
        assert store.index_status()["indexer_rows"] >= indexing.BATCH_ROWS
        assert store.check_integrity() == []
    held.close()
