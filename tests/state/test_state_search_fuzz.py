"""Property tests: no query raises, and typed ASCII text is found literally or not at all."""
from __future__ import annotations

import itertools
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_plugins_builtin.state import SessionStore
from hermes_plugins_builtin.state.query import OPERATORS, ascii_lower, parse

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# Characters FTS5 gives meaning to, plus everyday punctuation, weighted towards trouble.
NASTY = st.sampled_from(list('"*()-+:^.%_\'{}[]/\\;,!?<>=&|~`@#$ ') + ["NEAR", "AND", "OR", "NOT", "数", "据库"])
QUERIES = st.one_of(st.text(max_size=60), st.lists(st.one_of(NASTY, st.text(string.ascii_letters, min_size=1,
                                                                                max_size=6)), max_size=12).map("".join))


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory):
    store = SessionStore(tmp_path_factory.mktemp("fuzz") / "state.db")
    store.create_session("s", "cli")
    store.append_messages("s", [
        {"role": "user", "content": "see foo-bar.baz for the unterminated string"},
        {"role": "user", "content": "C++ (pointer arithmetic) and NEAR(deploy server) 100%_done"},
        {"role": "assistant", "content": "数据库服务器 部署 \"quoted\" text: {json: true}"},
    ] * 20)
    yield store
    store.close()


@FUZZ
@given(query=QUERIES)
def test_no_query_raises(fuzz_store, query):
    hits = fuzz_store.search(query)
    assert isinstance(hits, list) and len(hits) <= 20
    # every group the parser keeps can be answered from an index (never a table scan)
    assert all(any(t.indexed for t in g.positives) for g in parse(query).groups)


# An ASCII "word" a user might paste: no whitespace and no double quote (those are syntax).
TERMS = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation.replace('"', ""),
                min_size=1, max_size=16).filter(lambda t: any(c.isalnum() for c in t) and t not in OPERATORS)
_counter = itertools.count()


@pytest.fixture(scope="module")
def literal_store(tmp_path_factory):
    store = SessionStore(tmp_path_factory.mktemp("literal") / "state.db")
    store.create_session("s", "cli")
    yield store
    store.close()


@FUZZ
@given(term=TERMS, filler=st.sampled_from(["", " ", "(", "-", ".", "/"]))
def test_typed_text_is_found_and_every_hit_contains_it(literal_store, term, filler):
    marker = f"zqmark{next(_counter)}x"
    # plant the term on word boundaries (inside a longer word it is a different token)
    # in a fresh message, with a unique marker so the hit set is small
    mid = literal_store.append_message("s", "user", f"lorem {filler}{term}{filler} ipsum {marker}")
    hits = literal_store.search(f"{term} {marker}")
    assert mid in {h.message_id for h in hits}
    prefix = term.endswith("*") and term.rstrip("*").isalnum()
    for hit in hits:
        text = ascii_lower(literal_store.get_messages("s")[hit.message_id - 1]["content"])
        assert marker in text
        assert ascii_lower(term.rstrip("*") if prefix else term) in text


# Messages whose words, punctuation and scripts the queries below recombine (fewer than an index batch,
# so the waiting copy keeps every row waiting).
MIXED = ["deploy the app & roll back", "deploy the app now", "see foo-bar.baz for the string", "C++ and c# at 100%_done",
         "path/to/file.py:42 failed", "数据库服务器 部署 完成", "用python写脚本 and a cache_timeout knob", "NEAR(deploy server)",
         "quoted \"text\" {json: true}", "roll-back -verbose --force", "the app is the app", "ünïcödé Straße café",
         "email me at a.b@example.com", "rate 23% vat", "[brackets] (parens) <angle>"]
WORDS = st.sampled_from(sorted({w for m in MIXED for w in m.replace('"', " ").split()} | {"NOT", "OR", "AND", "*", "-", "&"}))


@pytest.fixture(scope="module")
def twin_stores(tmp_path_factory, pg_server):
    """The same messages thrice: every row indexed in one store, every row waiting for its batch in the other, and PostgreSQL."""
    from hermes_plugins_builtin.state.postgres import open_postgres_store

    root = tmp_path_factory.mktemp("twins")
    twins = []
    for name in ("indexed", "waiting", "postgres"):
        store = SessionStore(root / f"{name}.db") if name != "postgres" else open_postgres_store(pg_server.url(pg_server.create_database()))
        store.create_session("s", "cli")
        store.append_messages("s", [{"role": "user", "content": text} for text in MIXED])
        twins.append(store)
    twins[0].flush_search_index()
    yield twins
    for store in twins:
        store.close()


@FUZZ
@given(words=st.lists(st.one_of(WORDS, NASTY), min_size=1, max_size=5))
def test_indexed_and_waiting_rows_give_the_same_hits(twin_stores, words):
    indexed, waiting, postgres = twin_stores
    query = " ".join(words)
    expected = {h.message_id for h in indexed.search(query, limit=50)}
    assert {h.message_id for h in waiting.search(query, limit=50)} == expected, query
    assert {h.message_id for h in postgres.search(query, limit=50)} == expected, query
