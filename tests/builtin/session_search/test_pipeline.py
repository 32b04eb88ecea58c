"""The search pipeline on a real state.db: recent list, recall, grouping, lineage exclusion, top N, snippets, errors."""

from __future__ import annotations

import sqlite3

import pytest

from hermes_plugins_builtin.session_search import DEFAULT_LIMIT, MAX_LIMIT, own_conversation
from hermes_plugins_builtin.session_search.transcript import iso_time


def ids(answer):
    return [s["session_id"] for s in answer["sessions"]]


@pytest.fixture
def compressed_conversation(add_session):
    """A conversation compressed twice (c1 -> c2 -> c3, c3 current) with a sub-agent of c3, plus strangers.

    Every session mentions 'kubernetes'.
    """
    add_session("c1", [("user", "set up kubernetes ingress")], started_at=1_000, title="Cluster", ended=(1_100, "compression"))
    add_session("c2", [("user", "kubernetes ingress, continued")], started_at=1_100, title="Cluster #2", parent="c1", ended=(1_200, "compression"))
    add_session("c3", [("user", "still kubernetes")], started_at=1_200, title="Cluster #3", parent="c2")
    add_session("c3-helper", [("user", "kubernetes docs lookup")], started_at=1_250, source="subagent", parent="c3")
    add_session("other-a", [("user", "kubernetes at home")], started_at=500)
    add_session("other-b", [("assistant", "kubernetes pods restarted")], started_at=600)
    return "c3"


# -- empty query: recent sessions ---------------------------------------------------


def test_an_empty_query_lists_recent_sessions_newest_activity_first(add_session, make_search, call):
    add_session("old", [("user", "first topic")], started_at=1_000, title="Old one")
    add_session("new", [("user", "second topic"), ("assistant", "noted")], started_at=3_000, title="New one", source="telegram")
    add_session("mid", [("user", "third topic")], started_at=2_000)
    answer = call(make_search(), {})
    assert answer["mode"] == "recent" and answer["query"] == ""
    assert ids(answer) == ["new", "mid", "old"]
    newest = answer["sessions"][0]
    assert newest == {
        "session_id": "new", "title": "New one", "started_at": iso_time(3_000), "last_active": iso_time(3_002),
        "source": "telegram", "message_count": 2, "preview": "second topic",
    }
    assert answer["count"] == 3


def test_recent_sessions_honour_the_limit_and_its_cap(add_session, make_search, call):
    for n in range(8):
        add_session(f"s{n}", [("user", f"topic {n}")], started_at=1_000 + n)
    search = make_search()
    assert ids(call(search, {})) == ["s7", "s6", "s5"]  # default 3
    assert len(call(search, {"query": "   ", "limit": 4})["sessions"]) == 4
    assert len(call(search, {"limit": 50})["sessions"]) == MAX_LIMIT


def test_recent_sessions_skip_the_callers_conversation_and_show_a_chain_once(compressed_conversation, add_session, make_search, call):
    add_session("x1", [("user", "other chain")], started_at=700, ended=(800, "compression"))
    add_session("x2", [("user", "other chain, continued")], started_at=800, parent="x1")
    answer = call(make_search(), {"limit": 5}, session_id=compressed_conversation)
    # c1..c3 and the sub-agent are the caller's; x1 -> x2 is listed once, as its tip x2
    assert ids(answer) == ["x2", "other-b", "other-a"]
    assert answer["sessions"][0]["message_count"] == 2


def test_an_empty_query_never_calls_the_summary_model(add_session, make_search, call):
    add_session("s", [("user", "hello")], started_at=1_000)
    # an address nothing listens on: a request would fail loudly in the answer
    answer = call(make_search(base_url="http://127.0.0.1:9/v1", model="m"), {})
    assert ids(answer) == ["s"] and "summary" not in str(answer)


# -- recall, grouping, exclusion, top N ----------------------------------------------


def test_hits_are_grouped_per_session_with_their_match_count(add_session, make_search, call):
    add_session("many", [("user", "redis cache"), ("assistant", "redis eviction"), ("user", "redis again"), ("user", "unrelated")], started_at=1_000)
    add_session("one", [("user", "a redis question")], started_at=2_000)
    add_session("none", [("user", "postgres only")], started_at=3_000)
    answer = call(make_search(), {"query": "redis"})
    assert answer["mode"] == "search" and answer["count"] == 2
    assert sorted(ids(answer)) == ["many", "one"]
    counts = {s["session_id"]: s["match_count"] for s in answer["sessions"]}
    assert counts == {"many": 3, "one": 1}
    assert [s["rank"] for s in answer["sessions"]] == [1, 2]


