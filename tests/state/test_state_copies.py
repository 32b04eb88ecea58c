"""How many candidates a collapsed search fetches (copies.best_distinct_hits), on hits built by hand.

The stores' contract tests (test_state_lineage.py) check the collapsed answers on real databases; here
the ranked list is a plain list, so the fetch sizes and the cap can be checked with a cap small enough
to reach.
"""
from __future__ import annotations

import pytest

from hermes_plugins_builtin.state.copies import best_distinct_hits, collapse_chain_copies
from hermes_plugins_builtin.state.search import SearchHit


def hit(message_id: int, rank: float, text: str) -> SearchHit:
    return SearchHit(message_id=message_id, session_id=text, role="user", snippet=text, rank=rank,
                     timestamp=0.0, source="cli", session_title=None)


class Ranked:
    """The n best of *hits* (already best first), remembering every n asked for."""

    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        self.asked: list[int] = []

    def __call__(self, n: int) -> list[SearchHit]:
        self.asked.append(n)
        return self.hits[:n]


def by_text(hits: list[SearchHit]) -> list[SearchHit]:
    """Collapse: hits with one snippet are copies; the lowest id stands for them."""
    earliest: dict[str, SearchHit] = {}
    for h in hits:
        if h.snippet not in earliest or h.message_id < earliest[h.snippet].message_id:
            earliest[h.snippet] = h
    return list(earliest.values())


def every(tied: list[SearchHit]) -> bool:
    """Any tie at the boundary may hide an earlier copy."""
    return True


def copies(text: str, rank: float, ids: range) -> list[SearchHit]:
    return [hit(i, rank, text) for i in reversed(ids)]  # equal ranks: newest first, as the stores list them


def test_fetches_four_times_more_until_a_worse_hit_follows_the_copies():
    ranked = Ranked([*copies("a", -5.0, range(1, 40)), hit(100, -1.0, "b")])
    kept = best_distinct_hits(ranked, by_text, 1, cap=1000, earlier_copy=every)
    assert [h.message_id for h in kept] == [1]
    assert ranked.asked == [2, 8, 32, 128]


def test_stops_at_once_when_the_next_hit_ranks_worse():
    ranked = Ranked([hit(7, -3.0, "a"), hit(2, -2.0, "b"), hit(9, -1.0, "c")])
    assert [h.message_id for h in best_distinct_hits(ranked, by_text, 2, cap=1000, earlier_copy=every)] == [7, 2]
    assert ranked.asked == [3]


def test_a_short_list_is_final():
    ranked = Ranked(copies("a", -5.0, range(1, 4)))
    assert [h.message_id for h in best_distinct_hits(ranked, by_text, 5, cap=1000, earlier_copy=every)] == [1]
    assert ranked.asked == [6]


@pytest.mark.parametrize("cap", [16, 17, 64])
def test_the_cap_ends_the_search_even_while_copies_go_on(cap):
    # more equal copies than the cap: the answer is the best the cap allows, and the loop ends
    ranked = Ranked(copies("a", -5.0, range(1, 500)))
    kept = best_distinct_hits(ranked, by_text, 1, cap=cap, earlier_copy=every)
    assert ranked.asked[-1] == cap and len(kept) == 1
    assert kept[0].message_id == 500 - cap


def test_equal_ranks_without_earlier_copies_end_the_fetch_at_once():
    # the same short reply in many conversations: equal ranks, but none has a copy in an earlier part
    ranked = Ranked([hit(i, -2.0, f"conversation {i}") for i in range(500, 0, -1)])
    asked_about: list[list[int]] = []

    def no_copies(tied: list[SearchHit]) -> bool:
        asked_about.append([h.message_id for h in tied])
        return False

    kept = best_distinct_hits(ranked, by_text, 3, cap=1000, earlier_copy=no_copies)
    assert [h.message_id for h in kept] == [500, 499, 498] and ranked.asked == [4]
    assert asked_about == [[500, 499, 498]]


def test_only_hits_tied_with_the_last_one_fetched_are_asked_about():
    ranked = Ranked([hit(9, -3.0, "best"), *copies("tied", -1.0, range(1, 30))])
    asked_about: list[list[int]] = []

    def copies_of_tied(tied: list[SearchHit]) -> bool:
        asked_about.append([h.message_id for h in tied])
        return any(h.snippet == "tied" and h.message_id > 1 for h in tied)

    kept = best_distinct_hits(ranked, by_text, 2, cap=1000, earlier_copy=copies_of_tied)
    assert [h.message_id for h in kept] == [9, 1] and ranked.asked == [3, 12, 48]
    assert asked_about == [[28], [19]]


def test_a_limit_of_nothing_asks_for_nothing():
    ranked = Ranked([hit(1, -1.0, "a")])
    assert best_distinct_hits(ranked, by_text, 0, cap=1000, earlier_copy=every) == []
    assert ranked.asked == []


