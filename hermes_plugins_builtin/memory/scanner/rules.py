"""The shape every detector shares: a family, a rule name, a compiled pattern and an optional check of the match."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from .gate import gate_for

FLAGS = re.IGNORECASE | re.MULTILINE


class Rule(NamedTuple):
    """One detector. ``check`` may veto a match (for example a data flow whose host is this machine)."""

    family: str
    name: str
    pattern: re.Pattern[str]
    check: Callable[[re.Match[str]], bool] | None = None
    gate: tuple[str, ...] | None = None
    also: tuple[str, ...] | None = None

    def passes_gates(self, lowered: str) -> bool:
        """Whether ``lowered`` (the lower-cased text) has a word of ``gate`` and one of ``also``, where given."""
        contains = lowered.__contains__
        return (self.gate is None or any(map(contains, self.gate))) and (self.also is None or any(map(contains, self.also)))

    def find(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        """The first match that passes ``check``; ``lowered`` is ``text.lower()`` when the caller has it already."""
        if not self.passes_gates(text.lower() if lowered is None else lowered):
            return None
        for match in self.pattern.finditer(text):
            if self.check is None or self.check(match):
                return match
        return None


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
    gate: Iterable[str] | None = None,
    also: Iterable[str] | None = None,
) -> Rule:
    """A detector; ``gate`` (lower-case words, one of which every match contains) is derived when not given;
    ``also`` is a second such list for detectors that need two words (a verb and its object)."""
    compiled = re.compile(pattern, flags)
    return Rule(family, name, compiled, check, tuple(gate) if gate is not None else gate_for(compiled), tuple(also) if also else None)


def words_of(pattern: str) -> tuple[str, ...] | None:
    """The gate words of a pattern fragment, for detectors that need one of its words but do not start with it."""
    return gate_for(re.compile(pattern, FLAGS))
