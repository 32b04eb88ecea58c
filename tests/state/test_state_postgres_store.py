"""What only the PostgreSQL session store does: ids and titles PostgreSQL cannot hold, lost acknowledgements,
two hosts creating one id, counters that are never retried, paging, and search with any string as the query."""
from __future__ import annotations

import contextlib
import string
import threading
import time
import uuid
from typing import Any, Iterator

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_plugins_builtin.state import SessionExistsError, SessionNotFoundError, StateStoreError, TitleInUseError
from hermes_plugins_builtin.state.postgres import open_postgres_store, redact_url
from hermes_plugins_builtin.state.postgres.schema import SCHEMA_VERSION
from hermes_plugins_builtin.state.postgres.store import MAX_SEARCH_LIMIT
from hermes_plugins_builtin.state.postgres.text import bm25_weight
from hermes_plugins_builtin.state.query import ascii_lower, parse
from hermes_plugins_builtin.state.search import DEFAULT_RANK_WINDOW


@pytest.fixture
def pg(pg_url: str) -> Iterator[Any]:
    store = open_postgres_store(pg_url)
    yield store
    store.close()


def _lose_next_acknowledgement(store: Any) -> list[int]:
    """The next transaction commits, then its connection drops: the work is run again on a new one."""
    real = store._pool.transaction
    commits: list[int] = []

    @contextlib.contextmanager
    def transaction() -> Iterator[Any]:
        with real() as conn:
            yield conn
        commits.append(1)
        if len(commits) == 1:
            raise psycopg.OperationalError("server closed the connection unexpectedly")

    store._pool.transaction = transaction
    return commits


def test_an_id_and_a_title_holding_nul_work_everywhere_and_are_found_again(pg) -> None:
    # PostgreSQL text cannot hold NUL: every method looks the id up as it was stored, never raising DataError
    sid = pg.create_session("a\x00b", title="t\x00x", started_at=5.0)
    assert sid == "a\x00b" and pg.get_session(sid)["title"] == "t\ufffdx"
    child = pg.create_session("c\x00d", parent_session_id=sid, started_at=6.0)
    assert pg.get_session(child)["parent_session_id"] == "a\ufffdb"
    assert pg.append_message(sid, "user", "hello") > 0
    assert pg.append_messages(sid, [{"role": "assistant", "content": "hi"}]) and pg.message_count(sid) == 2
    assert pg.get_session(sid)["message_count"] == 2
    pg.end_session(sid, "done", ended_at=9.0)
    pg.update_token_counts(sid, input_tokens=3)
    pg.update_token_counts(sid, absolute=True, output_tokens=4)
    assert pg.set_title(sid, "x\x00y") == "x\ufffdy"
    session = pg.get_session_by_title("x\x00y")
    assert (session["id"], session["ended_at"], session["input_tokens"], session["output_tokens"]) == \
        ("a\ufffdb", 9.0, 3, 4)
    assert pg.lineage_ids(child) == {"a\ufffdb", "c\ufffdd"}
    assert pg.get_session_by_title("nobody") is None and pg.get_session("a\x00c") is None
    with pytest.raises(SessionExistsError, match="already exists"):
        pg.create_session("a\x00b")
    with pytest.raises(TitleInUseError):
        pg.create_session("e", title="x\x00y")


def test_a_create_whose_acknowledgement_was_lost_is_not_reported_as_a_duplicate(pg) -> None:
    commits = _lose_next_acknowledgement(pg)
    assert pg.create_session("s1", "telegram", started_at=10.0) == "s1"
    assert len(commits) == 2  # committed, lost, run again: its own row, not someone else's
    assert pg.get_session("s1")["source"] == "telegram"
    with pytest.raises(SessionExistsError) as refused:
        pg.create_session("s1", "telegram", started_at=10.0)  # a second create is one
    assert str(refused.value) == "a session with id 's1' already exists -> pick another id, or leave it out to get a new one"


