"""A cheap pre-check for each detector: the literal words one of which must appear for its pattern to match.

Most detectors start with a word from a list ("ignore|disregard|forget ..."). Searching the note for those
words as plain substrings (``word in text``) is many times faster than running the full pattern at every position, so a detector
whose words are absent is skipped. The words are read from the pattern's own parse tree, so a gate can
never disagree with its pattern; a pattern that does not start with a literal word gets no gate.
"""

from __future__ import annotations

import functools
import hashlib
import re
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

_MIN_PREFIX = 2
_MAX_PREFIXES = 120
_ZERO_WIDTH = {sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT}


def _prefixes(items: list, depth: int = 0, most: int = _MAX_PREFIXES, shortest: int = _MIN_PREFIX) -> set[str] | None:
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
            inner = _prefixes(list(arg[-1]), depth + 1, most, shortest)
        elif op is sre_constants.BRANCH:
            inner = set()
            for branch in arg[1]:
                found = _prefixes(list(branch), depth + 1, most, shortest)
                if found is None:
                    inner = None
                    break
                inner |= found
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] == 0 and results == {""}:
            # An optional start: a match either begins with it or with what follows, so either set of words will do.
            optional, rest = _prefixes(list(arg[2]), depth + 1, most, shortest), _prefixes(items[index + 1 :], depth + 1, most, shortest)
            if optional is None or rest is None:
                return None
            return optional | rest
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] >= 1:
            inner = _prefixes(list(arg[2]), depth + 1, most, shortest)
            # Only the first repetition is certain; what follows the repeat is unknown, so stop after it.
            if inner is None:
                break
            results = {prefix + tail for prefix in results for tail in inner}
            return results if all(len(p) >= shortest for p in results) else None
        else:
            break
        if inner is None:
            break
        results = {prefix + tail for prefix in results for tail in inner}
        if len(results) > most:
            return None
        if index + 1 < len(items):
            # Continue only while every alternative was a pure literal (their prefixes then extend together).
            return results if all(len(p) >= shortest for p in results) else None
    if not results or any(len(p) < shortest for p in results):
        return None
    return results


def start_words(tree: object, most: int) -> set[str] | None:
    """The literal prefixes, as written (not lower-cased, none dropped), one of which every match of the parsed
    pattern ``tree`` starts with; None when there are none or more than ``most``. One character is enough here: the
    words say where a match may start, not whether a detector is worth running."""
    return _prefixes(list(tree), most=most, shortest=1)  # type: ignore[call-overload]


def gate_for(pattern: str, flags: int) -> tuple[str, ...] | None:
    """Lower-case words one of which occurs in (the lower-cased form of) every text ``pattern`` can match, or None."""
    try:
        tree = sre_parse.parse(pattern, flags)
    except re.error:
        return None
    found = _prefixes(list(tree))
    if not found:
        return None
    words = sorted({p.lower() for p in found}, key=lambda w: (len(w), w))
    # A word that contains a shorter one adds nothing to the check.
    kept: list[str] = []
    for word in words:
        if not any(short in word for short in kept):
            kept.append(word)
    return tuple(kept)


# ---- required words anywhere in a pattern -----------------------------------------------------------------
# A prefix gate is weak when the pattern starts with short, common words ("the", "my", "be"). Every match also
# contains one word of each *mandatory* part of the pattern (a literal run, a group, a branch whose every arm has
# such words), wherever that part sits. The two strongest such sets make a gate and a second, independent check.

_WEAK = 3  # a set whose shortest word has this many letters or fewer barely narrows anything


def _required_sets(items: list, depth: int = 0) -> list[frozenset[str]]:
    """Sets of words such that every match of the sequence ``items`` contains a word of each set."""
    if depth > 8:
        return []
    sets: list[frozenset[str]] = []
    run = ""
    for op, arg in items:
        if op is sre_constants.LITERAL:
            run += chr(arg)
            continue
        if len(run) >= _MIN_PREFIX:
            sets.append(frozenset({run}))
        run = ""
        if op in _ZERO_WIDTH:
            continue
        if op is sre_constants.SUBPATTERN:
            sets.extend(_required_sets(list(arg[-1]), depth + 1))
        elif op is sre_constants.BRANCH:
            arms = [_required_sets(list(branch), depth + 1) for branch in arg[1]]
            # A set every arm needs ("a ... b | b ... a") is needed by the whole branch.
            sets.extend(set(arms[0]).intersection(*arms[1:]))
            union: set[str] = set()
            for found in arms:
                best = _strongest(found)
                if best is None:
                    union = set()
                    break
                union |= best
            if union and len(union) <= _MAX_PREFIXES:
                sets.append(frozenset(union))
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and arg[0] >= 1:
            sets.extend(_required_sets(list(arg[2]), depth + 1))
    if len(run) >= _MIN_PREFIX:
        sets.append(frozenset({run}))
    return sets


