"""What an append leaves behind for search: every message findable the moment its append
returns, document counts kept by the connection that indexed every row, lists built from
FTS5's own scores, and a write transaction that always gives the lock back."""
from __future__ import annotations

import sqlite3

import pytest

from hermes_plugins_builtin.state import SessionStore, impact_upkeep, indexing
from hermes_plugins_builtin.state.connection import write_transaction

WORDS = ("alpha", "beta", "gamma", "delta")


def _vocab_count(conn: sqlite3.Connection, term: str) -> int:
    """The index's own document count of *term* (asked here, not through the code under test)."""
    return conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (f'"{term}"',)).fetchone()[0]


def _stored_df(store: SessionStore) -> dict[str, int]:
    return dict(store._conn.execute("SELECT term, df FROM rank_terms"))


def test_each_message_is_found_the_moment_its_append_returns(db_path):
    with SessionStore(db_path, durable=True, background_index=True) as store:
        store.create_session("s", "cli")
        for i in range(3 * indexing.BATCH_ROWS + 5):  # in a batch, filling one, and past it
            mid = store.append_message("s", "user" if i % 2 else "assistant", f"note number{i} 部署{i}")
            assert [h.message_id for h in store.search(f"number{i}")] == [mid]
            assert mid in [h.message_id for h in store.search(f"部署{i}", limit=50)]
        with SessionStore(db_path) as other:  # another connection sees them too, indexed or waiting
            assert len(other.search("note", limit=200)) == 3 * indexing.BATCH_ROWS + 5


def test_a_store_that_started_empty_counts_words_itself_as_the_index_does(db_path, monkeypatch):
    monkeypatch.setattr(impact_upkeep, "TRACK_DF", 40)
    counted = []
    real = impact_upkeep._document_frequency
    monkeypatch.setattr(impact_upkeep, "_document_frequency", lambda conn, term: counted.append(term) or real(conn, term))
    with SessionStore(db_path, background_index=False) as store:
        store.create_session("s", "cli")
        for i in range(6 * indexing.BATCH_ROWS):
            words = " ".join(WORDS[: 1 + i % len(WORDS)])
            store.append_message("s", "user", f"{words} filler{i % 7} unique{i}")
        local = store._conn.rank_cache.local
        assert local is not None
        for term in ("alpha", "beta", "gamma", "delta", "filler3", "unique5"):
            assert local[term] == _vocab_count(store._conn, term)  # the count FTS5 gives, kept in memory
        assert set(counted) <= {"alpha", "beta", "gamma", "delta"}  # the index is asked only to build a list
        tracked = {r[0] for r in store._conn.execute("SELECT term FROM rank_terms WHERE tracked = 1")}
        assert tracked == {"alpha", "beta", "gamma", "delta"}
        for term, df in _stored_df(store).items():  # below TRACK_DF too: the words' real counts at the time
            assert df <= _vocab_count(store._conn, term)
        assert store.check_integrity() == []


def test_another_writers_batch_ends_the_local_counts_and_the_index_counts_again(db_path, monkeypatch):
    monkeypatch.setattr(impact_upkeep, "TRACK_DF", 40)
    with SessionStore(db_path, background_index=False) as first, SessionStore(db_path, background_index=False) as second:
        first.create_session("a", "cli")
        second.create_session("b", "cli")
        for i in range(2 * indexing.BATCH_ROWS):
            first.append_message("a", "user", f"alpha beta line{i}")
        assert first._conn.rank_cache.local is not None
        for i in range(indexing.BATCH_ROWS):
            second.append_message("b", "user", f"alpha gamma gamma other{i}")  # second indexes this batch
        assert second._conn.rank_cache.local is None  # it did not start on an empty index
        counted = []
        real = impact_upkeep._document_frequency
        monkeypatch.setattr(impact_upkeep, "_document_frequency",
                            lambda conn, term: counted.append(term) or real(conn, term))
        for i in range(2 * indexing.BATCH_ROWS):
            first.append_message("a", "user", f"gamma gamma alpha more{i}")
        assert first._conn.rank_cache.local is None  # the index no longer holds only its rows
        assert "gamma" in counted  # so the word was counted in the index
        assert "gamma" in {r[0] for r in first._conn.execute("SELECT term FROM rank_terms WHERE tracked = 1")}
        assert first.check_integrity() == []