def test_a_create_retried_over_another_hosts_session_of_the_same_id_is_refused(pg, pg_url) -> None:
    # the first attempt commits a row of another source and start: that is not our lost commit
    real = pg._pool.transaction
    attempts: list[int] = []

    @contextlib.contextmanager
    def transaction() -> Iterator[Any]:
        attempts.append(1)
        if len(attempts) == 1:
            with psycopg.connect(pg_url, autocommit=True) as other:
                other.execute("INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'other', 1.0)")
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        with real() as conn:
            yield conn

    pg._pool.transaction = transaction
    with pytest.raises(SessionExistsError):
        pg.create_session("s1", "cli", started_at=10.0)
    assert pg.get_session("s1")["source"] == "other"


def test_two_hosts_creating_one_id_at_once_give_the_second_session_exists(pg, pg_url) -> None:
    with psycopg.connect(pg_url) as other:
        other.execute("INSERT INTO sessions (id, source, started_at) VALUES ('same', 'other', 1.0)")
        outcome: list[BaseException | str] = []

        def create() -> None:
            try:
                outcome.append(pg.create_session("same", "cli"))
            except BaseException as error:  # noqa: BLE001 - handed to the test's thread
                outcome.append(error)

        creator = threading.Thread(target=create)
        creator.start()
        _wait_until_blocked(pg_url)  # the store's insert waits on the other host's uncommitted row
        other.commit()
        creator.join(60)
    assert len(outcome) == 1 and isinstance(outcome[0], SessionExistsError), outcome
    assert "'same' already exists" in str(outcome[0])


