"""Search, title and lineage edges that an off-by-one or a flipped comparison would break."""
from __future__ import annotations

import sqlite3

import pytest

from hermes_plugins_builtin.state import SessionStore
from hermes_plugins_builtin.state.schema import SCHEMA_VERSION


def ids(hits):
    return {h.message_id for h in hits}


@pytest.fixture
def words(store):
    store.create_session("s", "cli")
    return {
        "or": store.append_message("s", "user", "either this OR that, said the sign"),
        "not": store.append_message("s", "user", "do NOT touch the red button"),
        "apples": store.append_message("s", "user", "apples and pears"),
        "pears": store.append_message("s", "user", "only pears here"),
    }


def test_a_quoted_operator_is_a_word(store, words):
    for flush in (False, True):  # rows waiting for their index batch, then indexed rows
        if flush:
            store.flush_search_index()
        assert ids(store.search('"OR"')) == {words["or"]}
        assert ids(store.search('"NOT"')) == {words["not"]}
        assert ids(store.search('"NOT" button')) == {words["not"]}
        # unquoted, the same words are operators
        assert ids(store.search("apples OR button")) == {words["apples"], words["not"]}
        assert ids(store.search("pears NOT apples")) == {words["pears"]}


def test_a_query_of_only_negated_terms_returns_nothing(store, words):
    for flush in (False, True):
        if flush:
            store.flush_search_index()
        for query in ("NOT apples", "NOT apples NOT pears", "NOT", "NOT NOT apples"):
            assert store.search(query) == [], query


def test_nul_inside_a_query_never_raises(store, words):
    for query in ("app\x00les", "\x00", "apples\x00", "\x00 NOT apples", '"ap\x00ples"'):
        assert all(h.message_id in words.values() for h in store.search(query)), query
    assert words["apples"] in ids(store.search("apples \x00"))  # a word beside a NUL is still found


def test_titles_are_numbered_after_the_highest_number_not_the_last_one(store):
    for i, title in enumerate(["Chat", "Chat #9", "Chat #10", "Chat #3"]):
        store.create_session(f"s{i}", "cli")
        store.set_title(f"s{i}", title)
    assert store.next_title_in_lineage("Chat") == "Chat #11"
    assert store.next_title_in_lineage("Chat #3") == "Chat #11"
    store.create_session("new", "cli")
    assert store.set_title("new", "Chat", auto_number=True) == "Chat #11"


def test_a_title_only_like_another_is_not_counted(store):
    for i, title in enumerate(["Chat", "Chatter #7", "Chat_x #5", "Chat #2"]):
        store.create_session(f"s{i}", "cli")
        store.set_title(f"s{i}", title)
    assert store.next_title_in_lineage("Chat") == "Chat #3"


def test_an_untaken_title_keeps_its_name(store):
    assert store.next_title_in_lineage("Fresh") == "Fresh"


def test_a_parent_link_cycle_gives_a_stable_compression_tip(sqlite_store, db_path):
    # a damaged database: a -> b -> a, both ended by compression, each starting after the other ended
    # (made by editing the SQLite file behind the store's back)
    store = sqlite_store
    store.create_session("a", "cli", started_at=0.0)
    store.end_session("a", "compression", ended_at=1.0)
    store.create_session("b", "cli", parent_session_id="a", started_at=2.0)
    store.end_session("b", "compression", ended_at=3.0)
    with sqlite3.connect(db_path) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("UPDATE sessions SET parent_session_id = 'b', started_at = 4.0 WHERE id = 'a'")
    # the walk ends, and both parts of the loop name the same tip (the smallest id), one by one or in a batch
    assert store.get_compression_tip("a") == store.get_compression_tip("b") == "a"
    assert store.get_compression_tips(["a", "b"]) == {"a": "a", "b": "a"}
    assert store.get_compression_tips(["b", "a"]) == {"b": "a", "a": "a"}
    assert set(store.get_compression_chain("a")) <= {"a", "b"}


def test_a_database_exactly_one_version_newer_is_refused(db_path):
    from hermes_plugins_builtin.state.errors import SchemaTooNewError

    with SessionStore(db_path) as store:
        store.create_session("s", "cli")
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaTooNewError) as info:
        SessionStore(db_path)
    assert info.value.found == SCHEMA_VERSION + 1


def test_a_database_at_the_current_version_opens(db_path):
    with SessionStore(db_path) as store:
        store.create_session("s", "cli")
    with SessionStore(db_path) as store:
        assert store.get_session("s") is not None


def test_highlight_terms_are_the_positive_words_once_each():
    from hermes_plugins_builtin.state.query import parse

    assert parse("apples pears OR apples NOT kiwi").highlight_terms() == ["apples", "pears"]
    assert parse("NOT kiwi").highlight_terms() == []


def test_title_numbering_treats_like_wildcards_in_titles_literally(store):
    for j, base in enumerate(["50% off", "snake_case", "C:\\dir", "a\\_b%"]):
        for i, title in enumerate([base, f"{base} #{4 + j}"]):
            store.create_session(f"s{j}-{i}", "cli")
            store.set_title(f"s{j}-{i}", title)
        assert store.next_title_in_lineage(base) == f"{base} #{5 + j}", base


def test_a_numbered_title_of_another_base_is_not_counted(store):
    for i, title in enumerate(["Chat", "Chat #x #7"]):
        store.create_session(f"s{i}", "cli")
        store.set_title(f"s{i}", title)
    assert store.next_title_in_lineage("Chat") == "Chat #2"


def test_a_child_started_exactly_when_its_parent_ended_is_a_continuation(store):
    store.create_session("p", "cli", started_at=0.0)
    store.end_session("p", "compression", ended_at=10.0)
    store.create_session("c", "cli", parent_session_id="p", started_at=10.0)
    assert [(c["id"], c["kind"]) for c in store.get_children("p")] == [("c", "continuation")]
    assert store.get_compression_tip("p") == "c"


def test_batched_tips_agree_with_single_walks_where_the_walk_is_cut(store):
    # 103 parts: a walk from part0 stops after 100 hops at part100, one from part1 reaches part101
    previous = None
    for i in range(103):
        store.create_session(f"part{i}", "cli", parent_session_id=previous, started_at=i * 20.0)
        if i < 102:
            store.end_session(f"part{i}", "compression", ended_at=i * 20.0 + 10)
        previous = f"part{i}"
    wanted = ["part0", "part1", "part2"]
    assert store.get_compression_tips(wanted) == {w: store.get_compression_tip(w) for w in wanted} == {"part0": "part100", "part1": "part101", "part2": "part102"}


def test_prefix_terms_negate_and_keep_their_whole_stem(store):
    store.create_session("p", "cli")
    boxes = store.append_message("p", "user", "boxes in the attic")
    bottle = store.append_message("p", "user", "a bottle of water")
    both = store.append_message("p", "user", "boxes beside a bottle")
    pears = store.append_message("p", "user", "pears only")
    assert ids(store.search("boX*")) == {boxes, both}  # the stem is "box", whatever its case
    assert ids(store.search("bot*")) == {bottle, both}
    assert ids(store.search("p*")) == {pears}  # a one-letter stem is still a prefix
    assert ids(store.search("boxes NOT bott*")) == {boxes}  # a negated prefix excludes
