"""Names of the index tables queried together."""
from __future__ import annotations

from typing import NamedTuple


class IndexTables(NamedTuple):
    """Names of a word index and its gram index, queried together."""

    word: str
    grams: str


PERSISTENT = IndexTables("messages_fts", "messages_grams")
