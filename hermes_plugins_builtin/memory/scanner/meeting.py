"""Two concept classes inside one stretch of text, found by one pass of each instead of one regex for the pair.

A pair written as one regex, ``(?:A)gap(?:B)|(?:B)gap(?:A)``, tries the second class at every position after every
start of the first: with unions of hundreds of words in dozens of languages that dominates the scan. Here the
pattern is the rarer class alone (the *anchor*), and a check looks for the other class in the stretch around each
anchor match: before it or after it, with no stop in the gap and the gap no longer than ``reach``. That is the
same condition as the regex pair, decided in two passes of one alternation each.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .gate import derived
from .guards import denied_before
from .rules import FLAGS, Rule, case_blind, needs, rule
from .starts import Starts, finditer, starts_of

Check = Callable[[re.Match[str]], bool]
#: Longer than any match of a concept class (a phrase of a few words).
_LONGEST_OTHER = 120

#: Ends of a sentence: a stop not followed by a word, path, address or closing quote (``~/.ssh``, ``example.com``).
SENTENCE = re.compile(r"[.!?。！？।؟\n](?![\w/~\\\-\"”’»])")


#: Every fragment ``needed`` has read: ``python -m ...scanner.gate`` derives their words ahead of time into
#: gate_cache.py, so that importing the scanner does not parse them.
NEEDED_PARTS: list[str] = []


def needed(fragment: str, strict: bool = True) -> tuple[str, ...] | None:
    """Words one of which every match of ``fragment`` contains; a union (see ``crosslingual``) is read body by body.
    None when some part yields no words (only allowed when not ``strict``: the detector then has no such gate)."""
    parts = getattr(fragment, "bodies", None) or (fragment,)
    found: list[str] = []
    for part in parts:
        NEEDED_PARTS.append(part)
        words = derived(part, FLAGS)[1]
        if words is None:
            assert not strict, part[:80]
            return None
        found.extend(words)
    return tuple(dict.fromkeys(found))


_META = set("\\()[].*+?{}|^$")


def _top_level(body: str) -> list[str]:
    """The alternatives of ``body`` at its outer level."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    return parts


def _opening_words(alternative: str) -> list[str] | None:
    """Literal words every match of ``alternative`` starts with (through a leading \\b and non-capturing groups)."""
    rest = alternative[2:] if alternative.startswith("\\b") else alternative
    if rest.startswith("(?:"):
        depth, i = 0, 0
        while i < len(rest):
            if rest[i] == "\\":
                i += 2
                continue
            depth += rest[i] in "(["
            depth -= rest[i] in ")]"
            if depth == 0:
                break
            i += 1
        inner, tail = rest[3:i], rest[i + 1 :]
        if tail and tail[0] in "?*{":
            return None
        found: list[str] = []
        for part in _top_level(inner):
            words = _opening_words(part)
            if words is None:
                return None
            found.extend(words)
        return found
    literal = ""
    for ch in rest:
        if ch in _META:
            break
        literal += ch
    if rest[len(literal) : len(literal) + 1] in ("?", "*", "{") and literal:
        literal = literal[:-1]  # the last letter is optional
    return [literal] if len(literal.strip()) >= 4 else None


def phrase_gate(fragment: str) -> tuple[str, ...]:
    """Gate words of a union made of the literal phrases each branch opens with ("systemregeln", "bu not"), where
    the derived words would be a prefix they share ("system") or a short word ("not"); branches that open with a
    class or a short word fall back to their derived words."""
    found: list[str] = []
    for body in getattr(fragment, "bodies", None) or (fragment,):
        for alternative in _top_level(body):
            words = _opening_words(alternative)
            found.extend(words if words is not None else needed(alternative))  # type: ignore[arg-type]
    return tuple(dict.fromkeys(found))


def note_mentions(pattern: str | re.Pattern[str]) -> Callable[[str], bool]:
    """Whether a text has a match of ``pattern`` (case-blind), remembered for the last text: a check that asks it of
    the whole note runs once per match, and a note may hold hundreds of matches."""
    search = (pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, FLAGS)).search
    last: list[tuple[str, bool] | None] = [None]

    def mentions(text: str) -> bool:
        cached = last[0]
        if cached is None or cached[0] is not text:
            cached = (text, search(text) is not None)
            last[0] = cached
        return cached[1]

    return mentions


#: A class with more branches than this is searched through only the branches whose words the text holds.
_GATED_BRANCHES = 40


class GatedAlternation:
    """A large alternation (a union of every language's verdicts: thousands of branches) searched through only the
    branches that can match the text: those whose words (one of which every match of the branch contains) occur in
    it, found in one Aho-Corasick pass, and those that have no such words. The branches keep their order, so the
    matches are exactly those of the whole alternation; a subset's pattern is compiled once and kept."""

    def __init__(self, fragment: str) -> None:
        self.branches = [branch for body in getattr(fragment, "bodies", None) or (fragment,) for branch in _top_level(body)]
        NEEDED_PARTS.extend(self.branches)
        self._automaton: object | None = None
        self._always: frozenset[int] = frozenset()
        self._compiled: dict[tuple[int, ...], re.Pattern[str]] = {}

    def _build(self) -> object:
        import ahocorasick  # the gate index's own dependency, loaded with it

        by_word: dict[str, set[int]] = {}
        always: set[int] = set()
        for index, branch in enumerate(self.branches):
            words = derived(branch, FLAGS)[1]
            if not words:
                always.add(index)
            for word in words or ():
                by_word.setdefault(word, set()).add(index)
        automaton = ahocorasick.Automaton()
        for word, indices in by_word.items():
            automaton.add_word(word, frozenset(indices))
        if by_word:
            automaton.make_automaton()
        self._always = frozenset(always)
        self._automaton = automaton if by_word else None
        return automaton

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if self._automaton is None and not self._always:
            self._build()
        chosen = set(self._always)
        if self._automaton is not None:
            for _, indices in self._automaton.iter(text.lower()):  # type: ignore[attr-defined]
                chosen |= indices
        if not chosen:
            return iter(())
        key = tuple(sorted(chosen))
        pattern = self._compiled.get(key)
        if pattern is None:
            if len(self._compiled) >= 512:  # bounded: a long-running host sees many combinations
                self._compiled.clear()
            pattern = self._compiled[key] = re.compile("|".join(f"(?:{self.branches[i]})" for i in key), FLAGS)
        return pattern.finditer(text)