def test_an_append_whose_acknowledgement_was_lost_returns_the_stored_ids_once(pg) -> None:
    pg.create_session("s", "cli")
    first = pg.append_messages("s", [{"role": "user", "content": "one"}])
    commits = _lose_next_acknowledgement(pg)
    ids = pg.append_messages("s", [{"role": "user", "content": "two"},
                                   {"role": "assistant", "content": "three", "tool_calls": [
                                       {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}])
    assert len(commits) == 2 and len(set(ids)) == 2 and min(ids) > first[0]
    assert [m["content"] for m in pg.get_messages("s")] == ["one", "two", "three"]
    session = pg.get_session("s")
    assert (session["message_count"], session["tool_call_count"]) == (3, 1)  # the retry added nothing
    assert [h.message_id for h in pg.search("three")] == [ids[1]]  # and no second postings
    # keys given again (another host resuming a copy): the stored ids, nothing added
    again = pg.append_messages("s", [{"role": "user", "content": "x", "append_key": "k1"},
                                     {"role": "user", "content": "y", "append_key": "k2"}])
    assert pg.append_messages("s", [{"role": "user", "content": "y", "append_key": "k2"},
                                    {"role": "user", "content": "z", "append_key": "k3"},
                                    {"role": "user", "content": "x", "append_key": "k1"}])[::2] == again[::-1]
    assert pg.message_count("s") == 6 and pg.message_count() == 6
    assert pg.append_messages("s", []) == []


def test_counters_added_are_never_retried_and_set_counters_are(pg) -> None:
    pg.create_session("s", "cli")
    _lose_next_acknowledgement(pg)
    with pytest.raises(StateStoreError, match="PostgreSQL"):
        pg.update_token_counts("s", input_tokens=5)  # may have run: not run again, so never counted twice
    assert pg.get_session("s")["input_tokens"] == 5
    commits = _lose_next_acknowledgement(pg)
    pg.update_token_counts("s", absolute=True, input_tokens=7, model="m")
    assert len(commits) == 2 and pg.get_session("s")["input_tokens"] == 7 and pg.get_session("s")["model"] == "m"
    commits = _lose_next_acknowledgement(pg)
    pg.end_session("s", "done", ended_at=9.0)  # setting the end is safe to repeat: retried
    assert len(commits) == 2 and (pg.get_session("s")["ended_at"], pg.get_session("s")["end_reason"]) == (9.0, "done")
    pg.update_token_counts("s", input_tokens=None)  # nothing to change: only checks the session exists
    for values in ({}, {"input_tokens": 1}, {"absolute": True, "model": "m"}):
        with pytest.raises(SessionNotFoundError, match="'missing'"):  # the id asked for, whichever way it fails
            pg.update_token_counts("missing", **values)
    with pytest.raises(TypeError, match="unexpected keyword arguments \\['bogus'\\]"):
        pg.update_token_counts("s", bogus=1)


def test_sessions_are_paged_in_start_order_with_ties_broken_by_id(pg) -> None:
    for sid, started in (("b", 2.0), ("a", 2.0), ("c", 1.0), ("e", 3.0), ("d", 2.0)):
        pg.create_session(sid, "cli", started_at=started)
    for batch in (1, 2, 3, 5, 6):
        assert [s["id"] for s in pg.iter_sessions(batch=batch)] == ["c", "a", "b", "d", "e"]


def test_search_limits_are_clamped(pg) -> None:
    pg.create_session("s", "cli")
    pg.append_messages("s", [{"role": "user", "content": f"apple {i}"} for i in range(3)])
    assert pg.search("apple", limit=0) == [] and pg.search("apple", limit=-5) == []
    assert len(pg.search("apple", limit=2)) == 2 and len(pg.search("apple", limit=10 ** 9)) == 3
    assert MAX_SEARCH_LIMIT == 1000


def test_a_title_another_host_took_as_the_transaction_began_is_numbered_past(pg, pg_url) -> None:
    pg.create_session("a", "cli", title="Plan")
    pg.create_session("b", "cli")
    pg.create_session("c", "cli")
    # "Plan #2" is taken by another host as the store's transaction begins: the store sees it and goes on to #3
    real = pg._pool.transaction
    taken: list[int] = []

    @contextlib.contextmanager
    def transaction() -> Iterator[Any]:
        with real() as conn:
            if not taken:
                taken.append(1)
                with psycopg.connect(pg_url, autocommit=True) as other:
                    other.execute("UPDATE sessions SET title = 'Plan #2' WHERE id = 'c'")
            yield conn

    pg._pool.transaction = transaction
    assert pg.set_title("b", "Plan", auto_number=True) == "Plan #3"
    pg._pool.transaction = real
    with pytest.raises(TitleInUseError) as refused:
        pg.set_title("a", "Plan #3")
    assert str(refused.value) == "title 'Plan #3' is already used by another session -> choose another title"
    with pytest.raises(SessionNotFoundError) as missing:
        pg.set_title("missing", "x")
    assert missing.value.session_id == "missing"


# -- search: any string is a safe query, and every hit holds what the query asks for --------------------

NASTY = st.sampled_from(list('"*()-+:^.%_\'{}[]/\\;,!?<>=&|~`@#$ \x00') +
                        ["NEAR", "AND", "OR", "NOT", "数", "据库", "É", "ß", "\ud800"])
QUERIES = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(NASTY, st.sampled_from(["foo", "bar", "quoted", "server", "done", "café", "naive"]),
                       st.text(string.ascii_letters, min_size=1, max_size=5)), max_size=10).map(" ".join),
    st.lists(st.one_of(NASTY, st.text(string.ascii_letters, min_size=1, max_size=5)), max_size=10).map("".join),
)
CORPUS = [
    {"role": "user", "content": "see foo-bar.baz for the unterminated string"},
    {"role": "user", "content": "C++ (pointer arithmetic) and NEAR(deploy server) 100%_done"},
    {"role": "assistant", "content": "数据库服务器 部署 \"quoted\" text: {json: true}"},
    {"role": "user", "content": "Café résumé STRASSE straße naïve O'Brien \\path\\to\\x [done] $5 ^up"},
    {"role": "tool", "content": "or not and near OR NOT AND", "tool_name": "grep"},
]


