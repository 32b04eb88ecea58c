"""The shape every detector shares: a family, a rule name, a pattern and an optional check of the match.

Patterns are compiled, and their gate words derived, on first use: most detectors never get past their gate for a
given note, so a process that scans a few notes compiles only the few patterns it needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .gate import gate_for

FLAGS = re.IGNORECASE | re.MULTILINE
_UNSET = object()


class Rule:
    """One detector. ``check`` may veto a match (for example a data flow whose host is this machine).

    ``gate`` holds lower-case words one of which every match contains (derived from the pattern unless given);
    ``also`` is a second such list for detectors that need two words, a verb and its object.
    """

    __slots__ = ("family", "name", "source", "flags", "check", "also", "_pattern", "_gate")

    def __init__(
        self,
        family: str,
        name: str,
        source: str,
        flags: int = FLAGS,
        check: Callable[[re.Match[str]], bool] | None = None,
        gate: Iterable[str] | None | object = _UNSET,
        also: Iterable[str] | None = None,
    ) -> None:
        self.family, self.name, self.source, self.flags, self.check = family, name, source, flags, check
        self.also = tuple(also) if also else None
        self._pattern: re.Pattern[str] | None = None
        self._gate = gate if gate is _UNSET else (tuple(gate) if gate is not None else None)  # type: ignore[arg-type]

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(self.source, self.flags)
        return self._pattern

    @property
    def gate(self) -> tuple[str, ...] | None:
        if self._gate is _UNSET:
            self._gate = gate_for(self.source, self.flags)
        return self._gate  # type: ignore[return-value]

    def without_gates(self) -> Rule:
        """The same detector with no gates (to check that gates never change a result)."""
        return Rule(self.family, self.name, self.source, self.flags, self.check, None, None)

    def passes_gates(self, lowered: str) -> bool:
        """Whether ``lowered`` (the lower-cased text) has a word of ``gate`` and one of ``also``, where given."""
        contains = lowered.__contains__
        gate, also = self.gate, self.also
        return (gate is None or any(map(contains, gate))) and (also is None or any(map(contains, also)))

    def find(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        """The first match that passes ``check``; ``lowered`` is ``text.lower()`` when the caller has it already."""
        if not self.passes_gates(text.lower() if lowered is None else lowered):
            return None
        for match in self.pattern.finditer(text):
            if self.check is None or self.check(match):
                return match
        return None


def line_of(match: re.Match[str]) -> str:
    """The line of the text that holds ``match``."""
    text = match.string
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end >= 0 else len(text)]


def any_of(words: Iterable[str]) -> str:
    """A non-capturing alternation of regex fragments."""
    return "(?:" + "|".join(words) + ")"


def window(limit: int) -> str:
    """Up to ``limit`` characters inside one sentence: no line break, and no full stop, question or exclamation
    mark unless a word, path or address goes on right after it (``~/.ssh``, ``v1.2``, ``example.com``)."""
    return rf"(?:[^.!?。！？\n]|[.!?](?=[\w/~\\-])){{0,{limit}}}?"


def rule(
    family: str,
    name: str,
    pattern: str,
    check: Callable[[re.Match[str]], bool] | None = None,
    flags: int = FLAGS,
    gate: Iterable[str] | None | object = _UNSET,
    also: Iterable[str] | None = None,
) -> Rule:
    """A detector; ``gate`` is derived from ``pattern`` when not given."""
    return Rule(family, name, pattern, flags, check, gate, also)


def words_of(pattern: str) -> tuple[str, ...] | None:
    """The gate words of a pattern fragment, for detectors that need one of its words but do not start with it."""
    return gate_for(pattern, FLAGS)
