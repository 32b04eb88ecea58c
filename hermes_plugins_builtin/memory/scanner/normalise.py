"""Normalisation before matching: the forms of a note that the detectors read besides the note itself.

``folded`` undoes the disguises that keep a phrase readable to a model but unreadable to a pattern: compatibility
forms (NFKC: full-width, mathematical and other styled letters), look-alike letters from other scripts (folded to
Latin with the Unicode confusables data that ``confusable_homoglyphs`` ships), invisible characters and soft
hyphens inside words, l e t t e r - s p a c i n g and l33tspeak.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

from .vocabulary import segment

#: Format characters and selectors: dropped before matching so they cannot split a word.
_INVISIBLE = re.compile("[\u00ad\u034f\u115f\u1160\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
# Letters separated by single spaces, dots, dashes, underscores or stars: "i g n o r e", "s.y.s.t.e.m".
_SPACED_RUN = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*·•]){3,}[^\W\d_](?![^\W_])")
_SPACED_PAIR = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*·•])+[^\W\d_](?![^\W_])")
_SEPARATORS = re.compile(r"[ .\-_*·•]")
# Words of letters with digits or symbols standing in for letters: "1gn0r3", "pr3v10us", "$ystem".
_LEET_WORD = re.compile(r"(?<![^\W_])(?=[a-z0-9]*[a-z])(?=[a-z0-9]*[013457])[a-z0-9]{2,}(?![^\W_])")
# Short all-digit words ("70" for "to", "17" for "it") count only in a text that already has l33t words.
_LEET_DIGITS = re.compile(r"(?<![^\W_])[013457]{2,3}(?![^\W_])")
# "don'7", "can'7": the single digit after the apostrophe is too short for a l33t word of its own.
_LEET_CONTRACTION = re.compile(r"(?<=[a-z0-9]n)'7(?![^\W_])")
# "vendor'5": a possessive s written as a five.
_LEET_POSSESSIVE = re.compile(r"(?<=[a-z0-9])'5(?![^\W_])")
_SPACED_APOSTROPHE = re.compile(r"(?<=\w) ' (?=\w)")
_WIDE_GAP = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})
_HEX_WORD = re.compile(r"[0-9a-f]+")
_NOT_LETTER = re.compile(r"[\W\d_]+")


@functools.cache
def _confusable_table() -> dict[int, str]:
    """Look-alike character -> the Latin letter or digit it imitates (loaded on first use: 900 kB of JSON)."""
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8"))
    table: dict[int, str] = {}
    for key, entries in data.items():
        if len(key) != 1:
            continue
        for entry in entries:
            other = entry["c"]
            if len(other) != 1:
                continue
            if not key.isascii() and other.isascii() and other.isalnum():
                table.setdefault(ord(key), other.lower())
            elif key.isascii() and key.isalnum() and not other.isascii():
                table.setdefault(ord(other), key.lower())
    # The confusables data pairs small capitals with capitals it does not list as letters; fold them by name.
    for code in range(0x1D00, 0x1D2C):
        name = unicodedata.name(chr(code), "")
        if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == 28:
            table.setdefault(code, name[-1].lower())
    for code in (0x0262, 0x029C, 0x026A, 0x0274, 0x0280, 0x028F, 0x029F, 0x0299):
        table.setdefault(code, unicodedata.name(chr(code))[-1].lower())
    return table


_NON_ASCII_TOKEN = re.compile(r"\S*[^\x00-\x7f]\S*")


def _fold_token(match: re.Match[str]) -> str:
    """A token with look-alikes folded to Latin, when it could be a Latin word in disguise: every letter is Latin or
    imitates one. A word of another script ("пользователя", with letters no Latin one looks like) keeps its letters,
    so a note in Russian or Greek does not become a second, meaningless text for every detector to read."""
    token, table = match.group(), _confusable_table()
    if all(ch.isascii() or ord(ch) in table or not ch.isalpha() for ch in token):
        return token.translate(table)
    return "".join(ch if ch.isalpha() else ch.translate(table) for ch in token)


def _collapse_spacing(match: re.Match[str]) -> str:
    letters = _SEPARATORS.sub("", match.group())
    return segment(letters) if len(letters) > 3 else letters


def _unleet(match: re.Match[str]) -> str:
    word = match.group()
    # Hex digests and numbers with units are not disguised words.
    if _HEX_WORD.fullmatch(word) and len(word) >= 8:
        return word
    return word.translate(_LEET)


def folded(nfkc_text: str) -> str:
    """The NFKC text, lower-cased, with look-alikes, invisibles, letter-spacing and l33tspeak undone."""
    text = _INVISIBLE.sub("", nfkc_text).casefold()
    if not text.isascii():
        text = unicodedata.normalize("NFKC", _NON_ASCII_TOKEN.sub(_fold_token, text))
    if _SPACED_RUN.search(text):
        # Collapsed letters leave the spaced apostrophes ("don ' t") and the wider gap after the run behind.
        text = _WIDE_GAP.sub(" ", _SPACED_APOSTROPHE.sub("'", _SPACED_PAIR.sub(_collapse_spacing, text)))
    if len(_LEET_WORD.findall(text)) >= 2:
        text = _LEET_DIGITS.sub(_unleet, _LEET_WORD.sub(_unleet, _LEET_POSSESSIVE.sub("'s", _LEET_CONTRACTION.sub("'t", text))))
    return text


def compact(folded_text: str) -> str:
    """Letters only: what a phrase spelled out letter by letter reads as, with its word breaks gone too."""
    return _NOT_LETTER.sub("", folded_text)


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def without_invisible(text: str) -> str:
    return _INVISIBLE.sub("", text)


_SINGLE_SPACE = re.compile(r"(?<=\S) (?=\S)")
_WIDE_SPACE = re.compile(r"\s{2,}")


def despaced(text: str) -> str | None:
    """For text spaced out character by character (code included): single spaces dropped, wider gaps made one.

    None when the text is not written that way (fewer than ~60 % of its tokens are single characters).
    """
    tokens = text.split()
    if len(tokens) < 8 or sum(len(token) == 1 for token in tokens) < 0.6 * len(tokens):
        return None
    return _WIDE_SPACE.sub(" ", _SINGLE_SPACE.sub("", text))
