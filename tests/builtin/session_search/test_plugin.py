"""The builtin loads through the plugin manager, registers the tool, reads its config, and answers via dispatch."""

from __future__ import annotations

import json
import logging

import pytest

from hermes_core.testing_servers import OpenAIServer, text_reply
from hermes_plugins_builtin.session_search import TOOL_SCHEMA, SearchSettings


@pytest.fixture
def loaded(plugin_manager):
    """``loaded(config=None)`` -> a manager with every builtin; the tool's store is closed at teardown."""
    managers = []

    def build(config=None):
        manager = plugin_manager(config=config)
        managers.append(manager)
        return manager

    yield build
    for manager in managers:
        entry = manager.tools.get_entry("session_search")
        if entry is not None:
            entry.handler.__self__.close()


def test_the_builtin_registers_the_tool_in_its_own_toolset(loaded):
    manager = loaded()
    record = manager.get("session_search")
    assert record.candidate.source == "builtin" and record.loaded
    entry = manager.tools.get_entry("session_search")
    assert entry.toolset == "session_search" and entry.plugin == "session_search"
    assert manager.tools.toolsets()["session_search"] == ["session_search"]
    assert entry.schema == TOOL_SCHEMA
    assert entry.definition()["function"]["parameters"]["properties"]["limit"]["maximum"] == 5
    assert set(entry.schema["parameters"]["properties"]) == {"query", "role_filter", "limit"}
    assert entry.schema["parameters"]["required"] == []
    assert manager.auxiliary_tasks["session_search"]["defaults"]["max_concurrency"] == 3
    assert not entry.handler.__self__.is_open  # loading opens nothing


def test_the_tool_is_on_even_when_plugins_disabled_names_it(loaded):
    manager = loaded(config={"plugins": {"disabled": ["session_search"]}})
    assert "session_search" in manager.tools


def test_dispatch_searches_the_homes_state_db_and_excludes_the_callers_conversation(loaded, add_session):
    add_session("mine", [("user", "the flaky pytest fixture")], started_at=1_000)
    add_session("before", [("user", "a flaky pytest fixture again")], started_at=500)
    manager = loaded()
    answer = json.loads(manager.tools.dispatch("session_search", {"query": "flaky fixture"},
                                               session_id="mine", task_id="t1", tool_call_id="call_1"))
    assert [s["session_id"] for s in answer["sessions"]] == ["before"]
    assert answer["sessions"][0]["mode"] == "snippets"
    recent = json.loads(manager.tools.dispatch("session_search", {}, session_id="mine"))
    assert recent["mode"] == "recent" and [s["session_id"] for s in recent["sessions"]] == ["before"]


def test_dispatch_with_an_auxiliary_model_from_config_returns_summaries(loaded, add_session):
    add_session("s", [("user", "rust borrow checker fight"), ("assistant", "clone the Arc")], started_at=1_000)
    with OpenAIServer([text_reply("Cloning the Arc satisfied the borrow checker.")], api_key="key-1") as server:
        manager = loaded(config={"auxiliary": {"session_search": {
            "base_url": server.base_url, "model": "flash", "api_key": "key-1", "timeout": 5, "max_concurrency": 2}}})
        answer = json.loads(manager.tools.dispatch("session_search", {"query": "borrow checker"}, session_id="other"))
    (session,) = answer["sessions"]
    assert session["summary"] == "Cloning the Arc satisfied the borrow checker."
    assert server.requests[0].body["model"] == "flash" and server.requests[0].body["temperature"] == 0.1


def test_bad_arguments_through_dispatch_come_back_as_json(loaded):
    manager = loaded()
    answer = json.loads(manager.tools.dispatch("session_search", {"limit": "lots"}, session_id="x"))
    assert "limit" in answer["error"] and answer["hint"]


def test_settings_default_when_nothing_is_configured():
    assert SearchSettings.from_config({}) == SearchSettings(
        base_url="", model="", api_key="", timeout=60.0, max_concurrency=3, max_chars=100_000)
    assert not SearchSettings.from_config({}).summaries_enabled


def test_settings_read_every_key():
    config = {f"auxiliary.session_search.{k}": v for k, v in
              {"base_url": " http://h/v1 ", "model": "m", "api_key": "sk-secret", "timeout": "12.5", "max_concurrency": 4, "max_chars": 5_000}.items()}
    settings = SearchSettings.from_config(config)
    assert settings == SearchSettings(base_url="http://h/v1", model="m", api_key="sk-secret", timeout=12.5, max_concurrency=4, max_chars=5_000)
    assert settings.summaries_enabled
    assert "sk-secret" not in repr(settings)  # the key never shows in logs


@pytest.mark.parametrize(
    ("key", "value", "field", "expected"),
    [
        ("timeout", "soon", "timeout", 60.0),
        ("timeout", 0, "timeout", 60.0),
        ("max_concurrency", 0, "max_concurrency", 3),
        ("max_concurrency", "many", "max_concurrency", 3),
        ("max_concurrency", 12, "max_concurrency", 5),
        ("max_chars", 10, "max_chars", 100_000),
    ],
)
def test_a_bad_setting_is_logged_and_replaced(caplog, key, value, field, expected):
    with caplog.at_level(logging.WARNING):
        settings = SearchSettings.from_config({f"auxiliary.session_search.{key}": value})
    assert getattr(settings, field) == expected
    assert f"auxiliary.session_search.{key}" in caplog.text