@pytest.fixture(scope="module")
def fuzz_pg(pg_server) -> Iterator[Any]:
    store = open_postgres_store(pg_server.url(pg_server.create_database()))
    store.create_session("s", "cli")
    store.append_messages("s", CORPUS * 2)
    yield store
    store.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=QUERIES)
def test_no_query_raises_and_every_hit_holds_the_querys_literal_text(fuzz_pg, query) -> None:
    hits = fuzz_pg.search(query, limit=5)
    assert len(hits) <= 5
    plan = parse(query)
    if plan.empty:
        assert hits == []
    texts = {m["id"]: ascii_lower(m["content"] or "") for m in fuzz_pg.get_messages("s")}
    for hit in hits:
        # a hit satisfies at least one OR group: all of its literals in, none of its negated ones
        assert any(all(t.literal in texts[hit.message_id] for t in g.positives if t.literal is not None)
                   and not any(t.literal in texts[hit.message_id] for t in g.negatives if t.literal is not None)
                   for g in plan.groups), (query, hit)


@pytest.mark.parametrize(("query", "found"), [
    ("done ]", [3]),           # every lone punctuation term must occur: "100%_done" has no "]"
    ("pointer ]", []),
    ("done [done]", [3]),
    ("quoted ^", []),
    ("^up", [3]),
    ('"OR" "NOT"', [4]),       # quoted operators are words
    ("NOT apples", []),        # only negated terms: nothing, no error
    ("-server", []),
    ("done NOT [done]", [1]),  # a negated literal drops the row that holds it
    ("café", [3]), ("CAFE", [3]), ("strasse", [3]),
    ("o'brien", [3]), ("\\path\\to", [3]), ("$5", [3]),
    ("C++ NOT pointer", []), ("100%_done", [1]), ("100%", [1]), ("0%_", []),
    ("数据", [2]), ("据库 NOT 部署", []), ("服务器 OR grep", [2, 4]),
    ("serv*", [1]), ("serv* NOT deploy", []), ("poin* OR unterm*", [0, 1]),
    ("a\x00b", []), ("done\x00", [1, 3]),  # NUL separates terms, like a space
    ("数 \ud800", []), ("\ud800", []),  # a lone surrogate is the "?" it is stored as: never an encoding error
])
def test_queries_of_odd_text_find_exactly_the_rows_that_hold_it(pg, query, found) -> None:
    pg.create_session("s", "cli")
    ids = pg.append_messages("s", CORPUS)
    assert sorted(h.message_id for h in pg.search(query)) == [ids[i] for i in found], query


@pytest.mark.parametrize("word", ["я" * 3000, "数" * 1000, "ж" * 1023 + "x", "ab" * 1500, "ω" * 1500])
def test_a_word_longer_than_postgresql_keeps_is_stored_and_found_by_its_start(pg, word) -> None:
    # PostgreSQL refuses a lexeme over 2046 bytes: the index keeps the word's first 2000 bytes,
    # and a query word is cut the same way (the append failed, reported as an unreachable server)
    pg.create_session("s", "cli")
    mid = pg.append_message("s", "user", f"start {word} end")
    other = pg.append_message("s", "user", f"start {word[:400]} end")
    assert pg.get_messages("s")[0]["content"] == f"start {word} end"
    assert {h.message_id for h in pg.search(word[:300] + "*")} == {mid, other}
    assert {h.message_id for h in pg.search(f"start {word[:1100]}*")} == ({mid} if len(word[:1100]) > 400 else {mid, other})
    assert pg.check_integrity() == []
    assert pg.rebuild_search_index() == 2 and pg.check_integrity() == []


def _wait_until_blocked(pg_url: str) -> None:
    """Return once a statement of this database waits on a row or index lock (another host's transaction)."""
    deadline = time.monotonic() + 60
    with psycopg.connect(pg_url, autocommit=True) as watcher:
        while not watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND wait_event_type = 'Lock'").fetchone()[0]:
            assert time.monotonic() < deadline, "the store never waited on the other host's transaction"


