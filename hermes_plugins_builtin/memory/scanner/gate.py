"""A cheap pre-check for each detector: the literal words one of which must appear for its pattern to match.

Most detectors start with a word from a list ("ignore|disregard|forget ..."). Searching the note for those
words as plain substrings (``word in text``) is many times faster than running the full pattern at every position, so a detector
whose words are absent is skipped. The words are read from the pattern's own parse tree, so a gate can
never disagree with its pattern; a pattern that does not start with a literal word gets no gate.
"""

from __future__ import annotations

import re
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

_MIN_PREFIX = 2
_MAX_PREFIXES = 120
_ZERO_WIDTH = {sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT}


def _prefixes(items: list, depth: int = 0) -> set[str] | None:
    """Literal prefixes that every match of the sequence ``items`` starts with, or None if there is none."""
    if depth > 8:
        return None
    results: set[str] = {""}
    for index, (op, arg) in enumerate(items):
        if op in _ZERO_WIDTH:
            continue
        if op is sre_constants.LITERAL:
            results = {prefix + chr(arg) for prefix in results}
            continue
        if op is sre_constants.SUBPATTERN:
            inner = _prefixes(list(arg[-1]), depth + 1)
        elif op is sre_constants.BRANCH:
            inner = set()
            for branch in arg[1]:
                found = _prefixes(list(branch), depth + 1)
                if found is None:
                    inner = None
                    break
                inner |= found
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] == 0 and results == {""}:
            # An optional start: a match either begins with it or with what follows, so either set of words will do.
            optional, rest = _prefixes(list(arg[2]), depth + 1), _prefixes(items[index + 1 :], depth + 1)
            if optional is None or rest is None:
                return None
            return optional | rest
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] >= 1:
            inner = _prefixes(list(arg[2]), depth + 1)
            # Only the first repetition is certain; what follows the repeat is unknown, so stop after it.
            if inner is None:
                break
            results = {prefix + tail for prefix in results for tail in inner}
            return results if all(len(p) >= _MIN_PREFIX for p in results) else None
        else:
            break
        if inner is None:
            break
        results = {prefix + tail for prefix in results for tail in inner}
        if len(results) > _MAX_PREFIXES:
            return None
        if index + 1 < len(items):
            # Continue only while every alternative was a pure literal (their prefixes then extend together).
            return results if all(len(p) >= _MIN_PREFIX for p in results) else None
    if not results or any(len(p) < _MIN_PREFIX for p in results):
        return None
    return results


def gate_for(pattern: str, flags: int) -> tuple[str, ...] | None:
    """Lower-case words one of which occurs in (the lower-cased form of) every text ``pattern`` can match, or None."""
    try:
        tree = sre_parse.parse(pattern, flags)
    except re.error:
        return None
    found = _prefixes(list(tree))
    if not found:
        return None
    words = sorted({p.lower() for p in found}, key=len)
    # A word that contains a shorter one adds nothing to the check.
    kept: list[str] = []
    for word in words:
        if not any(short in word for short in kept):
            kept.append(word)
    return tuple(kept)
