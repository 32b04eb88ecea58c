"""What the learned detector reads: a note cut into chunks of sentences, and the features of each chunk.

The training script (``benchmarks/train_scanner_model.py``) and the scanner call the same functions, so the model
sees at run time exactly the features it was trained on. A chunk is read in its normalised form (``folded``: look-
alikes, invisibles, letter-spacing and l33tspeak undone, lower-cased), cut into words; its features are

- ``w`` word unigrams and ``b`` word bigrams, which carry meaning in languages written with spaces;
- character n-grams inside each word, padded with a space at both ends so word starts and ends are features too:
  3 to 5 characters for alphabetic scripts (they match inflected and compound forms of a stem, and survive typos),
  1 to 3 for Chinese, Japanese and Korean and 2 to 4 for Thai, Lao, Khmer and Myanmar, whose runs of text have no
  spaces between words (a "word" there is a whole clause, and its short n-grams are the words);
- ``c:`` concepts and ``cc:`` pairs of concepts named in the chunk, whatever its language (:mod:`.learned_concepts`):
  what the model learns of "rules" meeting "void" in one language carries to the languages it has few notes of.

Features are strings, kept as they are (no hashing): the model's vocabulary is a dict from feature to row.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator

from .learned_concepts import LEXICON_VERSION, WORD, concept_features
from .normalise import folded, nfkc, without_invisible

#: Bumped whenever the features change: a weights module trained on another version is refused at load.
FEATURE_VERSION = 3 * 100 + LEXICON_VERSION

_WORD = WORD
# Sentence ends (Latin, CJK full stops, Devanagari danda, Arabic and Greek question marks) and line breaks.
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|[\n\r\u3002\uff01\uff1f\uff1b\u0964\u0965\u061f\u037e]+")
#: Longest chunk read as one: longer notes are read as several chunks of whole sentences.
CHUNK_CHARS = 320
_LONG_WORD = 24
#: A chunk's feature vector is divided by sqrt(its number of features), but never by less than sqrt(this): a note
#: of two or three words would otherwise weigh as much as a sentence, on a handful of features.
MIN_FEATURES = 32


def norm(count: int) -> float:
    """What a chunk with ``count`` features multiplies its sums by (training and scanning alike)."""
    return 1.0 / math.sqrt(max(count, MIN_FEATURES))


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each non-blank sentence of ``text``."""
    spans, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        if text[start : end.start()].strip():
            spans.append((start, end.start()))
        start = end.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def chunks(text: str) -> Iterator[list[tuple[int, int]]]:
    """The sentences of ``text`` packed into chunks of at most :data:`CHUNK_CHARS` (one sentence may be longer).

    A note of ordinary length is one chunk: the model was trained on whole notes, and a long note is read as
    notes of that length.
    """
    group: list[tuple[int, int]] = []
    for span in sentences(text):
        if group and span[1] - group[0][0] > CHUNK_CHARS:
            yield group
            group = []
        group.append(span)
    if group:
        yield group


Sentence = tuple[tuple[int, int], set[str]]


def chunk_sentences(note: str) -> Iterator[list[Sentence]]:
    """The chunks of ``note`` (a :func:`plain` text), each as its sentences with their features. The model scores
    each chunk (the union of its sentences' features) and each sentence of a chunk that has several, so one
    sentence of attack among harmless ones is not drowned by them."""
    for group in chunks(note):
        yield [(span, features(note[span[0] : span[1]])) for span in group]


def note_features(text: str) -> set[str]:
    """The features of a whole note, as the model is trained on it: the union of its sentences' features."""
    note = plain(text)
    return set().union(*(features(note[start:end]) for start, end in sentences(note)))


def plain(text: str) -> str:
    """The note as the detectors read it first: NFKC, format characters removed."""
    return without_invisible(nfkc(text))


def _sizes(word: str) -> tuple[int, int]:
    """The n-gram lengths (first, last) for a word, by the script of its first letter."""
    first = ord(word[0])
    if first >= 0x2E80:  # CJK ideographs, kana, Hangul and the compatibility forms after them
        return 1, 3
    if 0x0E00 <= first <= 0x0EFF or 0x1000 <= first <= 0x109F or 0x1780 <= first <= 0x17FF:
        return 2, 4
    return 3, 5


@functools.lru_cache(maxsize=1024)
def _slices(size: int, first: int, last: int) -> tuple[slice, ...]:
    """Every n-gram of a padded word of ``size`` characters, as slices (made once per size: no loop per word)."""
    if first == 1:  # single ideographs and syllables, without the padding around the word
        singles = [slice(i, i + 1) for i in range(1, size - 1)]
        first = 2
    else:
        singles = []
    return (*singles, *(slice(i, i + n) for n in range(first, last + 1) for i in range(size - n + 1)))


def _word_grams(word: str) -> tuple[str, ...]:
    padded = f" {word} "
    return tuple(map(padded.__getitem__, _slices(len(padded), *_sizes(word))))


#: word -> its n-grams: most words of a note were seen in earlier notes. Emptied when it reaches the cap.
_GRAMS: dict[str, tuple[str, ...]] = {}
_GRAMS_CAP = 8192  # about 1 kB a word: a few MB at most


def features(plain_text: str) -> set[str]:
    """The distinct features of one chunk (``plain_text`` is a piece of :func:`plain` output)."""
    text = folded(plain_text)
    words = _WORD.findall(text)
    found = {"w " + word for word in words if len(word) <= _LONG_WORD}
    found.update(f"b {first} {second}" for first, second in zip(words, words[1:])
                 if len(first) <= _LONG_WORD and len(second) <= _LONG_WORD)
    update, known = found.update, _GRAMS.get
    for word in words:
        grams = known(word)
        if grams is None:
            if len(_GRAMS) >= _GRAMS_CAP:
                _GRAMS.clear()
            grams = _GRAMS[word] = _word_grams(word)
        update(grams)
    update(concept_features(text))
    return found
