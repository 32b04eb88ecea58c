"""What PostgreSQL indexes for a message, and how a parsed query becomes its conditions.

The tokens are computed here, in Python, with the same rules the SQLite store's
word index follows (letters and digits, case folded, diacritics removed): a query
then finds the same rows on both backends, whatever language the text is in.
PostgreSQL's own text-search parsers are language-configured and split text
differently (``file.py`` stays one token), so the store hands it ready-made
``tsvector`` / ``tsquery`` literals and uses only its GIN machinery.

Scripts written without spaces (CJK, kana, Thai...) get a gram array instead:
every character and every bigram of each run, GIN-indexed; a query run is
found by containment of its grams plus an exact substring check.
"""
from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from ..grams import _unescape, script_runs
from ..query import Term

K1, B = 1.2, 0.75  # BM25's usual constants, as FTS5 uses them
# BM25 divides a message's length by the average length; the postings store weights, so
# the average is fixed: the length of a typical chat message, in words
REFERENCE_LENGTH = 40.0
# PostgreSQL keeps at most this position in a tsvector; later words share it
MAX_POSITION = 16383
# a tsvector holds at most 1 MB; a longer text keeps its first words for the index
MAX_VECTOR_TEXT = 400_000
# PostgreSQL refuses a lexeme over 2046 bytes of UTF-8 (a run of 700 CJK or Cyrillic letters):
# longer words are indexed, and looked up, by their first 2000 bytes
MAX_TOKEN_BYTES = 2000
_WORD = re.compile(r"[^\W_]+")
_ESCAPES = re.compile(r"\\[ntr]")


def fold(word: str) -> str:
    """Lowercase and strip diacritics, as the word index's tokenizer does."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)) or word.lower()


def token(word: str) -> str:
    """A word as the index holds it: folded, and cut to MAX_TOKEN_BYTES (whole characters)."""
    folded = fold(word)
    if len(folded) * 4 <= MAX_TOKEN_BYTES:  # no character takes more than 4 bytes
        return folded
    return folded.encode("utf-8")[:MAX_TOKEN_BYTES].decode("utf-8", "ignore")


def _tool_text(tool_calls: str | None) -> str:
    if not tool_calls:
        return ""
    try:
        calls = json.loads(tool_calls)
    except ValueError:
        return tool_calls
    if not isinstance(calls, list) or len(calls) > 4:
        return tool_calls
    parts: list[str] = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            for key in ("name", "arguments"):
                value = function.get(key)
                parts.append(value if isinstance(value, str) else "" if value is None else json.dumps(value))
    return " ".join(parts)


def search_text(content: str | None, tool_name: str | None, tool_calls: str | None) -> str:
    """The searchable text of a message: content, tool name, tool-call names and arguments."""
    # arguments JSON-encoded with ensure_ascii carry \uXXXX: stored decoded, so they match as typed
    tools = _unescape(_ESCAPES.sub(" ", _tool_text(tool_calls)))
    return f"{content or ''} {tool_name or ''} {tools}"


def _lexeme(token: str) -> str:
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def _positions(text: str) -> dict[str, list[int]]:
    positions: dict[str, list[int]] = {}
    for i, match in enumerate(_WORD.finditer(text[:MAX_VECTOR_TEXT]), start=1):
        slot = positions.setdefault(token(match.group(0)), [])
        if len(slot) < 256:  # PostgreSQL keeps at most 256 positions per lexeme
            slot.append(min(i, MAX_POSITION))
        else:
            slot.append(0)  # counted for the weight, never stored as a position
    return positions


def _literal(positions: dict[str, list[int]]) -> str:
    return " ".join(f"{_lexeme(tok)}:{','.join(map(str, sorted({p for p in pos if p})))}"
                    for tok, pos in positions.items())



def bm25_weight(tf: int, length: int) -> float:
    """BM25's term-frequency part with the reference length REFERENCE_LENGTH (see ranking.py)."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / REFERENCE_LENGTH))


def word_index(text: str) -> tuple[str, list[str], list[float]]:
    """The tsvector literal of *text* and its postings: each distinct word with its BM25 weight.

    The postings hold exactly the vector's lexemes, so a delete can find them from the vector.
    """
    positions = _positions(text)
    length = sum(len(pos) for pos in positions.values())
    words = list(positions)
    return _literal(positions), words, [bm25_weight(len(positions[w]), length) for w in words]


def gram_array(text: str) -> list[str]:
    """Every character and bigram of the space-less runs in *text* (empty for most text)."""
    if text.isascii() and "\\u" not in text:
        return []
    grams: set[str] = set()
    for run in script_runs(_unescape(text)):
        grams.update(run)
        grams.update(run[i:i + 2] for i in range(len(run) - 1))
    return sorted(grams)


def word_query(term: Term) -> str | None:
    """The tsquery literal for a word term: a phrase of its words, or a prefix."""
    if term.word_expr is None:
        return None
    words = [token(w) for w in _WORD.findall(term.text)]
    if not words:
        return None
    if term.word_expr.endswith("*"):
        return _lexeme(words[0]) + ":*"
    return " <-> ".join(_lexeme(w) for w in words)


def gram_runs(term: Term) -> list[str]:
    """The space-less runs a gram term must contain."""
    return script_runs(" ".join(term.text.split())) if term.gram_exprs else []


def run_grams(run: str) -> list[str]:
    """What a document containing *run* must have in its gram array."""
    if len(run) == 1:
        return [run]
    return sorted({run[i:i + 2] for i in range(len(run) - 1)})


def to_text(value: Any) -> Any:
    """Strings PostgreSQL cannot store (NUL, lone surrogates) made storable; other values as they are."""
    if not isinstance(value, str):
        return value
    if "\x00" in value:
        value = value.replace("\x00", "\ufffd")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
    return value
