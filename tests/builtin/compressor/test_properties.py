"""Property tests over random conversations: tool calls and results stay paired through any compression."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_plugins_builtin.compressor import CompressionSettings, Compressor, split_summary

_TEXT = st.text(alphabet="abc xyz/.:-\n", min_size=0, max_size=40)
_SIZE = st.sampled_from([0, 5, 150, 250, 900])


@st.composite
def _units(draw: Any, prefix: str) -> list[dict[str, Any]]:
    """One unit: a user message, an assistant message, or an assistant tool-call group with its results."""
    kind = draw(st.sampled_from(["user", "assistant", "tools", "tools"]))
    text = draw(_TEXT) + "w" * draw(_SIZE)
    if kind != "tools":
        text = "t" + text  # users and assistants say something; tool-calling messages may be empty
        if draw(st.booleans()):
            return [{"role": kind, "content": text}]
        return [{"role": kind, "content": [{"type": "text", "text": text}]}]
    count = draw(st.integers(min_value=1, max_value=3))
    ids = [f"{prefix}-{draw(st.uuids()).hex[:8]}-{n}" for n in range(count)]
    calls = [
        {"id": cid, "type": "function", "function": {"name": draw(st.sampled_from(["terminal", "read_file"])), "arguments": json.dumps({"path": "a/b.py"})}}
        for cid in ids
    ]
    order = draw(st.permutations(ids))  # results may come back in any order
    results = [{"role": "tool", "tool_call_id": cid, "content": draw(_TEXT) + "r" * draw(_SIZE)} for cid in order]
    return [{"role": "assistant", "content": text if draw(st.booleans()) else "", "tool_calls": calls}, *results]


@st.composite
def _conversation(draw: Any, prefix: str = "c", with_system: bool = True) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if with_system and draw(st.booleans()):
        messages.append({"role": "system", "content": "You are hermes."})
    for index in range(draw(st.integers(min_value=0, max_value=14))):
        messages.extend(draw(_units(f"{prefix}{index}")))
    return messages


_ENGINE = st.builds(
    lambda first, last, ratio, threshold, length: (CompressionSettings(protect_first_n=first, protect_last_n=last, target_ratio=ratio, threshold=threshold), length),
    st.integers(min_value=0, max_value=5),
    st.integers(min_value=0, max_value=8),
    st.sampled_from([0.05, 0.2, 0.5]),
    st.sampled_from([0.5, 0.75, 1.0]),
    st.sampled_from([0, 300, 2_000, 50_000]),
)


def assert_tool_pairs_intact(messages: list[dict[str, Any]]) -> None:
    """Every tool result follows the assistant message that called it; every call has exactly one result."""
    index = 0
    while index < len(messages):
        message = messages[index]
        assert message["role"] != "tool", f"tool result at {index} does not follow its call"
        wanted = sorted(call["id"] for call in message.get("tool_calls") or [])
        index += 1
        answered = []
        while index < len(messages) and messages[index]["role"] == "tool":
            answered.append(messages[index]["tool_call_id"])
            index += 1
        assert sorted(answered) == wanted, f"calls {wanted} answered by {answered}"


def assert_summary_well_placed(messages: list[dict[str, Any]]) -> None:
    summaries = [i for i, m in enumerate(messages) if split_summary(m)[0] is not None]
    assert len(summaries) <= 1
    for index in summaries:
        if split_summary(messages[index])[1] is None:  # a summary of its own, not merged into a user message
            role = messages[index]["role"]
            neighbours = messages[index - 1 : index] + messages[index + 1 : index + 2]
            assert all(n["role"] != role for n in neighbours)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=_conversation(), engine_setup=_ENGINE, force=st.booleans(), more=_conversation(prefix="m", with_system=False))
def test_compression_never_splits_a_tool_call_from_its_result(messages, engine_setup, force, more):
    engine_settings, context_length = engine_setup
    engine = Compressor(engine_settings, context_length=context_length)
    snapshot = copy.deepcopy(messages)
    result = engine.compress(messages, force=force)
    assert messages == snapshot
    assert_tool_pairs_intact(result)
    assert_summary_well_placed(result)
    if messages:
        # The newest message always survives, at most with the summary merged into it.
        assert split_summary(result[-1])[1] == messages[-1]
    if engine.last_action == "summarized":
        assert engine.last_summary and len(result) <= len(messages) + 1
    # The same input gives the same output: the offline summary has no hidden state or randomness.
    assert Compressor(engine_settings, context_length=context_length).compress(copy.deepcopy(messages), force=force) == result

    # Compress again after the conversation went on: the earlier summary is carried, never duplicated.
    again = engine.compress(result + more, force=True)
    assert_tool_pairs_intact(again)
    assert_summary_well_placed(again)
    if more:
        assert split_summary(again[-1])[1] == more[-1]
