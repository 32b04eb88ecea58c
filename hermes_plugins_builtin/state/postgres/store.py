"""PostgresSessionStore: the session-store contract of state.db, served by PostgreSQL.

Many hosts may open the same database. Each process keeps a small connection
pool; every write is one transaction retried across dropped connections and
server restarts, and every appended message carries an idempotency key, so a
commit whose acknowledgement was lost is never applied twice.
"""
from __future__ import annotations

import json
import time
import uuid
from typing import Any, Iterable, Iterator, Mapping, Sequence

from .. import lineage, replay
from ..backfill_ledger import BackfillLedger
from ..errors import SessionExistsError, SessionNotFoundError, StateStoreError, TitleInUseError
from ..query import parse
from ..records import (MESSAGE_COLUMNS, MESSAGE_FIELDS, SESSION_COLUMNS, decode_message,
                       decode_session, encode_message)
from ..store_lineage import SessionLineage
from ..copies import best_distinct_hits, collapse_chain_copies, has_earlier_copy
from ..search import DEFAULT_RANK_WINDOW, SearchHit, normalise_roles, SearchFilters
from .adapter import QmarkConnection
from .connection import Pool, check_url, redact_url
from .impact import insert_postings
from .maintenance import Maintenance
from .schema import bring_up_to_date, current_version
from .search import run_search
from .text import gram_array, search_text, to_text, word_index

_COUNTERS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
             "reasoning_tokens", "api_call_count")
_COSTS = ("estimated_cost_usd", "actual_cost_usd")
_LABELS = ("model", "billing_provider", "billing_base_url", "billing_mode", "cost_status",
           "cost_source", "pricing_version")
_SESSION_FIELDS = ", ".join("s." + c for c in SESSION_COLUMNS)
_SELECT_SESSION = f"SELECT {_SESSION_FIELDS} FROM sessions s"
_INSERT_MESSAGE = (f"INSERT INTO messages (append_key, {', '.join(MESSAGE_COLUMNS)}, search_text, words, grams) "
                   f"VALUES (%s, {', '.join(['%s'] * len(MESSAGE_COLUMNS))}, %s, %s::tsvector, %s) "
                   "ON CONFLICT (append_key) DO NOTHING RETURNING id")
MAX_SEARCH_LIMIT = 1000
COLLAPSE_FETCH_CAP = 4 * MAX_SEARCH_LIMIT


def _clean_title(title: str | None) -> str | None:
    """The title as stored: whitespace runs made one space, and text PostgreSQL cannot hold made storable."""
    if title is None:
        return None
    clean = " ".join(to_text(title).split())
    return clean or None