@pytest.mark.parametrize("auto_number", [False, True])
def test_a_title_another_host_is_storing_meanwhile_is_refused_or_numbered(pg, pg_url, auto_number) -> None:
    pg.create_session("a", "cli")
    pg.create_session("b", "cli")
    with psycopg.connect(pg_url) as other:
        other.execute("UPDATE sessions SET title = 'Plan' WHERE id = 'a'")  # not committed: the store cannot see it
        outcome: list[BaseException | str | None] = []

        def set_title() -> None:
            try:
                outcome.append(pg.set_title("b", "Plan", auto_number=auto_number))
            except BaseException as error:  # noqa: BLE001 - handed to the test's thread
                outcome.append(error)

        setter = threading.Thread(target=set_title)
        setter.start()
        _wait_until_blocked(pg_url)  # the store's UPDATE waits on the title index entry
        other.commit()
        setter.join(60)
    if auto_number:  # tried again: the title is taken now, so it is numbered
        assert outcome == ["Plan #2"] and pg.get_session("b")["title"] == "Plan #2"
    else:
        assert len(outcome) == 1 and isinstance(outcome[0], TitleInUseError), outcome
        assert str(outcome[0]) == "title 'Plan' is already used by another session -> choose another title"
        assert pg.get_session("b")["title"] is None


def test_replay_reads_whole_messages_unless_asked_for_the_light_form(pg) -> None:
    pg.create_session("s", "cli")
    call = {"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"q\": 1}"}}
    (mid,) = pg.append_messages("s", [{"role": "assistant", "content": "x", "tool_calls": [call], "timestamp": 5.0}])
    (whole,) = pg.replay_messages("s", upto_message_id=mid)
    assert whole["tool_calls"] == [call] and whole["id"] == mid
    assert pg.replay_messages("s", upto_message_id=mid, full=False) == [
        {"id": mid, "role": "assistant", "content": "x", "timestamp": 5.0}]
    assert pg.replay_messages("s", upto_message_id=mid - 1) == []


def test_an_unbounded_rank_window_ranks_every_match_of_a_prefix(pg_url) -> None:
    with open_postgres_store(pg_url, rank_window=None) as store:
        store.create_session("s", "cli")
        ids = store.append_messages("s", [{"role": "user", "content": "applesauce " * 5},
                                          {"role": "user", "content": "apple pie and more words " * 3},
                                          {"role": "user", "content": "no fruit"}])
        hits = store.search("appl*")
        assert sorted(h.message_id for h in hits) == ids[:2]
        assert [h.message_id for h in store.search("appl*", limit=1)] == [hits[0].message_id]


def test_a_negated_word_drops_rows_holding_the_word_not_rows_holding_its_letters(pg) -> None:
    pg.create_session("s", "cli")
    ids = pg.append_messages("s", [{"role": "user", "content": "apples concatenate"},
                                   {"role": "user", "content": "apples and a cat"},
                                   {"role": "user", "content": "apples at the Café"}])
    assert sorted(h.message_id for h in pg.search("apples NOT cat")) == [ids[0], ids[2]]
    assert sorted(h.message_id for h in pg.search("apples NOT cafe")) == ids[:2]  # folded like the index


def test_stats_count_sessions_and_messages_by_role_and_size_each_table_and_index(pg) -> None:
    pg.create_session("a", "cli")
    pg.create_session("b", "cli")
    pg.append_messages("a", [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"},
                             {"role": "user", "content": "three"}])
    stats = pg.stats()
    assert (stats.schema_version, stats.sessions, stats.messages) == (SCHEMA_VERSION, 2, 3)
    assert stats.messages_by_role == {"user": 2, "assistant": 1}
    assert type(stats.db_bytes) is int and stats.db_bytes > 0
    assert stats.wal_bytes == 0  # PostgreSQL's WAL is the server's, shared by every database on it
    assert set(stats.object_bytes) == {"sessions", "messages", "messages_words", "messages_grams",
                                       "messages_session", "message_words"}
    assert all(type(size) is int and size > 0 for size in stats.object_bytes.values())


