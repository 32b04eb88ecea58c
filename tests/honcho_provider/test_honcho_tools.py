"""What a model's call of a Honcho tool can make the provider do, arguments good and bad, over real HTTP.

Each answer is JSON; a bad argument gets an error that names it, and nothing reaches the server that
the arguments did not ask for.
"""

from __future__ import annotations

import json
from typing import Any

import pytest


def call(provider: Any, name: str, args: Any = None, **kwargs: Any) -> dict[str, Any]:
    return json.loads(provider.handle_tool_call(name, kwargs if args is None else args))


@pytest.fixture
def provider(make_provider: Any) -> Any:
    return make_provider(recallMode="tools", writeFrequency="turn")  # tools only: no recall uses the server's replies


def test_an_unknown_tool_is_named_with_the_tools_there_are(provider: Any) -> None:
    expected = "no Honcho tool {!r}; tools: honcho_profile, honcho_search, honcho_context, honcho_reasoning, honcho_conclude"
    for name in ("honcho_nope", "honcho_peer", "profile", "_profile", "honcho_handle"):
        assert call(provider, name) == {"error": expected.format(name)}


def test_a_peer_other_than_user_or_ai_is_refused_before_anything_is_asked(provider: Any, fake: Any) -> None:
    call(provider, "honcho_profile")  # connected: the peers and the session exist
    before = len(fake.calls("GET", ".*")) + len(fake.calls("POST", ".*"))
    assert call(provider, "honcho_profile", peer="bob") == {"error": "peer must be 'user' or 'ai', not 'bob'"}
    assert call(provider, "honcho_conclude", peer="AI", conclusion="x") == {"error": "peer must be 'user' or 'ai', not 'AI'"}
    assert len(fake.calls("GET", ".*")) + len(fake.calls("POST", ".*")) == before
    assert call(provider, "honcho_profile", peer=" ai ")["peer"] == "ai"
    assert call(provider, "honcho_profile", peer=7)["peer"] == "user", "a peer that is not text is the default"


def test_arguments_that_are_not_an_object_count_as_none(provider: Any, sdk: Any) -> None:
    sdk.peer("eri").set_card(["Name: Eri"])
    assert call(provider, "honcho_profile", ["peer", "ai"]) == {"peer": "user", "peer_id": "eri", "card": ["Name: Eri"]}
    assert call(provider, "honcho_search", "query") == {"error": "query is empty -> say what to search for"}


def test_profile_of_each_peer_and_its_budget(provider: Any, sdk: Any) -> None:
    assert call(provider, "honcho_profile") == {"peer": "user", "peer_id": "eri", "card": []}
    sdk.peer("hermes").set_card(["Role: assistant"])
    assert call(provider, "honcho_profile", peer="ai") == {"peer": "ai", "peer_id": "hermes", "card": ["Role: assistant"]}
    sdk.peer("eri").set_card([f"fact {i} " + "word " * 10 for i in range(40)])
    card = call(provider, "honcho_profile")["card"]
    assert len("\n".join(card)) <= 200 * 4 and len(card) == 14, "cut to 200 tokens (800 characters)"
    assert card[0] == "fact 0 " + "word " * 10 and card[-1] == "fact 13 " + "word " * 6 + "word"


@pytest.mark.parametrize("max_tokens", [None, 0, -5, True, "100", 2.5])
def test_a_search_budget_that_is_not_a_positive_whole_number_is_the_default(provider: Any, fake: Any, workspace: str, max_tokens: Any) -> None:
    fake.add_conclusion(workspace, "hermes", "eri", "Eri deploys on Fridays")
    answer = call(provider, "honcho_search", query="  deploys ", max_tokens=max_tokens)
    assert answer["max_tokens"] == 800 and answer["query"] == "deploys" and answer["peer"] == "user"
    assert "Eri deploys on Fridays" in answer["results"]
    (search,) = [c for c in fake.calls("POST", f"{workspace}/peers/.*/representation$") if c.body.get("search_query")]
    assert search.path.endswith("/peers/eri/representation") and search.body["search_query"] == "deploys" and search.body["search_top_k"] == 10


def test_a_search_budget_cuts_the_results(provider: Any, fake: Any, workspace: str) -> None:
    for index in range(60):
        fake.add_conclusion(workspace, "hermes", "eri", f"deploy fact {index} with several words")
    answer = call(provider, "honcho_search", query="deploy", max_tokens=10)
    assert answer["max_tokens"] == 10 and 0 < len(answer["results"]) <= 40
    assert call(provider, "honcho_search", query="deploy", max_tokens=2000)["max_tokens"] == 2000
    assert call(provider, "honcho_search", query="deploy", max_tokens=2001)["max_tokens"] == 2000


