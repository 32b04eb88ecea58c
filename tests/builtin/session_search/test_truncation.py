"""Truncation around matches: phrase first, then a proximity window, then single terms; 25 % before, 75 % after."""

from __future__ import annotations

from hermes_plugins_builtin.session_search import MatchTerm, query_terms, truncate_around_matches
from hermes_plugins_builtin.session_search.truncation import (
    PROXIMITY_CHARS,
    phrase_positions,
    proximity_positions,
    term_positions,
)

BUDGET = 1_000


def filler(n: int) -> str:
    """*n* characters of text that matches no test term, with a space at both ends so words stay apart."""
    return " " + ("lorem ipsum dolor sit amet " * (n // 27 + 1))[: n - 2] + " "


def terms(query: str) -> tuple[MatchTerm, ...]:
    return query_terms(query)


def test_query_terms_follow_the_store_parser():
    assert terms("docker compose") == (MatchTerm("docker"), MatchTerm("compose"))
    assert terms('"connection refused" retry') == (MatchTerm("connection refused"), MatchTerm("retry"))
    assert terms("deploy* NOT staging") == (MatchTerm("deploy", prefix=True),)
    assert terms("nginx OR caddy nginx") == (MatchTerm("nginx"), MatchTerm("caddy"))
    assert terms("NOT everything") == ()
    assert terms("") == ()


def test_a_conversation_within_budget_is_kept_whole():
    text = "we talked about docker " + filler(200)
    window = truncate_around_matches(text, terms("docker"), BUDGET)
    assert (window.text, window.start, window.end, window.strategy, window.truncated) == (text, 0, len(text), "whole", False)


def test_the_exact_phrase_wins_over_more_numerous_scattered_terms():
    # many single-term hits early, the phrase itself once, later
    early = "".join(f"docker {filler(40)} compose {filler(40)} networking {filler(300)}" for _ in range(6))
    text = early + filler(3_000) + "finally the docker compose networking fix was a bridge" + filler(5_000)
    anchor = text.index("docker compose networking")
    window = truncate_around_matches(text, terms("docker compose networking"), BUDGET)
    assert window.strategy == "phrase"
    assert window.anchor == anchor
    assert (window.start, window.end) == (anchor - 250, anchor + 750)


def test_the_phrase_ignores_case_and_punctuation_between_its_words():
    text = filler(4_000) + "Docker-Compose,  NETWORKING broke" + filler(4_000)
    found = phrase_positions(text, terms("docker compose networking"))
    assert found == [text.index("Docker-Compose")]


def test_the_split_is_a_quarter_before_and_three_quarters_after_the_anchor():
    text = filler(10_000) + "the needle" + filler(10_000)
    anchor = text.index("needle")
    window = truncate_around_matches(text, terms("needle"), BUDGET)
    assert anchor - window.start == BUDGET // 4
    assert window.end - anchor == BUDGET - BUDGET // 4
    body = text[window.start : window.end]
    assert window.text == f"[... {window.start} earlier characters omitted ...]\n{body}\n[... {len(text) - window.end} later characters omitted ...]"


def test_without_the_phrase_a_window_holding_every_term_wins():
    # isolated single hits first; later all three terms inside 200 characters, but not as a phrase
    text = (
        filler(500) + "docker" + filler(3_000) + "networking" + filler(3_000)
        + "compose file: the networking section broke docker dns" + filler(6_000)
    )
    query = terms("docker compose networking")
    assert phrase_positions(text, query) == []
    cluster = text.index("compose file")
    assert proximity_positions(text, query) == [cluster]
    window = truncate_around_matches(text, query, BUDGET)
    assert window.strategy == "proximity"
    assert (window.anchor, window.start, window.end) == (cluster, cluster - 250, cluster + 750)


def test_terms_further_apart_than_the_proximity_window_are_not_a_cluster():
    text = filler(1_000) + "docker" + filler(PROXIMITY_CHARS + 10) + "compose" + filler(1_000)
    assert proximity_positions(text, terms("docker compose")) == []
    text = filler(1_000) + "docker" + filler(PROXIMITY_CHARS - 30) + "compose" + filler(1_000)
    assert proximity_positions(text, terms("docker compose")) == [text.index("docker")]


def test_with_single_terms_only_the_window_covering_most_of_them_wins():
    # one lone 'alpha' early; three 'beta' hits close together later; alpha and beta never near each other
    text = filler(100) + "alpha" + filler(4_895) + "beta" + filler(296) + "beta" + filler(296) + "beta" + filler(3_000)
    beta = [5_000, 5_300, 5_600]
    query = terms("alpha beta")
    assert phrase_positions(text, query) == [] and proximity_positions(text, query) == []
    assert term_positions(text, query) == [100, *beta]
    window = truncate_around_matches(text, query, BUDGET)
    assert window.strategy == "terms"
    assert window.anchor == 5_000 and window.start == 4_750


def test_a_match_near_the_end_slides_the_window_back_to_use_the_whole_budget():
    text = filler(8_000) + "needle" + filler(100)
    window = truncate_around_matches(text, terms("needle"), BUDGET)
    assert window.end == len(text) and window.end - window.start == BUDGET
    assert text.index("needle") in range(window.start, window.end)


def test_a_match_near_the_start_keeps_the_start():
    text = filler(50) + "needle" + filler(8_000)
    window = truncate_around_matches(text, terms("needle"), BUDGET)
    assert (window.start, window.end) == (0, BUDGET)
    assert not window.text.startswith("[...")


def test_when_nothing_matches_the_head_of_the_conversation_is_kept():
    text = filler(5_000)
    window = truncate_around_matches(text, terms("needle"), BUDGET)
    assert (window.strategy, window.start, window.end) == ("head", 0, BUDGET)


def test_prefix_terms_match_longer_words_and_plain_terms_match_whole_words():
    text = filler(3_000) + "the deployment went fine" + filler(3_000)
    assert truncate_around_matches(text, terms("deploy*"), BUDGET).anchor == text.index("deployment")
    assert term_positions(text, terms("deploy")) == []


def test_cjk_and_punctuated_terms_are_found_as_substrings():
    text = filler(3_000) + "用户说数据库连接失败, then C++ templates" + filler(3_000)
    assert term_positions(text, terms("数据库")) == [text.index("数据库")]
    assert term_positions(text, terms("C++")) == [text.index("C++")]
