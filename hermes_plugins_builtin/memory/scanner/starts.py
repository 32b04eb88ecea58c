"""A detector's matches tried only where one can start: at the literal words every match begins with.

Most detectors begin with a list of words (``\\b(?:ignore|disregard|...)``). ``re`` cannot skip ahead to them, so a
search tries the whole pattern at every position of the note. Where the lower-cased pattern (case-sensitive, run on
the lower-cased note) has literal words that every match starts with, the note is searched for those words with
``str.find`` and the pattern is tried with ``match`` at each place one occurs, left to right. ``match`` at a position
sees the text before it (``\\b``, lookbehinds, ``^`` after a line break), so this finds exactly the matches
``search`` and ``finditer`` find, in the same order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from re import _parser as sre_parse  # type: ignore[attr-defined]

from .gate import start_words

#: Beyond this many start words, their places are found in one Aho-Corasick pass rather than a ``find`` per word.
_FEW_WORDS = 16
#: A pattern with more start words than this is searched as before (its union of prefixes stops being read here).
_MOST_WORDS = 4000
#: A group with its own flags that include ``i`` ("(?i:...)", "(?ai)"): its literals match other letters too.
_INLINE_IGNORECASE = re.compile(r"\(\?[aiLmsux-]*i")


class Starts:
    """The words every match of a pattern starts with, and where they occur in a text."""

    def __init__(self, words: set[str]) -> None:
        self.words = tuple(sorted(words))
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


def starts_of(pattern: re.Pattern[str]) -> Starts | None:
    """The literal words one of which every match of ``pattern`` starts with (exactly, character for character), or None.

    Only for case-sensitive patterns: a case-insensitive literal also matches other letters ("i" matches "ı").
    """
    if pattern.flags & re.IGNORECASE or _INLINE_IGNORECASE.search(pattern.pattern):
        return None
    try:
        tree = sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:
        return None
    words = start_words(tree, _MOST_WORDS)
    return Starts(words) if words else None


def finditer(pattern: re.Pattern[str], text: str, starts: Starts) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` yields, trying ``pattern`` only where one of the start words occurs (no match of
    the pattern is empty: every one starts with a word)."""
    end = 0
    match = pattern.match
    for at in starts.positions(text):
        if at < end:
            continue
        found = match(text, at)
        if found is not None:
            end = found.end()
            yield found


def search(pattern: re.Pattern[str], text: str, starts: Starts) -> re.Match[str] | None:
    """What ``pattern.search(text)`` finds."""
    return next(finditer(pattern, text, starts), None)
