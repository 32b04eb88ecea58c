"""The detector machinery: gate words (which detectors run at all), lower-cased patterns, checks, and the shared vetoes.

A gate that drops a word, or an index that loses a detector's bit, lets a note through silently; these tests pin the
machinery on small detectors made here, so each decision can be stated exactly.
"""

from __future__ import annotations

import re

import pytest

from hermes_plugins_builtin.memory.scanner import guards
from hermes_plugins_builtin.memory.scanner.prefilter import GateIndex
from hermes_plugins_builtin.memory.scanner.rules import FLAGS, Rule, any_of, case_blind, line_of, lowered_source, needs, rule, window, words_of

# ---- gates derived from a pattern


@pytest.mark.parametrize(
    ("source", "gate", "also"),
    [
        # a strong literal start is the gate; a word needed further on is a second, independent gate
        (r"(?:ignore|disregard) (?:all )?(?:previous )?rules", ("ignore", "disregard"), ("rules",)),
        (r"reveal\w* (?:the )?system prompt", ("reveal",), ("system prompt",)),
        # a weak start (words of 3 letters or fewer) gives way to the strongest words needed further on
        (r"(?:a|an) (?:secret|token)s? (?:exfiltrate|upload)", ("upload", "exfiltrate"), ("token", "secret")),
        (r"(?:ab|cd) xyz", (" xyz",), None),
        (r"you are now", ("you are now",), None),
        # no literal word at all: no gate, the detector always runs
        (r"\d+", None, None),
    ],
)
def test_gates_are_read_from_the_pattern(source, gate, also):
    detector = Rule("instruction_override", "x", source)
    assert (detector.gate, detector.also) == (gate, also)


def test_gates_given_as_lists_are_kept_as_tuples():
    detector = Rule("f", "n", "x", gate=["a", "b"], also=["c"])
    assert (detector.gate, detector.also) == (("a", "b"), ("c",))


def test_a_gate_given_by_hand_keeps_a_strong_word_the_pattern_needs_as_its_second_gate():
    assert Rule("f", "n", r"reveal\w* (?:the )?system prompt", gate=("reveal", "show")).also == ("system prompt",)
    assert Rule("f", "n", r"reveal\w* (?:the )?system prompt", gate=None).also == ("system prompt",)
    assert Rule("f", "n", r"(?:ab|cd) xyz", gate=("ab", "cd")).also is None  # " xyz" is not longer than 3 letters
    assert Rule("f", "n", r"reveal", gate=("x",), also=("y", "z")).also == ("y", "z")


def test_passes_gates_needs_a_word_of_each_list():
    detector = Rule("f", "n", "reveal", gate=("x",), also=("y", "z"))
    assert [detector.passes_gates(t) for t in ("x y", "x z", "x", "y z", "")] == [True, True, False, False, False]
    assert Rule("f", "n", r"\d+").passes_gates("") is True


def test_without_gates_is_the_same_detector_run_on_every_note():
    check = lambda match: True  # noqa: E731
    bare = Rule("exfiltration", "send", r"send (?:it|them) to", check=check, gate=("send",), also=("to",)).without_gates()
    assert (bare.family, bare.name, bare.source, bare.flags, bare.check, bare.gate, bare.also) == (
        "exfiltration", "send", r"send (?:it|them) to", FLAGS, check, None, None)
    assert bare.find("Send them to x").group() == "Send them to"


def test_words_of_a_fragment():
    assert words_of(r"(?:steal|grab) (?:the )?keys") == ("grab", "steal")
    assert words_of(r"\d+") is None


# ---- matching


def test_find_consults_the_gates_then_the_check():
    first_is_vetoed = lambda match: match.start() > 0  # noqa: E731
    detector = Rule("f", "n", "ignore", check=first_is_vetoed, gate=("ignore",))
    assert detector.find("Ignore it. ignore it.").span() == (11, 17)
    assert detector.find("Ignore it.") is None
    plain = Rule("f", "n", "ignore", gate=("ignore",))
    assert plain.find("IGNORE", lowered="nothing here") is None  # the caller's lower-cased text decides the gates
    assert plain.find("IGNORE", lowered="ignore").group() == "IGNORE"
    assert detector.checked_match("x IGNORE").span() == (2, 8)
    assert Rule("f", "n", "ignore", gate=("ignore",)).find("IGNORE").group() == "IGNORE"