class PostgresSessionStore(SessionLineage, Maintenance):
    """The session store on a PostgreSQL database (``state.backend: postgres``)."""

    backend = "postgres"

    def __init__(self, url: str, *, rank_window: int | None = DEFAULT_RANK_WINDOW, pool_size: int = 8,
                 progress: Any = None) -> None:
        self.url = check_url(url)
        self.path = redact_url(url)  # what messages and `hermes sessions stats` show
        self.rank_window = rank_window
        self._pool = Pool(self.url, max_size=pool_size)
        self._closed = False
        try:
            self._pool.run(lambda conn: bring_up_to_date(conn, self.url))
        except BaseException:
            self._pool.close()
            raise

    # -- lifecycle -----------------------------------------------------------
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()

    def __enter__(self) -> "PostgresSessionStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return self._read(lambda conn: current_version(conn, self.url))

    def _read(self, work: Any) -> Any:
        return self._pool.run(work)

    def _write(self, work: Any) -> Any:
        return self._pool.run(work)

    # -- sessions ------------------------------------------------------------
    def create_session(self, session_id: str | None = None, source: str = "cli", *,
                       model: str | None = None, model_config: Mapping[str, Any] | None = None,
                       system_prompt: str | None = None, user_id: str | None = None,
                       parent_session_id: str | None = None, title: str | None = None,
                       started_at: float | None = None) -> str:
        """Create a session and return its id (a new UUID when none is given)."""
        import psycopg

        sid = session_id or str(uuid.uuid4())
        # ids are looked up as stored (to_text), like get_session does: an id holding NUL is found again
        stored_id, stored_parent, stored_source = to_text(sid), to_text(parent_session_id), to_text(source)
        config = json.dumps(dict(model_config), ensure_ascii=False) if model_config is not None else None
        clean = _clean_title(title)
        started = time.time() if started_at is None else started_at
        row = tuple(to_text(v) for v in (sid, source, user_id, model, config, system_prompt,
                                         parent_session_id, started, clean))

        def work(conn: Any) -> None:
            if parent_session_id is not None and not _exists(conn, stored_parent):
                raise SessionNotFoundError(parent_session_id)
            existing = conn.execute("SELECT started_at, source FROM sessions WHERE id = %s", (stored_id,)).fetchone()
            if existing is not None:
                if attempt["retry"] and existing == (started, stored_source):
                    return  # our own commit, whose acknowledgement was lost
                raise _session_exists(sid)
            attempt["retry"] = True
            try:
                with conn.transaction():
                    conn.execute("INSERT INTO sessions (id, source, user_id, model, model_config, system_prompt, "
                                 "parent_session_id, started_at, title) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                                 row)
            except psycopg.errors.UniqueViolation as error:
                # another host created the same id between the check above and this insert
                if error.diag.constraint_name == "sessions_pkey":
                    raise _session_exists(sid) from None
                raise TitleInUseError(f"title {clean!r} is already used by another session "
                                      "-> choose another title") from None

        attempt = {"retry": False}
        self._write(work)
        return sid

    def end_session(self, session_id: str, reason: str = "user", *, ended_at: float | None = None) -> None:
        when = time.time() if ended_at is None else ended_at
        self._update_one(session_id, "UPDATE sessions SET ended_at = %s, end_reason = %s WHERE id = %s",
                         (when, to_text(reason), to_text(session_id)))

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        row = self._read(lambda c: c.execute(f"{_SELECT_SESSION} WHERE s.id = %s", (to_text(session_id),)).fetchone())
        return decode_session(row) if row else None

    def get_session_by_title(self, title: str) -> dict[str, Any] | None:
        row = self._read(lambda c: c.execute(f"{_SELECT_SESSION} WHERE s.title = %s", (to_text(title),)).fetchone())
        return decode_session(row) if row else None

    def iter_sessions(self, *, batch: int = 500) -> Iterator[dict[str, Any]]:
        """Every session, oldest first (parents before the children they started)."""
        after: tuple[float, str] = (float("-inf"), "")
        while True:
            rows = self._read(lambda c: c.execute(
                f"{_SELECT_SESSION} WHERE (s.started_at, s.id) > (%s, %s) ORDER BY s.started_at, s.id LIMIT %s",
                (*after, batch)).fetchall())
            for row in rows:
                yield decode_session(row)
            if len(rows) < batch:
                return
            after = (rows[-1][SESSION_COLUMNS.index("started_at")], rows[-1][0])

    def update_token_counts(self, session_id: str, *, absolute: bool = False, **values: Any) -> None:
        """Add to (or with ``absolute=True`` set) token/cost counters; None leaves a field alone."""
        unknown = set(values) - set(_COUNTERS + _COSTS + _LABELS)
        if unknown:
            raise TypeError(f"update_token_counts() got unexpected keyword arguments {sorted(unknown)}")
        sets: list[str] = []
        params: list[Any] = []
        for name in _COUNTERS + _COSTS:
            if values.get(name) is not None:
                sets.append(f"{name} = %s" if absolute else f"{name} = coalesce({name}, 0) + %s")
                params.append(values[name])
        for name in _LABELS:
            if values.get(name) is not None:
                sets.append(f"{name} = %s")
                params.append(to_text(values[name]))
        if not sets:
            if self.get_session(session_id) is None:
                raise SessionNotFoundError(session_id)
            return
        # additions are not idempotent: never retried after the statement may have run
        self._update_one(session_id, f"UPDATE sessions SET {', '.join(sets)} WHERE id = %s",
                         (*params, to_text(session_id)), retry=absolute)

    def set_title(self, session_id: str, title: str | None, *, auto_number: bool = False) -> str | None:
        import psycopg

        clean = _clean_title(title)
        stored_id = to_text(session_id)

        def work(conn: Any) -> str | None:
            if not _exists(conn, stored_id):
                raise SessionNotFoundError(session_id)
            chosen = clean
            if chosen is not None and _title_taken(conn, chosen, stored_id):
                if not auto_number:
                    raise TitleInUseError(f"title {chosen!r} is already used by another session "
                                          "-> choose another title")
                chosen = lineage.next_title_in_lineage(QmarkConnection(conn), chosen)
            conn.execute("UPDATE sessions SET title = %s WHERE id = %s", (to_text(chosen), stored_id))
            return chosen

        for _ in range(20):  # another host may take the same numbered title at the same moment
            try:
                return self._write(work)
            except psycopg.errors.UniqueViolation:
                if not auto_number:
                    raise TitleInUseError(f"title {clean!r} is already used by another session "
                                          "-> choose another title") from None
        raise StateStoreError(f"could not find a free title for {clean!r} -> try again")

    def next_title_in_lineage(self, title: str) -> str:
        return self._read(lambda c: lineage.next_title_in_lineage(QmarkConnection(c), to_text(title)))

    # -- messages ------------------------------------------------------------
    def append_message(self, session_id: str, role: str, content: str | None = None, **fields: Any) -> int:
        """Append one message (one transaction) and return its id."""
        return self.append_messages(session_id, [{"role": role, "content": content, **fields}])[0]

    def append_messages(self, session_id: str, messages: Iterable[Mapping[str, Any]]) -> list[int]:
        """Append messages to one session in one transaction; returns their ids.

        A message may carry ``append_key``: appending it again (from any host) is a
        no-op that returns the stored id, which is what makes retries and resumed
        copies safe. Without one, a fresh key covers this call's own retries.
        """
        batch = list(messages)
        encoded = [encode_message(session_id, m) for m in batch]
        if not encoded:
            return []
        keys = [str(m.get("append_key") or uuid.uuid4()) for m in batch]
        rows = []
        postings: dict[str, tuple[list[str], list[float]]] = {}
        for key, enc in zip(keys, encoded):
            values = tuple(to_text(v) for v in enc.values)
            row = dict(zip(MESSAGE_COLUMNS, values))
            text = search_text(row["content"], row["tool_name"], row["tool_calls"])
            vector, words, weights = word_index(text)
            postings[key] = (words, weights)
            rows.append((key, *values, text, vector, gram_array(text) or None))
        stored_id = to_text(session_id)

        def work(conn: Any) -> list[int]:
            # the row lock on the session serialises appends to it across hosts (and proves it exists)
            if conn.execute("SELECT 1 FROM sessions WHERE id = %s FOR UPDATE", (stored_id,)).fetchone() is None:
                raise SessionNotFoundError(session_id)
            inserted: dict[str, int] = {}
            with conn.cursor() as cur:
                cur.executemany(_INSERT_MESSAGE, rows, returning=True)
                for key in keys:  # one result per row given; empty where the key was stored already
                    found = cur.fetchone()
                    if found is not None:
                        inserted[key] = int(found[0])
                    if not cur.nextset():
                        break
            calls = sum(enc.tool_call_count for key, enc in zip(keys, encoded) if key in inserted)
            if inserted:
                with conn.pipeline():  # one round trip for both
                    # only rows this transaction stored: a retried key adds no postings
                    insert_postings(conn, [(inserted[k], *postings[k]) for k in keys if k in inserted])
                    conn.execute("UPDATE sessions SET message_count = message_count + %s, "
                                 "tool_call_count = tool_call_count + %s WHERE id = %s",
                                 (len(inserted), calls, stored_id))
            if len(inserted) < len(keys):  # a retry, or keys given again: the stored ids
                inserted.update(conn.execute("SELECT append_key, id FROM messages WHERE append_key = ANY(%s)",
                                             ([k for k in keys if k not in inserted],)).fetchall())
            return [int(inserted[k]) for k in keys]

        return self._write(work)

    def get_messages(self, session_id: str) -> list[dict[str, Any]]:
        rows = self._read(lambda c: c.execute(
            f"SELECT id, {', '.join(MESSAGE_FIELDS)} FROM messages WHERE session_id = %s ORDER BY timestamp, id",
            (to_text(session_id),)).fetchall())
        return [decode_message(r) for r in rows]

    def message_count(self, session_id: str | None = None) -> int:
        if session_id is None:
            return int(self._read(lambda c: c.execute("SELECT count(*) FROM messages").fetchone()[0]))
        return int(self._read(lambda c: c.execute("SELECT count(*) FROM messages WHERE session_id = %s",
                                                  (to_text(session_id),)).fetchone()[0]))

    # -- lineage (the methods are SessionLineage's, shared with the SQLite store) --
    def _read_lineage(self, work: Any, *, snapshot: bool = False) -> Any:
        return self._read(lambda c: work(QmarkConnection(c)))  # one transaction: a snapshot already

    def lineage_ids(self, session_id: str) -> set[str]:
        return super().lineage_ids(to_text(session_id))  # an id PostgreSQL cannot store, as it was stored

    def search(self, query: str, *, role_filter: str | Sequence[str] | None = None,
               exclude_session_ids: Iterable[str] | None = None, exclude_lineage_of: str | None = None,
               limit: int = 20, collapse_copies: bool = False) -> list[SearchHit]:
        """Full-text search with the SQLite store's query language; any string is safe."""
        plan = parse(_encodable(query))
        if plan.empty:
            return []
        limit = max(0, min(int(limit), MAX_SEARCH_LIMIT))
        excluded = {to_text(s) for s in (exclude_session_ids or ())}

        def work(conn: Any) -> list[SearchHit]:
            nonlocal excluded
            qconn = QmarkConnection(conn)
            if exclude_lineage_of:
                excluded |= lineage.lineage_ids(qconn, to_text(exclude_lineage_of))
            filters = SearchFilters(roles=normalise_roles(role_filter), exclude_session_ids=tuple(sorted(excluded)))
            if not collapse_copies:
                return run_search(conn, plan, filters, limit=limit, rank_window=self.rank_window)

            def collapse(hits: list[SearchHit]) -> list[SearchHit]:
                tips = lineage.compression_tips(qconn, dict.fromkeys(h.session_id for h in hits))
                return collapse_chain_copies(qconn, hits, tips)

            return best_distinct_hits(lambda n: run_search(conn, plan, filters, limit=n, rank_window=self.rank_window),
                                      collapse, limit, COLLAPSE_FETCH_CAP, lambda tied: has_earlier_copy(qconn, tied))

        return self._read(work)

    # -- memory backfill (see ../backfill_ledger.py and ../replay.py) --------
    def memory_backfill_ledger(self, provider: str) -> BackfillLedger:
        """The backfill checkpoints of the memory provider *provider*."""
        def run(work: Any) -> Any:
            return self._pool.run(lambda c: work(QmarkConnection(c)))

        return BackfillLedger(run, run, provider)

    def max_message_id(self) -> int:
        return self._read(lambda c: replay.max_message_id(QmarkConnection(c)))

    def replay_sessions(self, *, upto_message_id: int, exclude_sources: Iterable[str] = (),
                        since: float | None = None, last: int | None = None) -> list[dict[str, Any]]:
        return self._read(lambda c: replay.replay_sessions(QmarkConnection(c), upto_message_id=upto_message_id,
                                                           exclude_sources=exclude_sources, since=since, last=last))

    def replay_messages(self, session_id: str, *, upto_message_id: int, full: bool = True) -> list[dict[str, Any]]:
        return self._read(lambda c: replay.session_messages(QmarkConnection(c), to_text(session_id), upto_message_id, full=full))

    def _update_one(self, session_id: str, sql: str, params: tuple[Any, ...], *, retry: bool = True) -> None:
        def work(conn: Any) -> None:
            if conn.execute(sql, params).rowcount == 0:
                raise SessionNotFoundError(session_id)

        if retry:
            self._write(work)
        else:
            self._pool.run(work, budget_s=0)


def _encodable(query: str) -> str:
    """A lone surrogate (no UTF-8 spelling; psycopg cannot send it) as the ``?`` it was stored as (to_text)."""
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        return query.encode("utf-8", "replace").decode("utf-8")
    return query


def _session_exists(session_id: str) -> SessionExistsError:
    return SessionExistsError(f"a session with id {session_id!r} already exists -> pick another id, "
                              "or leave it out to get a new one")


def _exists(conn: Any, session_id: str) -> bool:
    return conn.execute("SELECT 1 FROM sessions WHERE id = %s", (session_id,)).fetchone() is not None


def _title_taken(conn: Any, title: str, session_id: str) -> bool:
    row = conn.execute("SELECT id FROM sessions WHERE title = %s", (title,)).fetchone()
    return row is not None and row[0] != session_id
