"""prompt_caching strategies: turn_anchored placement, equality with system_and_3 inside a turn, config, cache effect."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from hermes_core.testing_servers import PrefixCache
from hermes_plugins_builtin.prompt_caching import STRATEGIES, apply_system_and_3, apply_turn_anchored, get_strategy
from hermes_plugins_builtin.prompt_caching.policies import DEFAULT_STRATEGY, is_turn_start, turn_anchored_targets

EPHEMERAL = {"type": "ephemeral"}


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _tool_round(turn: int, index: int) -> list[dict[str, Any]]:
    call_id = f"toolu_{turn}_{index}"
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "read_file", "input": {"path": f"f{index}.py"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": f"contents of f{index}.py " * 8}]},
    ]


def _turn(turn: int, calls: int, *, recalled: str = "") -> list[dict[str, Any]]:
    """One finished turn in Anthropic shape; ``recalled`` is context added to the user message's API copy."""
    text = f"question {turn}: what does module {turn} do?"
    messages = [_user(f"{text}\n\n{recalled}" if recalled else text)]
    for index in range(calls):
        messages += _tool_round(turn, index)
    messages.append({"role": "assistant", "content": f"answer {turn}: it cleans readings. " * 6})
    return messages


def _marked(messages: list[dict[str, Any]]) -> list[int]:
    found = []
    for index, message in enumerate(messages):
        content = message.get("content")
        if "cache_control" in message or (isinstance(content, list) and any("cache_control" in part for part in content)):
            found.append(index)
    return found


def test_turn_starts_are_user_messages_without_tool_results():
    assert is_turn_start(_user("hi"))
    assert is_turn_start({"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image", "source": {}}]})
    assert not is_turn_start(_tool_round(1, 0)[1])
    assert not is_turn_start({"role": "assistant", "content": "hello"})


def test_inside_a_turn_it_marks_exactly_what_system_and_3_marks():
    conversation = _turn(1, 1) + _turn(2, 0) + [_user("question 3")] + _tool_round(3, 0) + _tool_round(3, 1)
    assert _marked(apply_turn_anchored("sys", conversation)[1]) == _marked(apply_system_and_3("sys", conversation)[1])
    assert apply_turn_anchored("sys", conversation) == apply_system_and_3("sys", conversation)


def test_a_new_turn_moves_the_third_mark_to_the_message_before_the_previous_user_turn():
    conversation = _turn(1, 2) + _turn(2, 3) + [_user("question 3")]
    previous_user = len(_turn(1, 2))
    system, messages = apply_turn_anchored("sys", conversation)
    assert system == [{"type": "text", "text": "sys", "cache_control": EPHEMERAL}]
    assert _marked(messages) == [previous_user - 1, len(conversation) - 2, len(conversation) - 1]
    assert turn_anchored_targets(conversation, 3) == [previous_user - 1, len(conversation) - 2, len(conversation) - 1]


def test_the_first_turns_fall_back_to_system_and_3():
    for conversation in ([_user("q1")], _turn(1, 0) + [_user("q2")], _turn(1, 3) + [_user("q2")]):
        assert apply_turn_anchored("sys", conversation) == apply_system_and_3("sys", conversation)


def test_at_most_four_breakpoints_with_or_without_a_system_prompt():
    conversation = _turn(1, 1) + _turn(2, 2) + [_user("q3")]
    for system in ("sys", None):
        marked_system, messages = apply_turn_anchored(system, conversation)
        system_marks = 1 if isinstance(marked_system, list) else 0
        assert system_marks + len(_marked(messages)) == (4 if system else 3)


def test_idempotent_copies_only_what_it_marks_and_leaves_the_caller_alone():
    conversation = _turn(1, 1) + _turn(2, 2) + [_user("q3")]
    snapshot = copy.deepcopy(conversation)
    system_once, once = apply_turn_anchored("sys", conversation)
    assert apply_turn_anchored(system_once, once) == (system_once, once)
    assert conversation == snapshot
    untouched = set(range(len(conversation))) - set(_marked(once))
    assert all(once[index] is conversation[index] for index in untouched)
    # The next request of the turn: the anchor's marker is removed again.
    later = once + _tool_round(3, 0)
    assert _marked(apply_turn_anchored(system_once, later)[1]) == [len(later) - 3, len(later) - 2, len(later) - 1]


