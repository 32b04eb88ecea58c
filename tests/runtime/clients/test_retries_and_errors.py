"""Retries, timeouts and error messages, against real servers that fail on purpose."""

from __future__ import annotations

import pytest

from hermes_core.errors import HermesError
from hermes_core.models.clients import AnthropicMessagesClient, ModelAPIError, OpenAIChatClient
from hermes_core.models.clients.transport import RetryPolicy, parse_retry_after
from hermes_core.testing_servers import (
    AnthropicServer,
    OpenAIServer,
    disconnect_reply,
    error_reply,
    hang_reply,
    rate_limit_reply,
    raw_reply,
    text_reply,
)

USER = [{"role": "user", "content": "hi"}]


def openai(server_or_url, retry, **options) -> OpenAIChatClient:
    base_url = server_or_url if isinstance(server_or_url, str) else server_or_url.base_url
    options.setdefault("timeout", 10.0)  # generous: only the timeout tests want it short
    return OpenAIChatClient(base_url, "test-model", retry=retry, **options)


def test_429_with_retry_after_then_success(retry, waits):
    with OpenAIServer([rate_limit_reply(retry_after="1.5"), text_reply("ok")]) as server:
        with openai(server, retry) as client:
            response = client.complete(USER)
    assert response.text == "ok" and response.attempts == 2
    assert len(server.requests) == 2
    assert waits == [1.5]  # the server's Retry-After, not our own backoff


def test_5xx_are_retried_with_growing_backoff(retry, waits):
    script = [error_reply(500), error_reply(502), error_reply(503), text_reply("finally")]
    with OpenAIServer(script) as server:
        with openai(server, retry, max_retries=3) as client:
            response = client.complete(USER)
    assert response.text == "finally" and len(server.requests) == 4
    assert waits == [0.25, 0.5, 1.0]  # base 0.25 doubling; the fixture's jitter factor is 1.0


def test_retries_are_bounded(retry, waits):
    with AnthropicServer([error_reply(529, "Overloaded")] * 5) as server:
        with AnthropicMessagesClient(server.base_url, "claude-test", "k", 10.0, max_retries=2, retry=retry) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    error = info.value
    assert len(server.requests) == 3
    assert (error.status, error.reason, error.provider, error.attempts, error.retry_count) == (529, "server_error", "anthropic", 3, 2)
    assert "Overloaded" in str(error) and "after 3 attempts" in str(error)
    assert isinstance(error, HermesError)


def test_a_retry_after_beyond_the_wait_budget_is_not_waited_for(waits):
    policy = RetryPolicy(max_total_wait=10.0, sleep=waits.append)
    with OpenAIServer([rate_limit_reply(retry_after=3600), text_reply("never")]) as server:
        with openai(server, policy) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    assert len(server.requests) == 1 and waits == []
    assert info.value.reason == "rate_limited" and "3600" in str(info.value)


def test_jitter_spreads_the_backoff():
    low = RetryPolicy(backoff_base=1.0, random=lambda: 0.0)
    high = RetryPolicy(backoff_base=1.0, random=lambda: 0.999)
    assert low.backoff(2) == 2.0 and 3.99 < high.backoff(2) < 4.0
    assert RetryPolicy(backoff_base=1.0, backoff_max=5.0, random=lambda: 1.0).backoff(10) == 5.0


def test_retry_after_formats():
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470.0) == 10.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_client_errors_are_not_retried(retry):
    with OpenAIServer([error_reply(400, "messages: too long for context"), text_reply("never")]) as server:
        with openai(server, retry) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    assert len(server.requests) == 1
    assert info.value.reason == "bad_request" and "too long for context" in str(info.value)


def test_a_dropped_connection_is_retried(retry):
    with OpenAIServer([disconnect_reply(), text_reply("back")]) as server:
        with openai(server, retry) as client:
            assert client.complete(USER).text == "back"
    assert len(server.requests) == 2


def test_a_hung_server_times_out_with_a_clear_error(retry):
    with OpenAIServer([hang_reply(), text_reply("too late")]) as server:
        with openai(server, retry, timeout=0.3) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    error = info.value
    assert error.reason == "timeout" and error.status is None
    assert "0.3 s" in str(error) and "model.timeout" in str(error)
    # A read timeout is not retried: the server may still be generating, and a resend would double the cost.
    assert len(server.requests) == 1


def test_a_stream_that_stalls_times_out(retry):
    with AnthropicServer([hang_reply()]) as server:
        with AnthropicMessagesClient(server.base_url, "claude-test", "k", timeout=0.3, retry=retry) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER, stream=True)
    assert info.value.reason == "timeout"


def test_connection_refused_names_the_base_url(retry, waits, refused_base_url):
    with openai(refused_base_url, retry, max_retries=2) as client:
        with pytest.raises(ModelAPIError) as info:
            client.complete(USER)
    error = info.value
    assert error.reason == "connection" and error.attempts == 3 and len(waits) == 2
    assert f"is the server running at {refused_base_url}?" in str(error)
    assert "connection refused" in str(error)


@pytest.mark.parametrize(("server_class", "client_class", "key_env"), [
    (OpenAIServer, OpenAIChatClient, "OPENAI_API_KEY"),
    (AnthropicServer, AnthropicMessagesClient, "ANTHROPIC_API_KEY"),
])
def test_401_tells_which_key_to_check(retry, server_class, client_class, key_env):
    with server_class([text_reply("never")], api_key="right") as server:
        with client_class(server.base_url, "m", "wrong", 10.0, retry=retry) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    error = info.value
    assert (error.status, error.reason, error.retryable) == (401, "auth", False)
    assert f"check the API key: set {key_env}" in str(error)
    assert len(server.requests) == 1
    assert server.replies_left == 1  # refused before the script was consulted


def test_404_points_at_model_name_and_base_url(retry):
    with OpenAIServer([text_reply("never")], models=["llama-3"]) as server:
        with openai(server, retry) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    message = str(info.value)
    assert info.value.status == 404 and info.value.reason == "not_found"
    assert "model.name ('test-model')" in message and f"model.base_url ({server.base_url!r})" in message
    assert "does not exist" in message  # the server's own words are kept


def test_a_base_url_without_the_version_gets_a_404_hint(retry):
    with OpenAIServer([text_reply("never")]) as server:
        with openai(server.origin, retry) as client:  # forgot the /v1
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    assert "ending in /v1" in str(info.value)


def test_a_body_that_is_not_the_protocol_is_reported(retry):
    with OpenAIServer([raw_reply(200, "<html>proxy login</html>", content_type="text/html"),
                       raw_reply(200, '{"object": "list"}')]) as server:
        with openai(server, retry) as client:
            with pytest.raises(ModelAPIError, match="not JSON"):
                client.complete(USER)
            with pytest.raises(ModelAPIError, match="no 'choices'") as info:
                client.complete(USER)
    assert info.value.reason == "bad_response"


def test_an_exhausted_script_says_so(retry):
    with OpenAIServer([]) as server:
        with openai(server, retry) as client:
            with pytest.raises(ModelAPIError, match="no reply left for request #1"):
                client.complete(USER)


def test_an_anthropic_base_url_with_the_version_gets_its_own_hint(retry):
    with AnthropicServer([text_reply("never")]) as server:
        with AnthropicMessagesClient(server.base_url + "/v1", "claude-test", "k", 10.0, retry=retry) as client:
            with pytest.raises(ModelAPIError) as info:
                client.complete(USER)
    assert info.value.status == 404 and "without /v1" in str(info.value)
