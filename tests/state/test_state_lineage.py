"""Lineage: compression continuation vs delegation by timestamps, tips, trees, the rich list."""
from __future__ import annotations

import pytest


def chain(store, n, *, start=1000.0, title=None):
    """A compression chain of n sessions: each ends with 'compression', the next starts after."""
    ids = []
    t = start
    for i in range(n):
        sid = f"part{i}"
        store.create_session(sid, "cli", parent_session_id=ids[-1] if ids else None, started_at=t,
                             title=title if i == 0 else None)
        store.append_message(sid, "user", f"turn in part {i}")
        if i < n - 1:
            store.end_session(sid, "compression", ended_at=t + 10)
        ids.append(sid)
        t += 20
    return ids


def test_tip_walks_continuations_but_not_delegations(store):
    ids = chain(store, 3)
    # a sub-agent started by part1 while it was still running is a delegation child
    store.create_session("subagent", "cli", parent_session_id="part1", started_at=1025.0)
    assert store.get_compression_tip("part0") == "part2"
    assert store.get_compression_tip("part1") == "part2"
    assert store.get_compression_tip("part2") == "part2"
    assert store.get_compression_chain("part1") == ids
    kinds = {c["id"]: c["kind"] for c in store.get_children("part1")}
    assert kinds == {"part2": "continuation", "subagent": "delegation"}
    assert store.get_parent("part2") == "part1" and store.get_parent("part0") is None


def test_child_started_before_parent_ended_is_a_delegation(store):
    store.create_session("p", "cli", started_at=0.0)
    store.create_session("early", "cli", parent_session_id="p", started_at=5.0)
    store.end_session("p", "compression", ended_at=10.0)
    assert store.get_compression_tip("p") == "p"
    store.create_session("late", "cli", parent_session_id="p", started_at=10.0)
    assert store.get_compression_tip("p") == "late"


def test_parent_ended_for_another_reason_has_no_continuation(store):
    store.create_session("p", "cli", started_at=0.0)
    store.end_session("p", "user", ended_at=1.0)
    store.create_session("c", "cli", parent_session_id="p", started_at=2.0)
    assert store.get_compression_tip("p") == "p"
    assert store.get_children("p")[0]["kind"] == "delegation"


def test_tip_walk_stops_after_100_hops(store):
    chain(store, 105)
    assert store.get_compression_tip("part0") == "part100"
    assert store.get_compression_tip("part100") == "part104"


def test_lineage_is_the_whole_tree(store):
    chain(store, 3)
    store.create_session("sub", "cli", parent_session_id="part0", started_at=1005.0)
    store.create_session("subsub", "cli", parent_session_id="sub", started_at=1006.0)
    store.create_session("stranger", "cli", started_at=1007.0)
    expected = {"part0", "part1", "part2", "sub", "subsub"}
    assert store.lineage_ids("part2") == expected
    assert store.lineage_ids("subsub") == expected
    assert store.lineage_ids("stranger") == {"stranger"}


def test_rich_list_projects_a_compression_chain_onto_its_tip(store):
    chain(store, 3, title="Deploy work")
    store.set_title("part2", "Deploy work", auto_number=True)
    store.create_session("other", "telegram", started_at=5000.0)
    store.append_message("other", "user", "x " * 100)
    store.create_session("sub", "cli", parent_session_id="part1", started_at=1025.0)
    listed = store.list_sessions_rich()
    by_id = {e["id"]: e for e in listed}
    assert set(by_id) == {"part2", "other", "sub"}
    tip = by_id["part2"]
    assert tip["chain"] == ["part0", "part1", "part2"]
    assert tip["chain_message_count"] == 3
    assert tip["preview"] == "turn in part 0"
    assert tip["kind"] == "continuation" and tip["title"] == "Deploy work #2"
    assert by_id["sub"]["kind"] == "delegation" and by_id["other"]["kind"] == "root"
    assert by_id["other"]["preview"].endswith("...")
    assert listed[0]["id"] == "other"  # most recent activity first
    assert [e["id"] for e in store.list_sessions_rich(source="telegram")] == ["other"]
    raw = store.list_sessions_rich(project_compression=False, limit=100)
    assert {e["id"] for e in raw} == {"part0", "part1", "part2", "other", "sub"}
    assert len(store.list_sessions_rich(limit=1, offset=1)) == 1


def test_compression_tips_name_each_sessions_conversation(store):
    chain(store, 3)
    store.create_session("subagent", "cli", parent_session_id="part1", started_at=1025.0)
    store.create_session("stranger", "cli", started_at=2000.0)
    tips = store.get_compression_tips(["part0", "part1", "part2", "subagent", "stranger", "missing"])
    assert tips == {"part0": "part2", "part1": "part2", "part2": "part2",
                    "subagent": "subagent", "stranger": "stranger", "missing": "missing"}


def test_compression_tips_agree_with_the_tip_walk_beyond_100_hops(store):
    chain(store, 105)
    ids = ["part0", "part100", "part50"]
    assert store.get_compression_tips(ids) == {i: store.get_compression_tip(i) for i in ids}
    assert store.get_compression_tips(ids)["part100"] == "part104"


HEAD = [{"role": "user", "content": "plan the zanzibar migration"},
        {"role": "assistant", "content": "the zanzibar move has three steps"}]


