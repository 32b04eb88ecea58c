"""The two-class search behind the pair detectors (``meeting``) and the gate words it reads from their fragments.

The scanner builds its detectors once, at import; these tests build their own from small fragments, so each
decision (how far apart, which stop ends a stretch, which denial vetoes, which span the refusal shows) can be
stated exactly.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_plugins_builtin.memory.scanner import meeting as meeting_module
from hermes_plugins_builtin.memory.scanner.crosslingual import _union
from hermes_plugins_builtin.memory.scanner.gate import derived
from hermes_plugins_builtin.memory.scanner.meeting import (
    GatedAlternation,
    SENTENCE,
    _opening_words,
    _top_level,
    meeting,
    needed,
    note_mentions,
    phrase_gate,
)
from hermes_plugins_builtin.memory.scanner.rules import FLAGS
from hermes_plugins_builtin.memory.scanner.starts import finditer as starts_finditer


@pytest.fixture(autouse=True)
def _needed_parts_kept():
    """``needed`` records every fragment for gate_cache.py; what these tests read must not end up there."""
    before = list(meeting_module.NEEDED_PARTS)
    yield
    meeting_module.NEEDED_PARTS[:] = before


def _found(detector, text):
    return next(filter(detector.check, detector.pattern.finditer(text)), None)


def _pair(anchor=r"\bskip\b", other=r"\bthis entry\b", reach=20, **options):
    options.setdefault("gate", ("skip",))
    options.setdefault("also", ("this entry",))
    return meeting("concealment", "pair", anchor, other, reach=reach, **options)


# ---- the words a fragment needs


def test_needed_gives_the_required_words_of_each_body_once_and_records_the_bodies():
    union = _union({"en": r"(?:keep|hold) it quiet", "de": r"halte es geheim|(?:keep|hold) it quiet"})
    words = needed(union)
    assert words == tuple(dict.fromkeys(derived(union.bodies[0], FLAGS)[1] + derived(union.bodies[1], FLAGS)[1]))
    assert words == (" it quiet", "halte es geheim")
    assert meeting_module.NEEDED_PARTS[-2:] == list(union.bodies)
    # a plain fragment is one body
    assert needed(r"(?:foo|bar)baz qux") == ("baz qux",)
    assert meeting_module.NEEDED_PARTS[-1] == r"(?:foo|bar)baz qux"


def test_a_fragment_without_words_is_refused_when_strict_and_none_otherwise():
    assert needed(r"\w+ \d+", strict=False) is None
    with pytest.raises(AssertionError, match=re.escape(r"\w+ \d+")):
        needed(r"\w+ \d+")
    # one body without words is enough to give the whole union no gate
    assert needed(_union({"a": r"alpha beta", "b": r"\w+"}), strict=False) is None
    with pytest.raises(AssertionError):
        needed(_union({"a": r"alpha beta", "b": r"\w+"}))
    # the words found before that body are not given back either
    assert needed(_union({"a": r"alpha beta", "b": r"gamma delta"}), strict=False) == ("alpha beta", "gamma delta")


def test_the_message_of_a_refused_fragment_is_its_first_80_characters():
    long = "[a-z]" * 40
    with pytest.raises(AssertionError) as raised:
        needed(long)
    assert str(raised.value).splitlines()[0] == long[:80]


# ---- the outer alternatives and their opening words


@pytest.mark.parametrize(
    ("body", "parts"),
    [
        ("a|b", ["a", "b"]),
        ("a", ["a"]),
        ("", [""]),
        ("a||b", ["a", "", "b"]),
        (r"a|(?:b|c)|[|]|\|d", ["a", "(?:b|c)", "[|]", r"\|d"]),
        (r"(?:x(?:y|z)|w)|v", ["(?:x(?:y|z)|w)", "v"]),
        (r"a\\|b", [r"a\\", "b"]),  # an escaped backslash does not escape the bar
        # a parenthesis inside a class counts as a group: fewer alternatives, each still a whole pattern (sound)
        (r"[(]|x", ["[(]|x"]),
        ("abcdX|efgh", ["abcdX", "efgh"]),
        ("(?:a|b)X|c", ["(?:a|b)X", "c"]),
    ],
)
def test_top_level_splits_at_the_outer_bars_only(body, parts):
    assert _top_level(body) == parts


@pytest.mark.parametrize(
    ("alternative", "words"),
    [
        ("ignore all", ["ignore all"]),
        (r"\bignore all", ["ignore all"]),
        (r"\b(?:ignore|disregard) all", ["ignore", "disregard"]),
        (r"(?:ignore|(?:dis|dis)regard)x", None),  # an inner group that does not open with a word of 4 letters
        (r"(?:(?:ignore|forget)|disregard) all", ["ignore", "forget", "disregard"]),
        (r"(?:ignore|disregard)? all", None),  # the group may be left out
        (r"(?:ignore|disregard)* all", None),
        (r"(?:ignore|disregard){0,2} all", None),
        (r"(?:ignore|disregard)+ all", ["ignore", "disregard"]),
        (r"(?:ig\)nore|disregard)", None),  # an escaped parenthesis inside does not close the group
        (r"(?:ign\(|disregard)", None),
        (r"(?:[)]gnore|disregard)", None),
        (r"regeln?", ["regel"]),  # the last letter is optional
        (r"regelx*", ["regel"]),
        (r"regelx{0,1}", ["regel"]),
        (r"regelx+", ["regelx"]),
        (r"abcd", ["abcd"]),
        (r"abc", None),  # shorter than four letters
        (r"abcde?", ["abcd"]),
        (r"abcd?", None),
        (r"  ab", None),  # spaces do not count
        (r"bu not\w*", ["bu not"]),
        (r"bu n.t", ["bu n"]),
        (r"[a-z]+ kurallar", None),
        (r"sys\.temregeln", None),  # an escape ends the literal
        (r"^regeln", None),
        (r"regel$x", ["regel"]),
        (r"regel|x", ["regel"]),
        (r"(?:abcd", ["abcd"]),  # a group never closed is read to the end
        (r"(?:abcd|efgh) (?:x|y)", ["abcd", "efgh"]),  # the first group ends at its own parenthesis
        (r"(?:abcd\)|efgh)", ["abcd", "efgh"]),  # an escaped parenthesis does not end it
        (r"(?:abcd\d)?efgh", None),  # the character after an escape is read again
        (r"(?:Xabcd|efgh)?", None),
        (r"(?:abcdX|efgh) zz", ["abcdX", "efgh"]),
        (r"(?:abcd|efgh)Xyz", ["abcd", "efgh"]),
    ],
)
def test_opening_words_are_the_literal_words_every_match_starts_with(alternative, words):
    assert _opening_words(alternative) == words


def test_phrase_gate_takes_each_branchs_opening_phrase_or_its_derived_words():
    union = _union({"de": r"systemregeln|systemvorgaben", "tr": r"bu not\w*|[a-z]+ kurallar"})
    assert phrase_gate(union) == ("systemregeln", "systemvorgaben", "bu not", " kurallar")
    # a branch that opens with a word keeps it even where a stronger word is needed further on
    assert phrase_gate(r"abcd (?:ijklmnop|qrstuvwx)") == ("abcd ",)
    assert needed(r"abcd (?:ijklmnop|qrstuvwx)") == ("ijklmnop", "qrstuvwx")
    # a plain fragment is one body; a word found twice is given once
    assert phrase_gate(r"systemregeln|systemregeln|\d+ regeln") == ("systemregeln", " regeln")


# ---- a match of a pattern anywhere in the note


def test_note_mentions_reads_the_pattern_case_blind_and_line_by_line():
    mentions = note_mentions(r"^remote host")
    assert mentions("notes\nRemote Host: a.example") is True
    assert mentions("notes: remote host") is False
    compiled = note_mentions(re.compile(r"^remote host"))  # a compiled pattern is used as it is
    assert compiled("Remote Host") is False
    assert compiled("x\nremote host") is False
    assert compiled("remote host\nx") is True


def test_note_mentions_answers_for_the_text_asked_not_the_last_one():
    mentions = note_mentions(r"\bwebhook\b")
    first, second = "send it to the webhook", "send it to the server"
    assert [mentions(first), mentions(first), mentions(second), mentions(first)] == [True, True, False, True]
    # a text equal to the last one but another object is read again, with the same answer
    assert mentions("".join(["send it to the ", "webhook"])) is True


class _CountingPattern:
    """A compiled pattern that counts the passes made over a text."""

    def __init__(self, pattern: re.Pattern[str], passes: list[str]) -> None:
        self._pattern, self._passes = pattern, passes
        self.pattern, self.flags = pattern.pattern, pattern.flags

    def match(self, text: str, *args: int) -> re.Match[str] | None:
        # Tried at the places a match can start, inside one pass (counted by the fixture's ``finditer``).
        return self._pattern.match(text, *args)

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        self._passes.append(text)
        return self._pattern.search(text, *args)

    def finditer(self, text: str, *args: int):
        self._passes.append(text)
        return self._pattern.finditer(text, *args)


@pytest.fixture
def passes(monkeypatch) -> list[str]:
    """The texts the patterns ``meeting`` and ``note_mentions`` compile were run over (the module's ``re`` is
    watched: a pass is a call, not a result, so no other way shows it)."""
    seen: list[str] = []

    class _Re:
        Pattern = re.Pattern

        @staticmethod
        def compile(pattern: str, flags: int = 0) -> _CountingPattern:
            return _CountingPattern(re.compile(pattern, flags), seen)

    def finditer(pattern: _CountingPattern, text: str, *args: object):
        # A search through the start words' places (see ``starts``) is one pass too.
        seen.append(text)
        return starts_finditer(pattern, text, *args)

    monkeypatch.setattr(meeting_module, "re", _Re)
    monkeypatch.setattr(meeting_module, "finditer", finditer)
    return seen


def test_note_mentions_reads_a_note_once_however_often_it_is_asked(passes):
    mentions = note_mentions(r"\bwebhook\b")
    first, second = "send it to the webhook", "send it to the server"
    assert [mentions(first), mentions(first), mentions(first)] == [True, True, True]
    assert passes == [first]
    assert [mentions(second), mentions(second), mentions(first)] == [False, False, True]
    assert passes == [first, second, first]


def test_a_note_full_of_anchors_is_searched_for_the_other_half_once(passes):
    detector = _pair(reach=20)
    text = "skip. " * 50 + "skip this entry"
    anchors = list(detector.pattern.finditer(text))
    assert [detector.check(m) for m in anchors] == [False] * 50 + [True]
    assert passes == [text]
    other = "skip. skip that entry"
    assert not any(detector.check(m) for m in detector.pattern.finditer(other))
    assert passes == [text, other]


# ---- the pair


def test_the_detector_is_the_anchor_with_its_gates_and_names():
    detector = meeting("concealment", "hide-it", r"\bskip\b", r"\bthis entry\b")
    assert (detector.family, detector.name, detector.source, detector.flags) == ("concealment", "hide-it", r"\bskip\b", FLAGS)
    # gates default to the words both fragments need; the other fragment may need none
    assert (detector.gate, detector.also) == (("skip",), ("this entry",))
    assert meeting("c", "n", r"\bskip\b", r"\w+ \d+").also is None
    assert meeting("c", "n", r"\bskip\b", r"\w+", gate=("a",), also=("b",)).gate == ("a",)
    assert meeting("c", "n", r"\bskip\b", r"\w+", gate=("a",), also=("b",)).also == ("b",)
    assert getattr(detector.check, "case_blind", False) is True
    assert getattr(detector.check, "needs", None) is None


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("skip this entry", True),
        ("this entry skip", True),
        ("Skip THIS entry", True),
        ("skip", False),
        ("this entry", False),
        ("skip it. this entry", False),
        ("this entry. skip it", False),
        ("this entry! skip", False),
        ("skip? this entry", False),
        ("skip\n this entry", False),
        ("skip。 this entry", False),
        ("see ~/.cfg/skip and this entry", True),
        ("skip example.com this entry", True),
        ('"skip." this entry', True),  # a stop before a closing quote does not end the sentence
    ],
)
def test_both_halves_in_one_sentence_in_either_order(text, found):
    assert (_found(_pair(), text) is not None) is found


def test_the_halves_may_be_140_characters_apart_unless_told_otherwise():
    detector = meeting("concealment", "pair", r"\bskip\b", r"\bthis entry\b", gate=("skip",), also=("this entry",))
    assert _found(detector, "skip" + " " * 140 + "this entry") is not None
    assert _found(detector, "skip" + " " * 141 + "this entry") is None
    assert _found(detector, "this entry" + " " * 140 + "skip") is not None
    assert _found(detector, "this entry" + " " * 141 + "skip") is None


def test_the_halves_may_be_reach_characters_apart_and_no_more():
    reach = 20
    detector = _pair(reach=reach)
    for gap in range(reach - 2, reach + 3):
        after = "skip" + " " * gap + "this entry"
        before = "this entry" + " " * gap + "skip"
        assert (_found(detector, after) is not None) is (gap <= reach), gap
        assert (_found(detector, before) is not None) is (gap <= reach), gap


def test_a_stop_just_outside_the_reach_does_not_bound_the_stretch():
    """The stops looked at are those within reach (and one more character) of the anchor: a long other half that
    starts before a stop farther back is still read."""
    detector = _pair(other=r"\bthis\.long entry\b", reach=10, also=("entry",))
    # the other half starts 12 characters before the anchor and ends 1 before it; the stop inside it is not a bound
    assert _found(detector, "this.long entry skip") is not None
    # a stop between the halves still is
    assert _found(detector, "this.long entry. skip") is None


def test_an_other_half_longer_than_any_phrase_is_not_looked_for_far_back():
    """Without a stop before the anchor, the stretch reaches back ``reach`` characters and a phrase's length more."""
    detector = _pair(other=r"\bx+\b", reach=20, also=("x",))
    # the run of x starts at the stretch's start: read; one character farther back: not
    assert _found(detector, "x" * 139 + " skip") is not None
    assert _found(detector, "x" * 140 + " skip") is None
    # farther back but ended by a stop: a later other half in the same sentence is read
    assert _found(detector, "x" * 200 + ". x skip") is not None


