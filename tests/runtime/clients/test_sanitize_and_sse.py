"""sanitize_request (hook payloads carry no secrets) and the SSE framing both clients share."""

from __future__ import annotations

import copy

from hermes_core.models.clients import sanitize_request
from hermes_core.models.clients.sse import SSEEvent, iter_sse_events


def test_secrets_are_removed_and_the_original_is_untouched():
    body = {
        "model": "m",
        "max_tokens": 100,
        "api_key": "abc",
        "extra": {"Authorization": "Bearer 0123456789abcdef0123", "client_secret": "s", "input_tokens": 5},
        "messages": [{"role": "user", "content": "my key is sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA, keep it"}],
    }
    original = copy.deepcopy(body)
    clean = sanitize_request(body)
    assert body == original
    assert clean["api_key"] == "[REDACTED]"
    assert clean["extra"] == {"Authorization": "[REDACTED]", "client_secret": "[REDACTED]", "input_tokens": 5}
    assert clean["messages"][0]["content"] == "my key is [REDACTED], keep it"
    assert clean["max_tokens"] == 100 and clean["model"] == "m"


def test_assigned_credentials_in_text_are_redacted_and_the_name_kept():
    clean = sanitize_request({"content": "login with password=hunter2 and API_KEY: abc123, then run ls"})
    assert clean["content"] == "login with password=[REDACTED] and API_KEY: [REDACTED], then run ls"
    prose = {"content": "The secret: keep calm. Ratio 3:1, x=2"}
    assert sanitize_request(prose) == prose


def test_token_counters_and_tool_names_survive():
    body = {"usage": {"cache_read_tokens": 3, "output_tokens": 4}, "tools": [{"name": "refresh_token_rotation"}]}
    assert sanitize_request(body) == body


def test_sse_framing():
    lines = [
        ": keep-alive",
        "event: message_start",
        'data: {"a": 1}',
        "",
        "data: first line",
        "data:second line",
        "id: 7",
        "",
        "",
        "data: [DONE]",
    ]
    assert list(iter_sse_events(lines)) == [
        SSEEvent("message_start", '{"a": 1}'),
        SSEEvent("message", "first line\nsecond line"),
        SSEEvent("message", "[DONE]"),
    ]


def test_the_password_of_a_url_is_redacted_and_the_rest_kept():
    clean = sanitize_request({"content": "db at postgresql://hermes:hunter2@db.internal:5432/history, "
                                         "docs at https://example.com:8443/a?b=c"})
    assert clean["content"] == ("db at postgresql://hermes:[REDACTED]@db.internal:5432/history, "
                                "docs at https://example.com:8443/a?b=c")
