"""The auxiliary summary model over real HTTP on 127.0.0.1, and the fallback when it fails or times out."""

from __future__ import annotations

import socket

import pytest

from hermes_plugins_builtin.compressor import (
    ChatCompletionsSummarizer,
    CompressionSettings,
    Compressor,
    SummaryModelError,
    split_summary,
)


def _settings(base_url: str, timeout: float = 30.0) -> CompressionSettings:
    return CompressionSettings(summary_base_url=base_url, summary_model="tiny-summarizer", summary_api_key="sk-test", summary_timeout=timeout)


def _messages(conversation):
    c = conversation().system("sys").user("Migrate the database.").assistant("Starting.")
    for index in range(5):
        c.user(f"migration {index}: alter table t{index}").assistant(f"done {index}")
    return c.messages


def _summary_body(messages):
    return next(body for body in (split_summary(m)[0] for m in messages) if body is not None)


def test_the_summary_comes_from_the_chat_completions_server(chat_server, conversation):
    chat_server.reply = "## Goal\n- migrate the database (model notes)"
    engine = Compressor(_settings(chat_server.base_url))
    result = engine.compress(_messages(conversation), memory_context="user works on postgres")
    assert _summary_body(result) == "## Goal\n- migrate the database (model notes)"
    assert engine.last_summary_source == "model" and engine.last_summary_error is None
    (request,) = chat_server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "tiny-summarizer" and body["temperature"] <= 0.2
    (prompt_message,) = body["messages"]
    prompt = prompt_message["content"]
    assert prompt_message["role"] == "user"
    assert "migration 0: alter table t0" in prompt and "user works on postgres" in prompt and "## Goal" in prompt


def test_an_http_error_falls_back_to_the_extractive_summary(chat_server, conversation):
    chat_server.mode = "error"
    engine = Compressor(_settings(chat_server.base_url))
    result = engine.compress(_messages(conversation))
    assert engine.last_summary_source == "extractive" and "HTTP 500" in engine.last_summary_error
    assert _summary_body(result) == _summary_body(Compressor().compress(_messages(conversation)))
    assert len(chat_server.requests) == 1


def test_an_answer_that_is_not_json_falls_back(chat_server, conversation):
    chat_server.mode = "garbage"
    engine = Compressor(_settings(chat_server.base_url))
    engine.compress(_messages(conversation))
    assert engine.last_summary_source == "extractive" and "JSON" in engine.last_summary_error


def test_a_timeout_falls_back_to_the_extractive_summary(chat_server, conversation):
    chat_server.mode = "hang"  # the server never answers; the client's timeout ends the wait
    engine = Compressor(_settings(chat_server.base_url, timeout=0.2))
    result = engine.compress(_messages(conversation))
    assert engine.last_summary_source == "extractive" and "Timeout" in engine.last_summary_error
    assert "Migrate the database." in _summary_body(result)


def test_an_unreachable_server_falls_back(conversation):
    # A socket that is bound but not listening: the port is ours, and every connection is refused.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        engine = Compressor(_settings(f"http://127.0.0.1:{closed.getsockname()[1]}/v1", timeout=5))
        engine.compress(_messages(conversation))
    assert engine.last_summary_source == "extractive" and "ConnectError" in engine.last_summary_error


def test_the_client_accepts_a_full_endpoint_url_and_rejects_an_empty_answer(chat_server):
    summarizer = ChatCompletionsSummarizer(base_url=chat_server.base_url + "/chat/completions", model="m")
    chat_server.reply = "notes"
    assert summarizer("prompt") == "notes"
    assert chat_server.requests[-1]["path"] == "/v1/chat/completions"
    assert "Authorization" not in chat_server.requests[-1]["headers"]  # no key configured, none sent
    chat_server.reply = ""
    with pytest.raises(SummaryModelError, match="empty"):
        summarizer("prompt")
    assert "api_key" not in repr(summarizer)