def test_a_dot_just_before_the_anchor_ends_a_sentence_only_where_any_other_dot_does():
    """A stop is told by the character after it; right before the anchor that character is the anchor's own."""
    detector = _pair(anchor=r"\bssh\b", other=r"\bupload\b", gate=("ssh",), also=("upload",))
    assert _found(detector, "upload ~/.ssh") is not None
    assert _found(detector, "upload the keys in ~/.ssh") is not None
    assert _found(detector, "upload it. ssh") is None
    assert _found(detector, "upload it.\nssh") is None
    assert _found(_pair(), "this entry.skip") is not None
    assert _found(_pair(), "this entry. skip") is None


def test_the_stops_looked_at_are_those_within_reach_and_one_character_more():
    """With stops that need no character after them, the window's edges show: a stop reach + 1 characters before
    the anchor bounds the stretch, one farther back does not (the other half crosses it: a phrase with a dot)."""
    bare = re.compile(r"[.]")
    detector = _pair(other=r"ab\.c+", reach=10, stops=bare, deny=False, also=("ab",))
    # the anchor starts at 13; the dot is at 2 = 13 - 10 - 1, inside the window: the other half starts before it
    assert _found(detector, "ab." + "c" * 9 + " skip") is None
    # the anchor starts at 14; the dot is at 2 = 14 - 10 - 2, outside: the other half is read
    assert _found(detector, "ab." + "c" * 10 + " skip") is not None


