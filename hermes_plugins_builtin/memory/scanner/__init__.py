"""Injection scanning of memory writes.

A note is refused when, once it sits in a later system prompt, it would act on the agent: override its
instructions, change who it obeys, hide things from the user, reveal its prompt, move secrets, plant persistence,
run downloaded code, forge prompt structure, or carry invisible characters no writing system needs. The detectors
read the note as written, a normalised form (look-alikes, invisibles, spacing and l33tspeak undone), and any
payload embedded in base64, hex, percent-encoding, ROT13, reversed text or tag characters. Every refusal is a
:class:`Finding` that names the family and the matched span.

Modules: ``normalise`` and ``decode`` make the forms, ``invisible`` is the character policy, and the detectors
are grouped by family in ``instructions`` (English), ``semantics`` (what a note does, whatever its words),
``concepts`` (concept classes that meet in a sentence), ``languages`` (other languages), ``commands``,
``runtimes`` (one-liners of every language runtime),
``persistence``, ``forgery`` and ``compact``. What they all accept is read last by ``learned``, a linear model
per family trained on labelled notes, which carries over to paraphrase and other languages.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from . import commands, compact, concepts, decode, forgery, indirect, instructions, invisible, languages, learned, meaning, persistence, runtimes, semantics, starts, vocabulary
from ..findings import FAMILIES, SCAN_LIMIT, Finding, blocked_marker, printable_span
from ..verdicts import fingerprint
from .normalise import compact as letters_only
from .normalise import despaced, folded, nfkc, without_invisible
# Concept classes whose words, in many languages, meet in one sentence (pairs found in two passes by ``meeting``).
from . import crosslingual, crosslingual_conceal, crosslingual_override, footholds
from .prefilter import GateIndex
from .rules import Rule

__all__ = ["FAMILIES", "SCAN_LIMIT", "Finding", "blocked_marker", "printable_span", "scan", "scan_rules", "RULES"]

#: What this code is, taken as it is imported: the verdicts it keeps on disk (``verdicts.py``) are filed under it, so an
#: upgrade installed while this process runs does not pass them off as the new scanner's.
FINGERPRINT: str | None = fingerprint(fresh=True)

#: Every detector, in the order they are tried; structure (forgery) first because it is the cheapest to confirm.
# Persistence before commands: a cron line that pipes a download into sh is named for what it plants.
RULES: tuple[Rule, ...] = (
    *forgery.RULES, *instructions.RULES, *indirect.RULES, *persistence.RULES, *commands.RULES, *runtimes.RULES, *semantics.RULES, *concepts.RULES, *languages.RULES,
    *crosslingual.RULES, *crosslingual_conceal.RULES, *crosslingual_override.RULES, *footholds.RULES,
)
# ROT13 and reversal are only tried on notes that ask for them, and only the English and structure rules apply there.
_DECODED_RULES: tuple[Rule, ...] = (*forgery.RULES, *instructions.RULES, *indirect.RULES, *persistence.RULES, *commands.RULES, *runtimes.RULES, *semantics.RULES, *concepts.RULES)
vocabulary.learn_from([r.source for r in (*forgery.RULES, *instructions.RULES, *persistence.RULES, *commands.RULES, *concepts.RULES)])

#: Texts up to this length have their scan result cached (entries are rescanned on every read).
_CACHED_LENGTH = 4096
#: Longer texts are read by the detectors in overlapping pieces, which keeps the work linear in the length;
#: the overlap is wider than any detector's reach across a sentence.
_PIECE = 4096
_OVERLAP = 512


def scan(text: str) -> Finding | None:
    """The first reason to refuse ``text`` as a memory entry, or ``None`` when it is clean."""
    with_meaning = meaning.enabled()
    return _scan_cached(text, with_meaning) if len(text) <= _CACHED_LENGTH else _scan(text, with_meaning)


@functools.lru_cache(maxsize=4096)
def _scan_cached(text: str, with_meaning: bool) -> Finding | None:
    return _scan(text, with_meaning)


_index: GateIndex | None = None


def _gate_index() -> GateIndex:
    global _index
    if _index is None:
        _index = GateIndex((*RULES, *_DECODED_RULES, *compact.RULES))
    return _index


#: Off only to check that the lower-cased patterns decide exactly as the case-insensitive ones do.
_LOWERED_PATTERNS = True


def _candidates(rules: tuple[Rule, ...], present: set[str]) -> Iterator[Rule]:
    """The detectors of ``rules``, in order, whose gate words are all met by ``present``."""
    index = _gate_index()
    plan = index.plan(rules)
    if plan is None:
        disjoint = present.isdisjoint
        for detector in rules:
            gate, also = detector.gate, detector.also
            if not ((gate is not None and disjoint(gate)) or (also is not None and disjoint(also))):
                yield detector
        return
    mask = index.candidates(present) & plan
    indexed = index.rules
    while mask:
        lowest = mask & -mask
        mask ^= lowest
        yield indexed[lowest.bit_length() - 1]


def _extent(detector: Rule, match: re.Match[str]) -> tuple[int, int]:
    """Where the refusal's span lies: a detector that finds two halves spans both (see ``meeting``)."""
    extent = getattr(detector.check, "extent", None)
    return match.span() if extent is None else extent(match)


