"""Search: word and gram indexes, tool calls, literal special strings, operators, filters, ranking."""
from __future__ import annotations

import json

import random

import pytest

from hermes_plugins_builtin.state import SessionStore
from hermes_plugins_builtin.state.indexing import BATCH_ROWS

from state_support import tool_call, sqlite_only

# the benchmark's planted strings: each must be found by typing it
SPECIAL = [
    "C++ (pointer arithmetic)", "error: file not found", "path/to/file.py:42", "the user's config* glob",
    "run it with -verbose", "{json: true}", "NEAR(deploy server)", "100%_done",
]
SPECIAL_QUERIES = [
    "C++ (pointer", "error: file not found", "path/to/file.py:42", "user's config*", "-verbose",
    "{json: true}", "NEAR(deploy server)", "100%_done",
]


def ids(hits):
    return {h.message_id for h in hits}


def texts(store, hits):
    by_id = {}
    for h in hits:
        msg = next(m for m in store.get_messages(h.session_id) if m["id"] == h.message_id)
        by_id[h.message_id] = (msg.get("content") or "") + json.dumps(msg.get("tool_calls") or "")
    return by_id


@pytest.fixture
def corpus(store):
    store.create_session("s1", "cli")
    store.create_session("s2", "telegram")
    m = {
        "deploy": store.append_message("s1", "user", "Please deploy the server to production tonight."),
        "deployed": store.append_message("s1", "assistant", "The deployment finished; everything deployed."),
        "tool": store.append_message("s1", "assistant", None, tool_calls=[tool_call(
            "terminal", json.dumps({"command": "kubectl rollout status\ndeploy/web", "timeout": 60}))]),
        "result": store.append_message("s1", "tool", "pods ready", tool_name="web_extract", tool_call_id="call_1"),
        "cjk": store.append_message("s2", "user", "数据库服务器部署完成，没有错误。"),
        "cjk_args": store.append_message("s2", "assistant", None, tool_calls=[tool_call(
            "web_search", json.dumps({"query": "负载均衡 配置"}))]),  # escaped as \\uXXXX
        "mixed": store.append_message("s2", "assistant", "用python写脚本 and a cache_timeout knob"),
        "dashes": store.append_message("s2", "user", "see foo-bar.baz for the unterminated string"),
        "spaced": store.append_message("s2", "user", "foo bar baz are placeholder words"),
        "quill": store.append_message("s1", "user", "quillwort quillwort quillwort in a short line"),
        "quill_long": store.append_message("s2", "user", "one quillwort among many other words " * 8),
    }
    for i, text in enumerate(SPECIAL):
        m[f"special{i}"] = store.append_message("s2", "user", f"before {text} after")
    return m


@pytest.mark.parametrize("flush", [False, True], ids=["waiting-rows", "indexed-rows"])
def test_finds_words_tool_names_and_tool_arguments(store, corpus, flush, backend):
    if flush:
        store.flush_search_index()
    # PostgreSQL indexes a row in the transaction that appends it: nothing ever waits
    assert store.stats().messages_awaiting_index == (0 if flush or backend == "postgres" else len(corpus))
    # "deploy" is also in the tool-call arguments ("...status\ndeploy/web") and in NEAR(deploy server)
    assert ids(store.search("deploy")) == {corpus["deploy"], corpus["tool"], corpus["special6"]}
    assert ids(store.search("kubectl")) == {corpus["tool"]}
    assert ids(store.search("rollout")) == {corpus["tool"]}
    assert ids(store.search("terminal")) == {corpus["tool"]}
    assert ids(store.search("web_extract")) == {corpus["result"]}
    assert corpus["tool"] in ids(store.search("deploy*"))  # "\ndeploy/web" in the arguments


