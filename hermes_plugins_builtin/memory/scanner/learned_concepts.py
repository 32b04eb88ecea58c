"""Concept features for the learned detector: which of :mod:`.learned_lexicon`'s concepts a sentence names.

A sentence that names the concepts *rules* and *void* gets the features ``c:rules``, ``c:void`` and the pair
``cc:rules+void``, whatever its language: the model weighs the pair once, from the notes of every language that
says it. Words are compared in a key form (lower-cased, marks of Latin, Greek and Cyrillic letters removed, so
"überholt" and "uberholt", "недействительны" and "недеиствительны", Yoruba "tẹ̀lé" and "tele" meet); a word's
concepts are cached.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from itertools import combinations

from .learned_lexicon import CONCEPTS
from .learned_lexicon_more import MORE

#: Bumped with the lexicon: part of the feature version the weights were trained on.
LEXICON_VERSION = 3
_MIN_STEM = 3
_KNOWN_CAP = 16384
# Scripts written without spaces between words: their entries are found anywhere in the text.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]")
# Arabic-script and Hebrew words carry articles and prepositions as leading letters.
_CLITIC_SCRIPT = re.compile(r"[\u0590-\u06ff]")
# A word: letters and digits of any script, with the combining marks (vowel signs, viramas, diacritics) that
# Python's \w leaves out although they are part of Indic, Thai, Hebrew and Arabic words.
_MARKS = (
    "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0963\u0966-\u0dff\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u200c\u200d\u3099\u309a"
)
WORD = re.compile(rf"(?:[^\W_]|[{_MARKS}])+")


class _Keys(dict):
    """Code point -> its key form (a ``str.translate`` table): Latin, Greek and Cyrillic letters lose their marks.
    Filled as characters are met."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if 0x0300 <= code <= 0x036F:  # a mark left over after its letter (Yoruba stacks two on one vowel)
            char = ""
        elif code < 0x0590 or 0x1E00 <= code <= 0x1EFF:  # with Latin Extended Additional: Vietnamese, Yoruba tones
            char = "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)) or char
        self[code] = char
        return char


_KEYS = _Keys()


def key(text: str) -> str:
    """``text`` lower-cased, with the marks of Latin (tone marks included), Greek and Cyrillic letters removed."""
    text = text.casefold()
    return text if text.isascii() else text.translate(_KEYS)


def _words(text: str) -> list[str]:
    return WORD.findall(text)


class Lexicon:
    """The concept entries, indexed three ways: word stems, whole words, and phrases or unspaced-script strings."""

    def __init__(self, concepts: dict[str, str]) -> None:
        self.stems: dict[str, set[str]] = {}
        self.exact: dict[str, set[str]] = {}
        #: first word -> (the following words, the last one a stem; concept)
        self.phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        unspaced: dict[str, set[str]] = {}
        for concept, entries in concepts.items():
            for entry in " ".join(entries.split()).split(";"):
                entry = entry.strip()
                if not entry:
                    continue
                whole = entry.endswith("=")
                entry = key(entry.rstrip("="))
                if _UNSPACED.search(entry):
                    unspaced.setdefault(entry.replace(" ", ""), set()).add(concept)
                    continue
                words = _words(entry)
                if len(words) > 1:
                    self.phrases.setdefault(words[0], []).append((tuple(words[1:]), concept))
                elif words and (whole or len(words[0]) < _MIN_STEM):
                    self.exact.setdefault(words[0], set()).add(concept)
                elif words:
                    self.stems.setdefault(words[0], set()).add(concept)
        self.lengths = sorted({len(s) for s in self.stems}, reverse=True)
        ordered = sorted(unspaced, key=len, reverse=True)
        self.unspaced = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self.unspaced_concepts = unspaced
        #: word -> its concepts, for the words met so far (emptied when it reaches :data:`_KNOWN_CAP`).
        self._known: dict[str, frozenset[str]] = {}

    def of_word(self, word: str) -> frozenset[str]:
        """The concepts of one key-form word: its whole form, else its longest stem (also without clitics)."""
        known = self._known.get(word)
        if known is None:
            if len(self._known) >= _KNOWN_CAP:
                self._known.clear()
            known = self._known[word] = self._look_up(word)
        return known

    def _look_up(self, word: str) -> frozenset[str]:
        found = set(self.exact.get(word, ()))
        tries = [word]
        if _CLITIC_SCRIPT.match(word):
            tries += [word[n:] for n in (1, 2, 3) if len(word) - n >= _MIN_STEM]
        for form in tries:
            for size in self.lengths:
                if size <= len(form):
                    concepts = self.stems.get(form[:size])
                    if concepts:
                        found |= concepts
                        break
        return frozenset(found)

    def of_text(self, text: str) -> set[str]:
        """Every concept named in ``text`` (a sentence, already folded)."""
        keyed = key(text)
        words = _words(keyed)
        found: set[str] = set()
        known, of_word = self._known.get, self.of_word
        for word in words:
            concepts = known(word)
            if concepts is None:
                concepts = of_word(word)
            if concepts:
                found |= concepts
        phrases = self.phrases
        if not phrases.keys().isdisjoint(words):  # most sentences start no phrase: skip the walk
            for index, word in enumerate(words):
                for rest, concept in phrases.get(word, ()):
                    following = words[index + 1 : index + 1 + len(rest)]
                    if len(following) == len(rest) and following[-1].startswith(rest[-1]) and following[:-1] == list(rest[:-1]):
                        found.add(concept)
        if self.unspaced is not None and _UNSPACED.search(keyed):
            for match in self.unspaced.finditer(keyed.replace(" ", "")):
                found |= self.unspaced_concepts[match.group()]
        return found


def merged(*lexicons: dict[str, str]) -> dict[str, str]:
    """One entry list per concept from several lexicons (a concept may be named in any of them)."""
    concepts: dict[str, str] = {}
    for entries in lexicons:
        for concept, words in entries.items():
            concepts[concept] = f"{concepts[concept]};{words}" if concept in concepts else words
    return concepts


@functools.cache
def lexicon() -> Lexicon:
    return Lexicon(merged(CONCEPTS, MORE))


# An identifier (``system_prompt_file``, ``deploy_rules_old``) or a path (``prompts/grader.md``) names a thing in code,
# a config or a file system; its parts say nothing. Underscores as emphasis (``_never_``) join no two letters.
_JOINED = re.compile(r"[^\W_]_+[^\W_]|\w/\w")


def _spoken(text: str) -> str:
    """``text`` without the identifiers and paths in it."""
    return " ".join(word for word in text.split() if _JOINED.search(word) is None)


def concept_features(text: str) -> list[str]:
    """``c:<concept>`` for each concept ``text`` names and ``cc:<a>+<b>`` for each pair of them (no word or n-gram
    feature has a colon). Words joined into an identifier or a path name no concept."""
    named = sorted(lexicon().of_text(_spoken(text) if "_" in text or "/" in text else text))
    return [*(f"c:{c}" for c in named), *(f"cc:{a}+{b}" for a, b in combinations(named, 2))]