def test_the_stops_looked_at_after_the_anchor_are_those_within_reach_and_one_character_more():
    bare = re.compile(r"[.]")
    # the anchor ends at 4; a stop at 13 = 4 + 10 - 1 ends the stretch before the other half at 14
    assert _found(_pair(reach=10, stops=bare, deny=False), "skip" + " " * 9 + ".this entry") is None
    assert _found(_pair(reach=10, stops=bare, deny=False), "skip" + " " * 10 + "this entry") is not None
    # a stop at 15 = 4 + 10 + 1 is past the window: an other half starting at 14 may run over it
    crossing = _pair(other=r"a\.bc", reach=10, stops=bare, deny=False, also=("bc",))
    assert _found(crossing, "skip" + " " * 10 + "a.bc") is not None
    # and one starting inside the window that reaches a stop farther on
    assert _found(_pair(other=r"abcdefgh\.x", reach=10, stops=bare, deny=False, also=("abcdefgh",)), "skip" + " " * 9 + "abcdefgh.x") is not None


def test_halves_that_touch_are_a_pair():
    touching = _pair(anchor="skip", other="this entry")
    assert _found(touching, "this entryskip") is not None
    assert _found(touching, "skipthis entry") is not None


def test_an_other_half_must_lie_wholly_after_the_last_stop():
    bare = re.compile(r"[.]")
    detector = _pair(other=r"\.?this entry", stops=bare, deny=False, also=("this entry",))
    assert _found(detector, "a .this entry skip") is None  # the stop is the other half's first character
    assert _found(detector, ".this entry skip") is None  # also at the very start of the note
    assert _found(detector, "a . this entry skip") is not None
    # a stop right before the anchor ends the sentence, whatever the anchor starts with
    assert _found(_pair(stops=bare, deny=False), "this entry.skip") is None
    assert _found(_pair(stops=bare, deny=False), "this entry skip") is not None


