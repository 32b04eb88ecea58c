"""Search for what the word tokenizer drops or folds: emoji and other symbols, accented words.

Every test runs on both backends (the ``store`` fixture), with the rows indexed and with them
still waiting for their batch, because the answers must be the same everywhere.
"""
from __future__ import annotations

import sqlite3

import pytest

from hermes_plugins_builtin.state import SessionStore
from hermes_plugins_builtin.state.grams import GRAMS_FORMAT
from hermes_plugins_builtin.state.indexing import BATCH_ROWS
from hermes_plugins_builtin.state.search import MARK_CLOSE, MARK_OPEN


def marked(text: str) -> str:
    return f"{MARK_OPEN}{text}{MARK_CLOSE}"


@pytest.fixture(params=["indexed", "waiting"])
def symbols(request, store):
    store.create_session("s1", "cli")
    ids = {
        "rocket": store.append_message("s1", "user", "🚀 launch at noon"),
        "heart": store.append_message("s1", "assistant", "thanks ❤️ see you"),
        "thumbs": store.append_message("s1", "user", "looks good 👍🏽 ship it"),
        "family": store.append_message("s1", "user", "the 👨‍👩‍👧 emoji is one grapheme"),
        "cjk_emoji": store.append_message("s1", "user", "部署🚀完成"),
        "plain": store.append_message("s1", "user", "launch checklist without any symbol"),
        "spaet": store.append_message("s1", "user", "Es ist schon spät, Müller wartet"),
        "cafe": store.append_message("s1", "assistant", "a CAFÉ near the Crème brûlée shop"),
    }
    if request.param == "indexed":
        filler = [{"role": "user", "content": f"filler {i}"} for i in range(BATCH_ROWS)]
        store.append_messages("s1", filler)
        if hasattr(store, "flush_search_index"):
            store.flush_search_index()
            assert store.stats().messages_awaiting_index == 0
    return ids


def found(store, query):
    return {h.message_id: h.snippet for h in store.search(query, limit=50)}


def test_an_emoji_finds_the_messages_that_hold_it(store, symbols):
    hits = found(store, "🚀")
    assert set(hits) == {symbols["rocket"], symbols["cjk_emoji"]}
    assert hits[symbols["rocket"]] == f"{marked('🚀')} launch at noon"
    assert set(found(store, "🚀 launch")) == {symbols["rocket"]}
    assert set(found(store, "❤")) == set(found(store, "❤️")) == {symbols["heart"]}  # with or without U+FE0F
    assert set(found(store, "👍")) == set(found(store, "👍🏽")) == {symbols["thumbs"]}  # a skin tone is a refinement
    assert found(store, "👍🏻") == {}  # ... that must hold when typed
    assert set(found(store, "👨‍👩‍👧")) == {symbols["family"]}
    assert set(found(store, "👩")) == {symbols["family"]}
    assert found(store, "🎉") == {}


def test_accent_folded_matches_are_marked_in_the_snippet(store, symbols):
    hits = found(store, "spat")
    assert hits == {symbols["spaet"]: f"Es ist schon {marked('spät')}, Müller wartet"}
    assert found(store, "muller")[symbols["spaet"]] == f"Es ist schon spät, {marked('Müller')} wartet"
    assert found(store, "SPÄT") == hits  # the query folds too
    assert found(store, "cafe creme")[symbols["cafe"]] == f"a {marked('CAFÉ')} near the {marked('Crème')} brûlée shop"
    assert found(store, "brul*")[symbols["cafe"]].endswith(f"{marked('brûlée')} shop")


def test_a_gram_index_built_by_older_rules_is_made_again_on_open(db_path):
    with SessionStore(db_path) as store:
        store.create_session("s1", "cli")
        rocket = store.append_message("s1", "user", "🚀 launch")
        store.append_messages("s1", [{"role": "user", "content": f"数据 {i}"} for i in range(BATCH_ROWS)])
        store.flush_search_index()
    with sqlite3.connect(db_path) as raw:  # as a file written before symbols had grams
        raw.execute("DROP TABLE messages_grams")
        raw.execute("CREATE VIRTUAL TABLE messages_grams USING fts5(grams, content='', "
                    "tokenize=\"unicode61 remove_diacritics 0 categories 'L* N* Co M*'\")")
        raw.execute("INSERT INTO messages_grams(rowid, grams) SELECT id, '数据 据' FROM messages WHERE content LIKE '数据%'")
        raw.execute("UPDATE state_meta SET value = 'bigram+last/v1/unicode-15.0.0' WHERE key = 'grams_format'")
    with SessionStore(db_path) as store:
        assert [h.message_id for h in store.search("🚀")] == [rocket]
        assert len(store.search("数据", limit=100)) == BATCH_ROWS
        assert store.check_integrity() == []
    with sqlite3.connect(db_path) as raw:
        assert raw.execute("SELECT value FROM state_meta WHERE key = 'grams_format'").fetchone()[0] == GRAMS_FORMAT


def test_a_postgres_database_of_version_4_gets_grams_for_its_symbols(pg_url):
    import psycopg

    from hermes_plugins_builtin.state.postgres import open_postgres_store
    from hermes_plugins_builtin.state.postgres.schema import SCHEMA_VERSION

    with open_postgres_store(pg_url) as store:
        store.create_session("s1", "cli")
        rocket = store.append_message("s1", "user", "🚀 launch")
        cjk = store.append_message("s1", "user", "数据 ready ✅")
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the arrays version 4 wrote: no symbols
        conn.execute("UPDATE messages SET grams = NULL WHERE id = %s", (rocket,))
        conn.execute("UPDATE messages SET grams = ARRAY['据', '数', '数据'] WHERE id = %s", (cjk,))
        conn.execute("UPDATE hermes_state_meta SET value = '4' WHERE key = 'schema_version'")
    with open_postgres_store(pg_url) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert [h.message_id for h in store.search("🚀")] == [rocket]
        assert [h.message_id for h in store.search("✅")] == [cjk]
        assert [h.message_id for h in store.search("数据")] == [cjk]