def test_sessions_rank_by_their_best_hit(add_session, make_search, call):
    add_session("weak", [("user", "tokio " + "filler words here " * 30)], started_at=1_000)
    add_session("strong", [("user", "tokio tokio tokio runtime")], started_at=500)
    assert ids(call(make_search(), {"query": "tokio"})) == ["strong", "weak"]


def test_each_session_carries_its_metadata(add_session, make_search, call):
    add_session("s", [("user", "grafana dashboards")], started_at=1_700_000_000, title="Dashboards", source="discord")
    (session,) = call(make_search(), {"query": "grafana"})["sessions"]
    assert {k: session[k] for k in ("session_id", "title", "started_at", "source", "match_count")} == {
        "session_id": "s", "title": "Dashboards", "started_at": "2023-11-14T22:13:20+00:00", "source": "discord", "match_count": 1,
    }


def test_the_callers_whole_lineage_is_excluded_including_the_compression_chain(compressed_conversation, store, make_search, call):
    assert own_conversation(store, compressed_conversation) == {"c1", "c2", "c3", "c3-helper"}
    search = make_search()
    answer = call(search, {"query": "kubernetes", "limit": 5}, session_id=compressed_conversation)
    assert sorted(ids(answer)) == ["other-a", "other-b"]
    # from an earlier part of the chain, the same conversation is still excluded
    assert sorted(ids(call(search, {"query": "kubernetes", "limit": 5}, session_id="c1"))) == ["other-a", "other-b"]
    # without a caller session nothing is excluded; the chain c1 -> c2 -> c3 is one conversation
    assert ids(call(search, {"query": "kubernetes", "limit": 5})) == ["c3", "other-b", "other-a"]


def test_an_unknown_caller_session_excludes_nothing_else(compressed_conversation, make_search, call):
    answer = call(make_search(), {"query": "kubernetes", "limit": 5}, session_id="not-in-the-store")
    assert sorted(ids(answer)) == ["c3", "other-a", "other-b"]


def test_top_n_defaults_to_three_and_is_capped_at_five(add_session, make_search, call):
    for n in range(7):
        add_session(f"s{n}", [("user", f"terraform plan number {n}")], started_at=1_000 + n)
    search = make_search()
    assert len(call(search, {"query": "terraform"})["sessions"]) == DEFAULT_LIMIT == 3
    assert len(call(search, {"query": "terraform", "limit": 4})["sessions"]) == 4
    assert len(call(search, {"query": "terraform", "limit": 5})["sessions"]) == 5
    assert len(call(search, {"query": "terraform", "limit": 99})["sessions"]) == MAX_LIMIT == 5
    assert len(call(search, {"query": "terraform", "limit": 0})["sessions"]) == 1
    assert len(call(search, {"query": "terraform", "limit": "2"})["sessions"]) == 2


def test_the_role_filter_restricts_which_messages_match(add_session, make_search, call):
    add_session("said", [("user", "my helm chart broke")], started_at=1_000)
    add_session("answered", [("user", "charts?"), ("assistant", "helm rollback fixes it")], started_at=2_000)
    search = make_search()
    assert ids(call(search, {"query": "helm", "role_filter": "user"})) == ["said"]
    assert ids(call(search, {"query": "helm", "role_filter": "assistant"})) == ["answered"]
    assert sorted(ids(call(search, {"query": "helm", "role_filter": " user , assistant "}))) == ["answered", "said"]


def test_tool_call_arguments_are_found(add_session, make_search, call):
    call_message = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "/etc/zorblax.conf"}'}}]}
    add_session("tools", [("user", "look at the config"), call_message], started_at=1_000)
    assert ids(call(make_search(), {"query": "zorblax"})) == ["tools"]


