"""client_from_config: config.yaml, environment and .env resolution, and the message when nothing is set."""

from __future__ import annotations

import pytest

from hermes_core.config import load_config, save_env_value
from hermes_core.models.clients import (
    AnthropicMessagesClient,
    ModelAPIError,
    OpenAIChatClient,
    client_from_config,
    resolve_model_settings,
)
from hermes_core.testing_servers import OpenAIServer, text_reply

_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HERMES_BASE_URL", "HERMES_MODEL")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in _VARS:
        monkeypatch.delenv(name, raising=False)


def test_nothing_configured_says_exactly_what_to_set(hermes_home):
    with pytest.raises(ModelAPIError) as info:
        client_from_config(load_config(hermes_home))
    message = str(info.value)
    assert info.value.reason == "not_configured"
    for hint in ("hermes config set model.name", "HERMES_MODEL", "model.base_url", "HERMES_BASE_URL",
                 "OPENAI_API_KEY", "model.provider anthropic", "ANTHROPIC_API_KEY"):
        assert hint in message


def test_a_local_server_needs_only_name_and_base_url(hermes_home):
    with OpenAIServer([text_reply("local hello")]) as server:
        config = {"model": {"name": "qwen2.5", "base_url": server.base_url}}
        with client_from_config(config) as client:
            assert isinstance(client, OpenAIChatClient)
            assert client.complete([{"role": "user", "content": "hi"}]).text == "local hello"
    assert "authorization" not in server.requests[0].headers


def test_environment_fallbacks(monkeypatch):
    monkeypatch.setenv("HERMES_MODEL", "env-model")
    monkeypatch.setenv("HERMES_BASE_URL", "http://127.0.0.1:9999/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    settings = resolve_model_settings({})
    assert (settings.provider, settings.model, settings.base_url, settings.api_key) == (
        "openai", "env-model", "http://127.0.0.1:9999/v1", "sk-env")
    assert "sk-env" not in repr(settings)


def test_arguments_beat_config_and_config_beats_env(monkeypatch):
    monkeypatch.setenv("HERMES_MODEL", "env-model")
    config = {"model": {"name": "config-model", "base_url": "http://127.0.0.1:1/v1"}}
    assert resolve_model_settings(config).model == "config-model"
    settings = resolve_model_settings(config, model="cli-model", base_url="http://127.0.0.1:2/v1")
    assert (settings.model, settings.base_url) == ("cli-model", "http://127.0.0.1:2/v1")


def test_model_may_be_a_plain_string():
    assert resolve_model_settings({"model": "llama"}, base_url="http://127.0.0.1:1/v1").model == "llama"


def test_anthropic_from_config_gets_the_middleware(hermes_home, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    marker = []
    config = load_config(hermes_home, overrides={"model.provider": "anthropic", "model.name": "claude-sonnet-4-5",
                                                 "model.timeout": 5, "model.max_retries": 1})
    client = client_from_config(config, request_middleware=[marker.append])
    try:
        assert isinstance(client, AnthropicMessagesClient)
        assert client.base_url == "https://api.anthropic.com" and client.timeout == 5.0
        assert client.retry.max_retries == 1 and client.request_middleware == (marker.append,)
    finally:
        client.close()


def test_provider_is_inferred_for_claude_models(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert resolve_model_settings({"model": {"name": "claude-haiku-4-5"}}).provider == "anthropic"
    # ...but a claude name behind an OpenAI-compatible proxy stays openai.
    assert resolve_model_settings({"model": {"name": "claude-x", "base_url": "http://127.0.0.1:4000/v1"}}).provider == "openai"


def test_hosted_api_without_a_key_names_the_variable():
    with pytest.raises(ModelAPIError) as info:
        resolve_model_settings({"model": {"name": "gpt-4o"}})
    assert "set OPENAI_API_KEY" in str(info.value) and "https://api.openai.com/v1" in str(info.value)


def test_key_from_the_hermes_env_file(hermes_home):
    save_env_value(hermes_home, "OPENAI_API_KEY", "sk-from-dotenv")
    assert resolve_model_settings({"model": {"name": "gpt-4o"}}).api_key == "sk-from-dotenv"


def test_key_from_config_wins():
    settings = resolve_model_settings({"model": {"name": "gpt-4o", "api_key": "sk-config"}}, env={"OPENAI_API_KEY": "sk-env"})
    assert settings.api_key == "sk-config"


@pytest.mark.parametrize(("config", "fragment"), [
    ({"model": {"name": "m", "provider": "gemini"}}, "one of openai, anthropic"),
    ({"model": {"name": "m", "base_url": "http://127.0.0.1:1/v1", "timeout": "soon"}}, "model.timeout"),
])
def test_bad_settings_are_reported(config, fragment):
    with pytest.raises(ModelAPIError, match=fragment):
        resolve_model_settings(config)
