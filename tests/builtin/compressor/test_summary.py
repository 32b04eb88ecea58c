"""The summary: its markers and sections, carried forward across compressions, and the offline extractive path."""

from __future__ import annotations

import copy

from hermes_plugins_builtin.compressor import (
    END_MARKER,
    SUMMARY_PREFIX,
    Compressor,
    extractive_summary,
    split_summary,
)
from hermes_plugins_builtin.compressor.extractive import BULLET_CHARS
from hermes_plugins_builtin.compressor.summary_message import SECTIONS

HEADINGS = [f"{'#' * level} {title}" for level, title in SECTIONS]


class RecordingSummarizer:
    """Stands in for the summary model: records each prompt and answers with numbered notes."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return f"## Goal\n- notes number {len(self.prompts)}"


def _session(conversation, topic: str, rounds: int = 5):
    c = conversation().system("sys").user(f"Work on {topic}.").assistant("Sure.")
    for index in range(rounds):
        c.user(f"{topic} step {index}: edit src/{topic}_{index}.py").assistant(f"{topic} step {index} finished.")
    return c


def _summary_message(messages):
    (found,) = [m for m in messages if split_summary(m)[0] is not None]
    return found


def test_summary_message_has_the_prefix_the_body_and_the_end_marker(conversation):
    messages = _session(conversation, "parser").messages
    result = Compressor(summarize=RecordingSummarizer()).compress(messages)
    content = _summary_message(result)["content"]
    assert content.startswith(SUMMARY_PREFIX) and content.endswith(END_MARKER)
    assert "REFERENCE ONLY" in SUMMARY_PREFIX and "notes number 1" in content
    assert split_summary(_summary_message(result))[0] == "## Goal\n- notes number 1"


def test_the_previous_summary_is_input_to_the_next_one(conversation):
    summarizer = RecordingSummarizer()
    engine = Compressor(summarize=summarizer)
    first = engine.compress(_session(conversation, "parser").messages)
    later = _session(conversation, "lexer").messages[3:]
    second = engine.compress(first + later)
    assert len(summarizer.prompts) == 2
    assert "EARLIER NOTES" not in summarizer.prompts[0]
    assert "EARLIER NOTES" in summarizer.prompts[1] and "notes number 1" in summarizer.prompts[1]
    # The old summary is not summarised as a turn, and only the new summary remains.
    assert SUMMARY_PREFIX not in summarizer.prompts[1]
    assert split_summary(_summary_message(second))[0] == "## Goal\n- notes number 2"
    assert engine.compression_count == 2 and engine.last_summary == "## Goal\n- notes number 2"


def test_the_extractive_summary_carries_earlier_facts_forward(conversation):
    engine = Compressor()
    first = engine.compress(_session(conversation, "parser").messages)
    assert "src/parser_0.py" in engine.last_summary
    (current,) = [line for line in engine.last_summary.splitlines() if line.startswith("- Latest request: ")]
    later = _session(conversation, "lexer").messages[3:]
    engine.compress(first + later)
    second = engine.last_summary
    # What was the current request then is history now.
    assert "- Earlier request: " + current.removeprefix("- Latest request: ") in second
    assert current not in second
    assert "src/parser_0.py" in second and "src/lexer_0.py" in second  # old and new files both listed
    assert "- Work on parser." in second  # the goal is kept, not replaced by the newer requests


def test_memory_context_and_focus_join_the_prompt(conversation):
    summarizer = RecordingSummarizer()
    messages = _session(conversation, "parser").messages
    Compressor(summarize=summarizer).compress(
        messages, memory_context="The user prefers tabs.\n<memory-context>fenced</memory-context>", focus_topic="error handling"
    )
    prompt = summarizer.prompts[0]
    assert "The user prefers tabs." in prompt and "fenced" not in prompt  # fences are stripped from provider text
    assert "FOCUS" in prompt and "error handling" in prompt
    assert "parser step 0: edit src/parser_0.py" in prompt  # the turns themselves
    assert "parser step 4" not in prompt  # the protected tail is not sent
    for heading in HEADINGS:
        assert heading in prompt


def test_extractive_summary_is_deterministic_and_fills_every_section(conversation):
    messages = _session(conversation, "parser").messages
    c = conversation()
    c.user("Please never push to main and always run the tests first.").assistant("Understood. I decided to use a branch.")
    c.tool_round("terminal", {"command": "pytest -q tests/test_parser.py"}, "1 failed: AssertionError in test_parse")
    c.assistant("Next I will fix test_parse in parser/core.py.").user("ok")
    messages = messages[:3] + c.messages + messages[3:]
    results = [Compressor().compress(copy.deepcopy(messages)) for _ in range(2)]
    assert results[0] == results[1]
    body = split_summary(_summary_message(results[0]))[0]
    positions = [body.index(heading + "\n") for heading in HEADINGS]
    assert positions == sorted(positions)
    assert "- Please never push to main and always run the tests first." in body  # a constraint
    assert "- I decided to use a branch." in body  # a decision
    assert "terminal: 1 failed: AssertionError in test_parse" in body  # blocked
    assert "Command run: pytest -q tests/test_parser.py" in body
    assert "- parser/core.py" in body and "- tests/test_parser.py" in body
    assert "- Next I will fix test_parse in parser/core.py." in body
    assert "Tools run: terminal x1" in body


def test_extractive_bullets_are_cut_to_length():
    turns = [{"role": "user", "content": "please " + "very " * 200 + "long request"}]
    body = extractive_summary(turns)
    longest = max(len(line) for line in body.splitlines())
    assert longest <= len("- Latest request: ") + BULLET_CHARS
    assert "…" in body


def test_a_failing_or_empty_summary_model_falls_back_to_the_extractive_summary(conversation):
    messages = _session(conversation, "parser").messages

    def broken(prompt: str) -> str:
        raise ConnectionError("no route to the summary model")

    engine = Compressor(summarize=broken)
    result = engine.compress(messages)
    assert engine.last_summary_source == "extractive" and "no route" in engine.last_summary_error
    assert split_summary(_summary_message(result))[0] == split_summary(_summary_message(Compressor().compress(messages)))[0]
    empty = Compressor(summarize=lambda prompt: "   ")
    empty.compress(messages)
    assert empty.last_summary_source == "extractive" and "empty" in empty.last_summary_error
    assert empty.get_status()["last_summary_error"] == empty.last_summary_error


def test_a_model_echoing_our_markers_cannot_make_two_summaries(conversation):
    messages = _session(conversation, "parser").messages
    engine = Compressor(summarize=lambda prompt: f"{SUMMARY_PREFIX}\n## Goal\n- echoed\n{END_MARKER}")
    result = engine.compress(messages)
    content = _summary_message(result)["content"]
    assert content.count("REFERENCE ONLY") == 1 and content.count(END_MARKER) == 1
    assert engine.last_summary == "## Goal\n- echoed"


def test_session_reset_forgets_the_counters_and_the_summary(conversation):
    engine = Compressor(context_length=1_000)
    engine.update_from_response({"prompt_tokens": 900})
    engine.compress(_session(conversation, "parser").messages)
    engine.on_session_reset()
    assert (engine.compression_count, engine.last_prompt_tokens, engine.last_summary) == (0, 0, None)
    status = engine.get_status()
    assert status["engine"] == "compressor" and status["compression_count"] == 0 and status["usage_percent"] == 0.0