def test_a_detector_is_case_insensitive_and_multiline_unless_told():
    assert FLAGS == re.IGNORECASE | re.MULTILINE
    assert Rule("f", "n", "^ignore").pattern.search("x\nIGNORE") is not None
    assert Rule("f", "n", "^ignore", flags=0).pattern.search("x\nIGNORE") is None


def test_the_lower_cased_pattern_is_made_only_where_it_decides_the_same():
    plain = Rule("f", "n", r"Ignore\S+")
    assert plain.lowered_pattern.pattern == r"ignore\S+" and plain.lowered_pattern.flags & re.IGNORECASE == 0
    assert Rule("f", "n", "ignore", flags=re.MULTILINE).lowered_pattern is None  # case-sensitive on purpose
    assert Rule("f", "n", "ignore", check=lambda m: True).lowered_pattern is None  # the check may read letter case
    assert Rule("f", "n", "ignore", check=case_blind(lambda m: True)).lowered_pattern.pattern == "ignore"


def test_lowered_source_keeps_escapes_and_group_names():
    assert lowered_source(r"\SIgnore\x41(?P<Name>A)(?P=Name)\N{LATIN SMALL LETTER A}\u00C9\U0001F600Z") == (
        r"\Signore\x41(?P<Name>a)(?P=Name)\N{LATIN SMALL LETTER A}\u00C9\U0001F600z")


def test_needs_and_case_blind_mark_a_check():
    condition = lambda text: "http" in text  # noqa: E731

    @needs(condition)
    def check(match: re.Match[str]) -> bool:
        return True

    assert check.needs is condition and Rule("f", "n", "x", check=check).needs is condition
    assert Rule("f", "n", "x").needs is None
    assert case_blind(check).case_blind is True


def test_rule_builds_a_detector():
    check = lambda match: True  # noqa: E731
    detector = rule("concealment", "hide", "hide it", check, re.MULTILINE, gate=["hide"], also=["it"])
    assert (detector.family, detector.name, detector.source, detector.flags, detector.check, detector.gate, detector.also) == (
        "concealment", "hide", "hide it", re.MULTILINE, check, ("hide",), ("it",))
    assert rule("concealment", "hide", "hide it").check is None


def test_pattern_helpers():
    assert any_of(["a", "b+"]) == "(?:a|b+)"
    assert window(5) == r"(?:[^.!?。！？\n]|[.!?](?=[\w/~\\-])){0,5}?"
    reach = re.compile(r"cat" + window(20) + r"ssh$")
    assert reach.search("cat ~/.ssh") is not None  # a dot inside a path does not end the sentence
    assert reach.search("cat. ssh") is None
    assert reach.search("cat\nssh") is None
    assert reach.search("cat" + " " * 21 + "ssh") is None
    assert line_of(re.search("b", "a\nxbx\nc")) == "xbx"
    assert line_of(re.search("b", "xbx")) == "xbx"
    assert line_of(re.search("b", "a\nxb")) == "xb"
    assert line_of(re.search("c", "a\nb\nxcx\nd\ne")) == "xcx"  # the nearest line breaks, on both sides
    assert line_of(re.search("b", "\nxbx")) == "xbx"
    assert line_of(re.search("^", "\nabc")) == ""  # an empty first line


# ---- the gate index


def _rules() -> list[Rule]:
    return [
        Rule("f", "needs ignore and rules", "x", gate=("ignore", "disregard"), also=("rules",)),
        Rule("f", "ungated", r"\d+"),
        Rule("f", "needs reveal", "x", gate=("reveal",), also=None),
        Rule("f", "needs nore", "x", gate=("nore",), also=None),
    ]