def _strength(words: frozenset[str]) -> tuple[int, int]:
    # Bytes rather than characters: two CJK characters narrow a search as much as six Latin letters.
    return (min(len(w.strip().encode()) for w in words), -len(words))


def _strongest(sets: list[frozenset[str]]) -> frozenset[str] | None:
    return max(sets, key=lambda s: (_strength(s), sorted(s))) if sets else None


def _minimal(words: frozenset[str]) -> tuple[str, ...]:
    kept: list[str] = []
    for word in sorted({w.lower() for w in words}, key=lambda w: (len(w), w)):
        if not any(short in word for short in kept):
            kept.append(word)
    return tuple(kept)


def required_words(pattern: str, flags: int) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """Two word lists (either may be None) such that every match of ``pattern`` contains a word of each."""
    try:
        tree = sre_parse.parse(pattern, flags)
    except re.error:
        return None, None
    # Ties are broken by the words themselves so that the choice is the same in every process.
    sets = sorted(set(_required_sets(list(tree))), key=lambda s: (_strength(s), sorted(s)), reverse=True)
    if not sets:
        return None, None
    first = _minimal(sets[0])
    second = next((_minimal(s) for s in sets[1:] if _strength(s)[0] > _WEAK and not set(s) & sets[0]), None)
    return first, second


# ---- the derived words, kept in a generated module -----------------------------------------------------------
# Parsing every pattern costs a few hundred milliseconds, which the first scan of a process would pay. The words
# are derived ahead of time into gate_cache.py (a test fails when it is stale); a pattern missing there is
# parsed on first use as before.

Derived = tuple[tuple[str, ...] | None, tuple[str, ...] | None, tuple[str, ...] | None]


def cache_key(pattern: str, flags: int) -> str:
    return hashlib.blake2b(f"{flags}:{pattern}".encode(), digest_size=12).hexdigest()


def derive(pattern: str, flags: int) -> Derived:
    """(prefix words, strongest required words, a second independent list) of ``pattern``."""
    required, second = required_words(pattern, flags)
    return gate_for(pattern, flags), required, second


@functools.cache
def _cached() -> dict[str, Derived]:
    from .gate_cache import DERIVED

    return DERIVED


def derived(pattern: str, flags: int) -> Derived:
    found = _cached().get(cache_key(pattern, flags))
    return found if found is not None else derive(pattern, flags)


def render_cache(patterns: list[tuple[str, int]]) -> str:
    """The source of gate_cache.py for ``patterns``."""
    lines = ['"""Generated by `python -m hermes_plugins_builtin.memory.scanner.gate`: each detector\'s gate words, derived ahead of time."""', "",
             "DERIVED = {"]
    for pattern, flags in sorted(set(patterns), key=lambda item: cache_key(*item)):
        lines.append(f"    {cache_key(pattern, flags)!r}: {derive(pattern, flags)!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _all_patterns() -> list[tuple[str, int]]:
    from . import RULES, _DECODED_RULES, compact
    from .meeting import NEEDED_PARTS
    from .rules import FLAGS

    return [(rule.source, rule.flags) for rule in (*RULES, *_DECODED_RULES, *compact.RULES)] + [(part, FLAGS) for part in NEEDED_PARTS]


if __name__ == "__main__":
    from pathlib import Path

    Path(__file__).with_name("gate_cache.py").write_text(render_cache(_all_patterns()), encoding="utf-8")
    from .starts import scanned_patterns
    from .starts import render_cache as render_starts

    Path(__file__).with_name("starts_cache.py").write_text(render_starts(scanned_patterns()), encoding="utf-8")
