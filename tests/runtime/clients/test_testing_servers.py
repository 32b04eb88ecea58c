"""The scripted servers themselves: recording, validation like the real APIs, and the prefix-cache simulation."""

from __future__ import annotations

import httpx
import pytest

from hermes_core.models.clients import AnthropicMessagesClient, OpenAIChatClient
from hermes_core.testing_servers import (
    AnthropicServer,
    CachingAnthropicServer,
    OpenAIServer,
    PrefixCache,
    RecordedRequest,
    text_reply,
)

MARK = {"type": "ephemeral"}


def _text(text: str, marked: bool = False) -> dict:
    block = {"type": "text", "text": text}
    return {**block, "cache_control": MARK} if marked else block


def _body(system: str, *messages: tuple[str, str, bool], model: str = "m", tools=None) -> dict:
    body = {"model": model, "max_tokens": 10, "system": [_text(system, True)],
            "messages": [{"role": role, "content": [_text(text, marked)]} for role, text, marked in messages]}
    if tools:
        body["tools"] = tools
    return body


# --- PrefixCache rules (1 char = 1 token, no minimum) ---------------------------------


@pytest.fixture
def cache() -> PrefixCache:
    return PrefixCache(chars_per_token=1, min_tokens=0)


def test_a_breakpoint_writes_and_a_later_request_reads_the_longest_cached_prefix(cache):
    first = cache.process(_body("S" * 100, ("user", "U" * 50, True)))
    assert first == {"input_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 150}
    # Next turn: the marker moved to the new last message; the old prefix (system + U) is read back.
    second = cache.process(_body("S" * 100, ("user", "U" * 50, False), ("assistant", "A" * 20, False),
                                 ("user", "B" * 30, True)))
    assert second == {"input_tokens": 0, "cache_read_input_tokens": 150, "cache_creation_input_tokens": 50}
    assert cache.totals == {"input_tokens": 0, "cache_read_input_tokens": 150, "cache_creation_input_tokens": 200}
    assert cache.hit_share() == pytest.approx(150 / 350)


def test_tokens_after_the_last_breakpoint_are_plain_input(cache):
    usage = cache.process(_body("S" * 100, ("user", "U" * 40, False)))
    assert usage == {"input_tokens": 40, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 100}


def test_lookback_is_limited():
    cache = PrefixCache(chars_per_token=1, min_tokens=0, lookback_blocks=1)
    cache.process(_body("S" * 100, ("user", "U" * 50, True)))
    usage = cache.process(_body("S" * 100, ("user", "U" * 50, False), ("assistant", "A" * 20, False),
                                ("user", "B" * 30, True)))
    # The U prefix is 2 blocks before the last breakpoint: out of reach; only the system prefix is found.
    assert usage == {"input_tokens": 0, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 100}


def test_no_breakpoint_no_caching(cache):
    body = {"model": "m", "max_tokens": 1, "system": "S" * 10, "messages": [{"role": "user", "content": "hello"}]}
    assert cache.process(body) == {"input_tokens": 15, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    assert cache.process(body)["cache_read_input_tokens"] == 0 and cache.entries == 0


def test_short_prefixes_are_not_cached():
    cache = PrefixCache(chars_per_token=1, min_tokens=1024)
    body = _body("S" * 100, ("user", "U", True))
    cache.process(body)
    assert cache.process(body)["cache_read_input_tokens"] == 0 and cache.entries == 0


def test_any_change_before_the_breakpoint_misses(cache):
    cache.process(_body("S" * 100, ("user", "U" * 50, True)))
    assert cache.process(_body("S" * 99 + "!", ("user", "U" * 50, True)))["cache_read_input_tokens"] == 0
    assert cache.process(_body("S" * 100, ("user", "U" * 50, True), model="other"))["cache_read_input_tokens"] == 0
    tools = [{"name": "t", "input_schema": {"type": "object"}}]
    assert cache.process(_body("S" * 100, ("user", "U" * 50, True), tools=tools))["cache_read_input_tokens"] == 0


def test_moving_a_marker_does_not_change_the_prefix(cache):
    cache.process(_body("S" * 100, ("user", "U" * 50, True)))
    body = {"model": "m", "max_tokens": 1, "system": [_text("S" * 100, True)],
            "messages": [{"role": "user", "content": "U" * 50, "cache_control": MARK}]}  # string content, message-level marker
    assert cache.process(body)["cache_read_input_tokens"] == 150


# --- the servers ----------------------------------------------------------------


def test_requests_are_recorded_and_a_callable_script_sees_them():
    def echo(request: RecordedRequest):
        return text_reply("you said: " + request.body["messages"][-1]["content"])

    with OpenAIServer(echo) as server, OpenAIChatClient(server.base_url, "m") as client:
        assert client.complete([{"role": "user", "content": "ping"}]).text == "you said: ping"
        server.add(text_reply("unused"))  # ignored: a callable script answers everything
        assert client.complete([{"role": "user", "content": "pong"}]).text == "you said: pong"
    assert [r.body["messages"][-1]["content"] for r in server.requests] == ["ping", "pong"]
    assert server.requests[0].method == "POST" and server.requests[0].path == "/v1/chat/completions"


def test_replies_can_be_added_while_running():
    with OpenAIServer() as server, OpenAIChatClient(server.base_url, "m") as client:
        server.add(text_reply("one"), text_reply("two"))
        assert [client.complete([{"role": "user", "content": "x"}]).text for _ in range(2)] == ["one", "two"]
        assert server.replies_left == 0


def _post(url: str, body: dict, headers: dict | None = None) -> httpx.Response:
    with httpx.Client(timeout=2.0, verify=False) as client:  # plain http: no certificate bundle to load
        return client.post(url, json=body, headers=headers or {})


def test_the_anthropic_server_refuses_what_the_api_refuses():
    with AnthropicServer([text_reply("never")] * 4) as server:
        url = server.base_url + "/v1/messages"
        headers = {"anthropic-version": "2023-06-01"}
        five = {"model": "m", "max_tokens": 1, "system": [_text("s", True)],
                "messages": [{"role": "user", "content": [_text(str(i), True) for i in range(4)]}]}
        orphan = {"model": "m", "max_tokens": 1, "messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "1"}]}]}
        unanswered = {"model": "m", "max_tokens": 1, "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
            {"role": "user", "content": "and?"}]}
        empty = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": ""}]}
        answers = {
            "five": _post(url, five, headers), "orphan": _post(url, orphan, headers),
            "unanswered": _post(url, unanswered, headers), "empty": _post(url, empty, headers),
            "no version": _post(url, {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "x"}]}),
        }
    assert {name: r.status_code for name, r in answers.items()} == dict.fromkeys(answers, 400)
    assert "maximum of 4 blocks with cache_control" in answers["five"].json()["error"]["message"]
    assert "without `tool_result`" in answers["unanswered"].json()["error"]["message"]
    assert answers["orphan"].json()["error"]["type"] == "invalid_request_error"
    assert server.replies_left == 4


