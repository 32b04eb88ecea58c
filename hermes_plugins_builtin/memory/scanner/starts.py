"""A detector's matches tried only where one can start: at the literal words every match begins with.

Most detectors begin with a list of words (``\\b(?:ignore|disregard|...)``). ``re`` cannot skip ahead to them, so a
search tries the whole pattern at every position of the note. Where the lower-cased pattern (case-sensitive, run on
the lower-cased note) has literal words that every match starts with, the note is searched for those words with
``str.find`` and the pattern is tried with ``match`` at each place one occurs, left to right. ``match`` at a position
sees the text before it (``\\b``, lookbehinds, ``^`` after a line break), so this finds exactly the matches
``search`` and ``finditer`` find, in the same order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from re import _parser as sre_parse  # type: ignore[attr-defined]

from .gate import cache_key, start_words

#: Beyond this many start words, their places are found in one Aho-Corasick pass rather than a ``find`` per word.
_FEW_WORDS = 16
#: A pattern with more start words than this is searched as before (its union of prefixes stops being read here).
_MOST_WORDS = 4000
#: A group with its own flags that include ``i`` ("(?i:...)", "(?ai)"): its literals match other letters too.
_INLINE_IGNORECASE = re.compile(r"\(\?[aiLmsux-]*i")
#: The only characters outside ASCII that a case-blind ASCII character matches (U+0130 İ, U+0131 ı, U+017F ſ, U+212A
#: Kelvin sign; checked over every code point by the tests). U+0130 is also the one character whose lower-case form is
#: two characters long.
OTHER_CASES_OF_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


class Starts:
    """The words every match of a pattern starts with, and where they occur in a text."""

    def __init__(self, words: tuple[str, ...], case_blind: bool = False) -> None:
        self.words = words
        #: The words are lower-case and looked for in the lower-cased text (see :func:`finditer`).
        self.case_blind = case_blind
        self._automaton: object | None = None
        if len(self.words) > _FEW_WORDS:
            import ahocorasick  # the gate index's own dependency

            automaton = ahocorasick.Automaton()
            for word in self.words:
                automaton.add_word(word, len(word))
            automaton.make_automaton()
            self._automaton = automaton

    def positions(self, text: str) -> list[int]:
        """Every position of ``text`` where one of the words occurs, in order."""
        if self._automaton is not None:
            return sorted({end - length + 1 for end, length in self._automaton.iter(text)})  # type: ignore[attr-defined]
        found: set[int] = set()
        for word in self.words:
            at = text.find(word)
            while at >= 0:
                found.add(at)
                at = text.find(word, at + 1)
        return sorted(found)


def derive_words(pattern: str, flags: int) -> tuple[str, ...] | None:
    """The start words of ``pattern`` compiled with ``flags``, read from its parse tree (see :func:`starts_of`).

    For a case-blind pattern (or one with a case-blind group) the words are lower-cased and looked for in the
    lower-cased text; they are given only when all are ASCII, whose letters have exactly four other cases outside
    ASCII (see :data:`OTHER_CASES_OF_ASCII`)."""
    try:
        tree = sre_parse.parse(pattern, flags)
    except re.error:
        return None
    words = start_words(tree, _MOST_WORDS)
    if not words:
        return None
    if _case_blind(pattern, flags):
        return tuple(sorted({word.lower() for word in words})) if all(word.isascii() for word in words) else None
    return tuple(sorted(words))


def _case_blind(pattern: str, flags: int) -> bool:
    return bool(flags & re.IGNORECASE) or _INLINE_IGNORECASE.search(pattern) is not None


# Parsing a pattern costs about as much as compiling it, which the first note to reach each detector would pay
# twice. The words are derived ahead of time into starts_cache.py (regenerated with gate_cache.py by
# ``python -m hermes_plugins_builtin.memory.scanner.gate``; a test fails when it is stale), keyed by the pattern's
# text and flags: a pattern missing there is parsed on first use.
_MISSING = object()


@functools.cache
def _cached() -> dict[str, tuple[str, ...] | None]:
    from .starts_cache import STARTS

    return STARTS


def starts_of(pattern: re.Pattern[str]) -> Starts | None:
    """The literal words one of which every match of ``pattern`` starts with, or None (see :func:`derive_words`)."""
    words = _cached().get(cache_key(pattern.pattern, pattern.flags), _MISSING)
    if words is _MISSING:
        words = derive_words(pattern.pattern, pattern.flags)
    return Starts(words, _case_blind(pattern.pattern, pattern.flags)) if words else None  # type: ignore[arg-type]


def render_cache(patterns: list[tuple[str, int]]) -> str:
    """The source of starts_cache.py for ``patterns`` (the lower-cased patterns of the detectors)."""
    lines = ['"""Generated by `python -m hermes_plugins_builtin.memory.scanner.gate`: the words each lower-cased detector pattern starts with."""',
             "", "STARTS = {"]
    for pattern, flags in sorted(set(patterns), key=lambda item: cache_key(*item)):
        lines.append(f"    {cache_key(pattern, flags)!r}: {derive_words(pattern, flags)!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def scanned_patterns() -> list[tuple[str, int]]:
    """(text, flags) of the pattern each detector runs: its lower-cased pattern, or else its own; and of the other
    halves of the pair detectors (see ``meeting``)."""
    from . import RULES, _DECODED_RULES, compact
    from .rules import FLAGS

    rules = dict.fromkeys((*RULES, *_DECODED_RULES, *compact.RULES))
    found = [rule.lowered_pattern if rule.lowered_pattern is not None else rule.pattern for rule in rules]
    others = {other for rule in rules if (other := getattr(rule.check, "other_half", None)) is not None}
    return [(pattern.pattern, pattern.flags) for pattern in found] + [(other, FLAGS) for other in others]


def finditer(pattern: re.Pattern[str], text: str, starts: Starts, lowered: str | None = None) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` yields, trying ``pattern`` only where one of the start words occurs (no match of
    the pattern is empty: every one starts with a word). ``lowered`` is ``text.lower()`` when the caller has it.

    Case-blind words are looked for in the lower-cased text, which holds them wherever a match starts as long as
    the text has none of the four other cases of ASCII letters (and so keeps its length when lower-cased); a text
    that has one is searched as before."""
    if starts.case_blind:
        if lowered is None:
            lowered = text.lower()
        if len(lowered) != len(text) or OTHER_CASES_OF_ASCII.search(text) is not None:
            yield from pattern.finditer(text)
            return
        places = starts.positions(lowered)
    else:
        places = starts.positions(text)
    end = 0
    match = pattern.match
    for at in places:
        if at < end:
            continue
        found = match(text, at)
        if found is not None:
            end = found.end()
            yield found


def search(pattern: re.Pattern[str], text: str, starts: Starts, lowered: str | None = None) -> re.Match[str] | None:
    """What ``pattern.search(text)`` finds."""
    return next(finditer(pattern, text, starts, lowered), None)
