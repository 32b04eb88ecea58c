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

    def find(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        """The first match that passes ``check``; ``lowered`` is ``text.lower()`` when the caller has it already."""
        if self.gate is not None:
            low = text.lower() if lowered is None else lowered
            if not any(word in low for word in self.gate):
                return None
        for match in self.pattern.finditer(text):
            if self.check is None or self.check(match):
                return match
        return None


def any_of(words: Iterable[str]) -> str:
    """A non-capturing alternation of regex fragments."""
    return "(?:" + "|".join(words) + ")"


def window(limit: int) -> str:
    """Up to ``limit`` characters inside one sentence (no full stop, question mark or line break)."""
    return rf"[^.!?。！？\n]{{0,{limit}}}?"


def rule(
    family: str,
    name: str,
    pattern: str,
    check: Callable[[re.Match[str]], bool] | None = None,
    flags: int = FLAGS,
    gate: Iterable[str] | None = None,
) -> Rule:
    """A detector; ``gate`` (lower-case words, one of which every match contains) is derived when not given."""
    compiled = re.compile(pattern, flags)
    return Rule(family, name, compiled, check, tuple(gate) if gate is not None else gate_for(compiled))


def words_of(pattern: str) -> tuple[str, ...] | None:
    """The gate words of a pattern fragment, for detectors that need one of its words but do not start with it."""
    return gate_for(re.compile(pattern, FLAGS))
