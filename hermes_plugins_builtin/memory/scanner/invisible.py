"""Grapheme-aware invisible-character policy.

Invisible characters are refused unless the writing system or emoji sequence they sit in needs them:

- U+200D inside emoji ZWJ sequences (with skin tones and presentation selectors), and U+200C/U+200D between
  letters of scripts whose orthography uses joiners (Arabic script: Persian, Urdu, Kurdish, Pashto; the Indic
  scripts, Sinhala among them; Syriac, N'Ko, Mongolian, Khmer, Myanmar, Tibetan);
- tag characters only inside a well-formed subdivision flag (black flag, 2 letters + 1-3 letters or digits, cancel tag);
- variation selectors only as one presentation selector after a base that has variants (emoji, keycaps, Han, symbols);
- U+200B between letters of scripts written without spaces (Thai, Lao, Khmer, Myanmar, Han, kana, Tibetan);
- one soft hyphen inside a word; LRM/RLM/ALM singly (or two different ones together) in a note that has
  right-to-left letters.

Everything else that renders as nothing is refused: bidi embeddings, overrides and isolates, word joiners, BOM,
invisible operators, fillers, runs of selectors or joiners, and hidden tag payloads.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from types import SimpleNamespace
from typing import Any

_HEX_ESCAPE = re.compile(r"\\x\{([0-9A-Fa-f]+)\}")


def _compile(pattern: str) -> Any:
    # Patterns spell code points as \x{HEX} for readability; regex wants them as \uXXXX / \UXXXXXXXX escapes.
    import regex  # Unicode properties; imported with the first non-ASCII note, not with the scanner.

    spelled = _HEX_ESCAPE.sub(lambda m: f"\\U{int(m.group(1), 16):08X}", pattern)
    return regex.compile(spelled, regex.VERSION1)


#: Every character the policy looks at: all format (Cf) characters, variation selectors and invisible fillers.
_CANDIDATES = (r"[\p{Cf}\x{FE00}-\x{FE0F}\x{E0100}-\x{E01EF}\x{034F}\x{115F}\x{1160}\x{17B4}\x{17B5}\x{180B}-\x{180F}\x{3164}\x{FFA0}]")

_JOINING = r"\p{Arabic}\p{Syriac}\p{Nko}\p{Mongolian}\p{Devanagari}\p{Bengali}\p{Gurmukhi}\p{Gujarati}\p{Oriya}" \
           r"\p{Tamil}\p{Telugu}\p{Kannada}\p{Malayalam}\p{Sinhala}\p{Khmer}\p{Myanmar}\p{Tibetan}\p{Thaana}"
_UNSPACED = r"\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Han}\p{Hiragana}\p{Katakana}\p{Tibetan}"
_EMOJI_ELEMENT = r"(?:\p{Extended_Pictographic}|\p{Emoji_Modifier_Base})(?:\x{FE0F}|\p{Emoji_Modifier})?\p{Emoji_Modifier}?"

#: Contexts where an invisible character is part of correct text; the sub() below drops the characters it allows.
_ALLOWED = (
    "|".join(
        (
            # Emoji ZWJ sequence: pictographs (with tone or presentation selector) joined by single ZWJs.
            rf"(?P<zwj>{_EMOJI_ELEMENT}(?:\x{{200D}}{_EMOJI_ELEMENT})+)",
            # Subdivision flag: black flag + tag letters (2) + tag letters/digits (1-3) + cancel tag.
            r"(?P<flag>\x{1F3F4}[\x{E0061}-\x{E007A}]{2}[\x{E0061}-\x{E007A}\x{E0030}-\x{E0039}]{1,3}\x{E007F})",
            # Keycap: digit, # or * with an optional emoji selector and the enclosing keycap.
            r"(?P<keycap>[0-9#*]\x{FE0F}?\x{20E3})",
            # One presentation selector after a character that has text and emoji forms.
            r"(?P<present>(?<=\p{Emoji})[\x{FE0E}\x{FE0F}](?![\x{FE00}-\x{FE0F}\x{E0100}-\x{E01EF}]))",
            # One standardized variation selector after Han, symbols, Mongolian and other non-alphabetic bases.
            r"(?P<svs>(?<=[\p{Han}\p{Sm}\p{So}\p{Mongolian}\p{Myanmar}\p{Phags_Pa}\p{Manichaean}\p{Egyptian_Hieroglyphs}])"
            r"[\x{FE00}-\x{FE0D}](?![\x{FE00}-\x{FE0F}\x{E0100}-\x{E01EF}]))",
            # One ideographic variation selector after a Han character.
            r"(?P<ivs>(?<=\p{Han})[\x{E0100}-\x{E01EF}](?![\x{FE00}-\x{FE0F}\x{E0100}-\x{E01EF}]))",
            # A joiner between letters (and their marks) of a script that uses joiners.
            rf"(?P<joiner>(?<=[{_JOINING}]\p{{M}}*)[\x{{200C}}\x{{200D}}](?=[{_JOINING}]))",
            # ZWJ after a virama at the end of a word: the older encoding of Malayalam chillus and Sinhala forms; ZWNJ there
            # keeps a word-final virama visible (Malayalam "ഒന്ന്‌", the samvruthokaram of older text).
            rf"(?P<chillu>(?<=[{_JOINING}]\p{{Mn}})[\x{{200C}}\x{{200D}}](?![\p{{L}}\p{{M}}\x{{200C}}\x{{200D}}]))",
            # A zero-width space as a word break in a script written without spaces.
            rf"(?P<zwsp>(?<=[{_UNSPACED}]\p{{M}}*)\x{{200B}}(?=[{_UNSPACED}]))",
            # Mongolian free variation selectors and vowel separator inside Mongolian words.
            # (A selector after a selector is no variant of a letter: a run of them could carry a hidden payload.)
            r"(?P<mongolian>(?<=[\p{Mongolian}--[\x{180B}-\x{180F}]])[\x{180B}-\x{180F}](?=\p{Mongolian}|\s|$))",
            # Hangul fillers as parts of conjoining jamo syllables: beside a jamo that is not itself a filler (no runs).
            r"(?P<jamo>(?<=[\x{1100}-\x{115E}\x{1161}-\x{11FF}])[\x{115F}\x{1160}](?=[\x{1100}-\x{115E}\x{1161}-\x{11FF}])"
            r"|[\x{115F}\x{1160}](?=[\x{1161}-\x{11FF}]))",
            # One soft hyphen between letters of one word (a hyphenation point).
            r"(?P<shy>(?<=\p{L}\p{M}*)\x{00AD}(?=\p{L}))",
            # Prepended concatenation marks (Arabic number signs and the like) are visible and belong to the number after them.
            r"(?P<numbersign>[\x{0600}-\x{0605}\x{06DD}\x{070F}\x{0890}\x{0891}\x{08E2}\x{110BD}\x{110CD}](?=\p{Nd}))",
        )
    )
)
# A mark alone, or two different marks together: LRM after a left-to-right run then RLM to resume right-to-left
# ("\u200e#A-1042\u200e\u200f") is how editors and keyboards close an embedded run. The same mark twice, or three
# marks, does nothing a single one does not, so such runs are refused (they could spell bits).
_MARKS = r"[\x{200E}\x{200F}\x{061C}]"
_BIDI_MARK = (rf"(?<!{_MARKS})(?:\x{{200E}}[\x{{200F}}\x{{061C}}]|\x{{200F}}[\x{{200E}}\x{{061C}}]|\x{{061C}}[\x{{200E}}\x{{200F}}]|{_MARKS})"
              rf"(?!{_MARKS})")
_RTL_LETTER = r"[\p{Arabic}\p{Hebrew}\p{Syriac}\p{Thaana}\p{Nko}]"


@functools.cache
def _patterns() -> SimpleNamespace:
    """The policy's patterns, compiled on the first note that has a non-ASCII character (ASCII has no invisibles)."""
    return SimpleNamespace(candidates=_compile(_CANDIDATES), allowed=_compile(_ALLOWED), bidi_mark=_compile(_BIDI_MARK),
                           rtl_letter=_compile(_RTL_LETTER), token=_compile(r"\S+"))


