"""What is protected: the first and last messages, whole tool-call groups, and the roles around the summary."""

from __future__ import annotations

import copy

from hermes_plugins_builtin.compressor import CompressionSettings, Compressor, repair_tool_pairs, split_summary
from hermes_plugins_builtin.compressor.groups import MISSING_RESULT_TEXT


def _summaries(messages):
    return [i for i, m in enumerate(messages) if split_summary(m)[0] is not None]


def _chat(conversation, pairs: int):
    c = conversation().system("You are hermes.").user("Build the report generator.").assistant("On it.")
    for index in range(pairs):
        c.user(f"question {index}").assistant(f"answer {index}")
    return c.messages


def test_first_three_and_last_six_messages_are_kept_verbatim(conversation):
    messages = _chat(conversation, 10)
    snapshot = copy.deepcopy(messages)
    result = Compressor().compress(messages)
    assert messages == snapshot  # the caller's list and dicts are untouched
    assert result[:3] == messages[:3] and result[0] is messages[0]
    # The tail would start with a user message right after the head's assistant message; it takes
    # one more message so that the summary (role user) sits between two assistant messages.
    assert result[4:] == messages[-7:]
    assert _summaries(result) == [3] and result[3]["role"] == "user"
    body = split_summary(result[3])[0]
    assert "Latest request: question 6" in body and "question 7" not in body  # the tail is not summarised


def test_configured_protection_counts(conversation):
    messages = _chat(conversation, 10)
    engine = Compressor(CompressionSettings(protect_first_n=1, protect_last_n=2))
    result = engine.compress(messages)
    assert result[0] == messages[0] and result[-2:] == messages[-2:]
    assert len(result) == 1 + 1 + 2 and result[1]["role"] == "assistant"  # between system and user


def test_leading_system_messages_are_always_in_the_head(conversation):
    messages = [{"role": "system", "content": "rules"}, {"role": "system", "content": "more rules"}] + _chat(conversation, 8)[1:]
    result = Compressor(CompressionSettings(protect_first_n=0, protect_last_n=2)).compress(messages)
    assert result[:2] == messages[:2]


def test_head_grows_to_keep_a_tool_group_whole(conversation):
    c = conversation().system("sys").user("goal")
    c.tool_round("read_file", {"path": "a.py"}, "short a", "short b")  # indexes 2, 3, 4
    for index in range(6):
        c.user(f"q{index}").assistant(f"a{index}")
    messages = c.messages
    result = Compressor(CompressionSettings(protect_first_n=3, protect_last_n=2)).compress(messages)
    assert result[:5] == messages[:5]  # protect_first_n=3 would have cut between the call and its results
    assert split_summary(result[5])[0] is not None


def test_tail_grows_back_to_the_call_of_a_protected_result(conversation):
    c = conversation().system("sys").user("goal").assistant("ok")
    for index in range(4):
        c.user(f"q{index}").assistant(f"a{index}")
    c.user("run it").tool_round("terminal", {"command": "make"}, "built", "tested", "packaged")
    messages = c.messages  # the last 2 messages are tool results of a 3-call group
    result = Compressor(CompressionSettings(protect_last_n=2)).compress(messages)
    assert result[-4:] == messages[-4:] and result[-4]["tool_calls"]


def test_an_oversized_tail_shrinks_but_keeps_the_last_user_message(conversation):
    c = conversation().system("sys").user("goal").assistant("ok")
    for index in range(4):
        c.user(f"q{index}").assistant(f"a{index}")
    c.user("the current request").assistant("y" * 4000).assistant("z" * 4000).user("thanks").assistant("x" * 4000)
    messages = c.messages
    # threshold 7,500 tokens, tail budget 1,500: the six protected messages cost far more, but the tail
    # can shrink only as far as the last user message.
    result = Compressor(context_length=10_000).compress(messages, force=True)
    assert result[-1] == messages[-1] and len(result) == 3 + 2
    # Between the head's assistant message and "thanks" no role is free, and taking one more message
    # back would break the budget: the summary rides on the user's message.
    assert split_summary(result[-2])[1] == {"role": "user", "content": "thanks"}
    assert all("y" * 1000 not in str(m.get("content")) and "z" * 1000 not in str(m.get("content")) for m in result)