def test_the_stop_closest_before_the_anchor_bounds_the_stretch():
    detector = _pair(reach=40)
    # two stops before the anchor: the other half between them is in another sentence
    assert _found(detector, "a. this entry. then skip") is None
    assert _found(detector, "a. b. this entry then skip") is not None
    # a stop just before the anchor's first character
    assert _found(detector, "this entry. skip") is None
    # a stop right after the anchor or right before the other half
    assert _found(detector, "skip. this entry") is None


def test_a_stop_after_the_reach_does_not_cut_the_stretch_short():
    detector = _pair(reach=12)
    assert _found(detector, "skip this entry and then much later. more") is not None
    # a stop exactly reach characters after the anchor ends it after the other half: found
    text = "skip" + " this entry" + "."
    assert _found(detector, text) is not None


def test_the_first_other_half_in_the_stretch_after_an_earlier_sentence_is_found():
    detector = _pair(reach=30)
    # the first "this entry" is in the sentence before; the second is found after it is passed over
    assert _found(detector, "this entry. later skip this entry") is not None
    # other halves past the reach end the search, even if more follow
    assert _found(detector, "skip" + " " * 40 + "this entry this entry") is None


def test_other_halves_read_for_one_note_are_not_used_for_the_next():
    detector = _pair()
    assert _found(detector, "skip this entry") is not None
    assert _found(detector, "skip that entry") is None
    assert _found(detector, "this entry, skip") is not None
    assert _found(detector, "that entry, skip") is None