def _first(rules: tuple[Rule, ...], text: str, view: str) -> Finding | None:
    lowered = text.lower()
    present = _gate_index().present(lowered)
    # Lower-casing keeps positions when it keeps the length (it does not for a few letters such as U+0130).
    aligned = _LOWERED_PATTERNS and len(lowered) == len(text)
    for detector in _candidates(rules, present):
        if detector.needs is not None and not detector.needs(text):
            continue
        fast = detector.lowered_pattern if aligned else None
        if fast is not None:
            words = detector.lowered_starts
            if words is not None:  # tried only where a match can start (see ``starts``)
                found = starts.search(fast, lowered, words) if detector.check is None else next(filter(detector.check, starts.finditer(fast, lowered, words)), None)
            else:
                found = fast.search(lowered) if detector.check is None else next(filter(detector.check, fast.finditer(lowered)), None)
            if found is not None:
                start, end = _extent(detector, found)
                return Finding(detector.family, detector.name, text[start:end], view)
            continue
        match = detector.checked_match(text, lowered)
        if match is not None:
            start, end = _extent(detector, match)
            return Finding(detector.family, detector.name, text[start:end], view)
    return None


def _read(text: str, view: str, rules: tuple[Rule, ...]) -> Finding | None:
    """Run ``rules`` on ``text`` and on its normalised form (when that differs)."""
    plain = without_invisible(nfkc(text))
    found = _first(rules, plain, view)
    if found is not None:
        return found
    normal = folded(plain)
    if normal != plain.casefold():
        found = _first(rules, normal, "normalised" if view == "text" else f"normalised {view}")
        if found is not None:
            return found
    joined = despaced(plain)
    if joined is not None:
        found = _first(rules, joined, "de-spaced" if view == "text" else f"de-spaced {view}")
        if found is not None:
            return found
    letters = letters_only(normal)
    if len(letters) >= 0.6 * len(normal.replace(" ", "")) and normal.count(" ") >= 0.4 * len(letters):
        return _first(compact.RULES, letters, "letters-only" if view == "text" else f"letters-only {view}")
    return None


def _detect(text: str) -> Finding | None:
    """The detectors on the note, its normalised forms and the payloads embedded in it."""
    found = _read(text, "text", RULES)
    if found is not None:
        return found
    for view, payload in (*invisible.hidden_payloads(text), *decode.payloads(without_invisible(nfkc(text)))):
        rules = _DECODED_RULES if view in ("ROT13-decoded", "reversed") else RULES
        found = _read(payload, view, rules)
        if found is not None:
            return found
    return None


def _scan(text: str, with_meaning: bool = False) -> Finding | None:
    found = scan_rules(text)
    # The learned detector reads only what every rule accepted: it adds recall, the rules keep their refusals.
    if found is None:
        found = learned.judge(text)
    # The meaning stage (tens of milliseconds) last, on what everything else accepted.
    if found is None and with_meaning:
        found = meaning.judge(text)
    return found


def scan_rules(text: str) -> Finding | None:
    """The hand-written detectors alone (uncached): what :func:`scan` refuses before the learned detector reads."""
    if len(text) > SCAN_LIMIT:
        return Finding("oversize", "scan_limit", f"{len(text)} characters, more than the {SCAN_LIMIT} the scan reads")
    for start in range(0, max(1, len(text) - _OVERLAP), _PIECE - _OVERLAP):
        found = _detect(text[start : start + _PIECE])
        if found is not None:
            return found
    bad = invisible.disallowed(text)
    if bad is not None:
        code_point, span = bad
        return Finding("invisible_characters", code_point, span)
    return None