@pytest.fixture
def messages(tmp_path):
    """A real SQLite file with the columns collapse_chain_copies reads."""
    import sqlite3

    conn = sqlite3.connect(tmp_path / "messages.db")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, search_text TEXT)")
    yield conn
    conn.close()


def stored(conn, rows: dict[int, tuple[str, str]]) -> None:
    """{message id: (session id, text)}, every message the user's."""
    conn.executemany("INSERT INTO messages (id, session_id, role, search_text) VALUES (?, ?, 'user', ?)",
                     [(i, session, text) for i, (session, text) in rows.items()])


def in_session(message_id: int, session_id: str, rank: float = -1.0) -> SearchHit:
    return SearchHit(message_id=message_id, session_id=session_id, role="user", snippet="", rank=rank,
                     timestamp=0.0, source="cli", session_title=None)


def test_a_copy_is_matched_by_its_place_among_equal_messages_only(messages):
    # part a said "alpha" then "beta"; part b holds a copy of "beta" alone: still the same message
    stored(messages, {1: ("a", "alpha"), 2: ("a", "beta"), 3: ("b", "beta")})
    hits = [in_session(3, "b"), in_session(2, "a"), in_session(1, "a")]
    kept = collapse_chain_copies(messages, hits, {"a": "b", "b": "b"})
    assert [h.message_id for h in kept] == [2, 1]


def test_messages_deleted_meanwhile_are_never_copies_of_each_other(messages):
    stored(messages, {5: ("a", "kept")})
    hits = [in_session(9, "b"), in_session(8, "a"), in_session(5, "a")]  # 8 and 9 are gone
    kept = collapse_chain_copies(messages, hits, {"a": "b", "b": "b"})
    assert [h.message_id for h in kept] == [9, 8, 5]


def test_a_session_without_a_known_tip_is_a_chain_of_its_own(messages):
    stored(messages, {1: ("a", "same"), 2: ("b", "same"), 3: ("c", "same")})
    hits = [in_session(3, "c"), in_session(2, "b"), in_session(1, "a")]
    kept = collapse_chain_copies(messages, hits, {"a": "a"})  # b and c unknown: not one chain
    assert [h.message_id for h in kept] == [3, 2, 1]


def test_an_earlier_copy_is_looked_up_in_the_earlier_parts_of_the_chain_only(tmp_path):
    # (SQLite's own connection: the lookup is the same SQL on PostgreSQL, through the lineage contract tests)
    from hermes_plugins_builtin.state import SessionStore
    from hermes_plugins_builtin.state.copies import has_earlier_copy

    with SessionStore(tmp_path / "state.db") as store:
        store.create_session("first", "cli", started_at=1000.0)
        store.append_messages("first", [{"role": "user", "content": "deploy done"}])
        store.end_session("first", "compression", ended_at=1050.0)
        store.create_session("second", "cli", parent_session_id="first", started_at=1100.0)
        store.create_session("helper", "cli", parent_session_id="first", started_at=1010.0)  # a sub-agent
        store.create_session("alone", "cli", started_at=2000.0)
        for sid in ("second", "helper", "alone"):
            store.append_messages(sid, [{"role": "user", "content": "deploy done"},
                                        {"role": "assistant", "content": "deploy done"}])
        by_session = {(h.session_id, h.role): h for h in store.search("deploy", limit=50)}
        conn = store._conn
        assert has_earlier_copy(conn, [by_session["second", "user"]])
        assert not has_earlier_copy(conn, [by_session["second", "assistant"]])  # another role: not a copy
        assert not has_earlier_copy(conn, [by_session["helper", "user"]])  # a delegation is not a later part
        assert not has_earlier_copy(conn, [by_session["alone", "user"], by_session["first", "user"]])
        assert has_earlier_copy(conn, [by_session["alone", "user"], by_session["second", "user"]])


def test_the_lookup_walks_every_earlier_part_and_asks_little_of_a_first_part(tmp_path):
    from hermes_plugins_builtin.state import SessionStore
    from hermes_plugins_builtin.state.copies import has_earlier_copy

    with SessionStore(tmp_path / "state.db") as store:
        for n, (sid, parent) in enumerate((("a", None), ("b", "a"), ("c", "b"))):
            store.create_session(sid, "cli", parent_session_id=parent, started_at=1000.0 + 100 * n)
            store.append_messages(sid, [{"role": "user", "content": "plan the zanzibar move" if sid != "b" else "other"}])
            if sid != "c":
                store.end_session(sid, "compression", ended_at=1050.0 + 100 * n)
        (in_c,) = [h for h in store.search("zanzibar", limit=50) if h.session_id == "c"]
        (in_a,) = [h for h in store.search("zanzibar", limit=50) if h.session_id == "a"]
        assert has_earlier_copy(store._conn, [in_c])  # two parts back, past a part without it
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        try:
            assert not has_earlier_copy(store._conn, [in_a])
        finally:
            store._conn.set_trace_callback(None)
        assert len(statements) == 1, statements  # a first part: one question, whether it has a previous part
