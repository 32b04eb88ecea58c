"""Every detector's gate words found in one pass over the note.

Each detector has one or two lists of words, one of which every match contains (see ``gate``). Checking them
one detector at a time meant thousands of substring searches per note, more work than the detectors that
then ran. An Aho-Corasick automaton (``pyahocorasick``) over all the words finds every one present in a single
pass; a detector then runs only when each of its lists shares a word with that set.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick

from .rules import Rule


class GateIndex:
    """The gate words of ``rules``; built once, on the first scan (deriving the gates parses every pattern)."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self._automaton = ahocorasick.Automaton()
        words: set[str] = set()
        for detector in rules:
            words.update(detector.gate or ())
            words.update(detector.also or ())
        for word in words:
            self._automaton.add_word(word, word)
        if words:
            self._automaton.make_automaton()
        self._empty = not words

    def present(self, lowered: str) -> set[str]:
        """The gate words that occur in ``lowered`` (the lower-cased text), overlapping ones included."""
        if self._empty:
            return set()
        return {word for _, word in self._automaton.iter(lowered)}
