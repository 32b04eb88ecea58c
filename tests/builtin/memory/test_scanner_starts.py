"""A detector tried only where a match can start (``starts``) finds exactly what ``finditer`` and ``search`` find.

A start word that some match lacks would hide that match, so the words are pinned on small patterns, the search is
compared with ``re`` on texts built to trip it (boundaries, lookbehinds, overlapping words, adjacent matches), and
every detector of the scanner is compared with its own pattern on a sample of the corpus, in both lower-cased views.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_plugins_builtin.memory import scanner
from hermes_plugins_builtin.memory.scanner import starts
from hermes_plugins_builtin.memory.scanner.normalise import folded, nfkc, without_invisible
from hermes_plugins_builtin.memory.scanner.starts import starts_of

CORPUS = Path(__file__).parent / "corpus" / "corpus.jsonl"


def _words(pattern: str, flags: int = 0) -> tuple[str, ...] | None:
    found = starts_of(re.compile(pattern, flags))
    return None if found is None else found.words


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"\b(?:ignore|disregard)\b", ("disregard", "ignore")),
        (r"(?:the\s+)?rules", ("rules", "the")),  # an optional start: either word
        (r"(?:~)?(?:/)?\.ssh", (".ssh", "/", "~")),  # one character is enough to say where a match starts
        (r"j(?:e|ouw) regels", ("je", "jouw")),
        (r"(?<![\w.])\.env", (".env",)),
        (r"\w+\.pem", None),  # a class first: a match may start anywhere
        (r"(?:ab|\d)x", None),  # one branch without a word
        (r"(?:ab|)x", None),  # an empty branch
        (r"ignore", ("ignore",)),
    ],
)
def test_start_words_are_read_from_the_pattern(pattern: str, words: tuple[str, ...] | None) -> None:
    assert _words(pattern) == words


@pytest.mark.parametrize(
    ("pattern", "words"),
    [(r"Ignore|DROP", ("drop", "ignore")), (r"(?i:Ignore)", ("ignore",)), (r"x(?i:gnore)", ("xgnore",)), (r"\b(?:ignorez|игнорируй)", None)],
)
def test_case_blind_start_words_are_lower_case_ascii(pattern: str, words: tuple[str, ...] | None) -> None:
    # They are looked for in the lower-cased text; outside ASCII a letter has other cases than its upper and lower one.
    flags = 0 if "(?i" in pattern else re.IGNORECASE
    found = starts_of(re.compile(pattern, flags))
    assert (found.words if found else None) == words
    assert found is None or found.case_blind


def test_the_other_cases_of_ascii_are_the_four_listed() -> None:
    """Every character outside ASCII that a case-blind ASCII character matches, and every character whose lower-case
    form is longer than one: the case-blind search relies on these being exactly the ones it checks for."""
    every = "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF)
    ascii_class = re.compile("[" + re.escape("".join(map(chr, range(128)))) + "]", re.IGNORECASE)
    others = {ch for ch in ascii_class.findall(every) if not ch.isascii()}
    assert others == set(starts.OTHER_CASES_OF_ASCII.findall(every))
    assert [ch for ch in every if len(ch.lower()) != 1] == ["\u0130"]


def _same(pattern: str, text: str, flags: int = 0) -> None:
    compiled = re.compile(pattern, re.MULTILINE | flags)
    found = starts_of(compiled)
    assert found is not None, pattern
    assert [m.span() for m in starts.finditer(compiled, text, found)] == [m.span() for m in compiled.finditer(text)]
    expected = compiled.search(text)
    got = starts.search(compiled, text, found)
    assert (got.span() if got else None) == (expected.span() if expected else None)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\bab", "cab ab xab ab"),  # the boundary sees the letter before the start
        (r"(?<=c)ab", "ab cab dab cab"),  # so does a lookbehind
        (r"^ab", "ab\nab cab\n ab"),  # a line start only after a break, as in search
        (r"aba", "ababababa"),  # overlapping places: matches do not overlap, as in finditer
        (r"ab|abab", "ababab"),  # alternatives keep their order
        (r"(?:the\s+)?rules?", "the rules, then rule and the  rules"),
        (r"ab+", "abbbab ab"),  # adjacent matches
        (r"(?:ignore|ign)\w*", "ignition ignored ign"),
    ],
)
def test_the_search_finds_what_re_finds(pattern: str, text: str) -> None:
    _same(pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\bignore", "IGNORE Ignore xignore ignore"),
        (r"ignore", "ıgnore İgnore ignore"),  # the other cases of "i": searched as before
        (r"skip|kill", "ſkip Kill"),
        (r"rules", "Rules and RULES"),
    ],
)
def test_the_case_blind_search_finds_what_re_finds(pattern: str, text: str) -> None:
    _same(pattern, text, re.IGNORECASE)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcABC ._\nſıİK", max_size=40), st.sampled_from([r"\bab", r"(?<![\w.])\.ab", r"(?:a\s+)?b[ac]", r"ik|sk", r"(?:ab|b)+c"]))
def test_the_case_blind_search_finds_what_re_finds_on_any_text(text: str, pattern: str) -> None:
    _same(pattern, text, re.IGNORECASE)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abc ._\n", max_size=40), st.sampled_from([r"\bab", r"(?<![\w.])\.ab", r"(?:a\s+)?b[ac]", r"^ab|ba$", r"(?:ab|b)+c", r"a(?=b)", r"a\b"]))
def test_the_search_finds_what_re_finds_on_any_text(text: str, pattern: str) -> None:
    _same(pattern, text)


def test_every_detector_finds_with_its_start_words_what_its_pattern_finds() -> None:
    notes = [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    sample = notes[::40]
    views = [view for text in sample for plain in [without_invisible(nfkc(text))] for view in {plain.lower(), folded(plain).lower()}]
    detectors = [d for d in dict.fromkeys((*scanner.RULES, *scanner.compact.RULES)) if d.lowered_pattern is not None and d.lowered_starts is not None]
    assert len(detectors) > 300  # most detectors start with words
    for detector in detectors:
        fast, words = detector.lowered_pattern, detector.lowered_starts
        assert fast is not None and words is not None
        for view in views:
            assert [m.span() for m in starts.finditer(fast, view, words)] == [m.span() for m in fast.finditer(view)], detector.name


def test_every_case_blind_pattern_finds_with_its_start_words_what_it_finds() -> None:
    """The detectors run as written (not lower-cased) and the other halves of the pair detectors, on the notes as
    written and in their normalised form."""
    from hermes_plugins_builtin.memory.scanner.rules import FLAGS

    notes = [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    views = [view for text in notes[::40] for plain in [without_invisible(nfkc(text))] for view in {plain, folded(plain)}]
    patterns = [d.pattern for d in dict.fromkeys(scanner.RULES) if d.lowered_pattern is None] + [re.compile(other, FLAGS) for other in dict.fromkeys(getattr(d.check, "other_half", None) for d in scanner.RULES) if other is not None]
    checked = 0
    for pattern in patterns:
        words = starts_of(pattern)
        if words is None:
            continue
        checked += 1
        for view in views:
            assert [m.span() for m in starts.finditer(pattern, view, words)] == [m.span() for m in pattern.finditer(view)], pattern.pattern[:80]
    assert checked > 20


def test_the_generated_start_words_are_current() -> None:
    """starts_cache.py must match the detectors; regenerate it with `python -m hermes_plugins_builtin.memory.scanner.gate`."""
    from hermes_plugins_builtin.memory.scanner.starts import scanned_patterns, render_cache

    current = Path(starts.__file__).with_name("starts_cache.py").read_text(encoding="utf-8")
    assert current == render_cache(scanned_patterns())


def test_a_pattern_missing_from_the_generated_words_is_read_on_first_use() -> None:
    pattern = re.compile(r"\b(?:nowhere in the cache|absent)\b")
    found = starts_of(pattern)
    assert found is not None and found.words == ("absent", "nowhere in the cache")
