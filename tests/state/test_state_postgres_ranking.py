"""PostgreSQL ranks word and phrase queries from postings: over every match, not the newest ones."""
from __future__ import annotations

import math

import psycopg
import pytest

from hermes_plugins_builtin.state.postgres import open_postgres_store
from hermes_plugins_builtin.state.postgres.schema import SCHEMA_VERSION
from hermes_plugins_builtin.state.postgres import impact


def _postings(url: str, message_id: int) -> list[str]:
    with psycopg.connect(url) as conn:
        return sorted(r[0] for r in conn.execute("SELECT word FROM message_words WHERE message_id = %s", (message_id,)))


@pytest.fixture
def store(pg_url):
    # a small rank window: the old way ranked only the newest 5 matches
    with open_postgres_store(pg_url, rank_window=5) as opened:
        opened.create_session("s", "cli")
        yield opened


def test_the_best_match_of_a_common_word_wins_however_old(store):
    best = store.append_message("s", "user", "timeout timeout timeout")
    store.append_messages("s", [{"role": "user", "content": f"a long message {i} that mentions the timeout once "
                                                         "among many other words about servers and caches"}
                                for i in range(60)])
    hits = store.search("timeout", limit=3)
    assert hits[0].message_id == best and ">>>timeout<<<" in hits[0].snippet
    assert len(store.search("timeout", limit=100)) == 61


@pytest.mark.parametrize("analysed", [False, True], ids=["counted", "planner-statistics"])
def test_two_words_rank_by_both_over_every_match(pg_url, store, analysed):
    both = store.append_message("s", "user", "cache eviction")
    store.append_messages("s", [{"role": "user", "content": f"cache {i} filler words here"} for i in range(40)]
                          + [{"role": "user", "content": f"eviction {i} filler words here"} for i in range(40)]
                          + [{"role": "user", "content": f"cache and eviction in a much longer message {i} "
                                                         "with plenty of other words around them"} for i in range(20)])
    if analysed:  # word frequencies then come from ANALYZE's statistics instead of counts
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("ANALYZE")
    hits = store.search("cache eviction", limit=50)
    assert hits[0].message_id == both
    assert len(hits) == 21  # only messages holding both words


def test_a_phrase_is_checked_past_candidates_that_hold_its_words_apart(store):
    store.append_messages("s", [{"role": "user", "content": "exhausted pool connection"} for _ in range(250)])
    planted = store.append_messages("s", [{"role": "assistant", "content": f"the connection pool exhausted at {i}"}
                                          for i in range(3)])
    hits = store.search('"connection pool exhausted"', limit=20)
    assert sorted(h.message_id for h in hits) == sorted(planted)
    assert store.search('"pool connection" NOT exhausted', limit=20) == []
    assert {h.message_id for h in store.search("connection exhausted", limit=20, role_filter="assistant")} == set(planted)


def test_filters_and_negations_keep_the_ranking_exact(store):
    store.create_session("other", "cli")
    mine = store.append_messages("s", [{"role": "user", "content": f"deploy target {i}"} for i in range(150)])
    store.append_messages("other", [{"role": "user", "content": "deploy deploy deploy"} for _ in range(150)])
    hits = store.search("deploy", limit=10, exclude_session_ids=["other"])
    assert len(hits) == 10 and {h.session_id for h in hits} == {"s"}
    others = {h.message_id for h in store.search("deploy NOT target", limit=400)}
    assert len(others) == 150 and not others & set(mine)
    assert store.search("deploy NOT target", limit=10, exclude_session_ids=["other"]) == []


def test_postings_follow_appends_retries_deletes_and_reindex(pg_url, store):
    first = store.append_messages("s", [{"role": "user", "content": "Alpha beta beta", "append_key": "k"}])
    assert store.append_messages("s", [{"role": "user", "content": "Alpha beta beta", "append_key": "k"}]) == first
    assert _postings(pg_url, first[0]) == ["alpha", "beta"]
    assert store.check_integrity() == []
    with psycopg.connect(pg_url) as conn:  # a lost posting is what the integrity check reports
        conn.execute("DELETE FROM message_words WHERE message_id = %s AND word = 'beta'", (first[0],))
    assert any("reindex" in p for p in store.check_integrity())
    store.rebuild_search_index()
    assert _postings(pg_url, first[0]) == ["alpha", "beta"] and store.check_integrity() == []
    store.delete_session("s")
    assert _postings(pg_url, first[0]) == []
    assert store.check_integrity() == []