def compressed_with_copies(store):
    """root -> mid -> tip, each later part starting with a copy of the protected head, as compression
    writes it; plus a sub-agent of root (started before root ended) that was handed the same head."""
    store.create_session("root", "cli", started_at=1000.0)
    store.append_messages("root", [*HEAD, {"role": "user", "content": "zanzibar step one is done"}])
    store.create_session("helper", "cli", parent_session_id="root", started_at=1050.0)
    store.append_messages("helper", HEAD[:1])
    store.end_session("root", "compression", ended_at=1100.0)
    store.create_session("mid", "cli", parent_session_id="root", started_at=1100.0)
    store.append_messages("mid", [*HEAD, {"role": "assistant", "content": "summary: zanzibar step one done"}])
    store.end_session("mid", "compression", ended_at=1200.0)
    store.create_session("tip", "cli", parent_session_id="mid", started_at=1200.0)
    store.append_messages("tip", [*HEAD, {"role": "user", "content": "now step two"}])


def test_search_can_collapse_messages_compression_copied_along_a_chain(store):
    compressed_with_copies(store)
    raw = store.search("zanzibar", limit=50)
    assert sorted(h.session_id for h in raw if "plan the" in h.snippet) == ["helper", "mid", "root", "tip"]
    hits = store.search("zanzibar", limit=50, collapse_copies=True)
    where = sorted((h.snippet.replace(">>>", "").replace("<<<", ""), h.session_id) for h in hits)
    assert where == [
        ("plan the zanzibar migration", "helper"),  # a delegation is another conversation: kept
        ("plan the zanzibar migration", "root"),    # each copied message once, in the earliest part
        ("summary: zanzibar step one done", "mid"),
        ("the zanzibar move has three steps", "root"),
        ("zanzibar step one is done", "root"),
    ]
    # a small limit is still filled with distinct messages
    assert len(store.search("zanzibar", limit=5, collapse_copies=True)) == 5
    assert len({(h.session_id, h.snippet) for h in store.search("zanzibar", limit=4, collapse_copies=True)}) == 4


def long_chain_with_a_copied_head(store, parts):
    """A chain of *parts* parts, each later one starting with a copy of the first part's request."""
    parent = None
    for i in range(parts):
        sid = f"part{i}"
        store.create_session(sid, "cli", parent_session_id=parent, started_at=1000.0 + 100 * i)
        store.append_messages(sid, [{"role": "user", "content": "plan the zanzibar migration"},
                                    {"role": "assistant", "content": f"zanzibar notes, revision number {i} of the long plan"}])
        if i < parts - 1:
            store.end_session(sid, "compression", ended_at=1050.0 + 100 * i)
        parent = sid


@pytest.mark.parametrize("limit", [1, 2, 3, 7])
def test_a_collapsed_copy_is_the_earliest_whatever_the_limit(store, limit):
    # equal ranks list the newest copy first, so a small limit must not let a later copy stand in
    long_chain_with_a_copied_head(store, 9)
    hits = store.search("zanzibar", limit=limit, collapse_copies=True)
    heads = [h for h in hits if "plan the" in h.snippet]
    assert [h.session_id for h in heads] == ["part0"]
    assert hits == store.search("zanzibar", limit=50, collapse_copies=True)[:limit]


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_a_copy_of_a_repeated_message_is_paired_the_same_way_whatever_the_limit(store, limit):
    # part1 starts with a copy of one of part0's two equal messages: the answer must not depend on the limit
    store.create_session("part0", "cli", started_at=1000.0)
    store.append_messages("part0", [{"role": "user", "content": "ship it"}, {"role": "user", "content": "working"},
                                    {"role": "user", "content": "ship it"}])
    store.end_session("part0", "compression", ended_at=1050.0)
    store.create_session("part1", "cli", parent_session_id="part0", started_at=1100.0)
    store.append_messages("part1", [{"role": "user", "content": "ship it"}])
    whole = store.search("ship", limit=50, collapse_copies=True)
    assert len(whole) == 2 and {h.session_id for h in whole} == {"part0"}
    assert store.search("ship", limit=limit, collapse_copies=True) == whole[:limit]


def test_collapsing_copies_keeps_a_message_said_twice_in_one_session(store):
    store.create_session("once", "cli")
    store.append_messages("once", [{"role": "user", "content": "deploy the app"}, {"role": "assistant", "content": "done"},
                                   {"role": "user", "content": "deploy the app"}])
    hits = store.search("deploy", collapse_copies=True)
    assert len(hits) == 2 and len({h.message_id for h in hits}) == 2


@pytest.mark.parametrize("huge", [2**63, 10**20, 2**200])
def test_a_huge_limit_or_offset_from_the_python_api_is_clamped_not_an_overflow(store, huge):
    store.create_session("first", "cli", started_at=1000.0)
    store.create_session("second", "cli", started_at=2000.0)
    assert [e["id"] for e in store.list_sessions_rich(limit=huge)] == ["second", "first"]
    assert [e["id"] for e in store.list_sessions_rich(limit=huge, offset=1)] == ["first"]
    assert store.list_sessions_rich(limit=huge, offset=huge) == []
    assert [e["id"] for e in store.list_sessions_rich(limit=-1)] == ["second", "first"]  # SQLite's "no limit", on every backend
    assert [e["id"] for e in store.list_sessions_rich(limit=1, offset=-5)] == ["second"]
    assert store.list_sessions_rich(limit=0) == []