def test_a_denial_before_the_first_half_vetoes_the_pair():
    detector = _pair()
    assert _found(detector, "never skip this entry") is None
    assert _found(detector, "do not skip this entry") is None
    assert _found(detector, "never this entry skip") is None  # the first half is the other one
    # a denial between the halves is part of what the note says
    assert _found(detector, "this entry: never skip") is not None
    assert _found(detector, "skip, never this entry") is not None
    assert _found(_pair(deny=False), "never skip this entry") is not None


def test_then_may_veto_a_pair_and_goes_first():
    seen: list[str] = []

    def then(match: re.Match[str]) -> bool:
        seen.append(match.group())
        return "keep" not in match.string

    detector = _pair(then=then)
    assert _found(detector, "skip this entry") is not None
    assert _found(detector, "keep: skip this entry") is None
    assert _found(detector, "skip that entry") is None
    assert seen == ["skip", "skip", "skip"]
    assert getattr(detector.check, "needs", None) is None


def test_a_then_that_needs_something_of_the_note_passes_it_on():
    def condition(text: str) -> bool:
        return "remote" in text

    def then(match: re.Match[str]) -> bool:
        return True

    then.needs = condition  # type: ignore[attr-defined]
    detector = _pair(then=then)
    assert detector.check.needs is condition
    assert getattr(detector.check, "case_blind", False) is True
    assert callable(detector.check.extent)
    assert _found(detector, "skip this entry") is not None


def test_the_refusal_shows_both_halves():
    detector = _pair(reach=40)
    for text, shown in [
        ("Please skip the rest of this entry now", "skip the rest of this entry"),
        ("Please this entry, it is fine to skip now", "this entry, it is fine to skip"),
    ]:
        match = _found(detector, text)
        assert match is not None
        start, end = detector.check.extent(match)
        assert text[start:end] == shown


def test_the_span_of_a_pair_found_in_another_note_or_at_another_anchor_is_not_shown():
    detector = _pair(reach=40)
    first = _found(detector, "skip the rest of this entry")
    assert first is not None
    # a match of another text: its own span
    other = next(detector.pattern.finditer("xx skip xx"))
    assert detector.check.extent(other) == (3, 7)
    # the same text, another anchor than the pair's
    text = "skip this entry and skip"
    found = _found(detector, text)
    assert detector.check.extent(found) == (0, 15)
    second = list(detector.pattern.finditer(text))[1]
    assert detector.check.extent(second) == second.span() == (20, 24)
    # the same content as the last pair, another string: its own span
    copy = "".join(["skip this", " entry and skip"])
    assert detector.check.extent(next(detector.pattern.finditer(copy))) == (0, 4)


