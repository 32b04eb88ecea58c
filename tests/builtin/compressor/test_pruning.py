"""The first step: old bulky tool outputs are cleared, and when that is enough nothing is summarised."""

from __future__ import annotations

from hermes_plugins_builtin.compressor import Compressor, estimate_messages_tokens, split_summary
from hermes_plugins_builtin.compressor.pruning import CLEARED_MARKER


def _agent_session(conversation, chatter: str = ""):
    c = conversation().system("sys").user("Find why the nightly build fails.").assistant("Looking.")
    c.tool_round("terminal", {"command": "make nightly"}, "make: *** [build] Error 2\n" + "log line\n" * 300)
    c.assistant("The build log is long." + chatter).user("Check the config too." + chatter)
    c.tool_round("read_file", {"path": "ci/nightly.yaml"}, "short config")
    c.tool_round("read_file", {"path": "ci/big.yaml"}, "k: v\n" * 400)
    c.assistant("Found it." + chatter).user("Fix it." + chatter)
    c.tool_round("terminal", {"command": "make nightly"}, "ok\n" * 300)  # bulky, but inside the tail
    c.assistant("Fixed.").user("Thanks.").assistant("You're welcome.")
    return c.messages


def _cleared(messages):
    return [m for m in messages if m["role"] == "tool" and m["content"].startswith(CLEARED_MARKER)]


def test_clearing_old_tool_output_is_enough_so_nothing_is_summarised(conversation):
    messages = _agent_session(conversation)
    before = estimate_messages_tokens(messages)
    engine = Compressor(context_length=int(before / 0.75) + 10)  # threshold just above the estimate
    result = engine.compress(messages, current_tokens=engine.threshold_tokens + 5)
    assert engine.last_action == "pruned" and engine.prune_count == 1 and engine.compression_count == 0
    assert engine.last_summary is None and not any(split_summary(m)[0] for m in result)
    assert len(result) == len(messages)
    cleared = _cleared(result)
    assert len(cleared) == 2 and "characters were removed" in cleared[0]["content"]
    assert [m["tool_call_id"] for m in cleared] == ["call_1", "call_3"]
    # Short outputs stay, and so does the bulky output inside the protected tail.
    assert any(m.get("content") == "short config" for m in result)
    assert result[-4] == messages[-4] and result[-4]["content"].startswith("ok\n")
    assert estimate_messages_tokens(result) < before


def test_when_clearing_is_not_enough_the_middle_is_summarised_from_the_uncleared_turns(conversation):
    messages = _agent_session(conversation, chatter=" " + "words " * 400)
    engine = Compressor(context_length=2_000)
    result = engine.compress(messages)  # the estimate stays far above the threshold after clearing
    assert engine.last_action == "summarized" and engine.compression_count == 1
    body = engine.last_summary
    assert body is not None and sum(1 for m in result if split_summary(m)[0]) == 1
    # The error text was in an output the pruning cleared; the summary still records it.
    assert "terminal: make: *** [build] Error 2" in body
    assert "ci/nightly.yaml" in body and "Command run: make nightly" in body


def test_force_summarises_even_when_clearing_would_be_enough(conversation):
    messages = _agent_session(conversation)
    engine = Compressor(context_length=10**6)
    engine.compress(messages, force=True)
    assert engine.last_action == "summarized"


def test_cleared_outputs_are_not_cleared_twice(conversation):
    messages = _agent_session(conversation)
    engine = Compressor(context_length=int(estimate_messages_tokens(messages) / 0.75) + 10)
    once = engine.compress(messages, current_tokens=engine.threshold_tokens + 5)
    notes = [m["content"] for m in _cleared(once)]
    twice = engine.compress(once, current_tokens=engine.threshold_tokens + 5)
    # Nothing left to clear, so this time the middle is summarised instead.
    assert engine.last_action == "summarized" and engine.prune_count == 1
    assert all(note in notes for note in (m["content"] for m in _cleared(twice)))