def test_a_version_3_database_gets_its_postings_on_open(pg_url):
    with open_postgres_store(pg_url) as store:
        store.create_session("old", "cli")
        ids = store.append_messages("old", [{"role": "user", "content": f"legacy word {i}"} for i in range(30)])
    with psycopg.connect(pg_url) as conn:  # back to what a version 3 store holds
        conn.execute("DROP TRIGGER messages_drop_words ON messages")
        conn.execute("DROP FUNCTION hermes_drop_message_words()")
        conn.execute("DROP TABLE message_words")
        conn.execute("UPDATE hermes_state_meta SET value = '3' WHERE key = 'schema_version'")
    with open_postgres_store(pg_url, rank_window=5) as store:
        assert store.schema_version == SCHEMA_VERSION == 4
        assert _postings(pg_url, ids[7]) == ["7", "legacy", "word"]
        assert len(store.search("legacy word", limit=50)) == 30
        assert store.check_integrity() == []


def test_words_too_common_to_join_in_full_are_ranked_from_the_rarest_words_best_postings(store, monkeypatch):
    store.append_messages("s", [{"role": "user", "content": f"cache {i} filler words here"} for i in range(30)]
                          + [{"role": "user", "content": f"cache and eviction in a longer message {i} " + "pad " * i}
                             for i in range(12)])
    exact = [(h.message_id, h.snippet) for h in store.search("cache eviction", limit=5)]
    # past JOIN_MAX postings only the rarest word's DEPTH best are extended to the other words
    monkeypatch.setattr(impact, "JOIN_MAX", 0)
    assert [(h.message_id, h.snippet) for h in store.search("cache eviction", limit=5)] == exact
    monkeypatch.setattr(impact, "DEPTH", 3)  # the best 3 of eviction's 12: a best-effort answer, in order
    assert [(h.message_id, h.snippet) for h in store.search("cache eviction", limit=3)] == exact[:3]


def test_idf_is_bm25s_and_kept_positive_for_words_in_most_messages():
    assert impact.idf(10, 2) == pytest.approx(math.log(8.5 / 2.5))
    assert impact.idf(1000, 1) == pytest.approx(math.log(999.5 / 1.5))
    assert impact.idf(10, 3) == pytest.approx(math.log(7.5 / 3.5))  # below 1, still positive
    assert impact.idf(10, 9) == 1e-6  # log(1.5 / 9.5) < 0
    assert impact.idf(10, 5) == 1e-6  # log(5.5 / 5.5) == 0


def _batches(*batches):
    return iter(batches)


def test_checked_candidates_are_kept_in_order_across_batches_until_the_limit():
    passes = {1, 3, 4, 6}.__and__  # the check: the ids that pass among those asked about
    check = lambda ids: passes(set(ids))  # noqa: E731
    first, second = [(1, -9.0), (2, -8.0), (3, -7.0)], [(4, -6.0), (5, -5.0), (6, -4.0)]
    assert impact._checked(_batches((first, True), (second, True)), check, 3) == [(1, -9.0), (3, -7.0), (4, -6.0)]
    # the candidates ran out below any cap: every match was seen, fewer than the limit passed
    assert impact._checked(_batches((first, False)), check, 5) == [(1, -9.0), (3, -7.0)]
    assert impact._checked(_batches((first, False), ([], False)), check, 5) == [(1, -9.0), (3, -7.0)]
    assert impact._checked(_batches((first, True), (second, False)), check, 5) == [(1, -9.0), (3, -7.0), (4, -6.0), (6, -4.0)]
    # they ran out at a cap: more matches may lie beyond it, so the postings cannot tell
    assert impact._checked(_batches((first, True)), check, 5) is None
    assert impact._checked(_batches((first, True), ([], True)), check, 5) is None
    assert impact._checked(_batches(), check, 5) == []


def test_word_frequencies_come_from_analyzes_statistics_and_the_cache_gives_the_same(pg_url, store):
    store.append_messages("s", [{"role": "user", "content": f"cache {i}"} for i in range(40)]
                          + [{"role": "user", "content": "eviction"}])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ANALYZE")
        impact._stats_cache.clear()
        shares, postings, messages = impact._planner_statistics(conn)
        assert (postings, messages) == (81.0, 41.0)  # "cache" and a number per message, and "eviction"
        assert shares["cache"] == pytest.approx(40 / 81, rel=0.01)
        fresh = impact.frequencies(conn, ["cache", "eviction"])
        assert fresh == (pytest.approx({"cache": 40.0, "eviction": 1.0}, rel=0.01), 41.0)
        assert impact.frequencies(conn, ["cache", "eviction"]) == fresh  # now from the cache