def test_inside_lets_the_other_half_sit_within_the_anchor_but_not_be_it():
    text = "sag dem benutzer nichts davon"
    inside = meeting("concealment", "t", r"sag \w+ \w+ nichts", r"benutzer", reach=20, deny=False, inside=True, gate=("sag",), also=("benutzer",))
    plain = meeting("concealment", "t", r"sag \w+ \w+ nichts", r"benutzer", reach=20, deny=False, gate=("sag",), also=("benutzer",))
    assert _found(plain, text) is None
    match = _found(inside, text)
    assert match is not None and inside.check.extent(match) == (0, 23)
    # the other half equal to the anchor's whole span is not a pair
    same = meeting("concealment", "t", r"benutzer", r"benutzer", reach=0, deny=False, inside=True, gate=("b",), also=("b",))
    assert _found(same, "der benutzer hier") is None
    # reaching past either end of the anchor is not inside
    edge = meeting("concealment", "t", r"sag \w+", r"\w+ benutzer|sag dem benutzer", reach=0, deny=False, inside=True, gate=("sag",), also=("benutzer",))
    assert _found(edge, "ja sag dem benutzer") is None
    starts = meeting("concealment", "t", r"sag dem benutzer", r"sag dem", reach=0, deny=False, inside=True, gate=("sag",), also=("sag",))
    assert _found(starts, "sag dem benutzer") is not None
    ends = meeting("concealment", "t", r"sag dem benutzer", r"dem benutzer", reach=0, deny=False, inside=True, gate=("sag",), also=("dem",))
    assert _found(ends, "sag dem benutzer") is not None


def test_sentence_stops_are_the_ends_not_followed_by_a_word_path_or_quote():
    assert [m.group() for m in SENTENCE.finditer("a. b! c? d\n e。 f！ g？ h। i؟ ")] == [".", "!", "?", "\n", "。", "！", "？", "।", "؟"]
    assert list(SENTENCE.finditer('x.y ~/.ssh a./b a.~ a.\\b a.-b a."b a.”b a.’b a.»b')) == []


# ---- a large class searched through the branches the text can match ------------------------------------------------

_VERDICTS = _union({
    "en": r"\b(?:null and void|outdated|no longer appl(?:y|ies)|stale)\b", "es": r"ya no (?:sirven|valen)|obsolet\w+",
    "de": r"veraltet\w*|gilt nicht mehr", "ru": r"устарел\w*|не действу\w+", "zh": r"作废|不再有效", "ja": r"無視して構わない|古い設定",
    "any": r"\b\w{2,5}-void\b",
})


@given(st.lists(st.sampled_from(["null and void", "outdated", "stale", "ya no sirven", "obsoletas", "veraltete", "gilt nicht mehr",
                                 "устарели", "作废", "不再有效", "古い設定", "abc-void", "OUTDATED", "Stale", "void", "no", " ", ".", "x"]),
                max_size=12))
def test_the_gated_alternation_finds_exactly_what_the_whole_alternation_finds(pieces):
    text = " ".join(pieces)
    gated = GatedAlternation(_VERDICTS)
    assert [m.span() for m in gated.finditer(text)] == [m.span() for m in re.compile(_VERDICTS, FLAGS).finditer(text)]


def test_the_gated_alternation_compiles_only_the_branches_the_text_can_match():
    gated = GatedAlternation(_VERDICTS)
    assert [m.group() for m in gated.finditer("The old rules are outdated; 古い設定 too.")] == ["outdated", "古い設定"]
    # The one compiled subset holds the two branches whose words the text has, in their order.
    (subset,) = gated._compiled
    assert [gated.branches[i] for i in subset] == [r"\b(?:null and void|outdated|no longer appl(?:y|ies)|stale)\b", r"古い設定"]
    assert list(gated.finditer("nothing here")) == []
    assert [m.group() for m in gated.finditer("the ab-void flag")] == ["ab-void"]
