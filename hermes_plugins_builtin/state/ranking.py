"""Impact lists: BM25 over every match of a common word without scoring every match.

FTS5's bm25() costs about 1.4 microseconds per matching row, so ranking the 25k
messages that contain "file" takes ~35 ms. But the best BM25 matches of one word
are the messages where it is most frequent relative to their length, and that
order can be kept up to date as rows are indexed. For every word found in at
least TRACK_DF messages the store keeps the LIST_SIZE messages with the highest
BM25 weight ``tf*(k1+1) / (tf + k1*(1 - b + b*dl/avgdl))`` (table ``rank_lists``,
with the word's tf and the message's length dl). The writer that indexes a
batch updates the lists in the same transaction (impact_upkeep.py); a word that
crosses TRACK_DF gets its list built from its matches then. This module holds
what both sides share: tokens, the index's totals and the BM25 formula.
Searches only read.

A query whose matches fit in the rank window is ranked by FTS5 in full. One with
more matches takes its candidates from the lists of its words (a phrase: of each
of its words; a prefix: of every listed word it covers), checks that each
candidate really matches, and scores it with FTS5's own BM25 formula (same
k1, b, document count and average length), so the order is the one ranking every
match would give whenever the true best matches are among the candidates: always
for a single word, and for the combinations measured in
benchmarks/search_relevance.py nearly always.
"""
from __future__ import annotations

import math
import re
import sqlite3
import unicodedata


K1, B = 1.2, 0.75  # FTS5's bm25() defaults
LIST_SIZE = 64     # messages kept per word (impact_upkeep.py keeps them)

_TOKEN = re.compile(r"[^\W_]+")
# combining marks start at U+0300: a regex picks those characters out in C, rather than a
# Python loop over every character of a mostly-ASCII message
_MAY_COMBINE = re.compile("[^\x00-\u02ff]")
# ASCII text (most messages): one translate lowercases and blanks every character that is
# not a letter or digit, and split() cuts the runs; about 2.5x faster than the regex, same tokens
_ASCII_WORDS = {i: (chr(i).lower() if chr(i).isalnum() else " ") for i in range(128)}
# the same map as a 256-byte table: bytes.translate indexes it, where str.translate looks each
# character up in a dict (an append's tokens ~15 % sooner; ASCII text encodes by a copy)
_ASCII_TABLE = bytes(ord(_ASCII_WORDS.get(i, " ")) for i in range(256))


def fold(text: str) -> str:
    """*text* lowercased and without diacritics, as the word index folds it before splitting."""
    lowered = text.lower()
    if text.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFD", lowered)
    if decomposed != lowered or any(unicodedata.combining(ch) for ch in _MAY_COMBINE.findall(lowered)):
        lowered = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return lowered


def tokens(text: str | None) -> list[str]:
    """The word index's tokens (unicode61, remove_diacritics 2), near enough: lowercase letter/digit runs."""
    if not text:
        return []
    if text.isascii():
        return text.encode().translate(_ASCII_TABLE).decode().split()
    return _TOKEN.findall(fold(text))


def document_length(docsize: bytes | None) -> int | None:
    """A message's token count as FTS5 stored it (its ``messages_fts_docsize`` record), if any."""
    values = _varints(docsize) if docsize else []
    return values[0] if values else None


def _varints(blob: bytes) -> list[int]:
    """SQLite's big-endian base-128 varints (as FTS5 stores its averages record)."""
    out, value = [], 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def averages(conn: sqlite3.Connection) -> tuple[int, float]:
    """(documents, average tokens per document) of the word index, exactly as bm25() reads them."""
    row = conn.execute("SELECT block FROM messages_fts_data WHERE id = 1").fetchone()
    values = _varints(row[0]) if row and row[0] else []
    if len(values) < 2 or values[0] == 0:
        return 0, 1.0
    return values[0], max(values[1] / values[0], 1e-9)


def weight(tf: int, dl: int, avgdl: float) -> float:
    """BM25's term-frequency part for one message."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))


def idf(documents: int, df: int) -> float:
    """BM25's inverse document frequency, clamped like FTS5's."""
    value = math.log((documents - df + 0.5) / (df + 0.5)) if documents else 0.0
    return value if value > 0 else 1e-6