def test_a_deletion_ends_the_local_counts(db_path, monkeypatch):
    monkeypatch.setattr(impact_upkeep, "TRACK_DF", 40)
    with SessionStore(db_path, background_index=False) as store:
        store.create_session("gone", "cli")
        store.create_session("kept", "cli")
        for i in range(2 * indexing.BATCH_ROWS):
            store.append_message("gone" if i % 2 else "kept", "user", f"alpha beta row{i}")
        assert store._conn.rank_cache.local is not None
        store.delete_session("gone")
        for i in range(indexing.BATCH_ROWS):
            store.append_message("kept", "user", f"alpha after{i}")
        assert store._conn.rank_cache.local is None


def test_a_new_list_takes_counts_and_lengths_from_fts5_scores_exactly(db_path):
    texts = ["deploy the deploy server", "a long message that mentions deploy only once among many other words here",
             "deploy", "deploy deploy deploy now", "we should deploy it and then deploy it again later today"]
    with SessionStore(db_path, background_index=False) as store:
        store.create_session("s", "cli")
        store.append_messages("s", [{"role": "user", "content": texts[i % len(texts)] + f" n{i}"}
                                    for i in range(3 * indexing.BATCH_ROWS)])
        conn = store._conn
        df = _vocab_count(conn, "deploy")
        from_scores = impact_upkeep._best_matches(conn, '"deploy"', df)
        from_text = impact_upkeep._best_matches_from_text(conn, '"deploy"')
        assert len(from_scores) == impact_upkeep.LIST_SIZE
        assert sorted(from_scores) == sorted(from_text)


def test_a_score_that_is_not_a_whole_count_falls_back_to_reading_the_rows(db_path, monkeypatch):
    read = []
    from_text = impact_upkeep._best_matches_from_text
    monkeypatch.setattr(impact_upkeep, "_best_matches_from_text", lambda conn, phrase: read.append(phrase) or from_text(conn, phrase))
    with SessionStore(db_path, background_index=False) as store:
        store.create_session("s", "cli")
        store.append_messages("s", [{"role": "user", "content": ("deploy " * (1 + i % 3) if i % 4 == 0 else "") + f"x{i}"}
                                    for i in range(200)])
        conn = store._conn
        df = _vocab_count(conn, "deploy")
        assert df == 50
        right = impact_upkeep._best_matches(conn, '"deploy"', df)
        assert read == []  # every score inverted
        wrong = impact_upkeep._best_matches(conn, '"deploy"', df + 7)  # an IDF bm25() did not use: no score inverts
        assert read == ['"deploy"']
        assert sorted(wrong) == sorted(right) and len(right) == df  # fewer matches than a list holds


@pytest.mark.parametrize("weighted", [0.0, impact_upkeep.K1 + 1, impact_upkeep.K1 + 2])
def test_frequency_refuses_weights_no_count_gives(weighted):
    assert impact_upkeep._frequency(weighted, 10, 10.0) is None


def test_a_failed_write_transaction_rolls_back_and_frees_the_lock(db_path):
    with SessionStore(db_path, background_index=False) as store, SessionStore(db_path, background_index=False) as other:
        store.create_session("s", "cli")
        with pytest.raises(RuntimeError):
            with write_transaction(store._conn) as conn:
                conn.execute("UPDATE sessions SET title = 'half' WHERE id = 's'")
                raise RuntimeError("the body failed")
        assert not store._conn.in_transaction
        assert store.get_session("s")["title"] is None
        other.append_message("s", "user", "the lock is free")  # would wait forever if it were held
        assert store.message_count("s") == 1