def test_a_rebuild_reindexes_every_message_in_batches_and_reports_its_progress(pg, pg_url) -> None:
    pg.create_session("s", "cli")
    words = [f"filler{i:04d}" for i in range(1001)]
    words[0], words[1000] = "firstzebra", "lastquokka"  # the last one is alone in the second batch
    ids = pg.append_messages("s", [{"role": "user", "content": w} for w in words])
    with psycopg.connect(pg_url, autocommit=True) as conn:  # an index the old token rules left behind
        conn.execute("DELETE FROM message_words")
        conn.execute("UPDATE messages SET words = ''::tsvector, grams = NULL")
    calls: list[tuple[int, int]] = []
    assert pg.rebuild_search_index(progress=lambda done, total: calls.append((done, total))) == 1001
    assert calls == [(1000, 1001), (1001, 1001)]
    assert [h.message_id for h in pg.search("firstzebra")] == [ids[0]]
    assert [h.message_id for h in pg.search("lastquokka")] == [ids[1000]]
    assert [h.message_id for h in pg.search("lastquo*")] == [ids[1000]]
    assert pg.check_integrity() == []


def test_prune_measures_idleness_from_the_clock_when_no_time_is_given(pg) -> None:
    pg.create_session("old", "cli", started_at=time.time() - 10 * 86400)
    pg.create_session("fresh", "cli")
    assert pg.prune_sessions(older_than_s=86400) == 1
    assert pg.get_session("old") is None and pg.get_session("fresh") is not None


def test_integrity_names_each_session_whose_count_is_wrong_and_missing_postings_with_the_fix(pg, pg_url) -> None:
    pg.create_session("s", "cli")
    pg.append_messages("s", [{"role": "user", "content": "alpha beta"}])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE sessions SET message_count = 5")
        conn.execute("DELETE FROM message_words WHERE word = 'beta'")
    assert pg.check_integrity() == [
        "session s: message_count 5 but 1 messages stored",
        "search postings: 1 stored but the messages hold 2 distinct words -> run 'hermes sessions reindex'"]


def test_nothing_waits_for_indexing_so_a_flush_indexes_nothing(pg):
    pg.create_session("s", "cli")
    pg.append_message("s", "user", "indexed as it is stored")
    assert pg.flush_search_index() == 0
    assert [h.message_id for h in pg.search("indexed")] != []


def test_a_rebuild_keeps_substrings_of_scripts_without_spaces_searchable(pg_url, pg):
    pg.create_session("s", "cli")
    mid = pg.append_message("s", "user", "東京タワーの近く")
    pg.rebuild_search_index()
    assert [h.message_id for h in pg.search("京タワ")] == [mid]
    with psycopg.connect(pg_url) as conn:  # the gram array is rebuilt, not emptied
        assert conn.execute("SELECT grams IS NOT NULL FROM messages WHERE id = %s", (mid,)).fetchone()[0]