@pytest.mark.parametrize("flush", [False, True], ids=["waiting-rows", "indexed-rows"])
def test_cjk_substrings_of_any_length(store, corpus, flush):
    if flush:
        store.flush_search_index()
    assert ids(store.search("数据库")) == {corpus["cjk"]}
    assert ids(store.search("部署")) == {corpus["cjk"]}
    assert ids(store.search("器部")) == {corpus["cjk"]}   # across word boundaries inside a run
    assert ids(store.search("库")) == {corpus["cjk"]}
    assert ids(store.search("错误。")) == {corpus["cjk"]}
    assert ids(store.search("负载均衡")) == {corpus["cjk_args"]}  # \\u-escaped tool arguments
    assert ids(store.search("python写")) == {corpus["mixed"]}
    assert ids(store.search("完成，没")) == {corpus["cjk"]}
    assert store.search("库服务器部署失败") == []


@sqlite_only
def test_two_char_cjk_is_served_by_the_gram_index(store, corpus):
    store.flush_search_index()
    plans = []
    store._conn.set_trace_callback(lambda sql: plans.append(sql))
    store.search("部署")
    store._conn.set_trace_callback(None)
    ranked = next(sql for sql in plans if "bm25(" in sql)
    # the trace shows the statement with its parameters filled in
    steps = [r[3] for r in store._conn.execute("EXPLAIN QUERY PLAN " + ranked)]
    assert any(s.startswith("SCAN messages_grams VIRTUAL TABLE INDEX") for s in steps), steps
    assert "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)" in steps
    # no plain table scan anywhere: every SCAN is of the FTS index or of the ranked window
    assert all("VIRTUAL TABLE" in s or "subquery" in s for s in steps if s.startswith("SCAN")), steps


@pytest.mark.parametrize("flush", [False, True], ids=["waiting-rows", "indexed-rows"])
def test_every_planted_special_string_is_found(store, corpus, flush):
    if flush:
        store.flush_search_index()
    for i, query in enumerate(SPECIAL_QUERIES):
        assert ids(store.search(query)) == {corpus[f"special{i}"]}, query


def test_special_strings_match_literally_not_by_their_words(store, corpus):
    assert ids(store.search("foo-bar.baz")) == {corpus["dashes"]}
    assert ids(store.search("foo bar baz")) == {corpus["dashes"], corpus["spaced"]}
    assert ids(store.search("cache_timeout")) == {corpus["mixed"]}
    assert store.search("cache-timeout") == []
    assert ids(store.search('foo-bar.baz "unterminated')) == {corpus["dashes"]}


@pytest.mark.parametrize("flush", [False, True], ids=["waiting-rows", "indexed-rows"])
def test_a_term_of_punctuation_beside_words_must_occur_literally_indexed_or_not(store, flush):
    store.create_session("s1", "cli")
    both = store.append_message("s1", "user", "deploy the app & roll back")
    words_only = store.append_message("s1", "user", "deploy the app now")
    if flush:
        store.flush_search_index()
    assert ids(store.search("deploy &")) == {both}
    assert ids(store.search("deploy NOT &")) == {words_only}
    assert ids(store.search('app "&" roll')) == {both}
    assert store.search("deploy %") == []


@pytest.mark.parametrize("query", ["", "   ", "***", "AND OR NOT", "NOT", '"', '""', "(", ")", "NEAR(", "-",
                                   ":", "%", "_", "*", "^", "x" * 3000, "a " * 100, "\x00", "'", "{}", "C++"])
def test_hostile_queries_return_nothing_or_literal_matches(store, corpus, query):
    hits = store.search(query)
    assert isinstance(hits, list)
    if query in ("C++", "NEAR("):  # typed text that really occurs: found literally
        assert ids(hits) == {corpus["special0" if query == "C++" else "special6"]}
    else:
        assert hits == []


