"""prompt_caching builtin: system_and_3 breakpoints, idempotence, copy discipline, config."""

from __future__ import annotations

import copy

import pytest

from hermes_plugins_builtin.prompt_caching import apply_system_and_3, cache_marker

EPHEMERAL = {"type": "ephemeral"}


def _conversation(n: int) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(n)]


def _marked_indexes(messages: list[dict]) -> list[int]:
    found = []
    for index, message in enumerate(messages):
        content = message.get("content")
        if "cache_control" in message or (isinstance(content, list) and any("cache_control" in p for p in content)):
            found.append(index)
    return found


def test_system_and_last_three_messages_are_marked():
    system, messages = apply_system_and_3("You are hermes.", _conversation(6))
    assert system == [{"type": "text", "text": "You are hermes.", "cache_control": EPHEMERAL}]
    assert _marked_indexes(messages) == [3, 4, 5]
    assert messages[5]["content"] == [{"type": "text", "text": "message 5", "cache_control": EPHEMERAL}]
    assert messages[0] == {"role": "user", "content": "message 0"}


def test_at_most_four_breakpoints_and_system_messages_are_skipped():
    conversation = _conversation(2) + [{"role": "system", "content": "note"}] + _conversation(2)
    system, messages = apply_system_and_3("sys", conversation)
    assert _marked_indexes(messages) == [1, 3, 4]
    assert 1 + len(_marked_indexes(messages)) == 4


def test_list_content_gets_the_marker_on_its_last_part_and_empty_content_on_the_message():
    conversation = [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image", "source": {}}]},
        {"role": "assistant", "content": ""},
    ]
    _, messages = apply_system_and_3(None, conversation)
    assert messages[0]["content"][-1]["cache_control"] == EPHEMERAL and "cache_control" not in messages[0]["content"][0]
    assert messages[1]["cache_control"] == EPHEMERAL


def test_idempotent_and_the_callers_objects_are_untouched():
    original = _conversation(8)
    snapshot = copy.deepcopy(original)
    system_once, once = apply_system_and_3("sys", original)
    system_twice, twice = apply_system_and_3(system_once, once)
    assert (system_twice, twice) == (system_once, once)
    assert original == snapshot
    assert once[0] is original[0]  # untouched messages are not copied
    # A later turn moves the breakpoints: stale markers are removed.
    later, moved = apply_system_and_3(system_once, once + _conversation(2))
    assert _marked_indexes(moved) == [7, 8, 9]


def test_one_hour_ttl_and_invalid_ttl():
    assert cache_marker("1h") == {"type": "ephemeral", "ttl": "1h"}
    with pytest.raises(ValueError, match="prompt_caching.cache_ttl"):
        cache_marker("10m")


def test_the_builtin_registers_its_middleware_and_honours_config(plugin_manager):
    manager = plugin_manager()
    record = manager.get("prompt_caching")
    assert record.candidate.source == "builtin" and record.loaded
    (middleware,) = manager.middleware["anthropic_request"]
    body = middleware({"system": "s", "messages": _conversation(2), "model": "claude"})
    assert body["model"] == "claude" and _marked_indexes(body["messages"]) == [0, 1]
    off = plugin_manager(config={"prompt_caching": {"enabled": False}})
    (disabled,) = off.middleware["anthropic_request"]
    assert disabled({"system": "s", "messages": _conversation(2)})["system"] == "s"
    broken = _programmatic(manager.home, {"prompt_caching": {"cache_ttl": "2d"}}, strict=False)
    assert "prompt_caching.cache_ttl" in broken.get("prompt_caching").error


def _programmatic(hermes_home, settings, strict=True):
    """A manager given its config by a program: config.yaml itself refuses such values on load."""
    from hermes_core.config import DEFAULT_CONFIG, Config, deep_merge
    from hermes_core.manager import PluginManager

    manager = PluginManager(home=hermes_home, config=Config(deep_merge(DEFAULT_CONFIG, settings)), strict=strict)
    manager.load_all()
    return manager