def test_search_of_the_ai_peer_asks_the_ai_peer(provider: Any, fake: Any, workspace: str) -> None:
    answer = call(provider, "honcho_search", query="tone", peer="ai")
    assert answer["peer"] == "ai"
    searches = [c for c in fake.calls("POST", f"{workspace}/peers/.*/representation$") if c.body.get("search_query")]
    assert [c.path.rsplit("/", 2)[-2] for c in searches] == ["hermes"]


def test_context_names_the_session_and_asks_for_the_configured_budget(make_provider: Any, fake: Any, workspace: str, turn: Any) -> None:
    provider = make_provider(recallMode="tools", writeFrequency="turn", contextTokens=321)
    empty = call(provider, "honcho_context", peer="ai")
    assert empty == {"peer": "ai", "session": provider.session_name.name, "summary": None, "representation": empty["representation"], "card": [], "messages": []}
    (context,) = fake.calls("GET", f"{workspace}/sessions/.*/context$")
    assert context.query["tokens"] == "321" and context.query["summary"] == "true" and context.query["peer_target"] == "hermes"
    turn(provider, 1, "hello there", "hi")
    fake.set_summary(workspace, provider.session_name.name, "they said hello")
    full = call(provider, "honcho_context")
    assert full["summary"] == "they said hello" and full["peer"] == "user"
    assert full["messages"] == [{"peer": "eri", "content": "hello there"}, {"peer": "hermes", "content": "hi"}]
    assert fake.calls("GET", f"{workspace}/sessions/.*/context$")[-1].query["peer_target"] == "eri"


def test_reasoning_cuts_the_question_and_ignores_an_unknown_level(make_provider: Any, fake: Any, workspace: str) -> None:
    provider = make_provider(recallMode="tools", dialecticMaxInputChars=20, dialecticReasoningLevel="medium")
    assert call(provider, "honcho_reasoning", query=" \n ") == {"error": "query is empty -> ask a question"}
    assert fake.calls("POST", f"{workspace}/peers/.*/chat$") == []
    fake.chat_replies.extend(["an answer", lambda body: {"not": "text"}])
    assert call(provider, "honcho_reasoning", query="  " + "q" * 50, reasoning_level="extreme") == {"peer": "user", "reasoning_level": "medium", "answer": "an answer"}
    assert call(provider, "honcho_reasoning", query="why?", peer="ai", reasoning_level=3) == {"peer": "ai", "reasoning_level": "medium", "answer": ""}
    first, second = fake.calls("POST", f"{workspace}/peers/.*/chat$")
    assert first.body["query"] == "q" * 20 and first.path.endswith("/peers/eri/chat")
    assert second.body["query"] == "why?" and second.path.endswith("/peers/hermes/chat")


def test_conclude_deletes_when_given_an_id_even_beside_a_conclusion(provider: Any, sdk: Any) -> None:
    saved = call(provider, "honcho_conclude", conclusion="Eri likes tea")
    assert saved == {"peer": "user", "saved": "Eri likes tea", "id": saved["id"]} and saved["id"]
    (stored,) = sdk.peer("hermes").conclusions_of("eri").list()
    assert stored.session_id == provider.session_name.name
    assert call(provider, "honcho_conclude", conclusion="Eri likes coffee", delete_id=f" {saved['id']} ") == {"peer": "user", "deleted": saved["id"]}
    assert list(sdk.peer("hermes").conclusions_of("eri").list()) == []
    assert call(provider, "honcho_conclude", conclusion=["a list"], delete_id=None) == {
        "error": "give a conclusion to save or a delete_id to remove (both were empty)"}


def test_a_refused_call_is_an_error_answer_not_an_exception(provider: Any, fake: Any) -> None:
    fake.fail(r"POST .*/conclusions$", 422, times=1)
    answer = call(provider, "honcho_conclude", conclusion="Eri likes tea")
    assert set(answer) == {"error"} and "422" in answer["error"]
    fake.fail(r"POST .*/representation$", 403, times=1)
    answer = call(provider, "honcho_search", query="tea")
    assert set(answer) == {"error"} and "403" in answer["error"]


def test_answers_keep_text_as_written(provider: Any) -> None:
    raw = provider.handle_tool_call("honcho_conclude", {"conclusion": "Eri mag Käse"})
    assert "Käse" in raw and "\\u00e4" not in raw


def test_a_search_that_finds_nothing_answers_empty_and_a_budget_of_one_is_kept(provider: Any) -> None:
    assert call(provider, "honcho_search", query="anything", max_tokens=1) == {"peer": "user", "query": "anything", "max_tokens": 1, "results": ""}


def test_a_save_the_server_answers_with_nothing_has_no_id(provider: Any, fake: Any) -> None:
    fake.fail(r"POST .*/conclusions$", 200, times=1, body=b"[]")
    assert call(provider, "honcho_conclude", conclusion="Eri likes tea") == {"peer": "user", "saved": "Eri likes tea", "id": None}
