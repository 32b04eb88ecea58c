"""Recall rules: budgets, reasoning levels, dialectic depth and bail-out, cadences over ten turns."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_bundled_plugins.memory.honcho.recall import (
    COLD_PROMPT,
    WARM_PROMPT,
    format_base_context,
    is_strong,
    pass_levels,
    run_dialectic,
    truncate_to_budget,
)


def test_budget_truncation_is_tokens_times_four_at_a_word_boundary() -> None:
    text = "alpha beta gamma delta epsilon"
    assert truncate_to_budget(text, None) == text
    assert truncate_to_budget(text, 100) == text
    cut = truncate_to_budget(text, 3)  # 12 chars: "alpha beta g" -> back to the word boundary
    assert cut == "alpha beta" and len(cut) <= 12
    assert truncate_to_budget("x" * 50, 2) == "x" * 8  # one long word: a hard cut is the only way


@pytest.mark.parametrize(
    ("depth", "base", "explicit", "cap", "expected"),
    [
        (1, "medium", None, None, ["medium"]),
        (2, "medium", None, None, ["minimal", "medium"]),
        (3, "high", None, None, ["minimal", "high", "low"]),
        (7, "low", None, None, ["minimal", "low", "low"]),
        (0, "low", None, None, ["low"]),
        (3, "low", ["minimal", "low", "max"], None, ["minimal", "low", "max"]),
        (2, "low", ["high"], None, ["high", "low"]),
        (3, "max", None, "medium", ["minimal", "medium", "low"]),
        (1, "low", ["max"], "high", ["high"]),
    ],
)
def test_pass_levels_are_proportional_unless_given_and_capped(depth: int, base: str, explicit: list[str] | None, cap: str | None, expected: list[str]) -> None:
    assert pass_levels(depth, base, explicit, cap) == expected


def test_strong_signal_rule() -> None:
    assert is_strong("x" * 301) and not is_strong("x" * 300)
    assert is_strong("- likes tea\n- works nights\n" + "x" * 80)  # structured and > 100 chars
    assert not is_strong("- likes tea")  # structured but short
    assert not is_strong("plain " * 18)  # 108 chars, not structured


class Asker:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, str]] = []

    def __call__(self, query: str, level: str) -> str:
        self.calls.append((query, level))
        return self.answers.pop(0) if self.answers else ""


def test_depth_one_is_one_cold_or_warm_pass() -> None:
    ask = Asker("short answer")
    run = run_dialectic(ask, depth=1, levels=["low"], cold=True)
    assert ask.calls == [(COLD_PROMPT, "low")] and run.answer == "short answer"
    warm = Asker("a")
    run_dialectic(warm, depth=1, levels=["low"], cold=False, current_message="fix the login bug")
    assert warm.calls[0][0].startswith(WARM_PROMPT) and "fix the login bug" in warm.calls[0][0]


def test_depth_two_audits_a_weak_first_pass_and_bails_out_on_a_strong_one() -> None:
    weak = Asker("likes tea", "synthesis: likes tea, works nights")
    run = run_dialectic(weak, depth=2, levels=["minimal", "low"], cold=True)
    assert [level for _, level in weak.calls] == ["minimal", "low"] and "likes tea" in weak.calls[1][0]
    assert run.answer == "synthesis: likes tea, works nights" and not run.bailed_out
    strong = Asker("y" * 301)
    run = run_dialectic(strong, depth=2, levels=["minimal", "low"], cold=True)
    assert len(strong.calls) == 1 and run.bailed_out
    structured = Asker("## Facts\n- likes tea\n- " + "z" * 100)
    assert run_dialectic(structured, depth=3, levels=["minimal", "low", "low"], cold=True).bailed_out and len(structured.calls) == 1


def test_depth_three_reconciles_both_earlier_passes() -> None:
    ask = Asker("first", "second", "final")
    run = run_dialectic(ask, depth=3, levels=["minimal", "medium", "low"], cold=False)
    assert [level for _, level in ask.calls] == ["minimal", "medium", "low"]
    assert "first" in ask.calls[2][0] and "second" in ask.calls[2][0] and run.answer == "final"


def test_input_and_output_limits() -> None:
    ask = Asker("word " * 400)
    run = run_dialectic(ask, depth=1, levels=["low"], cold=False, current_message="q" * 50_000, max_input_chars=500, max_chars=100)
    assert len(ask.calls[0][0]) == 500 and len(run.answer) <= 100


def test_base_context_order_puts_the_summary_first() -> None:
    text = format_base_context(summary="S", user_representation="U", user_card=["c1"], ai_representation="A", ai_card=["a1"])
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Session summary", "## User representation", "## User peer card", "## AI self-representation", "## AI identity card"]
    assert format_base_context(summary=None, user_representation="", user_card=None, ai_representation=None, ai_card=[]) == ""


# -- cadences, over real HTTP --


def _turns_with(fake: Any, method: str, path: str, marker_start: int, workspace: str) -> int:
    return len([r for r in fake.requests[marker_start:] if r.method == method and path in r.path and f"/{workspace}/" in r.path])


def test_cadences_over_ten_turns(make_provider: Any, fake: Any, workspace: str, turn: Any) -> None:
    fake.add_conclusion(workspace, "hermes", "eri", "Eri prefers tabs")
    provider = make_provider(contextCadence=2, dialecticCadence=3, writeFrequency="turn")
    provider.prefetch_thread.join(30)  # turn 1 was fetched when the session started
    start = len(fake.requests)
    recalled = [turn(provider, number, f"question {number}") for number in range(1, 11)]
    provider.on_turn_start(11, "question 11")
    provider.prefetch("question 11")  # waits for the fetch queued after turn 10
    state = provider._prefetcher.state
    assert state.base_turns == [1, 3, 5, 7, 9, 11]
    assert [t for t, _ in state.dialectic_runs] == [1, 4, 7, 10]
    assert _turns_with(fake, "POST", "/chat", start, workspace) == 3  # turns 4, 7, 10; depth 1: one .chat() per firing
    assert _turns_with(fake, "GET", "/context", start, workspace) == 5 * 3  # turns 3-11: session + both peers' context
    assert all("Eri prefers tabs" in text for text in recalled)  # cached layers are injected on every turn


def test_first_turn_injection_and_tools_mode_inject_nothing_later(make_provider: Any, fake: Any, workspace: str, turn: Any) -> None:
    fake.add_conclusion(workspace, "hermes", "eri", "Eri prefers tabs")
    first_only = make_provider(injectionFrequency="first-turn", writeFrequency="turn")
    assert "Eri prefers tabs" in turn(first_only, 1, "hello there")
    before = len(fake.requests)
    assert turn(first_only, 2, "and then?") == "" and turn(first_only, 3, "more") == ""
    assert _turns_with(fake, "POST", "/chat", before, workspace) == 0  # nothing fetched for turns that inject nothing
    tools_only = make_provider(recallMode="tools", writeFrequency="turn")
    assert turn(tools_only, 1, "hello there") == "" and tools_only.system_prompt_block().count("honcho_profile") == 1


def test_cadences_count_prefetches_when_the_host_does_not_announce_turns(make_provider: Any, fake: Any, workspace: str) -> None:
    provider = make_provider(contextCadence=2, dialecticCadence=2, writeFrequency="turn")
    for number in range(1, 6):
        provider.prefetch(f"question {number}")
        provider.queue_prefetch(f"question {number}")
    provider.prefetch("question 6")
    assert provider._prefetcher.state.base_turns == [1, 3, 5]
    assert [t for t, _ in provider._prefetcher.state.dialectic_runs] == [1, 3, 5]


@pytest.mark.parametrize(
    ("depth", "replies", "levels", "answer"),
    [
        (2, ["likes tea", "audited: likes green tea"], ["minimal", "medium"], "audited: likes green tea"),
        (2, ["x" * 301], ["minimal"], "x" * 301),
        (3, ["a", "b", "reconciled"], ["minimal", "medium", "low"], "reconciled"),
    ],
)
def test_dialectic_depth_over_http(make_provider: Any, fake: Any, workspace: str, depth: int, replies: list[str], levels: list[str], answer: str) -> None:
    fake.chat_replies.extend(replies)
    provider = make_provider(dialecticDepth=depth, dialecticReasoningLevel="medium", dialecticMaxChars=1000, writeFrequency="turn")
    provider.on_turn_start(1, "hello there")
    recalled = provider.prefetch("hello there")
    chats = fake.calls("POST", f"{workspace}/peers/hermes/chat")
    assert [c.body["reasoning_level"] for c in chats] == levels
    assert recalled.endswith(answer)


def test_the_first_turn_is_fetched_while_the_user_types(make_provider: Any, fake: Any, workspace: str) -> None:
    fake.add_conclusion(workspace, "hermes", "eri", "Eri deploys on Fridays")
    provider = make_provider(writeFrequency="turn")
    assert provider.prefetch_thread is not None
    provider.prefetch_thread.join(30)  # the user is still typing
    before = len(fake.calls("GET", workspace) + fake.calls("POST", workspace))
    provider.on_turn_start(1, "when do I deploy?")
    assert "Eri deploys on Fridays" in provider.prefetch("when do I deploy?")
    assert len(fake.calls("GET", workspace) + fake.calls("POST", workspace)) == before  # nothing fetched in the turn
    assert make_provider(recallMode="tools").prefetch_thread is None


def test_a_structured_answer_must_be_longer_than_one_hundred_characters_to_be_strong() -> None:
    bullet = "- " + "x" * 98
    assert len(bullet) == 100 and not is_strong(bullet) and is_strong(bullet + "x")


def prefetcher(fetch_base: Any, ask: Any, **settings: Any) -> Any:
    from hermes_bundled_plugins.memory.honcho.config import HonchoConfig
    from hermes_bundled_plugins.memory.honcho.prefetch import Prefetcher

    values = {"recallMode": "hybrid", "injectionFrequency": "every-turn", "contextCadence": 1, "dialecticCadence": 1, "dialecticDepth": 1,
              "dialecticReasoningLevel": "low", "dialecticDepthLevels": None, "reasoningLevelCap": None, "dialecticMaxInputChars": 10000,
              "dialecticMaxChars": 600, "contextTokens": None, "timeout": 5.0, **settings}
    return Prefetcher(HonchoConfig(path=None, host="hermes", values=values, sources={}), fetch_base, ask)


def test_a_failing_layer_is_warned_about_once_and_the_turn_keeps_what_was_known(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from hermes_bundled_plugins.memory.honcho.client import HonchoCallError

    bases = iter(["## User representation\nlikes tea"])

    def fetch_base() -> str:
        try:
            return next(bases)
        except StopIteration:
            raise HonchoCallError("Honcho refused (HTTP 403)", retryable=False) from None

    caplog.set_level(logging.DEBUG, logger="hermes.plugins.honcho")
    recall = prefetcher(fetch_base, lambda query, level: "an answer")
    assert recall.for_turn(1, "hi") == "## User representation\nlikes tea\n\n## Dialectic\nan answer"
    for turn in (2, 3):
        assert recall.for_turn(turn, "hi") == "## User representation\nlikes tea\n\n## Dialectic\nan answer"
    message = "honcho: base context not refreshed: Honcho refused (HTTP 403); the turn goes on with what was recalled before"
    assert recall.last_error == message
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "hermes.plugins.honcho"] == [("WARNING", message), ("DEBUG", message)]
    recall.reset()
    assert recall.state.base == "" and recall.state.last_base_turn is None
    assert recall.for_turn(4, "hi") == "## Dialectic\nan answer", "after a reset nothing of the last conversation is injected"


def test_a_character_limit_cuts_at_a_word_or_below_four_characters_anywhere() -> None:
    from hermes_bundled_plugins.memory.honcho.recall import truncate_chars

    assert truncate_chars("ab cd ef", 8) == "ab cd ef", "exactly at the limit: unchanged"
    assert truncate_chars("ab cd ef g", 10) == "ab cd ef g", "a limit that is no multiple of four too"
    assert truncate_chars("ab cd ef gh ij", 8) == "ab cd"
    assert truncate_chars("ab cdefgh", 4) == "ab"
    assert truncate_chars("abcdef", 3) == "abc" and truncate_chars("abcdef", 0) == ""


def test_the_dialectic_prompt_names_the_current_message_only_when_warm_and_given() -> None:
    def asked(**kwargs: Any) -> list[tuple[str, str]]:
        return run_dialectic(lambda query, level: "known", depth=1, levels=["low"], **kwargs).passes

    assert asked(cold=False) == [(WARM_PROMPT, "low")]
    assert asked(cold=False, current_message="  \n ") == [(WARM_PROMPT, "low")]
    assert asked(cold=False, current_message="  deploy?  ") == [(WARM_PROMPT + "\n\nCurrent message: deploy?", "low")]
    assert asked(cold=True, current_message="deploy?") == [(COLD_PROMPT, "low")]
    long = asked(cold=False, current_message="m" * 20_000)
    assert len(long[0][0]) == 10_000, "the question is cut to 10000 characters by default"


def test_a_dialectic_with_no_answer_says_so_to_the_audit_and_answers_nothing() -> None:
    from hermes_bundled_plugins.memory.honcho.recall import AUDIT_PROMPT

    run = run_dialectic(lambda query, level: None, depth=2, levels=["minimal", "low"], cold=True)  # type: ignore[arg-type, return-value]
    assert run.answer == "" and run.bailed_out is False
    assert run.passes == [(COLD_PROMPT, "minimal"), (AUDIT_PROMPT.format(previous="(nothing known yet)"), "low")]


def test_the_answer_is_cut_to_six_hundred_characters_by_default() -> None:
    assert run_dialectic(lambda query, level: "x" * 601, depth=1, levels=["low"], cold=True).answer == "x" * 600
    assert run_dialectic(lambda query, level: "x" * 600, depth=1, levels=["low"], cold=True).answer == "x" * 600


def test_the_two_layers_are_joined_under_their_headings() -> None:
    from hermes_bundled_plugins.memory.honcho.recall import join_layers

    assert join_layers("## User representation\nlikes tea", " answer ", None) == "## User representation\nlikes tea\n\n## Dialectic\nanswer"
    assert join_layers("  ", "answer", None) == "## Dialectic\nanswer"
    assert join_layers("base", " \n", None) == "base"


def test_a_background_fetch_still_running_past_its_bound_leaves_the_turn_what_is_known() -> None:
    import threading

    from hermes_bundled_plugins.memory.honcho.recall import join_layers

    go = threading.Event()
    go.set()
    bases = iter(["## User representation\nlikes tea and long walks", "## User representation\nnewer"])

    def fetch_base() -> str:
        go.wait()  # held by the test: this fetch outlives the turn's bounded wait (2 x the 10 ms timeout)
        return next(bases)

    recall = prefetcher(fetch_base, lambda query, level: "an answer", timeout=0.01, contextTokens=6)
    first = recall.for_turn(1, "hi")
    assert first == join_layers("## User representation\nlikes tea and long walks", "an answer", 6) and len(first) <= 24
    go.clear()
    worker = recall.prepare_in_background(2, "hi")
    assert worker is not None and recall.prepare_in_background(2, "hi") is None, "one fetch per turn"
    assert recall.for_turn(2, "hi") == first
    go.set()
    worker.join()
    assert recall.state.base == "## User representation\nnewer"
    assert worker.name == "honcho-prefetch" and worker.daemon, "a fetch that never ends must not keep the process alive"
    recall.for_turn(2, "hi")  # the prepared text is used once
    again = recall.prepare_in_background(2, "hi")
    assert again is not None, "a finished fetch no longer counts as running"
    again.join()


def test_cadences_count_the_turns_of_a_fetch_made_during_the_turn() -> None:
    fetched: list[str] = []
    asked: list[str] = []

    def fetch_base() -> str:
        fetched.append("base")
        return "base"

    def ask(query: str, level: str) -> str:
        asked.append(level)
        return "answer"

    recall = prefetcher(fetch_base, ask, contextCadence=2, dialecticCadence=3)
    for turn in range(1, 5):
        recall.for_turn(turn, "hi")
    assert (recall.state.base_turns, [turn for turn, _ in recall.state.dialectic_runs]) == ([1, 3], [1, 4])


def test_the_prefetched_dialectic_follows_the_configured_levels_cap_and_limits() -> None:
    from hermes_bundled_plugins.memory.honcho.recall import AUDIT_PROMPT

    bases = iter(["", "## User representation\nlikes tea"])
    asked: list[tuple[str, str]] = []

    def ask(query: str, level: str) -> str:
        asked.append((query, level))
        return "answer two words"

    recall = prefetcher(lambda: next(bases), ask, dialecticDepth=2, dialecticDepthLevels=["high", "minimal"], reasoningLevelCap="medium",
                        dialecticMaxChars=8, dialecticMaxInputChars=10000)
    assert recall.for_turn(1, "deploy?") == "## Dialectic\nanswer"
    assert asked == [(COLD_PROMPT, "medium"), (AUDIT_PROMPT.format(previous="answer two words"), "minimal")]
    asked.clear()
    recall.for_turn(2, "deploy?")
    assert asked[0] == (WARM_PROMPT + "\n\nCurrent message: deploy?", "medium"), "a base context known: the warm prompt, with the message"
    short = prefetcher(lambda: "", ask, dialecticMaxInputChars=12)
    asked.clear()
    short.for_turn(1, "hi")
    assert asked == [(COLD_PROMPT[:12], "low")]


def test_a_failing_dialectic_is_warned_about_and_the_last_answer_kept(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from hermes_bundled_plugins.memory.honcho.client import HonchoCallError

    answers = iter(["first answer"])

    def ask(query: str, level: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise HonchoCallError("Honcho did not answer within 5 s", retryable=True) from None

    caplog.set_level(logging.WARNING, logger="hermes.plugins.honcho")
    recall = prefetcher(lambda: "", ask)
    assert recall.for_turn(1, "hi") == recall.for_turn(2, "hi") == "## Dialectic\nfirst answer"
    message = "honcho: dialectic not refreshed: Honcho did not answer within 5 s; the turn goes on with what was recalled before"
    assert [r.getMessage() for r in caplog.records if r.name == "hermes.plugins.honcho"] == [message]
    assert recall.state.last_dialectic_turn == 1


@pytest.mark.parametrize(("text", "tokens", "expected"), [
    ("abcd efg", 2, "abcd efg"),            # exactly four characters a token: unchanged
    ("abcd efgh", 2, "abcd"),
    ("a\nbb\nccdddd", 2, "a\nbb"),          # the last line break is a boundary too
    ("ab \ncdefgh", 2, "ab"),               # whitespace before the cut is dropped
    (" abcdefghij", 2, " abcdefg"),         # a space only at the start is no boundary
    ("a bcdefghij", 2, "a"),
])
def test_budget_cuts_at_the_last_boundary(text: str, tokens: int, expected: str) -> None:
    assert truncate_to_budget(text, tokens) == expected


def test_depth_three_reconciles_the_answers_joined_or_says_nothing_is_known() -> None:
    from hermes_bundled_plugins.memory.honcho.recall import RECONCILE_PROMPT

    replies = iter(["a1", "a2", "a3"])
    run = run_dialectic(lambda query, level: next(replies), depth=3, levels=["minimal", "low", "low"], cold=True)
    assert run.passes[2] == (RECONCILE_PROMPT.format(previous="a1\n\n---\n\na2"), "low") and run.answer == "a3"
    empty = run_dialectic(lambda query, level: "", depth=3, levels=["minimal", "low", "low"], cold=True)
    assert empty.passes[2] == (RECONCILE_PROMPT.format(previous="(nothing known yet)"), "low") and empty.answer == ""


def test_cards_are_listed_one_line_per_fact() -> None:
    text = format_base_context(summary=None, user_representation=None, user_card=["Name: Eri", "Role: SRE"], ai_representation=None, ai_card=["Terse", "Kind"])
    assert text == "## User peer card\n- Name: Eri\n- Role: SRE\n\n## AI identity card\n- Terse\n- Kind"
