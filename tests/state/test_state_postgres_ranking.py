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
        assert store.schema_version == SCHEMA_VERSION
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
    # as many passed as asked for: that is the answer, however many candidates lie beyond the cap
    assert impact._checked(_batches((first, True)), check, 2) == [(1, -9.0), (3, -7.0)]
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


# rank_group, frequencies and the query helpers driven directly on a real database: what the
# store's searches show only through the hits they pick, asserted here score for score
from hermes_plugins_builtin.state.query import Group, parse  # noqa: E402

N = 260  # messages holding "alpha"; "beta" in every other one, "gamma" in 3, "delta" in 1


def _group(query: str) -> Group:
    return parse(query).groups[0]


def _bm25_idf(documents: float, df: float) -> float:
    value = math.log((documents - df + 0.5) / (df + 0.5))
    return value if value > 0 else 1e-6


def _ranking(conn, words: list[str]) -> list[tuple[int, float]]:
    """Every message holding all *words*, scored by BM25 from its postings (counted frequencies), best first."""
    documents = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    held: dict[int, dict[str, float]] = {}
    for mid, word, weight in conn.execute("SELECT message_id, word, weight FROM message_words WHERE word = ANY(%s)",
                                          (words,)):
        held.setdefault(mid, {})[word] = weight
    df = {w: sum(1 for ws in held.values() if w in ws) for w in words}
    scored = [(mid, -sum(_bm25_idf(documents, df[w]) * ws[w] for w in words))
              for mid, ws in held.items() if len(ws) == len(words)]
    return sorted(scored, key=lambda r: (round(r[1], 9), -r[0]))


def _same(got, expected) -> bool:
    return got is not None and [m for m, _ in got] == [m for m, _ in expected] and \
        all(s == pytest.approx(e, rel=1e-5) for (_, s), (_, e) in zip(got, expected))


@pytest.fixture(scope="module")
def ranked_url(pg_server):
    """One database for the tests below, which only read it: filled once."""
    pg_url = pg_server.url(pg_server.create_database())
    with open_postgres_store(pg_url) as opened:
        with psycopg.connect(pg_url, autocommit=True) as setup:
            # the word frequencies are counted unless ANALYZE ran: autovacuum must not run it mid-test
            for table in ("messages", "message_words"):
                setup.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = off)")
        opened.create_session("s", "cli")
        opened.append_messages("s", [{"role": "user", "content": " ".join(
            ["alpha"] * (1 + i % 4) + ["beta"] * (i % 2 == 0) * (1 + i % 3) + ["gamma"] * (i % 100 == 7)
            + ["delta"] * (i == 5) + ["pad"] * (i % 7) + [f"n{i}"])} for i in range(N)])
    return pg_url


@pytest.fixture
def conn(ranked_url):
    impact._stats_cache.clear()
    with psycopg.connect(ranked_url, autocommit=True) as connection:
        yield connection


def test_rank_group_gives_the_best_bm25_scores_over_every_match(conn):
    # "alpha beta" merges the words' ranges, "alpha gamma" looks gamma's 3 messages up in alpha's
    for query in ("alpha", "alpha beta", "beta alpha", "alpha gamma", "alpha delta", "gamma beta alpha"):
        expected = _ranking(conn, query.split())
        for limit in (1, 5, 200):
            assert _same(impact.rank_group(conn, _group(query), limit=limit, check=None), expected[:limit]), (query, limit)


def test_a_word_no_message_holds_matches_nothing(conn):
    assert impact.rank_group(conn, _group("alpha zzz"), limit=5, check=None) == []
    assert impact.rank_group(conn, _group("zzz"), limit=5, check=None) == []


def _passing(expected, positions):
    ids = {expected[p][0] for p in positions if p < len(expected)}
    return (lambda asked: ids & set(asked)), [r for r in expected if r[0] in ids]


@pytest.mark.parametrize("limit", [10, 30])
def test_one_word_is_checked_page_by_page_without_skipping_or_repeating_a_candidate(conn, limit):
    expected = _ranking(conn, ["alpha"])
    page = max(4 * limit, 100)  # the candidates come in pages of this many
    check, kept = _passing(expected, [0, page - 1, page, 2 * page - 1, 2 * page])
    assert len(kept) == 5 < limit  # every page is read: the last one is not full, so nothing lies beyond
    assert _same(impact.rank_group(conn, _group("alpha"), limit=limit, check=check), kept)
    assert _same(impact.rank_group(conn, _group("alpha"), limit=2, check=check), kept[:2])


def test_one_word_checked_up_to_the_cap_cannot_tell(conn, monkeypatch):
    expected = _ranking(conn, ["alpha"])
    check, kept = _passing(expected, [0, 255])
    monkeypatch.setattr(impact, "CHECK_CAP", 250)  # the last page is cut to the cap: 50 of 260 candidates
    assert impact.rank_group(conn, _group("alpha"), limit=10, check=check) is None
    monkeypatch.setattr(impact, "CHECK_CAP", 300)
    assert _same(impact.rank_group(conn, _group("alpha"), limit=10, check=check), kept)


