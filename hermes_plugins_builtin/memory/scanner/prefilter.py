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
    """The gate words of ``rules``; built once, on the first scan.

    Each word also maps to a bit mask of the detectors that list it, so a scan visits only the detectors whose
    lists all met a word (bits in the order of ``rules``) instead of testing every detector in Python.
    """

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: list[Rule] = list(dict.fromkeys(rules))
        self._bit = {detector: 1 << index for index, detector in enumerate(self.rules)}
        self._gate_mask: dict[str, int] = {}
        self._also_mask: dict[str, int] = {}
        self._ungated = self._no_also = 0
        for detector, bit in self._bit.items():
            for words, masks, attr in ((detector.gate, self._gate_mask, "_ungated"), (detector.also, self._also_mask, "_no_also")):
                if words is None:
                    setattr(self, attr, getattr(self, attr) | bit)
                    continue
                for word in words:
                    masks[word] = masks.get(word, 0) | bit
        self._automaton = ahocorasick.Automaton()
        words = set(self._gate_mask) | set(self._also_mask)
        for word in words:
            self._automaton.add_word(word, word)
        if words:
            self._automaton.make_automaton()
        self._empty = not words
        self._plans: dict[tuple[Rule, ...], int | None] = {}

    def plan(self, rules: tuple[Rule, ...]) -> int | None:
        """The mask of ``rules``, or None when they are not all indexed in this order (then test each one)."""
        if rules not in self._plans:
            bits = [self._bit.get(detector) for detector in rules]
            ordered = all(bit is not None for bit in bits) and all(a < b for a, b in zip(bits, bits[1:]))  # type: ignore[operator]
            self._plans[rules] = sum(bits) if ordered else None  # type: ignore[arg-type]
        return self._plans[rules]

    def candidates(self, present: set[str]) -> int:
        """The mask of detectors each of whose word lists has a word in ``present``."""
        gate, also = self._ungated, self._no_also
        gate_mask, also_mask = self._gate_mask, self._also_mask
        for word in present:
            gate |= gate_mask.get(word, 0)
            also |= also_mask.get(word, 0)
        return gate & also

    def present(self, lowered: str) -> set[str]:
        """The gate words that occur in ``lowered`` (the lower-cased text), overlapping ones included."""
        if self._empty:
            return set()
        return {word for _, word in self._automaton.iter(lowered)}
