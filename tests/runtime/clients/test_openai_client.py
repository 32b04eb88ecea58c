"""OpenAIChatClient against a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from hermes_core.models.clients import ModelAPIError, ModelClient, OpenAIChatClient
from hermes_core.testing_servers import OpenAIServer, ToolCall, text_reply, tool_call_reply, tool_calls_reply

USER = [{"role": "user", "content": "What's the weather in Paris?"}]


@pytest.fixture
def client_for(retry):
    clients: list[OpenAIChatClient] = []

    def make(server: OpenAIServer, **options) -> OpenAIChatClient:
        options.setdefault("timeout", 1.0)
        options.setdefault("retry", retry)
        client = OpenAIChatClient(server.base_url, "test-model", **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def test_the_client_satisfies_the_protocol(client_for):
    with OpenAIServer() as server:
        assert isinstance(client_for(server), ModelClient)


def test_text_reply_and_request_shape(client_for, weather_tool):
    with OpenAIServer([text_reply("Hello there.")], api_key="sk-test-key-0123456789abcdef") as server:
        client = client_for(server, api_key="sk-test-key-0123456789abcdef")
        response = client.complete(USER, tools=[weather_tool], system="You are terse.", max_tokens=50)
    assert response.text == "Hello there."
    assert response.tool_calls == []
    assert response.finish_reason == "stop"
    assert response.response_model == "test-model"
    body = server.requests[0].body
    assert body["model"] == "test-model"
    assert body["messages"] == [{"role": "system", "content": "You are terse."}, *USER]
    assert body["tools"] == [weather_tool]
    assert body["max_tokens"] == 50
    assert "stream" not in body
    assert server.requests[0].headers["authorization"] == "Bearer sk-test-key-0123456789abcdef"
    # The hook copy of the request has the body, never the key.
    assert response.request["body"] == body
    assert "sk-test" not in json.dumps(response.request) + json.dumps(response.raw)


def test_stored_message_fields_are_not_sent(client_for):
    stored = [{"role": "user", "content": "hi", "timestamp": 1.0, "token_count": 3, "reasoning": None}]
    with OpenAIServer([text_reply("ok")]) as server:
        client_for(server).complete(stored)
    assert server.requests[0].body["messages"] == [{"role": "user", "content": "hi"}]


def test_max_tokens_param_and_extra_body(client_for):
    with OpenAIServer([text_reply("ok")]) as server:
        client = client_for(server, max_tokens_param="max_completion_tokens", extra_body={"temperature": 0.2})
        client.complete(USER, max_tokens=7)
    body = server.requests[0].body
    assert body["max_completion_tokens"] == 7 and "max_tokens" not in body
    assert body["temperature"] == 0.2


@pytest.mark.parametrize("stream", [False, True])
def test_tool_calls_come_back_in_openai_format(client_for, weather_tool, stream):
    reply = tool_calls_reply(
        ToolCall("get_weather", {"city": "Paris"}, id="call_a"),
        ToolCall("get_weather", {"city": "Lyon", "units": "metric"}, id="call_b"),
        text="Checking both.",
    )
    with OpenAIServer([reply]) as server:
        response = client_for(server).complete(USER, tools=[weather_tool], stream=stream)
    assert response.finish_reason == "tool_calls"
    assert response.text == "Checking both."
    assert response.tool_calls == [
        {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "call_b", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Lyon", "units": "metric"}'}},
    ]
    assert response.assistant_message() == {"role": "assistant", "content": "Checking both.", "tool_calls": response.tool_calls}


def test_a_tool_turn_round_trips_through_the_server(client_for, weather_tool):
    """The assistant message and tool result built from a response are accepted by a validating server."""
    with OpenAIServer([tool_call_reply("get_weather", {"city": "Paris"}), text_reply("Sunny.")]) as server:
        client = client_for(server)
        first = client.complete(USER, tools=[weather_tool])
        history = [*USER, first.assistant_message(),
                   {"role": "tool", "tool_call_id": first.tool_calls[0]["id"], "content": '{"sky": "clear"}'}]
        second = client.complete(history, tools=[weather_tool])
    assert second.text == "Sunny."
    sent = server.requests[1].body["messages"]
    assert sent[1]["tool_calls"][0]["id"] == sent[2]["tool_call_id"] == first.tool_calls[0]["id"]


def test_streaming_passes_deltas_to_on_text_and_assembles(client_for):
    chunks = ["Hel", "lo, ", "wor", "ld!"]
    deltas: list[str] = []
    with OpenAIServer([text_reply("Hello, world!", chunks=chunks)]) as server:
        response = client_for(server).complete(USER, stream=True, on_text=deltas.append)
    assert "".join(deltas) == response.text == "Hello, world!"
    assert len(deltas) >= 2  # really streamed, not one lump at the end
    body = server.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert response.raw["choices"][0]["message"]["content"] == "Hello, world!"


def test_streamed_usage_comes_from_the_final_chunk(client_for):
    usage = {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240,
             "prompt_tokens_details": {"cached_tokens": 1024},
             "completion_tokens_details": {"reasoning_tokens": 12}}
    with OpenAIServer([text_reply("ok", usage=usage)]) as server:
        response = client_for(server).complete(USER, stream=True)
    assert response.usage == {"input_tokens": 176, "output_tokens": 40, "cache_read_tokens": 1024,
                              "cache_write_tokens": 0, "reasoning_tokens": 12}
    assert response.prompt_tokens == 1200


def test_stream_without_usage_option(client_for):
    with OpenAIServer([text_reply("ok")]) as server:
        response = client_for(server, stream_usage=False).complete(USER, stream=True)
    assert "stream_options" not in server.requests[0].body
    assert response.usage["input_tokens"] == 0 and response.text == "ok"


def test_non_streamed_usage_mapping(client_for):
    usage = {"prompt_tokens": 500, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 300}}
    with OpenAIServer([text_reply("ok", usage=usage)]) as server:
        response = client_for(server).complete(USER)
    assert response.usage == {"input_tokens": 200, "output_tokens": 20, "cache_read_tokens": 300, "cache_write_tokens": 0}


FENCE = "<memory-context>\n[System note: recalled]\nUser likes tea.\n</memory-context>\n"


def test_an_echoed_memory_fence_never_reaches_on_text_or_the_text(client_for):
    text = "Sure.\n" + FENCE + "Tea it is."
    # Cut inside the tags, so the scrubber has to hold text back across deltas.
    chunks = ["Sure.\n<memo", "ry-con", "text>\n[System note: recalled]\nUser li", "kes tea.\n</memory-", "context>\nTea", " it is."]
    deltas: list[str] = []
    with OpenAIServer([text_reply(text, chunks=chunks)]) as server:
        response = client_for(server).complete(USER, stream=True, on_text=deltas.append)
    shown = "".join(deltas)
    assert shown == response.text == "Sure.\nTea it is."
    assert "memory-context" not in shown and "tea." not in shown.lower().replace("tea it is.", "")


def test_a_non_streamed_reply_is_scrubbed_the_same_way(client_for):
    with OpenAIServer([text_reply("Sure.\n" + FENCE + "Tea it is.")]) as server:
        response = client_for(server).complete(USER)
    assert response.text == "Sure.\nTea it is."


def test_prose_mentioning_the_tag_is_left_alone(client_for):
    text = "The tag <memory-context> marks recalled memory."
    with OpenAIServer([text_reply(text)]) as server:
        response = client_for(server).complete(USER, stream=True)
    assert response.text == text


def test_an_error_inside_the_stream_raises(client_for):
    deltas: list[str] = []
    with OpenAIServer([text_reply("partial answer", stream_error="backend crashed")]) as server:
        with pytest.raises(ModelAPIError) as info:
            client_for(server).complete(USER, stream=True, on_text=deltas.append)
    assert "backend crashed" in str(info.value)
    assert "".join(deltas) == "partial answer"
    assert len(server.requests) == 1  # text was already shown: not retried


def test_on_request_sees_the_sanitized_request_before_sending(client_for):
    seen: list[dict] = []
    with OpenAIServer([text_reply("ok")]) as server:
        client = client_for(server, api_key="sk-live-abcdefghijklmnop1234", extra_body={"api_key": "sk-live-abcdefghijklmnop1234"})
        client.complete(USER, on_request=lambda record: seen.append((record, len(server.requests))))
    record, requests_before = seen[0]
    assert requests_before == 0
    assert record["method"] == "POST" and record["url"] == f"{server.base_url}/chat/completions"
    assert record["body"]["api_key"] == "[REDACTED]"
    assert server.requests[0].body["api_key"] == "sk-live-abcdefghijklmnop1234"
