"""AnthropicMessagesClient against a real Messages server on 127.0.0.1: conversion, tools, usage, middleware."""

from __future__ import annotations

import json

import pytest

from hermes_core.models.clients import AnthropicMessagesClient, ModelAPIError
from hermes_core.models.clients.anthropic_format import convert_messages, convert_tools
from hermes_core.testing_servers import AnthropicServer, ToolCall, text_reply, tool_call_reply, tool_calls_reply

USER = [{"role": "user", "content": "What's the weather in Paris?"}]


@pytest.fixture
def client_for(retry):
    clients: list[AnthropicMessagesClient] = []

    def make(server: AnthropicServer, **options) -> AnthropicMessagesClient:
        options.setdefault("timeout", 1.0)
        options.setdefault("retry", retry)
        client = AnthropicMessagesClient(server.base_url, "claude-test", options.pop("api_key", "test-key"), **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def test_request_headers_and_body(client_for, weather_tool):
    with AnthropicServer([text_reply("Hi.")], api_key="test-key") as server:
        response = client_for(server).complete(USER, tools=[weather_tool], system="Be brief.", max_tokens=99)
    request = server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "test-key"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 99,
        "system": "Be brief.",
        "messages": USER,
        "tools": [{"name": "get_weather", "description": "Current weather for a city.",
                   "input_schema": weather_tool["function"]["parameters"]}],
    }
    assert response.text == "Hi." and response.finish_reason == "stop"
    assert "test-key" not in json.dumps(response.request)


def test_max_tokens_defaults_because_the_api_requires_it(client_for):
    with AnthropicServer([text_reply("ok")]) as server:
        client_for(server, default_max_tokens=321).complete(USER)
    assert server.requests[0].body["max_tokens"] == 321