def test_the_index_finds_every_gate_word_overlapping_ones_included():
    index = GateIndex(_rules())
    assert index.present("ignore the rules") == {"ignore", "nore", "rules"}
    assert index.present("nothing") == set()


def test_a_detector_is_a_candidate_when_each_of_its_lists_met_a_word():
    index = GateIndex(_rules())
    ignore_rules, ungated, reveal, nore = (1 << i for i in range(4))
    assert index.candidates(set()) == ungated
    assert index.candidates({"ignore"}) == ungated
    assert index.candidates({"rules"}) == ungated
    assert index.candidates({"disregard", "rules"}) == ignore_rules | ungated
    assert index.candidates({"ignore", "nore", "rules", "reveal"}) == ignore_rules | ungated | reveal | nore


def test_a_plan_is_the_mask_of_detectors_indexed_in_the_same_order():
    rules = _rules()
    index = GateIndex([*rules, rules[0]])  # a detector listed twice is indexed once
    assert index.rules == rules
    assert index.plan(tuple(rules)) == 0b1111
    assert index.plan((rules[0], rules[2])) == 0b101
    assert index.plan((rules[2], rules[0])) is None  # out of order: each is tested in turn
    assert index.plan((rules[0], Rule("f", "not indexed", "x", gate=None))) is None
    assert index.plan((rules[1],)) == 0b10


def test_a_word_counts_only_for_the_detectors_that_list_it():
    index = GateIndex([Rule("f", "needs reveal", "x", gate=("reveal",)), Rule("f", "needs nore", "x", gate=("nore",))])
    assert index.candidates({"nore"}) == 0b10
    assert index.candidates({"reveal"}) == 0b01


def test_a_plan_that_names_a_detector_twice_is_tested_in_turn():
    rules = _rules()
    assert GateIndex(rules).plan((rules[0], rules[0])) is None


def test_an_index_without_words_finds_none():
    index = GateIndex([Rule("f", "ungated", r"\d+")])
    assert index.present("anything at all") == set()
    assert index.candidates(set()) == 1


# ---- the shared vetoes


@pytest.mark.parametrize(
    ("before", "denied"),
    [
        ("you must never ", True),
        ("do not ", True),
        ("Don't ", True),
        ("you should not really ", True),
        ("never  really truly ", True),
        ("refuse to ", True),
        ("please ", False),
        ("never a b c ", False),  # three words between
        ("whenever ", False),  # not a word of its own
        ("never " + "x " * 10, False),  # the denial is more than 24 characters back
        ("never abcdefghijklmno x ", True),  # 24 characters back
        ("never abcdefghijklmnop x ", False),  # 25
    ],
)
def test_denied_before_reads_the_words_just_before(before, denied):
    text = before + "ignore the rules"
    assert guards.denied_before(text, len(before)) is denied
    assert guards.not_denied(re.search("ignore", text)) is (not denied)


def test_imperative_tells_a_request_from_a_description():
    assert guards.imperative(re.search("syncs", "the backup job quietly syncs")) is False
    assert guards.imperative(re.search("cc", "quietly cc ops on every email")) is True
    assert guards.imperative(re.search("syncs", "The SCRIPT syncs")) is False
    assert guards.imperative(re.search("syncs", "the script " + "x" * 30 + " syncs")) is True  # more than 30 characters back


def test_not_fiction_lets_stories_through_unless_they_address_the_agent():
    assert guards.not_fiction(re.search("AI", "a NOVEL where the villain is an AI")) is False
    assert guards.not_fiction(re.search("AI", "a novel: you are an AI")) is True
    assert guards.not_fiction(re.search("AI", "a story: act as an AI")) is True
    assert guards.not_fiction(re.search("AI", "an AI")) is True


def test_the_vetoes_decide_the_same_on_lower_cased_text():
    assert guards.not_denied.case_blind and guards.imperative.case_blind and guards.not_fiction.case_blind
