"""Character bigrams for scripts written without spaces (CJK, kana, Thai, ...) and for symbols.

The word index cannot find a substring of a run like 数据库服务器: the word tokenizer
keeps the whole run as one token. For those scripts every run of letters is
turned into overlapping bigrams plus its last character on its own. Symbols such as
emoji (🚀, ✅, ❤️) are letters of such runs too: the word tokenizer drops them as
separators, yet a message holding one should be found by it. So

* a 1-character query ``库`` is the prefix query ``库*`` (every occurrence either
  starts a bigram or is the final single character of its run),
* a 2-character query is one token,
* a longer query is the phrase of its consecutive bigrams.

The same function builds the tokens at write time and (for deletes) again later,
so it must stay deterministic; GRAMS_FORMAT names the rules and the Unicode
database they depend on, and the store rebuilds the side index when it changes.
"""
from __future__ import annotations

import re
import unicodedata

GRAMS_FORMAT = f"bigram+last/v2-symbols/unicode-{unicodedata.unidata_version}"

# \uXXXX escapes appear when tool-call arguments were JSON-encoded with ensure_ascii.
_U_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
# the characters that can start or continue a run (see _starts_run, _continues_run) and the
# ones between them; anything below U+00AA ends a run
_RUN_STRETCHES = re.compile("[^\x00-\u00a9]+")


def _starts_run(ch: str) -> bool:
    # Lo (other letters: ideographs, kana, Hangul, Thai...) and Lm (e.g. the kana
    # prolonged sound mark) are the letters that carry no word boundaries; So (other
    # symbols: emoji, dingbats) are never part of a word either.
    return ch >= "\u00aa" and unicodedata.category(ch) in ("Lo", "Lm", "So")


def _continues_run(ch: str) -> bool:
    # combining marks (Thai vowels, Devanagari signs, the emoji presentation selector
    # U+FE0F) belong to the letter or symbol before them
    return ch >= "\u0300" and unicodedata.category(ch) in ("Lo", "Lm", "So", "Mn", "Mc")


def script_runs(text: str) -> list[str]:
    """Return the maximal runs of space-less-script letters in *text*, in order."""
    if text.isascii():
        return []
    runs: list[str] = []
    # a run only holds characters from U+00AA up, so it lies within one stretch of them:
    # the loop walks those stretches, not every character (an English message with one
    # dash or emoji has a stretch of one character instead of hundreds to look at)
    for stretch in _RUN_STRETCHES.findall(text):
        start = -1
        for i, ch in enumerate(stretch):
            if start >= 0:
                if _continues_run(ch):
                    continue
                runs.append(stretch[start:i])
                start = -1
            if _starts_run(ch):
                start = i
        if start >= 0:
            runs.append(stretch[start:])
    return runs


def _unescape(text: str) -> str:
    if "\\u" not in text:
        return text
    return _U_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def run_tokens(run: str) -> list[str]:
    """Bigrams of one run followed by its last character."""
    return [run[i:i + 2] for i in range(len(run) - 1)] + [run[-1]]


def document_grams(search_text: str | None) -> str:
    """Space-separated gram tokens for one message's searchable text ('' when none)."""
    if not search_text:
        return ""
    tokens: list[str] = []
    for run in script_runs(_unescape(search_text)):
        tokens.extend(run_tokens(run))
    return " ".join(tokens)


def needs_grams(search_text: str | None) -> bool:
    """Cheap pre-check: only non-ASCII text (or text with \\u escapes) can yield grams."""
    if not search_text:
        return False
    return not search_text.isascii() or "\\u" in search_text


def run_query(run: str) -> str:
    """FTS5 expression matching *run* as a substring in the gram index."""
    if len(run) == 1:
        return f'"{run}"*'
    return '"' + " ".join(run[i:i + 2] for i in range(len(run) - 1)) + '"'