SYSTEM = "You are a careful assistant. " * 40
SYSTEM_TOKENS = len(SYSTEM) // 4  # the cache's estimate: 4 characters a token


def _body(system: str, messages: list[dict[str, Any]], strategy: str) -> dict[str, Any]:
    marked_system, marked = get_strategy(strategy)(system, messages, "5m")
    return {"model": "m", "system": marked_system, "messages": marked}


def _replay(strategy: str, calls_in_turn_2: int) -> dict[str, int]:
    """Turns 1-2 as sent (turn 2 with recalled context on its user message), then turn 3's first request,
    where turn 2's user message is replayed without that context. Returns turn 3's usage."""
    cache = PrefixCache(min_tokens=0)
    system = SYSTEM
    turn_1 = _turn(1, 3)
    recalled = "<memory-context>recalled notes about module 2</memory-context>"
    sent_2 = _turn(2, calls_in_turn_2, recalled=recalled)
    # Every request of turns 1 and 2, in order, as the runtime sends them.
    for upto in range(1, len(turn_1) + 1):
        if turn_1[upto - 1]["role"] == "user":
            cache.process(_body(system, turn_1[:upto], strategy))
    for upto in range(1, len(sent_2) + 1):
        if sent_2[upto - 1]["role"] == "user":
            cache.process(_body(system, turn_1 + sent_2[:upto], strategy))
    replayed_2 = _turn(2, calls_in_turn_2)
    return cache.process(_body(system, turn_1 + replayed_2 + [_user("question 3")], strategy))


def test_after_a_long_decorated_turn_system_and_3_loses_the_conversation_and_turn_anchored_keeps_it():
    short_s3, short_anchored = _replay("system_and_3", 2), _replay("turn_anchored", 2)
    # A short turn: the provider's lookback bridges it; both read through the end of turn 1.
    assert short_s3["cache_read_input_tokens"] == short_anchored["cache_read_input_tokens"]
    long_s3, long_anchored = _replay("system_and_3", 12), _replay("turn_anchored", 12)
    # Twelve tool calls: more than 20 blocks between turn 1's end and system_and_3's breakpoints, so
    # only the system prompt is read and all of turns 1 and 2 are written again.
    assert long_s3["cache_read_input_tokens"] == SYSTEM_TOKENS
    assert long_anchored["cache_read_input_tokens"] == short_anchored["cache_read_input_tokens"] > SYSTEM_TOKENS
    assert sum(long_s3.values()) == sum(long_anchored.values())  # the same request; only the markers differ


def test_unknown_strategy_is_refused_with_the_config_key():
    assert DEFAULT_STRATEGY == "system_and_3" and set(STRATEGIES) == {"system_and_3", "turn_anchored"}
    with pytest.raises(ValueError, match="prompt_caching.strategy"):
        get_strategy("system_and_4")


def test_the_builtin_reads_prompt_caching_strategy(plugin_manager):
    conversation = _turn(1, 1) + _turn(2, 2) + [_user("q3")]
    default = plugin_manager()
    (middleware,) = default.middleware["anthropic_request"]
    assert _marked(middleware({"system": "s", "messages": conversation})["messages"]) == _marked(apply_system_and_3("s", conversation)[1])
    anchored = plugin_manager(config={"prompt_caching": {"strategy": "turn_anchored"}})
    (middleware,) = anchored.middleware["anthropic_request"]
    assert _marked(middleware({"system": "s", "messages": conversation})["messages"]) == _marked(apply_turn_anchored("s", conversation)[1])
    broken = _programmatic(default.home, {"prompt_caching": {"strategy": "everything"}}, strict=False)
    assert "prompt_caching.strategy" in broken.get("prompt_caching").error


def _programmatic(hermes_home, settings, strict=True):
    """A manager given its config by a program: config.yaml itself refuses such values on load."""
    from hermes_core.config import DEFAULT_CONFIG, Config, deep_merge
    from hermes_core.manager import PluginManager

    manager = PluginManager(home=hermes_home, config=Config(deep_merge(DEFAULT_CONFIG, settings)), strict=strict)
    manager.load_all()
    return manager