def test_words_checked_past_the_first_candidates_are_found_in_order(conn):
    expected = _ranking(conn, ["alpha", "beta"])
    assert len(expected) == 130
    check, kept = _passing(expected, [0, 99, 100, 129])  # the first 100 candidates, then the rest
    assert _same(impact.rank_group(conn, _group("alpha beta"), limit=10, check=check), kept)
    assert _same(impact.rank_group(conn, _group("alpha beta"), limit=3, check=check), kept[:3])


@pytest.mark.parametrize(("limit", "cap"), [(10, 100), (30, 120)])
def test_words_checked_up_to_the_cap_cannot_tell(conn, monkeypatch, limit, cap):
    expected = _ranking(conn, ["alpha", "beta"])
    check, _ = _passing(expected, [0, 99, 129])
    monkeypatch.setattr(impact, "CHECK_CAP", cap)  # as many as the first batch: none beyond it is checked
    assert impact.rank_group(conn, _group("alpha beta"), limit=limit, check=check) is None


def test_words_past_join_max_are_ranked_from_the_rarest_words_best_postings(conn, monkeypatch):
    expected = _ranking(conn, ["alpha", "beta"])
    monkeypatch.setattr(impact, "JOIN_MAX", 0)
    # enough of the rarest word's postings: its best matches, as a full join gives them
    assert _same(impact.rank_group(conn, _group("alpha beta"), limit=5, check=None), expected[:5])
    assert _same(impact.rank_group(conn, _group("alpha beta"), limit=130, check=None), expected)
    monkeypatch.setattr(impact, "DEPTH", 3)
    # beta is the rarer word (alpha comes first alphabetically): its 3 best postings, ranked by both words
    with conn.cursor() as cur:
        best = {r[0] for r in cur.execute("SELECT message_id FROM message_words WHERE word = 'beta' "
                                          "ORDER BY weight DESC, message_id DESC LIMIT 3")}
    assert _same(impact.rank_group(conn, _group("alpha beta"), limit=3, check=None),
                 [r for r in expected if r[0] in best])
    # fewer candidates than asked for, and more matches may exist: the postings cannot tell
    assert impact.rank_group(conn, _group("alpha beta"), limit=5, check=None) is None
    assert impact.rank_group(conn, _group("alpha beta"), limit=5, check=lambda ids: set(ids)) is None


def test_words_with_exactly_join_max_postings_are_joined_in_full(conn, monkeypatch):
    expected = _ranking(conn, ["alpha", "beta"])
    monkeypatch.setattr(impact, "JOIN_MAX", N + 130)
    monkeypatch.setattr(impact, "DEPTH", 3)
    assert _same(impact.rank_group(conn, _group("alpha beta"), limit=5, check=None), expected[:5])


def test_counted_frequencies_stop_past_count_cap(conn, monkeypatch):
    monkeypatch.setattr(impact, "COUNT_CAP", 5)
    assert impact.frequencies(conn, ["alpha", "gamma", "delta", "zzz"]) == (
        {"alpha": 6.0, "gamma": 3.0, "delta": 1.0, "zzz": 0.0}, float(N))


def test_frequencies_of_an_empty_store_and_of_no_words(pg_url):
    impact._stats_cache.clear()
    with open_postgres_store(pg_url), psycopg.connect(pg_url, autocommit=True) as conn:
        assert impact.frequencies(conn, ["alpha"]) == ({"alpha": 0.0}, 1.0)
        assert impact.frequencies(conn, []) == ({}, 1.0)


def test_messages_added_since_analyze_count_through_their_words(pg_url):
    impact._stats_cache.clear()
    with open_postgres_store(pg_url) as store, psycopg.connect(pg_url, autocommit=True) as conn:
        store.create_session("s", "cli")
        store.append_message("s", "user", "first")
        conn.execute("ANALYZE")  # the planner now believes in 1 message
        store.append_messages("s", [{"role": "user", "content": f"later {i}"} for i in range(9)])
        # one message is the planner's figure, not "never analysed": no recount, but a word in 9 bounds it
        assert impact.frequencies(conn, ["later"]) == ({"later": 9.0}, 9.0)


def test_which_groups_the_postings_serve_and_which_need_a_check():
    assert impact.postings_serve(_group("alpha beta")) and impact.postings_serve(_group('"connection pool"'))
    assert impact.postings_serve(_group("C++"))  # its word from the postings, its literal text checked
    for query in ("time*", "alpha time*", "東京", "alpha 東京", "alpha ***"):
        assert not impact.postings_serve(_group(query)), query
    assert not impact.postings_serve(Group(()))
    assert not impact.needs_check(_group("alpha"), False) and not impact.needs_check(_group("alpha beta"), False)
    assert impact.needs_check(_group("alpha"), True)  # a role or session filter
    for query in ("alpha NOT beta", '"alpha beta"', "C++", "foo-bar.baz", "alpha C++"):
        assert impact.needs_check(_group(query), False), query
    assert impact.query_words(_group('Alpha "beta ALPHA" gamma C++')) == ["alpha", "beta", "gamma", "c"]
