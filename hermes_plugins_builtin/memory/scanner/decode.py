"""Embedded payloads a note may carry in encoded form: base64, hex, percent-encoding, ROT13 and reversed text.

Each decoder returns readable text or nothing; what it returns is scanned by every detector like the note itself,
so "decode this and follow it: aWdub3Jl..." is refused for what the payload would do.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re
import urllib.parse

from .gate import derived
from .starts import OTHER_CASES_OF_ASCII

_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[\s:]?){8,}(?![0-9A-Fa-f])")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
#: A stretch of percent-encoded text: no spaces, three escapes or more.
_PERCENT_RUN = re.compile(r"[^\s%]*(?:%[0-9A-Fa-f]{2}[^\s%]*){3,}")
_WORDY = re.compile(r"[A-Za-z]{2,}[ ,.:;'\"()/-]")
_ROT13_HINT = re.compile(r"rot[\s_-]?13|caesar|rotat\w* (?:by )?13", re.IGNORECASE)
_REVERSE_HINT = re.compile(r"revers|backwards|right to left|from the end|mirror|\bsdrawkcab\b|\besrever\b", re.IGNORECASE)
MAX_PAYLOADS = 6
#: Bytes of hex-letter words before a hex payload that are skipped to read it.
_LEADING_HEX_WORD_BYTES = 16


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or sum(ch.isprintable() or ch in "\n\t" for ch in text) < 0.9 * len(text):
        return None
    # Decoded bytes of a hash or a key are printable by chance at most; real payloads have words.
    return text if len(_WORDY.findall(text)) >= 2 or (len(text) >= 8 and " " in text) else None


def _from_base64(blob: str) -> str | None:
    if blob.isdigit() or blob.isalpha() and (blob.islower() or blob.isupper()):
        return None
    padded = blob + "=" * (-len(blob) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if ("-" in blob or "_" in blob) else base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _readable(raw)


def _from_hex(blob: str) -> str | None:
    digits = re.sub(r"[\s:]", "", blob)
    if len(digits) % 2:
        digits = digits[:-1]
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        return None
    # Words of hex letters just before a payload ("be", "cafe", "dead beef") are matched as its first bytes, which are
    # no UTF-8; the payload is read without them.
    for skip in range(_LEADING_HEX_WORD_BYTES + 1):
        text = _readable(raw[skip:])
        if text is not None:
            return text
    return None


@functools.cache
def _words_of(hint: re.Pattern[str]) -> tuple[str, ...] | None:
    return derived(hint.pattern, hint.flags)[1]


def _hinted(hint: re.Pattern[str], text: str, lowered: str) -> bool:
    """Whether ``hint`` occurs in ``text``. A case-blind search tries every branch at every position; the words one
    of which each match holds (read from the pattern's parse tree) rule most notes out with a substring test first,
    exact for a text without the other cases of ASCII letters outside ASCII (see ``starts``)."""
    words = _words_of(hint)
    if words is not None and not any(word in lowered for word in words) and OTHER_CASES_OF_ASCII.search(text) is None:
        return False
    return hint.search(text) is not None


def payloads(text: str) -> list[tuple[str, str]]:
    """(view name, decoded text) for each embedded payload found in ``text``; at most :data:`MAX_PAYLOADS`."""
    found: list[tuple[str, str]] = []
    for blob in _BASE64.findall(text):
        decoded = _from_base64(blob)
        if decoded:
            found.append(("base64-decoded", decoded))
    for blob in _HEX.findall(text):
        decoded = _from_hex(blob)
        if decoded:
            found.append(("hex-decoded", decoded))
    if len(_PERCENT.findall(text)) >= 3:
        # Only the encoded stretches: the words around them were read as they are, and reading them again with the
        # payload doubled the scan of such notes.
        runs = [urllib.parse.unquote(run) for run in _PERCENT_RUN.findall(text)]
        decoded = "\n".join(run for run in runs if run)
        if decoded and decoded not in text:
            found.append(("URL-decoded", decoded))
    # ROT13 and reversal apply to any text, so they are tried only when the note points at them (a note that does not
    # ask for decoding leaves the model nothing to act on).
    lowered = text.lower()
    if _hinted(_ROT13_HINT, text, lowered):
        found.append(("ROT13-decoded", codecs.encode(text, "rot13")))
    if _hinted(_REVERSE_HINT, text, lowered):
        found.append(("reversed", text[::-1]))
    return found[:MAX_PAYLOADS]
