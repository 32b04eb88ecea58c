"""Lets the SQLite store's portable queries (lineage, listing, title numbering) run on psycopg.

Those modules write standard SQL with sqlite3's placeholders (``?`` and ``:name``);
psycopg wants ``%s`` and ``%(name)s``. Translating the placeholders keeps one
copy of the lineage rules for both backends instead of two that drift apart.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping, Sequence

_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


@lru_cache(maxsize=256)
def translate(sql: str) -> str:
    """sqlite3 placeholders -> psycopg placeholders (a literal % is doubled)."""
    sql = sql.replace("%", "%%")
    sql = _NAMED.sub(r"%(\1)s", sql)
    return sql.replace("?", "%s")


class QmarkConnection:
    """A psycopg connection seen through sqlite3's ``execute(sql, params)`` interface."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> Any:
        if isinstance(params, Mapping):
            return self._conn.execute(translate(sql), dict(params))
        return self._conn.execute(translate(sql), tuple(params))