def test_conversation_conversion():
    messages = [
        {"role": "system", "content": "Extra rules."},
        {"role": "user", "content": "Weather in Paris and Lyon?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "t2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Lyon"}'}},
        ]},
        {"role": "tool", "tool_call_id": "t1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "t2", "content": "rain"},
        {"role": "assistant", "content": "Paris sunny, Lyon rain."},
        {"role": "user", "content": [{"type": "text", "text": "And this?"},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
    ]
    system, converted = convert_messages(messages, "Identity.")
    assert system == "Identity.\n\nExtra rules."
    assert converted == [
        {"role": "user", "content": "Weather in Paris and Lyon?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "t2", "name": "get_weather", "input": {"city": "Lyon"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "sunny"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "rain"},
        ]},
        {"role": "assistant", "content": "Paris sunny, Lyon rain."},
        {"role": "user", "content": [
            {"type": "text", "text": "And this?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
        ]},
    ]


def test_tool_results_separated_by_a_user_message_are_not_merged():
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "user", "content": "interrupt"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "b", "type": "function", "function": {"name": "f", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
    ]
    _, converted = convert_messages(messages)
    assert [m["role"] for m in converted] == ["assistant", "user", "user", "assistant", "user"]
    assert converted[3]["content"] == [{"type": "tool_use", "id": "b", "name": "f", "input": {}}]
    assert converted[4]["content"] == [{"type": "tool_result", "tool_use_id": "b", "content": "2"}]


def test_empty_assistant_messages_are_dropped_and_anthropic_tools_pass_through():
    _, converted = convert_messages([{"role": "user", "content": "a"}, {"role": "assistant", "content": ""},
                                     {"role": "user", "content": "b"}])
    assert converted == [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    native = {"name": "x", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}
    assert convert_tools([native]) == [native]


@pytest.mark.parametrize("stream", [False, True])
def test_tool_use_becomes_openai_tool_calls(client_for, weather_tool, stream):
    reply = tool_calls_reply(ToolCall("get_weather", {"city": "Paris"}, id="toolu_1"),
                             ToolCall("get_weather", {"city": "Lyon"}, id="toolu_2"), text="Let me check.")
    deltas: list[str] = []
    with AnthropicServer([reply, text_reply("Paris sunny, Lyon rain.")]) as server:
        client = client_for(server)
        response = client.complete(USER, tools=[weather_tool], stream=stream, on_text=deltas.append)
        # Both results go back in one user message, or the (validating) server answers 400.
        results = [{"role": "tool", "tool_call_id": call["id"], "content": "ok"} for call in response.tool_calls]
        assert client.complete([*USER, response.assistant_message(), *results], tools=[weather_tool]).text
    assert response.finish_reason == "tool_calls"
    assert response.text == "Let me check."
    assert response.tool_calls == [
        {"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "toolu_2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Lyon"}'}},
    ]
    assert "".join(deltas) == ("Let me check." if stream else "")


@pytest.mark.parametrize("stream", [False, True])
def test_tool_calls_round_trip_to_identical_tool_use_blocks(client_for, weather_tool, stream):
    """tool_use -> tool_calls -> history -> tool_use: what the next request carries is what the model sent."""
    arguments = {"city": "Zürich", "days": 3, "options": {"units": ["metric"], "detail": None}}
    with AnthropicServer([tool_call_reply("get_weather", arguments, id="toolu_rt"), text_reply("Done.")]) as server:
        client = client_for(server)
        first = client.complete(USER, tools=[weather_tool], stream=stream)
        history = [*USER, first.assistant_message(),
                   {"role": "tool", "tool_call_id": first.tool_calls[0]["id"], "content": "cold"}]
        second = client.complete(history, tools=[weather_tool], stream=stream)
    assert second.text == "Done."
    sent = server.requests[1].body["messages"]
    assert sent[1] == {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_rt", "name": "get_weather", "input": arguments}]}
    assert sent[2] == {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_rt", "content": "cold"}]}


@pytest.mark.parametrize("stream", [False, True])
def test_usage_maps_cache_counters(client_for, stream):
    usage = {"input_tokens": 50, "output_tokens": 12, "cache_creation_input_tokens": 2000, "cache_read_input_tokens": 8000}
    with AnthropicServer([text_reply("ok", usage=usage)]) as server:
        response = client_for(server).complete(USER, stream=stream)
    assert response.usage == {"input_tokens": 50, "output_tokens": 12, "cache_read_tokens": 8000, "cache_write_tokens": 2000}
    assert response.prompt_tokens == 10050


@pytest.mark.parametrize(("stop", "expected"), [("end_turn", "stop"), ("max_tokens", "length"),
                                                ("stop_sequence", "stop"), ("refusal", "content_filter"),
                                                ("pause_turn", "pause_turn")])
def test_stop_reason_mapping(client_for, stop, expected):
    with AnthropicServer([text_reply("x", finish_reason=stop)]) as server:
        assert client_for(server).complete(USER).finish_reason == expected


def test_streamed_text_is_scrubbed_of_memory_fences(client_for):
    text = "Noted.\n<memory-context>\nsecret recall\n</memory-context>\nBye."
    chunks = ["Noted.\n<mem", "ory-context>\nsecret ", "recall\n</memory-context>", "\nBye."]
    deltas: list[str] = []
    with AnthropicServer([text_reply(text, chunks=chunks)]) as server:
        response = client_for(server).complete(USER, stream=True, on_text=deltas.append)
    assert "".join(deltas) == response.text == "Noted.\nBye."


def test_an_error_event_mid_stream_raises(client_for):
    with AnthropicServer([text_reply("half", stream_error="Overloaded")]) as server:
        with pytest.raises(ModelAPIError) as info:
            client_for(server).complete(USER, stream=True)
    assert "Overloaded" in str(info.value) and info.value.provider == "anthropic"


def test_every_middleware_runs_on_the_body_in_order(client_for):
    calls: list[str] = []

    def first(body):
        calls.append("first")
        return {**body, "metadata": {"user_id": "u1"}}

    def second(body):
        calls.append("second:" + body["metadata"]["user_id"])
        body["temperature"] = 0  # editing in place and returning None is allowed
        return None

    def broken(body):
        raise RuntimeError("plugin bug")

    with AnthropicServer([text_reply("ok")]) as server:
        client_for(server, request_middleware=[first, broken, second]).complete(USER)
    assert calls == ["first", "second:u1"]
    assert server.requests[0].body["metadata"] == {"user_id": "u1"} and server.requests[0].body["temperature"] == 0


def test_prompt_caching_middleware_marks_the_request_the_server_sees(client_for, plugin_manager, weather_tool):
    """The builtin prompt_caching plugin's anthropic_request middleware, loaded by a real manager."""
    manager = plugin_manager()
    middleware = manager.middleware["anthropic_request"]
    history = [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "snow"},
    ]
    with AnthropicServer([text_reply("ok")]) as server:
        client_for(server, request_middleware=middleware).complete(history, system="SYSTEM PROMPT", tools=[weather_tool])
    body = server.requests[0].body
    marker = {"type": "ephemeral"}
    assert body["system"] == [{"type": "text", "text": "SYSTEM PROMPT", "cache_control": marker}]
    marked = [i for i, m in enumerate(body["messages"]) if "cache_control" in json.dumps(m)]
    assert marked == [2, 3, 4]  # the last three messages (after tool results were merged: 5 messages)
    assert body["messages"][2]["content"] == [{"type": "text", "text": "second question", "cache_control": marker}]
    assert body["messages"][4]["content"][-1]["cache_control"] == marker
    assert "cache_control" not in json.dumps(body["messages"][:2])


def test_model_name_is_required():
    with pytest.raises(ValueError, match="model"):
        AnthropicMessagesClient("http://127.0.0.1:1")