def test_the_openai_server_refuses_a_tool_message_without_a_call():
    with OpenAIServer([text_reply("never")]) as server:
        answer = _post(server.base_url + "/chat/completions", {"model": "m", "messages": [
            {"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "nope", "content": "1"}]})
    assert answer.status_code == 400 and "preceding message with 'tool_calls'" in answer.json()["error"]["message"]


def test_a_caching_server_reports_usage_the_client_maps(plugin_manager):
    """Several turns through the Anthropic client with the builtin prompt_caching middleware."""
    middleware = plugin_manager().middleware["anthropic_request"]
    system = "You are a meticulous assistant. " * 40
    with CachingAnthropicServer(lambda request: text_reply("noted " * 20), min_cache_tokens=0) as server, \
            AnthropicMessagesClient(server.base_url, "claude-test", "k", request_middleware=middleware) as client:
        history: list[dict] = []
        responses = []
        for turn in range(4):
            history.append({"role": "user", "content": f"turn {turn}: " + "details " * 30})
            response = client.complete(history, system=system)
            responses.append(response)
            history.append(response.assistant_message())
    reads = [r.usage["cache_read_tokens"] for r in responses]
    assert reads[0] == 0 and all(later > earlier for earlier, later in zip(reads, reads[1:]))
    assert responses[0].usage["cache_write_tokens"] == responses[0].prompt_tokens  # everything was marked and new
    totals = server.cache.totals
    assert sum(r.usage["cache_read_tokens"] for r in responses) == totals["cache_read_input_tokens"]
    assert sum(r.prompt_tokens for r in responses) == sum(totals.values())
    assert server.cache.hit_share() > 0.5