def test_query_syntax_reaches_the_store(add_session, make_search, call):
    add_session("a", [("user", "connection refused on port 5432")], started_at=1_000)
    add_session("b", [("user", "refused connection politely")], started_at=2_000)
    add_session("c", [("user", "deployment to staging")], started_at=3_000)
    search = make_search()
    assert ids(call(search, {"query": '"connection refused"'})) == ["a"]
    assert ids(call(search, {"query": "deploy*"})) == ["c"]
    assert sorted(ids(call(search, {"query": "politely OR staging"}))) == ["b", "c"]
    assert ids(call(search, {"query": "connection NOT politely"})) == ["a"]


def test_no_match_answers_with_an_empty_list_and_a_hint(add_session, make_search, call):
    add_session("s", [("user", "hello")], started_at=1_000)
    answer = call(make_search(), {"query": "xylophone"})
    assert answer["count"] == 0 and answer["sessions"] == [] and "hint" in answer
    answer = call(make_search(), {"query": "NOT hello"})
    assert answer["sessions"] == [] and "nothing searchable" in answer["hint"]


# -- fallback without a summary model -------------------------------------------------


def test_without_an_auxiliary_model_each_session_gets_its_snippets(add_session, make_search, call):
    add_session("s", [("user", "the nginx upstream timed out"), ("assistant", "raise proxy_read_timeout in nginx"),
                      ("user", "nginx works now"), ("user", "and nginx logs rotate too")], started_at=1_000)
    answer = call(make_search(), {"query": "nginx"})
    assert answer["summary_model"] is None
    (session,) = answer["sessions"]
    assert session["mode"] == "snippets" and "summary" not in session
    assert "no auxiliary model configured" in session["reason"] and "auxiliary.session_search.base_url" in session["reason"]
    assert session["match_count"] == 4
    assert len(session["snippets"]) == 3  # the best three
    for snippet in session["snippets"]:
        assert ">>>nginx<<<" in snippet["text"].lower()
        assert set(snippet) == {"message_id", "role", "timestamp", "text"}


def test_only_an_endpoint_and_a_model_together_enable_summaries(add_session, make_search, call):
    add_session("s", [("user", "vault tokens")], started_at=1_000)
    for settings in ({"base_url": "http://127.0.0.1:9/v1"}, {"model": "tiny"}):
        (session,) = call(make_search(**settings), {"query": "vault"})["sessions"]
        assert session["mode"] == "snippets" and "no auxiliary model configured" in session["reason"]


# -- arguments and errors ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({"query": 42}, "query must be a string"),
        ({"query": "x", "limit": "many"}, "limit must be a whole number"),
        ({"query": "x", "limit": True}, "limit must be a whole number"),
        ({"query": "x", "role_filter": "user,robot"}, "unknown role(s) in role_filter: robot"),
        ({"query": "x", "role_filter": 7}, "role_filter must be"),
    ],
)
def test_bad_arguments_answer_with_an_error_and_a_hint(make_search, call, args, fragment):
    answer = call(make_search(), args)
    assert fragment in answer["error"] and answer["hint"]


def test_arguments_that_are_not_an_object_are_an_error(make_search):
    import json

    answer = json.loads(make_search().handle(["query"]))  # type: ignore[arg-type]
    assert "JSON object" in answer["error"] and answer["hint"]


def test_a_file_that_is_not_a_session_store_is_an_error_not_an_exception(db_path, make_search, call):
    db_path.write_bytes(b"this is not an sqlite database at all" * 100)
    answer = call(make_search(), {"query": "anything"})
    assert "cannot be read" in answer["error"] and "hermes sessions stats" in answer["hint"]


def test_a_store_from_a_newer_hermes_is_an_error_with_an_upgrade_hint(store, db_path, make_search, call):
    store.close()
    with sqlite3.connect(db_path) as raw:
        raw.execute("UPDATE schema_version SET version = version + 100")
    raw.close()
    answer = call(make_search(), {"query": "anything"})
    assert "-> upgrade hermes" in answer["error"] and "upgrade hermes" in answer["hint"]


def test_an_unexpected_failure_is_an_error_not_an_exception(add_session, make_search, call, monkeypatch):
    add_session("s", [("user", "hello world")], started_at=1_000)
    search = make_search()

    def broken(*args, **kwargs):
        raise RuntimeError("index exploded")

    monkeypatch.setattr(search.store(), "search", broken)
    answer = call(search, {"query": "hello"})
    assert "RuntimeError: index exploded" in answer["error"] and answer["hint"]


# -- the store's lifecycle --------------------------------------------------------------


