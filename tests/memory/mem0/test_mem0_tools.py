"""What a model's call of a Mem0 tool can make the provider do, arguments good and bad: the real
``mem0.MemoryClient`` against the loopback platform server, so every request is seen as sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mem0_platform_server import PlatformServer

UNKNOWN = "unknown tool {!r}; Mem0 offers mem0_search, mem0_profile and mem0_conclude"


def call(provider: Any, name: str, args: Any) -> dict[str, Any]:
    return json.loads(provider.handle_tool_call(name, args))


def requests(platform: PlatformServer, path: str) -> list[dict[str, Any]]:
    return [body for _, seen, body, _ in platform.requests if seen == path]


def test_bad_names_and_arguments_are_refused_before_anything_is_sent(open_provider, platform):
    provider = open_provider()
    sent = len(platform.requests)
    for name in ("mem0_nope", "search", "MEM0_SEARCH"):
        assert call(provider, name, {"query": "x"}) == {"error": UNKNOWN.format(name)}
    for args in ({}, {"query": "   "}, {"query": 5}, {"query": None}, ["query", "x"], "query"):
        assert call(provider, "mem0_search", args) == {"error": "mem0_search needs a non-empty 'query' string"}
    for args in ({}, {"conclusion": "\n"}, {"conclusion": ["a fact"]}):
        assert call(provider, "mem0_conclude", args) == {"error": "mem0_conclude needs a non-empty 'conclusion' string"}
    assert len(platform.requests) == sent


@pytest.mark.parametrize(("top_k", "sent"), [
    (None, 10), (3, 3), (0, 1), (-4, 1), (50, 50), (51, 50), (10**30, 50), ("7", 7), ("seven", 10), ([3], 10),
    (2.9, 2), (float("inf"), 10), (float("-inf"), 10), (float("nan"), 10), ("1e999", 10),
])
def test_search_sends_a_bounded_result_count(open_provider, platform, top_k, sent):
    provider = open_provider()
    args = {"query": "tabs"} if top_k is None else {"query": "tabs", "top_k": top_k}
    assert call(provider, "mem0_search", args) == {"results": [], "count": 0}
    (search,) = requests(platform, "/v3/memories/search/")
    assert search["top_k"] == sent and search["filters"] == {"user_id": "ann"}
    assert provider.last_error() == "", "a bad argument is no failure of Mem0 (it would count towards the breaker)"


@pytest.mark.parametrize(("rerank", "sent"), [(None, False), (True, True), (False, False), ("true", True), (" Yes", True), ("1", True), ("false", False), ("no", False), (1, True), (0, False), ({}, False)])
def test_rerank_is_asked_for_only_when_the_call_says_so(open_provider, platform, rerank, sent):
    provider = open_provider()
    call(provider, "mem0_search", {"query": "tabs"} if rerank is None else {"query": "tabs", "rerank": rerank})
    (search,) = requests(platform, "/v3/memories/search/")
    assert search["rerank"] is sent


def test_a_long_query_is_cut_and_results_without_text_are_left_out(open_provider, platform):
    provider = open_provider()
    assert call(provider, "mem0_conclude", {"conclusion": "  Prefers tabs over spaces \n"}) == {"result": "Fact stored.", "count": 1}
    (add,) = requests(platform, "/v3/memories/add/")
    assert add["messages"] == [{"role": "user", "content": "Prefers tabs over spaces"}]
    assert (add["user_id"], add["agent_id"], add["infer"]) == ("ann", "hermes-test", False)
    assert add["metadata"] == {"origin": "conclude", "kind": "conclusion", "peer": "user"}
    platform.memories["empty"] = dict(next(iter(platform.memories.values())), id="empty", memory="")
    found = call(provider, "mem0_search", {"query": "tabs " + "x" * 3000})
    assert [r["memory"] for r in found["results"]] == ["Prefers tabs over spaces"] and found["count"] == 1
    assert isinstance(found["results"][0]["score"], float)
    (search,) = requests(platform, "/v3/memories/search/")
    assert len(search["query"]) == 2000


def test_profile_lists_every_memory_of_the_user(open_provider, platform):
    provider = open_provider()
    assert call(provider, "mem0_profile", {}) == {"result": "No memories stored yet.", "count": 0}
    for fact in ("Prefers tabs", "Lives in Oslo"):
        call(provider, "mem0_conclude", {"conclusion": fact})
    assert call(provider, "mem0_profile", {"ignored": True}) == {"result": "- Prefers tabs\n- Lives in Oslo", "count": 2}


def test_the_profile_shows_at_most_500_memories(open_provider, platform):
    provider = open_provider()
    for n in range(501):
        platform.memories[f"m{n}"] = {"id": f"m{n}", "memory": f"fact {n}", "user_id": "ann", "metadata": {}}
    answer = call(provider, "mem0_profile", {})
    assert answer["count"] == 500
    assert answer["result"].split("\n")[-1] == "- fact 499"
    assert len(requests(platform, "/v3/memories/")) == 5, "pages of 100, none past the 500th memory"


def test_a_refused_call_is_an_error_answer_and_a_fact_not_stored_says_so(open_provider, platform):
    provider = open_provider()
    call(provider, "mem0_profile", {})  # opened: the key check is behind us
    platform.failures.append((500, {"detail": "boom"}))
    answer = call(provider, "mem0_conclude", {"conclusion": "Prefers tabs"})
    assert answer["error"].startswith("Mem0 conclude failed: conclude: ") and answer["error"].endswith("; the fact was not stored")
    assert platform.memories == {}
    platform.failures.append((500, {"detail": "boom"}))
    assert call(provider, "mem0_search", {"query": "tabs"})["error"].startswith("Mem0 search failed: search: ")
    platform.failures.append((500, {"detail": "boom"}))
    assert call(provider, "mem0_profile", {})["error"].startswith("Mem0 profile failed: profile: ")


def test_the_recalled_block_collapses_whitespace_drops_repeats_and_cuts_long_memories():
    from hermes_bundled_plugins.memory.mem0.tools import format_recall

    assert format_recall([]) == "" and format_recall([{"memory": "  "}, {"memory": None}, {"id": "x"}]) == ""
    long = "word " * 100
    block = format_recall([
        {"memory": "Prefers\n tabs"}, {"memory": "prefers TABS"}, {"memory": 42}, {"memory": "x" * 400}, {"memory": long},
    ])
    lines = block.split("\n")
    assert lines[:4] == ["## Mem0 Memory", "- Prefers tabs", "- 42", "- " + "x" * 400]
    assert lines[4] == "- " + ("word " * 100).strip()[:399] + "…" and len(lines) == 5


def test_recall_puts_the_block_into_the_turn(open_provider, platform):
    provider = open_provider()
    call(provider, "mem0_conclude", {"conclusion": "Prefers tabs"})
    assert provider.prefetch("does ann prefer tabs?") == "## Mem0 Memory\n- Prefers tabs"
    (search,) = requests(platform, "/v3/memories/search/")
    assert search["top_k"] == 5 and search["filters"] == {"user_id": "ann"}


def mirrored(platform: PlatformServer) -> list[tuple[str, dict[str, Any]]]:
    return sorted(((m["memory"], m.get("metadata") or {}) for m in platform.memories.values()), key=lambda item: (item[0], sorted(item[1].items())))


def test_built_in_memory_edits_are_mirrored_with_where_they_came_from(open_provider, platform):
    provider = open_provider()
    provider.on_memory_write("add", "user", "Ann prefers vim")
    provider.on_memory_write("add", "memory", "Ann prefers vim")  # the same words in the agent's own notes
    assert provider.flush(30)
    user = {"origin": "builtin_memory", "target": "user", "kind": "profile", "peer": "user"}
    note = {"origin": "builtin_memory", "target": "memory", "kind": "note", "peer": "assistant"}
    assert mirrored(platform) == [("Ann prefers vim", note), ("Ann prefers vim", user)]
    provider.on_memory_write("replace", "memory", "Ann prefers emacs", {"old_entry": "Ann prefers vim"})
    assert provider.flush(30)
    assert mirrored(platform) == [("Ann prefers emacs", note), ("Ann prefers vim", user)], "only the note's copy changes"
    provider.on_memory_write("remove", "user", "Ann prefers vim")
    provider.on_memory_write("remove", "user", "never mirrored")
    assert provider.flush(30)
    assert mirrored(platform) == [("Ann prefers emacs", note)]
    provider.on_memory_write("replace", "user", "Ann lives in Oslo", {"old_entry": "written before mirroring"})
    assert provider.flush(30)
    assert mirrored(platform) == [("Ann lives in Oslo", user), ("Ann prefers emacs", note)], "kept as new text"
    call(provider, "mem0_conclude", {"conclusion": "Ann prefers emacs"})  # not a mirrored copy: never touched by an edit
    provider.on_memory_write("remove", "memory", "Ann prefers emacs")
    assert provider.flush(30)
    assert [m for m, _ in mirrored(platform)] == ["Ann lives in Oslo", "Ann prefers emacs"]
    assert [meta["origin"] for _, meta in mirrored(platform)] == ["builtin_memory", "conclude"]



def test_every_mirrored_edit_is_stored_verbatim_for_the_user_and_the_agent(open_provider, platform):
    provider = open_provider()
    provider.on_memory_write("add", "user", "Ann prefers vim")
    provider.on_memory_write("replace", "user", "Ann lives in Oslo", {"old_entry": "written before mirroring"})
    assert provider.flush(30)
    adds = requests(platform, "/v3/memories/add/")
    assert [a["messages"] for a in adds] == [[{"role": "user", "content": "Ann prefers vim"}], [{"role": "user", "content": "Ann lives in Oslo"}]]
    assert {(a["user_id"], a["agent_id"], a["infer"]) for a in adds} == {("ann", "hermes-test", False)}


def test_a_mirrored_copy_from_before_targets_were_recorded_is_found_for_either_file(open_provider, platform):
    provider = open_provider()
    provider.on_memory_write("add", "user", "Ann prefers vim")
    assert provider.flush(30)
    (memory,) = platform.memories.values()
    memory["metadata"] = {"origin": "builtin_memory"}  # written by a version that did not record the file
    provider.on_memory_write("replace", "memory", "Ann prefers emacs", {"old_entry": "Ann prefers vim"})
    assert provider.flush(30)
    assert [m["memory"] for m in platform.memories.values()] == ["Ann prefers emacs"]


def test_a_provider_never_initialized_says_so(mem0_home):
    from hermes_core.manager import PluginManager

    plugins = PluginManager()
    plugins.load_all()
    provider = plugins.active_memory_provider()
    assert call(provider, "mem0_search", {"query": "x"}) == {"error": "Mem0 is not set up: the session did not initialize it"}


def test_while_the_breaker_is_open_tools_answer_at_once_with_when_it_closes(open_provider, platform, hermes_home):
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    breaker:\n      threshold: 1\n      cooldown: 600\n")
    provider = open_provider()
    call(provider, "mem0_profile", {})  # opened
    platform.failures.append((500, {"detail": "boom"}))
    assert "error" in call(provider, "mem0_search", {"query": "tabs"})
    assert provider.breaker_open()
    sent = len(platform.requests)
    for name in ("mem0_search", "mem0_profile", "mem0_conclude"):
        assert call(provider, name, {"query": "x", "conclusion": "x"}) == {"error": provider.breaker_message()}
    assert len(platform.requests) == sent