def test_stats_of_a_database_a_newer_host_migrated_meanwhile_name_it(pg_url, pg):
    with psycopg.connect(pg_url) as conn:
        conn.execute("UPDATE hermes_state_meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(StateStoreError) as refused:
        pg.stats()
    assert pg_url.rsplit("/", 1)[-1] in str(refused.value) and f"version {SCHEMA_VERSION + 1}" in str(refused.value)


def test_words_are_ranked_by_bm25_from_the_postings_over_every_match(pg) -> None:
    # BM25 (reference length 40) puts 20 occurrences in 40 words above one in one; ts_rank_cd normalised
    # by length, the ranking of prefixes and grams, puts them the other way round
    pg.create_session("s", "cli")
    ids = pg.append_messages("s", [{"role": "user", "content": "alpha x " * 20}, {"role": "user", "content": "alpha"}])
    hits = pg.search("alpha")
    assert [h.message_id for h in hits] == ids
    # one word, one idf: the scores stand as the postings' weights do
    assert hits[0].rank / hits[1].rank == pytest.approx(bm25_weight(20, 40) / bm25_weight(1, 1), rel=1e-5)  # stored as real


def test_a_prefix_is_ranked_over_the_newest_rank_window_matches_only(pg, pg_url) -> None:
    # the best match of appl* (ts_rank_cd over the length) is the oldest: a window of 2 leaves it out
    pg.create_session("s", "cli")
    ids = pg.append_messages("s", [{"role": "user", "content": "applesauce"},
                                   {"role": "user", "content": "apple and many more words " * 4},
                                   {"role": "user", "content": "apple and other words " * 5}])
    with open_postgres_store(pg_url, rank_window=2) as windowed, open_postgres_store(pg_url, rank_window=None) as whole:
        assert [h.message_id for h in windowed.search("appl*", limit=1)] == [ids[2]]
        assert [h.message_id for h in windowed.search("appl*", limit=1, collapse_copies=True)] == [ids[2]]
        assert [h.message_id for h in windowed.search("appl*", limit=3)] == [ids[0], ids[2], ids[1]]  # window 3
        assert [h.message_id for h in whole.search("appl*", limit=1)] == [ids[0]]


def _connections_to(pg_url: str) -> int:
    """Other sessions connected to the test database now, as the server counts them."""
    dbname = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                            (dbname,)).fetchone()[0]


def _until_no_connections(pg_url: str) -> int:
    # a backend leaves pg_stat_activity a moment after its client hung up: ask until it has, within 10 s
    deadline = time.monotonic() + 10
    while (left := _connections_to(pg_url)) and time.monotonic() < deadline:
        pass
    return left


def test_a_store_shows_its_url_redacted_and_leaves_no_connection_open_when_closed_or_refused(pg_url) -> None:
    store = open_postgres_store(pg_url, pool_size=2)
    assert store.url == pg_url and store.path == redact_url(pg_url) != pg_url and "hermes-test-secret" not in store.path
    assert store.rank_window == DEFAULT_RANK_WINDOW == 500 and store.backend == "postgres"
    assert _connections_to(pg_url) >= 1
    store.close()
    store.close()  # a second close is harmless
    assert _until_no_connections(pg_url) == 0
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE hermes_state_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StateStoreError, match="newer") as refused:
        open_postgres_store(pg_url)
    assert _until_no_connections(pg_url) == 0, refused  # the refused store's pool is closed, not left to the GC


def test_a_session_created_and_ended_without_arguments_gets_an_id_the_cli_source_and_the_clocks_times(pg) -> None:
    before = time.time()
    sid = pg.create_session()
    pg.end_session(sid)
    after = time.time()
    assert str(uuid.UUID(sid)) == sid  # a new UUID
    session = pg.get_session(sid)
    assert (session["source"], session["end_reason"], session["title"], session["model_config"]) == ("cli", "user", None, None)
    assert before <= session["started_at"] <= session["ended_at"] <= after
    assert pg.create_session() != sid


def test_ending_or_counting_a_missing_session_names_it(pg) -> None:
    for call in (lambda: pg.end_session("nobody"), lambda: pg.update_token_counts("nobody", input_tokens=1),
                 lambda: pg.update_token_counts("nobody", absolute=True, input_tokens=1),
                 lambda: pg.update_token_counts("nobody")):
        with pytest.raises(SessionNotFoundError) as missing:
            call()
        assert str(missing.value) == "no session with id 'nobody' -> 'hermes sessions list' shows the ids"


def test_equal_scores_list_the_newest_first_across_the_groups_of_a_query(pg) -> None:
    pg.create_session("s", "cli")
    older, newer = pg.append_messages("s", [{"role": "user", "content": "alpha"}, {"role": "user", "content": "beta"}])
    hits = pg.search("alpha OR beta")
    assert hits[0].rank == hits[1].rank
    assert [h.message_id for h in hits] == [newer, older]
