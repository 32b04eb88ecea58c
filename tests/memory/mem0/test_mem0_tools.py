"""What a model's call of a Mem0 tool can make the provider do, arguments good and bad: the real
``mem0.MemoryClient`` against the loopback platform server, so every request is seen as sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mem0_platform_server import PlatformServer

UNKNOWN = "unknown tool {!r}; Mem0 offers mem0_search, mem0_profile and mem0_conclude"


@pytest.fixture
def platform(hermes_home: Path) -> Iterator[PlatformServer]:
    with PlatformServer() as fake:
        (hermes_home / ".env").write_text(f"MEM0_API_KEY={fake.api_key}\nMEM0_BASE_URL={fake.url}\n")
        (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    agent_id: hermes-test\n    user_id: ann\n")
        yield fake


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


@pytest.mark.parametrize(("rerank", "sent"), [(None, False), (True, True), (False, False), ("true", True), ("false", False), ("no", False), (1, True), (0, False), ({}, False)])
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