def test_an_oversized_tail_never_gives_up_the_last_user_message(conversation):
    c = conversation().system("sys").user("goal").assistant("ok")
    for index in range(4):
        c.user(f"q{index}").assistant(f"a{index}")
    c.user("the current request").assistant("y" * 4000).assistant("z" * 4000)
    messages = c.messages
    result = Compressor(context_length=10_000).compress(messages, force=True)
    assert result[-2:] == messages[-2:]
    assert result[-3]["role"] == "user" and result[-3]["content"].endswith("\n\nthe current request")


def test_the_tail_keeps_its_six_messages_when_they_fit_the_budget(conversation):
    messages = _chat(conversation, 10)
    result = Compressor(context_length=100_000).compress(messages, force=True)
    assert result[-6:] == messages[-6:]


def test_summary_role_never_repeats_a_neighbour(conversation):
    for first_n, last_n in [(1, 2), (2, 2), (3, 2), (3, 3), (2, 1)]:
        messages = _chat(conversation, 8)
        result = Compressor(CompressionSettings(protect_first_n=first_n, protect_last_n=last_n)).compress(messages)
        assert len(_summaries(result)) == 1
        for left, right in zip(result, result[1:]):
            assert left["role"] != right["role"], (first_n, last_n)


def test_with_no_role_free_the_summary_merges_into_the_neighbouring_user_message(conversation):
    # assistant | one tool round | user: the middle is a single unit, so no boundary can move.
    c = conversation().system("sys").user("goal").assistant("ok")
    c.tool_round("read_file", {"path": "notes.txt"}, "the notes")
    c.user("what now?")
    messages = c.messages
    engine = Compressor(CompressionSettings(protect_last_n=1))
    result = engine.compress(messages)
    assert result[:3] == messages[:3] and len(result) == 4
    merged = result[3]
    assert merged["role"] == "user" and merged["content"].endswith("\n\nwhat now?")
    body, own = split_summary(merged)
    assert "notes.txt" in body and own == {"role": "user", "content": "what now?"}
    # The next compression takes the merged summary out again and carries it forward.
    c2 = conversation()
    c2.assistant("Let me check.").tool_round("terminal", {"command": "ls"}, "a b c").assistant("done").user("and now?")
    again = engine.compress(result + c2.messages)
    assert len(_summaries(again)) == 1 and again[-1] == {"role": "user", "content": "and now?"}
    summary_at = _summaries(again)[0]
    assert again[summary_at]["role"] == "user"
    new_body = split_summary(again[summary_at])[0]
    assert "notes.txt" in new_body and "Command run: ls" in new_body
    # The user's words that shared the old summary's message were in the middle this time: summarised.
    assert "Latest request: what now?" in new_body and again[summary_at + 1]["content"] == "done"


def test_nothing_to_summarise_returns_the_messages_unchanged(conversation):
    messages = _chat(conversation, 2)
    engine = Compressor()
    assert engine.compress(messages, force=True) == messages
    assert engine.last_action == "unchanged" and engine.compression_count == 0


def test_repair_drops_orphan_results_and_answers_calls_left_without_one():
    call = {"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    messages = [
        {"role": "tool", "tool_call_id": "zzz", "content": "orphan"},
        {"role": "assistant", "content": "", "tool_calls": [call, {**call, "id": "b"}]},
        {"role": "tool", "tool_call_id": "b", "content": "b done"},
        {"role": "tool", "tool_call_id": "b", "content": "duplicate"},
        {"role": "user", "content": "next"},
    ]
    repaired, changes = repair_tool_pairs(messages)
    assert [m.get("tool_call_id") for m in repaired] == [None, "b", "a", None]
    assert repaired[2]["content"] == MISSING_RESULT_TEXT and changes == 3


def test_repair_leaves_the_trailing_calls_alone_while_their_tools_run():
    call = {"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
    assert repair_tool_pairs(messages) == (messages, 0)
