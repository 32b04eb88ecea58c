"""The shape every detector shares: a family, a rule name, a pattern and an optional check of the match.

Patterns are compiled, and their gate words derived, on first use: most detectors never get past their gate for a
given note, so a process that scans a few notes compiles only the few patterns it needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .gate import derived

if TYPE_CHECKING:
    from .starts import Starts

FLAGS = re.IGNORECASE | re.MULTILINE
_UNSET = object()


class Rule:
    """One detector. ``check`` may veto a match (for example a data flow whose host is this machine).

    ``gate`` holds lower-case words one of which every match contains (derived from the pattern unless given);
    ``also`` is a second such list for detectors that need two words, a verb and its object.
    """

    __slots__ = ("family", "name", "source", "flags", "check", "needs", "_also", "_pattern", "_gate", "_lowered", "_starts", "_pattern_starts")

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
        self.needs: Callable[[str], bool] | None = getattr(check, "needs", None)
        self._also: tuple[str, ...] | None | object = tuple(also) if also else _UNSET
        self._pattern: re.Pattern[str] | None = None
        self._lowered: re.Pattern[str] | None | object = _UNSET
        self._starts: Starts | None | object = _UNSET
        self._pattern_starts: Starts | None | object = _UNSET
        self._gate = gate if gate is _UNSET else (tuple(gate) if gate is not None else None)  # type: ignore[arg-type]

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(self.source, self.flags)
        return self._pattern

    @property
    def lowered_pattern(self) -> re.Pattern[str] | None:
        """The pattern with its letters lower-cased and case-sensitive, to run on lower-cased text.

        Case-insensitive matching costs ``re`` two to four times as much per position; the scan lower-cases each
        view once anyway (for the gates), so a detector without a ``check`` runs this form on it instead. None for
        detectors that are case-sensitive on purpose or inspect their match.
        """
        if self._lowered is _UNSET:
            eligible = (self.check is None or getattr(self.check, "case_blind", False)) and self.flags & re.IGNORECASE
            self._lowered = re.compile(lowered_source(self.source), self.flags & ~re.IGNORECASE) if eligible else None
        return self._lowered  # type: ignore[return-value]

    @property
    def lowered_starts(self) -> Starts | None:
        """Literal words one of which every match of :attr:`lowered_pattern` starts with (see ``starts``), or None."""
        if self._starts is _UNSET:
            from .starts import starts_of

            lowered = self.lowered_pattern
            self._starts = starts_of(lowered) if lowered is not None else None
        return self._starts  # type: ignore[return-value]

    @property
    def pattern_starts(self) -> Starts | None:
        """Words one of which every match of :attr:`pattern` starts with (see ``starts``), or None."""
        if self._pattern_starts is _UNSET:
            from .starts import starts_of

            self._pattern_starts = starts_of(self.pattern)
        return self._pattern_starts  # type: ignore[return-value]

    @property
    def gate(self) -> tuple[str, ...] | None:
        if self._gate is _UNSET:
            self._derive_gates()
        return self._gate  # type: ignore[return-value]

    @property
    def also(self) -> tuple[str, ...] | None:
        if self._also is _UNSET:
            self._derive_gates()
        return self._also  # type: ignore[return-value]

    def _derive_gates(self) -> None:
        """Gates read from the pattern: its literal prefix words, or stronger words it needs further on."""
        prefix, required, second = derived(self.source, self.flags)
        if self._gate is _UNSET:
            weak = prefix is None or min(len(w.strip()) for w in prefix) <= 3
            self._gate = required if weak and required is not None else prefix
            if self._also is _UNSET:
                # A strong prefix still leaves the words the pattern needs further on as a second, independent check.
                strong_required = required is not None and min(len(w.strip()) for w in required) > 3 and required != self._gate
                self._also = second if self._gate == required else (required if weak or strong_required else None)
        if self._also is _UNSET:
            # The gate was given by hand: a word the pattern needs elsewhere is still a valid second check.
            strong = required is not None and min(len(w.strip()) for w in required) > 3
            self._also = required if strong and required != self._gate else None

    def without_gates(self) -> Rule:
        """The same detector with no gates (to check that gates never change a result)."""
        bare = Rule(self.family, self.name, self.source, self.flags, self.check, None, None)
        bare._also = None
        return bare

    def passes_gates(self, lowered: str) -> bool:
        """Whether ``lowered`` (the lower-cased text) has a word of ``gate`` and one of ``also``, where given."""
        contains = lowered.__contains__
        gate, also = self.gate, self.also
        return (gate is None or any(map(contains, gate))) and (also is None or any(map(contains, also)))

    def find(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        """The first match that passes ``check``; ``lowered`` is ``text.lower()`` when the caller has it already."""
        if not self.passes_gates(text.lower() if lowered is None else lowered):
            return None
        return self.checked_match(text)

    def checked_match(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        """The first match that passes ``check``, gates not consulted (the caller has checked them); ``lowered`` is
        ``text.lower()`` when the caller has it already."""
        words = self.pattern_starts
        if words is not None:  # tried only where a match can start (see ``starts``)
            from .starts import finditer

            matches = finditer(self.pattern, text, words, lowered)
        else:
            matches = self.pattern.finditer(text)
        for match in matches:
            if self.check is None or self.check(match):
                return match
        return None


CheckT = Callable[[re.Match[str]], bool]


def case_blind(check: CheckT) -> CheckT:
    """Mark a ``check`` that decides the same on the lower-cased text, so its detector may run lower-cased."""
    check.case_blind = True  # type: ignore[attr-defined]
    return check


def needs(condition: Callable[[str], bool]) -> Callable[[CheckT], CheckT]:
    """Mark a ``check`` that can only pass when ``condition`` holds for the whole text (for example, the
    line of the match names a remote host, so the text does): the scan skips the pattern when it does not."""

    def mark(check: CheckT) -> CheckT:
        check.needs = condition  # type: ignore[attr-defined]
        return check

    return mark


# Escapes, and named groups ("(?P<name>", "(?P=name)"), whose letters keep their case.
_ESCAPE = re.compile(r"\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|N\{[^}]*\}|.)|\(\?P(?:<\w+>|=\w+\))", re.DOTALL)


def lowered_source(source: str) -> str:
    """``source`` with every letter outside an escape or a group name lower-cased (``\\S``, ``\\W``, ``\\x41`` keep their meaning)."""
    parts, last = [], 0
    for escape in _ESCAPE.finditer(source):
        parts.append(source[last : escape.start()].lower())
        parts.append(escape.group())
        last = escape.end()
    parts.append(source[last:].lower())
    return "".join(parts)


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
    return derived(pattern, FLAGS)[0]