def test_the_store_is_opened_on_first_use_reused_and_closed(add_session, make_search, call):
    add_session("s", [("user", "hello")], started_at=1_000)
    search = make_search()
    assert not search.is_open  # registering the tool opens nothing
    call(search, {})
    first = search.store()
    call(search, {"query": "hello"})
    assert search.store() is first
    search.close()
    assert not search.is_open
    with pytest.raises(sqlite3.ProgrammingError):
        first.get_session("s")  # really closed
    search.close()  # twice is fine
    assert ids(call(search, {})) == ["s"]  # and a later call opens it again


def test_sessions_that_are_not_conversations_with_the_user_are_left_out(add_session, make_search, call):
    add_session("chat", [("user", "grafana dashboards for billing")], started_at=1_000)
    add_session("helper", [("user", "grafana api lookup")], started_at=1_100, source="subagent", parent="chat")
    add_session("review", [("user", "grafana review of the chat")], started_at=1_200, source="review", parent="chat")
    add_session("other", [("user", "grafana alerts")], started_at=900, source="telegram")
    search = make_search()
    # searched from an unrelated conversation: the sub-agent and the review are still not shown
    assert set(ids(call(search, {"query": "grafana", "limit": 5}))) == {"chat", "other"}
    assert ids(call(search, {"limit": 5})) == ["chat", "other"]


# -- conversations: a compression chain is one result ----------------------------------


@pytest.fixture
def chain_with_copied_head(add_session):
    """p1 -> p2 -> p3 compressed twice; each later part starts with a copy of the protected head, as
    compression writes it. 'quokka' is in the head, in p1's own turns and in p2's summary."""
    head = [("user", "the quokka service keeps crashing"), ("assistant", "quokka logs show an OOM")]
    add_session("p1", [*head, ("user", "quokka memory limit raised")], started_at=1_000, title="Quokka", ended=(1_100, "compression"))
    add_session("p2", [*head, ("assistant", "summary: quokka limit raised")], started_at=1_100, title="Quokka #2", parent="p1",
                ended=(1_200, "compression"))
    add_session("p3", [*head, ("user", "what next?")], started_at=1_200, title="Quokka #3", parent="p2")
    add_session("lone-a", [("user", "a quokka in the zoo")], started_at=500)
    add_session("lone-b", [("user", "quokka photos")], started_at=600)
    return "p3"


def test_a_compression_chain_is_one_result_named_by_its_tip(chain_with_copied_head, make_search, call):
    answer = call(make_search(), {"query": "quokka", "limit": 3})
    # three parts of one conversation used to fill all three places
    assert sorted(ids(answer)) == ["lone-a", "lone-b", "p3"]
    (chain,) = [s for s in answer["sessions"] if s["session_id"] == "p3"]
    assert chain["title"] == "Quokka #3"
    # distinct messages: the head (2, counted once), p1's own turn and p2's summary
    assert chain["match_count"] == 4


def test_a_copied_message_is_one_snippet_from_the_part_it_first_appeared_in(chain_with_copied_head, store, make_search, call):
    answer = call(make_search(), {"query": '"quokka service"'})
    (chain,) = answer["sessions"]
    assert chain["session_id"] == "p3" and chain["match_count"] == 1
    (snippet,) = chain["snippets"]
    first = store.get_messages("p1")[0]
    assert snippet["message_id"] == first["id"]


def test_a_delegation_is_not_part_of_its_parents_conversation(add_session, make_search, call):
    add_session("main", [("user", "wombat burrow depth")], started_at=1_000, ended=(1_100, "compression"))
    # started while main was still running: a sub-agent, not a continuation (timestamps decide)
    add_session("side", [("user", "wombat burrow depth")], started_at=1_050, parent="main")
    add_session("next", [("user", "wombat burrow depth")], started_at=1_100, parent="main")
    assert sorted(ids(call(make_search(), {"query": "wombat", "limit": 5}))) == ["next", "side"]


def test_the_conversation_transcript_covers_every_part_with_copies_once(chain_with_copied_head, store):
    from hermes_plugins_builtin.session_search.pipeline import conversation_messages

    contents = [m["content"] for m in conversation_messages(store, "p3")]
    assert contents == [
        "the quokka service keeps crashing", "quokka logs show an OOM", "quokka memory limit raised",
        "summary: quokka limit raised", "what next?",
    ]