def test_boolean_operators_prefix_and_phrases(store, corpus):
    assert ids(store.search("quillwort OR kubectl")) == {corpus["quill"], corpus["quill_long"], corpus["tool"]}
    assert ids(store.search("deploy AND server")) == {corpus["deploy"], corpus["special6"]}
    assert ids(store.search("deploy server production")) == {corpus["deploy"]}
    assert store.search("deployment AND kubectl") == []
    assert ids(store.search("deploy* NOT kubectl")) == {corpus["deploy"], corpus["deployed"], corpus["special6"]}
    assert ids(store.search("quillwort NOT many")) == {corpus["quill"]}
    assert ids(store.search("数据库 NOT 错误")) == set()
    assert ids(store.search("foo NOT foo-bar.baz")) == {corpus["spaced"]}
    assert ids(store.search('"server to production"')) == {corpus["deploy"]}
    assert store.search('"production to server"') == []
    assert ids(store.search("Deployment")) == {corpus["deployed"]}  # case-insensitive
    assert ids(store.search("production AND")) == {corpus["deploy"]}   # dangling operator dropped


def test_bm25_orders_hits_and_snippets_mark_matches(store, corpus):
    hits = store.search("quillwort")
    assert [h.message_id for h in hits] == [corpus["quill"], corpus["quill_long"]]
    assert hits[0].rank < hits[1].rank
    assert ">>>quillwort<<<" in hits[0].snippet
    assert hits[0].session_id == "s1" and hits[0].role == "user" and hits[0].timestamp > 0
    assert hits[0].source == "cli"
    long_hit = hits[1]
    assert long_hit.snippet.endswith("...") and len(long_hit.snippet) < 200
    assert ">>>部署<<<" in store.search("部署")[0].snippet


def test_role_filter_and_session_exclusion(store, corpus):
    both = ids(store.search("deploy*"))
    assert corpus["deploy"] in both and corpus["deployed"] in both
    assert ids(store.search("deploy*", role_filter="user")) == {corpus["deploy"], corpus["special6"]}
    assert ids(store.search("deploy*", role_filter=["assistant"])) >= {corpus["deployed"], corpus["tool"]}
    assert ids(store.search("quillwort", exclude_session_ids=["s1"])) == {corpus["quill_long"]}
    assert store.search("quillwort", limit=1)[0].message_id == corpus["quill"]


def test_lineage_exclusion_drops_the_callers_conversation(store):
    store.create_session("root", "cli", started_at=0.0)
    store.append_message("root", "user", "tangerine plans")
    store.end_session("root", "compression", ended_at=1.0)
    store.create_session("tip", "cli", parent_session_id="root", started_at=2.0)
    store.append_message("tip", "user", "tangerine again")
    store.create_session("elsewhere", "cli", started_at=3.0)
    store.append_message("elsewhere", "user", "tangerine elsewhere")
    hits = store.search("tangerine", exclude_lineage_of="tip")
    assert {h.session_id for h in hits} == {"elsewhere"}


@sqlite_only
def test_rows_waiting_for_their_batch_are_found_until_and_after_indexing(store):
    store.create_session("s", "cli")
    for i in range(BATCH_ROWS * 3 + 5):
        store.append_message("s", "user", f"row{i} common 日志{i % 3}")
        assert len(store.search(f"row{i}")) == 1
    assert store.wait_for_index(timeout=60)  # the indexer thread's work; no search indexes
    assert store.stats().messages_awaiting_index < BATCH_ROWS
    assert len(store.search("common", limit=1000)) == BATCH_ROWS * 3 + 5
    assert len(store.search("日志1", limit=1000)) == (BATCH_ROWS * 3 + 5 + 1) // 3
    store.flush_search_index()
    assert store.stats().messages_awaiting_index == 0
    assert len(store.search("common", limit=1000)) == BATCH_ROWS * 3 + 5


def test_deleted_messages_leave_both_indexes(store, corpus):
    store.flush_search_index()
    store.create_session("s3", "cli")
    store.append_message("s3", "user", "数据库 in another session")
    assert store.delete_session("s2")
    assert store.search("数据库")[0].session_id == "s3"
    assert store.search("foo-bar.baz") == [] and store.search("负载均衡") == []
    assert store.check_integrity() == []