def _tokens_with_candidates(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of non-space characters of ``text`` that holds a candidate.

    The allowed contexts are read token by token: no context holds a space (each is a run of pictographs and joiners,
    a flag, a keycap or a single character), and a lookaround that reads a space beside a token decides as it does at
    the token's edge (no context's neighbour class holds a space; the Mongolian one accepts both). So the contexts
    found in the tokens that hold a candidate are exactly those found in the whole text that hold one, and the big
    alternation runs on a few short tokens instead of at every position of the note.
    """
    patterns = _patterns()
    at = [candidate.start() for candidate in patterns.candidates.finditer(text)]
    spans: list[tuple[int, int]] = []
    index = 0
    for token in patterns.token.finditer(text):
        start, end = token.span()
        while index < len(at) and at[index] < start:
            index += 1
        if index == len(at):
            break
        if at[index] < end:
            spans.append((start, end))
    return spans


def _keep_visible(match: Any) -> str:
    # Inside an allowed context every candidate is one the context allows (the number sign and the Hangul and
    # Mongolian fillers too, not only the zero-width characters).
    return _patterns().candidates.sub("", match.group())


#: Control characters no note needs (tab, line feed and carriage return excepted): ESC sequences repaint a terminal
#: that shows the entry (`hermes memory show`), and none of them is visible where the note is read.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def disallowed(text: str) -> tuple[str, str] | None:
    """The first invisible character ``text`` may not carry, as ("U+XXXX", a short span around it), or None."""
    control = _CONTROLS.search(text)
    if control is not None:
        at = control.start()
        return f"U+{ord(control.group()):04X}", text[max(0, at - 12) : at + 13]
    if text.isascii():
        return None
    patterns = _patterns()
    if patterns.candidates.search(text) is None:
        return None
    spans = _tokens_with_candidates(text)
    pieces, last = [], 0
    for start, end in spans:
        pieces += (text[last:start], patterns.allowed.sub(_keep_visible, text[start:end]))
        last = end
    rest = "".join(pieces) + text[last:]
    rtl = patterns.rtl_letter.search(rest) is not None
    if rtl:
        rest = patterns.bidi_mark.sub("", rest)
    found = patterns.candidates.search(rest)
    if found is None:
        return None
    at = _kept_positions(text, rtl, spans)[found.start()]
    return f"U+{ord(found.group()):04X}", text[max(0, at - 12) : at + 13]


def _kept_positions(text: str, rtl: bool, spans: list[tuple[int, int]]) -> list[int]:
    """Where each character the policy did not drop stands in ``text``: the span shows the refused character itself,
    not an allowed one of the same code point earlier in the note (a joiner inside an emoji before one inside a word).
    ``spans`` are the tokens that hold a candidate (see :func:`_tokens_with_candidates`)."""
    patterns = _patterns()
    allowed = {start + hit.start() for start, end in spans for context in patterns.allowed.finditer(text[start:end])
               for hit in patterns.candidates.finditer(text[start:end], context.start(), context.end())}
    kept = [index for index in range(len(text)) if index not in allowed]
    if rtl:
        marks = {mark.start() for mark in patterns.bidi_mark.finditer("".join(text[index] for index in kept))}
        kept = [index for position, index in enumerate(kept) if position not in marks]
    return kept


_SMUGGLING = re.compile("[\ufe00-\ufe0f\U000e0000-\U000e01ef]")


def hidden_payloads(text: str) -> list[tuple[str, str]]:
    """Text smuggled in tag characters or variation-selector runs, decoded so the detectors can read it."""
    found: list[tuple[str, str]] = []
    if _SMUGGLING.search(text) is None:
        return found
    tags = "".join(chr(ord(ch) - 0xE0000) for ch in text if 0xE0020 <= ord(ch) <= 0xE007E)
    if len(tags) >= 4:
        found.append(("tag characters", tags))
    selectors = bytearray()
    for ch in text:
        code = ord(ch)
        if 0xFE00 <= code <= 0xFE0F:
            selectors.append(code - 0xFE00)
        elif 0xE0100 <= code <= 0xE01EF:
            selectors.append(code - 0xE0100 + 16)
    if len(selectors) >= 4:
        found.append(("variation selectors", selectors.decode("utf-8", "replace")))
    return found