def meeting(family: str, name: str, anchor: str, other: str, then: Check | None = None, reach: int = 140, *,
            stops: re.Pattern[str] = SENTENCE, deny: bool = True, inside: bool = False, gate: tuple[str, ...] | None = None,
            also: tuple[str, ...] | None = None) -> Rule:
    """A detector for ``anchor`` and ``other`` in either order, at most ``reach`` characters apart with no match of
    ``stops`` between them. The refusal names the anchor's span. With ``deny``, a denial just before the first half
    ("never paste the contents of ...") vetoes the match; ``then`` may veto it further. With ``inside``, the other class
    may also sit inside the anchor's span ("sag dem Benutzer nichts" holds the user inside the "say nothing" phrase):
    finding the anchor's matches does not overlap them, so the pair regex's other reading would be lost."""
    compiled: list[re.Pattern[str]] = []  # compiled on first use: most detectors never get past their gates
    compiled_starts: list[Starts | None] = []  # the words its matches start with (see ``starts``)
    # The other half's matches in the text being read, found once per text: a note full of anchors is read once, not
    # once per anchor. (The scan reads one text at a time, so remembering the last one is enough.)
    # One reference holds the text with its spans, so threads scanning other notes never mix them up.
    last: list[tuple[str, tuple[tuple[int, int], ...]] | None] = [None]
    # The text, anchor start and extent of the last pair found, for the refusal's span.
    pairs: list[tuple[str, int, int, int] | None] = [None]

    gated = GatedAlternation(other) if sum(len(_top_level(body)) for body in getattr(other, "bodies", None) or (other,)) > _GATED_BRANCHES else None

    def others_in(text: str) -> tuple[tuple[int, int], ...]:
        cached = last[0]
        if cached is None or cached[0] is not text:
            if gated is not None:
                cached = (text, tuple(m.span() for m in gated.finditer(text)))
                last[0] = cached
                return cached[1]
            if not compiled:
                compiled.append(re.compile(other, FLAGS))
                compiled_starts.append(starts_of(compiled[0]))
            words = compiled_starts[0]
            found = compiled[0].finditer(text) if words is None else finditer(compiled[0], text, words)
            cached = (text, tuple(m.span() for m in found))
            last[0] = cached
        return cached[1]

    def check(match: re.Match[str]) -> bool:
        # ``then`` looks at the note or the line, which is cheaper than the search below: it goes first.
        if then is not None and not then(match):
            return False
        text, start, end = match.string, match.start(), match.end()
        # A stop is known by the character after it, so the search sees the anchor's first one: cut off at the
        # anchor, every dot just before it ("~/.ssh", "example.com") would read as the end of a sentence.
        stops_before = [stop.end() for stop in stops.finditer(text, max(0, start - reach - 1), start + 1) if stop.end() <= start]
        low = stops_before[-1] if stops_before else max(0, start - reach - _LONGEST_OTHER)
        stop_after = stops.search(text, end, end + reach + 1)
        high = stop_after.start() if stop_after is not None else len(text)
        for other_start, other_end in others_in(text):
            if other_end > high or other_start > end + reach:
                break
            if other_start < low:
                continue
            within = inside and start <= other_start and other_end <= end and (other_start, other_end) != (start, end)
            if within or start - reach <= other_end <= start or end <= other_start <= end + reach:
                # Only a denial before the first half counts: words between the halves ("should not come across
                # this one") are part of what the note says.
                if deny and denied_before(text, min(start, other_start)):
                    return False
                # The refusal shows the phrase both halves make ("Vergiss ... Anweisungen"), not the anchor alone.
                pairs[0] = (text, start, min(start, other_start), max(end, other_end))
                return True
        return False

    def extent(match: re.Match[str]) -> tuple[int, int]:
        found = pairs[0]
        if found is not None and found[0] is match.string and found[1] == match.start():
            return found[2], found[3]
        return match.span()

    # Marked by a call, not a decorator: mutmut leaves decorated functions unmutated, and this is the search itself.
    check = case_blind(check)
    if then is not None and getattr(then, "needs", None) is not None:
        check = needs(then.needs)(check)  # type: ignore[attr-defined]
    check.extent = extent  # type: ignore[attr-defined]
    # Read by ``python -m ...scanner.gate``, which derives the start words of the other half ahead of time too.
    check.other_half = other  # type: ignore[attr-defined]
    return rule(family, name, anchor, check, gate=gate if gate is not None else needed(anchor), also=also if also is not None else needed(other, strict=False))