def test_unbounded_rank_window_ranks_every_match(db_path):
    with SessionStore(db_path, rank_window=None) as store:
        store.create_session("s", "cli")
        store.append_message("s", "user", "needle needle needle")
        store.append_messages("s", [{"role": "user", "content": "needle " + "hay " * 40}] * 40)
        store.flush_search_index()
        assert store.search("needle", limit=1)[0].message_id == 1
    with SessionStore(db_path, rank_window=10) as store:
        # more matches than the window: the oldest, best one still wins
        assert store.search("needle", limit=1)[0].message_id == 1


def _varied_corpus(store, count):
    store.create_session("s", "cli")
    store.create_session("t", "cli")
    rng = random.Random(7)
    rows = []
    for i in range(count):
        # BM25's idf is floored for words in more than half the messages: keep each under 40 %
        words = [f"w{rng.randint(0, 10)}"] + rng.choices(["other", "words", "here", "and", "more"], k=rng.randint(2, 30))
        if rng.random() < 0.35:
            words += ["common"] * rng.randint(1, 4)
        if rng.random() < 0.35:
            words += ["filler"] * rng.randint(1, 6)
        if rng.random() < 0.3:
            words.append(rng.choice(["deploy", "deployed"]))
        rng.shuffle(words)
        rows.append({"role": "user" if i % 2 else "assistant", "content": " ".join(words)})
    store.append_messages("s", rows[: count // 2])
    store.append_messages("t", rows[count // 2:])
    store.flush_search_index()


@pytest.mark.parametrize("query", ["common", "deploy*", "common w3", "common NOT w5", "w2 OR w7", '"common filler"'])
def test_a_query_with_thousands_of_matches_is_ranked_as_if_every_match_were(tmp_path, query):
    """Words in hundreds of messages have impact lists; the top 20 equals FTS5's over every match."""
    path = tmp_path / "state.db"
    with SessionStore(path) as store:
        _varied_corpus(store, 4000)
        fast = [(h.message_id, round(h.rank, 6)) for h in store.search(query, limit=20)]
        fast_user = [h.message_id for h in store.search(query, limit=20, role_filter="user")]
        fast_t = [h.message_id for h in store.search(query, limit=20, exclude_session_ids=["s"])]
        listed = store._conn.execute("SELECT count(*) FROM rank_terms WHERE tracked = 1 AND term = 'common'").fetchone()[0]
    with SessionStore(path, rank_window=None) as store:
        full = [(h.message_id, round(h.rank, 6)) for h in store.search(query, limit=20)]
        full_user = [h.message_id for h in store.search(query, limit=20, role_filter="user")]
        full_t = [h.message_id for h in store.search(query, limit=20, exclude_session_ids=["s"])]
    assert listed == 1 and len(full) == 20
    assert fast == full and fast_user == full_user and fast_t == full_t


def test_impact_lists_follow_new_rows_and_a_rebuild(db_path):
    with SessionStore(db_path, rank_window=20) as store:
        _varied_corpus(store, 4000)
        store.create_session("u", "cli")
        store.append_messages("u", [{"role": "user", "content": "common common common common common"}])
        store.flush_search_index()
        newest = store.search("common", limit=1)[0]
        assert newest.session_id == "u"
        store.rebuild_search_index()
        assert store.search("common", limit=1)[0].message_id == newest.message_id
        assert store.check_integrity() == []


def test_prefix_search_sees_words_indexed_after_an_earlier_search(store):
    store.create_session("s", "cli")
    store.append_messages("s", [{"role": "user", "content": "zetaone"}] * BATCH_ROWS)
    assert store.wait_for_index(timeout=60)
    assert store.stats().messages_awaiting_index == 0
    assert len(store.search("zeta*", limit=100)) == BATCH_ROWS
    store.append_messages("s", [{"role": "user", "content": "zetatwo"}] * BATCH_ROWS)  # new word, indexed
    assert store.wait_for_index(timeout=60)
    assert store.stats().messages_awaiting_index == 0
    assert len(store.search("zeta*", limit=100)) == 2 * BATCH_ROWS
    assert len(store.search("zetat*", limit=100)) == BATCH_ROWS


def test_prefix_matching_many_words_still_finds_them_all(store):
    store.create_session("s", "cli")
    store.append_messages("s", [{"role": "user", "content": f"pfx{i:03d}word"} for i in range(40)])
    store.flush_search_index()
    assert len(store.search("pfx*", limit=100)) == 40     # 40 distinct words: native prefix query
    assert len(store.search("pfx00*", limit=100)) == 10   # 10 words: expanded to an OR
    assert store.search("pfx*", limit=5)[0].snippet.startswith(">>>pfx")


def test_a_prefix_finds_a_word_first_indexed_after_its_expansion_was_cached(store):
    store.create_session("s", "cli")
    store.append_messages("s", [{"role": "user", "content": "plainword deployable"}] * BATCH_ROWS)
    assert {h.snippet for h in store.search("deploy*", limit=5)} == {"plainword >>>deployable<<<"}
    # one more batch without the prefix keeps the cached expansion; the next one brings a new form,
    # one with a diacritic folded away by the index
    store.append_messages("s", [{"role": "user", "content": "nothing here"}] * BATCH_ROWS)
    assert len(store.search("deploy*", limit=100)) == BATCH_ROWS
    store.append_messages("s", [{"role": "user", "content": "Déployé today"}] * BATCH_ROWS)
    assert store.wait_for_index(timeout=60)
    assert store.stats().messages_awaiting_index == 0
    assert len(store.search("deploy*", limit=100)) == 2 * BATCH_ROWS


def test_waiting_rows_seen_by_one_search_follow_deletes_and_appends_in_the_next(store):
    store.create_session("a", "cli")
    store.create_session("b", "cli")
    store.append_message("a", "user", "waitingword one")
    assert [h.session_id for h in store.search("waitingword")] == ["a"]  # tokenized and kept for the next search
    store.append_message("b", "user", "waitingword two")
    assert sorted(h.session_id for h in store.search("waitingword")) == ["a", "b"]
    assert store.delete_session("a")
    assert [h.session_id for h in store.search("waitingword")] == ["b"]


def test_the_store_and_the_search_module_agree_on_the_default_rank_window():
    """store.py repeats the default so that opening a store does not import the search code."""
    from hermes_plugins_builtin.state import search, store

    assert store.DEFAULT_RANK_WINDOW == search.DEFAULT_RANK_WINDOW
    assert store.SessionStore.__init__.__kwdefaults__["rank_window"] == search.DEFAULT_RANK_WINDOW


def test_a_hit_names_its_sessions_title_and_source(store):
    titled = store.create_session("t1", "telegram", title="Billing runbook")
    untitled = store.create_session("t2", "cli")
    first = store.append_message(titled, "user", "rotate the quillwort certificate")
    second = store.append_message(untitled, "user", "quillwort again")
    hits = {h.message_id: h for h in store.search("quillwort")}
    assert (hits[first].session_title, hits[first].source) == ("Billing runbook", "telegram")
    assert (hits[second].session_title, hits[second].source) == (None, "cli")


def test_lineage_and_session_exclusions_add_up(store):
    store.create_session("root", "cli", started_at=0.0)
    store.append_message("root", "user", "tangerine plans")
    store.end_session("root", "compression", ended_at=1.0)
    store.create_session("tip", "cli", parent_session_id="root", started_at=2.0)
    store.create_session("other", "cli", started_at=3.0)
    store.append_message("other", "user", "tangerine other")
    store.create_session("kept", "cli", started_at=4.0)
    store.append_message("kept", "user", "tangerine kept")
    hits = store.search("tangerine", exclude_lineage_of="tip", exclude_session_ids=["other"])
    assert {h.session_id for h in hits} == {"kept"}


def test_a_search_without_a_limit_returns_twenty_hits(store):
    store.create_session("s", "cli")
    store.append_messages("s", [{"role": "user", "content": f"quillwort note {i}"} for i in range(25)])
    assert len(store.search("quillwort")) == 20
    assert len(store.search("quillwort", limit=21)) == 21
