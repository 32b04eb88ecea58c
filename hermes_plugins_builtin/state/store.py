"""SessionStore: sessions, messages, counters, titles, lineage and search over state.db."""
from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

from . import indexing, lineage
from .checkpoint import BackgroundCheckpointer
from .indexer import BackgroundIndexer
from .connection import (configure, create_private_file, open_raw, read_transaction, restrict_modes,
                         with_retry, write_transaction, write_transaction_if_free)
from .errors import NotAStateDatabaseError, SessionExistsError, SessionNotFoundError, StateStoreError, TitleInUseError
from .records import (INSERT_MESSAGE_SQL, MESSAGE_FIELDS, SELECT_SESSION_SQL, SESSION_COLUMNS, EncodedMessage,
                      decode_message, decode_session, encode_fields, encode_message)
from .schema import SCHEMA_VERSION, check_not_too_new, migrate
from .store_backfill import BackfillMixin
from .store_indexing import IndexUpkeepMixin
from .store_lineage import LineageMixin
from .store_maintenance import MaintenanceMixin

if TYPE_CHECKING:
    from .prefixes import PrefixExpander
    from .search import SearchHit

#: The default of ``rank_window`` (see ``search.DEFAULT_RANK_WINDOW``, which a test keeps equal):
#: written here so that opening a store for a listing does not import the search machinery.
DEFAULT_RANK_WINDOW = 500

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_COUNTERS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
             "reasoning_tokens", "api_call_count")
_COSTS = ("estimated_cost_usd", "actual_cost_usd")
_LABELS = ("model", "billing_provider", "billing_base_url", "billing_mode", "cost_status",
           "cost_source", "pricing_version")
_COUNT_APPENDED_SQL = ("UPDATE sessions SET message_count = message_count + ?, "
                       "tool_call_count = tool_call_count + ? WHERE id = ?")
MAX_SEARCH_LIMIT = 1000
# collapse_copies fetches up to this many candidates to find *limit* distinct messages
COLLAPSE_FETCH_CAP = 4 * MAX_SEARCH_LIMIT


def _cannot_open(path: Path, exc: BaseException) -> StateStoreError:
    return StateStoreError(
        f"{path} cannot be opened ({exc}) -> it must be a file (or not exist yet) in a directory you "
        "can write; check the path and its permissions"
    )


class SessionStore(LineageMixin, BackfillMixin, MaintenanceMixin, IndexUpkeepMixin):
    """The SQLite session store behind ``$HERMES_HOME/state.db``.

    One instance owns one connection and may be shared between threads. Several
    processes may open the same file: writes serialise on SQLite's write lock
    (``BEGIN IMMEDIATE`` with bounded, jittered retry) and readers never block.
    ``durable=True`` fsyncs every commit (see docs/sessions.md for the trade-off).
    """

    def __init__(self, db_path: str | Path, *, durable: bool = False,
                 rank_window: int | None = DEFAULT_RANK_WINDOW,
                 progress: indexing.ProgressCallback | None = None, background_index: bool = False) -> None:
        """Open (creating or migrating) the store at *db_path*.

        *progress* is called as progress(rows_done, rows_total) when opening has to
        index stored rows: a migration that builds the search indexes, a rebuild of
        the gram index after its rules changed, or a backlog of waiting rows.

        By default the append that leaves a batch waiting indexes it, after its own
        commit, in a transaction of its own. With *background_index* a thread does
        that instead (indexer.py): measured, it only pays off with several writer
        processes at synchronous=NORMAL (see docs/benchmarks.md).
        """
        self.path = Path(db_path)
        self.rank_window = rank_window
        self._durable = durable
        self._lock = threading.RLock()
        # a turnstile in front of _lock for the indexer thread: an appending thread in a tight loop
        # takes the lock again before a waiting thread wakes up (the lock is not fair), which
        # left the indexer waiting until the appenders had to index MAX_WAITING rows themselves
        self._turn = threading.Lock()
        try:
            create_private_file(self.path)
            self._conn = open_raw(self.path)
        except (OSError, sqlite3.OperationalError) as exc:  # a directory, no permission, a missing parent
            raise _cannot_open(self.path, exc) from exc
        self._prefixes: PrefixExpander | None = None  # made by the first search
        self._checkpointer = BackgroundCheckpointer(self.path, synchronous="FULL" if durable else "NORMAL")
        self._indexer = BackgroundIndexer(self.path, self._apply_prepared) if background_index else None
        self._closed = False
        try:
            # refuse a newer schema before anything (even the WAL switch) writes
            try:
                with_retry(lambda: check_not_too_new(self._conn, str(self.path)))
            except sqlite3.DatabaseError as exc:  # "file is not a database" and friends
                if isinstance(exc, sqlite3.OperationalError):
                    raise _cannot_open(self.path, exc) from exc
                raise NotAStateDatabaseError(str(self.path), f"SQLite cannot open it: {exc}") from exc
            configure(self._conn, durable=durable)
            restrict_modes(self.path)
            self._bring_up_to_date(progress)
        except BaseException:
            self._conn.close()
            raise

    # -- lifecycle -----------------------------------------------------------
    def _bring_up_to_date(self, progress: indexing.ProgressCallback | None) -> None:
        if check_not_too_new(self._conn, str(self.path)) < SCHEMA_VERSION:
            with write_transaction(self._conn) as conn:
                migrate(conn, str(self.path), progress=progress)
        if not indexing.grams_format_current(self._conn):
            # the gram rules or Python's Unicode tables changed: old tokens would no
            # longer match what a delete recomputes, so the gram index is made again from the rows
            with write_transaction(self._conn) as conn:
                if not indexing.grams_format_current(conn):
                    indexing.rebuild_grams(conn, progress)
        if self._waiting() >= indexing.MAX_WAITING:
            # a backlog (rows an older tool wrote, a crash's leftovers); fewer rows are the
            # writers' indexers' normal lag, which a search reads as it is
            self.flush_search_index(progress)

    def close(self) -> None:
        """Index the rows still waiting if the lock is free, then close the connection.

        (The last connection to close also folds the WAL back into the file.)
        """
        if self._indexer is not None:
            self._indexer.close()  # before the lock: its last pass may be waiting for it
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._checkpointer.close()
            try:
                if self._waiting():
                    with write_transaction_if_free(self._conn) as free:
                        if free:
                            indexing.index_pending(self._conn)
            finally:
                self._conn.close()

    def __enter__(self) -> "SessionStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        return check_not_too_new(self._conn, str(self.path))

    # -- sessions ------------------------------------------------------------
    def create_session(self, session_id: str | None = None, source: str = "cli", *,
                       model: str | None = None, model_config: Mapping[str, Any] | None = None,
                       system_prompt: str | None = None, user_id: str | None = None,
                       parent_session_id: str | None = None, title: str | None = None,
                       started_at: float | None = None) -> str:
        """Create a session and return its id (a new UUID when none is given)."""
        if not session_id:
            import uuid  # deferred: it imports platform, which the read-only commands never need

            session_id = str(uuid.uuid4())
        sid = session_id
        config = json.dumps(dict(model_config), ensure_ascii=False) if model_config is not None else None
        with self._lock, write_transaction(self._conn) as conn:
            if parent_session_id is not None and not self._exists(parent_session_id):
                raise SessionNotFoundError(parent_session_id)
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchone():
                raise SessionExistsError(f"a session with id {sid!r} already exists -> pick another id, "
                                         "or leave it out to get a new one")
            if title is not None and self._title_taken(title, sid):
                raise TitleInUseError(f"title {title!r} is already used by another session "
                                      "-> choose another title")
            conn.execute(
                "INSERT INTO sessions (id, source, user_id, model, model_config, system_prompt, "
                "parent_session_id, started_at, title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (sid, source, user_id, model, config, system_prompt, parent_session_id,
                 time.time() if started_at is None else started_at, _clean_title(title)))
        return sid

    def end_session(self, session_id: str, reason: str = "user", *, ended_at: float | None = None) -> None:
        """Mark a session ended now (or at *ended_at*) with *reason*, e.g. 'compression'."""
        with self._lock, write_transaction(self._conn) as conn:
            cur = conn.execute("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?",
                               (time.time() if ended_at is None else ended_at, reason, session_id))
            if cur.rowcount == 0:
                raise SessionNotFoundError(session_id)

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        """Every column of one session, or None."""
        with self._lock:
            row = self._conn.execute(f"{SELECT_SESSION_SQL} WHERE s.id = ?", (session_id,)).fetchone()
        return decode_session(row) if row else None

    def get_session_by_title(self, title: str) -> dict[str, Any] | None:
        """The session carrying exactly *title*, or None."""
        with self._lock:
            row = self._conn.execute(f"{SELECT_SESSION_SQL} WHERE s.title = ?", (title,)).fetchone()
        return decode_session(row) if row else None

    def iter_sessions(self, *, batch: int = 500) -> Iterator[dict[str, Any]]:
        """Every session, oldest first (``hermes sessions migrate`` walks the store with it)."""
        after: tuple[float, str] = (float("-inf"), "")
        while True:
            with self._lock:
                rows = self._conn.execute(f"{SELECT_SESSION_SQL} WHERE (s.started_at, s.id) > (?, ?) "
                                          "ORDER BY s.started_at, s.id LIMIT ?", (*after, batch)).fetchall()
            for row in rows:
                yield decode_session(row)
            if len(rows) < batch:
                return
            after = (rows[-1][SESSION_COLUMNS.index("started_at")], rows[-1][0])

    def update_token_counts(self, session_id: str, *, absolute: bool = False,
                            input_tokens: int | None = None, output_tokens: int | None = None,
                            cache_read_tokens: int | None = None, cache_write_tokens: int | None = None,
                            reasoning_tokens: int | None = None, api_call_count: int | None = None,
                            estimated_cost_usd: float | None = None, actual_cost_usd: float | None = None,
                            model: str | None = None, billing_provider: str | None = None,
                            billing_base_url: str | None = None, billing_mode: str | None = None,
                            cost_status: str | None = None, cost_source: str | None = None,
                            pricing_version: str | None = None) -> None:
        """Add to (or with ``absolute=True`` set) token/cost counters; None leaves a field alone."""
        given = dict(locals())
        sets: list[str] = []
        params: list[Any] = []
        for name in _COUNTERS + _COSTS:
            if given[name] is None:
                continue
            sets.append(f"{name} = ?" if absolute else f"{name} = coalesce({name}, 0) + ?")
            params.append(given[name])
        for name in _LABELS:
            if given[name] is not None:
                sets.append(f"{name} = ?")
                params.append(given[name])
        with self._lock, write_transaction(self._conn) as conn:
            if not sets:
                if not self._exists(session_id):
                    raise SessionNotFoundError(session_id)
                return
            cur = conn.execute(f"UPDATE sessions SET {', '.join(sets)} WHERE id = ?", (*params, session_id))
            if cur.rowcount == 0:
                raise SessionNotFoundError(session_id)

    def set_title(self, session_id: str, title: str | None, *, auto_number: bool = False) -> str | None:
        """Set (or clear with None/blank) a unique title; returns the title stored.

        With ``auto_number`` a taken title becomes the next free one along its
        lineage ("My Session" -> "My Session #2"); without it a taken title raises
        TitleInUseError.
        """
        clean = _clean_title(title)
        with self._lock, write_transaction(self._conn) as conn:
            if not self._exists(session_id):
                raise SessionNotFoundError(session_id)
            if clean is not None and self._title_taken(clean, session_id):
                if not auto_number:
                    raise TitleInUseError(f"title {clean!r} is already used by another session "
                                          "-> choose another title")
                clean = lineage.next_title_in_lineage(conn, clean)
            conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (clean, session_id))
        return clean

    def next_title_in_lineage(self, title: str) -> str:
        """The title a continuation of a session titled *title* should get."""
        with self._lock:
            return lineage.next_title_in_lineage(self._conn, title)

    # -- messages ------------------------------------------------------------
    def append_message(self, session_id: str, role: str, content: str | None = None, *,
                       tool_calls: Sequence[Mapping[str, Any]] | str | None = None,
                       tool_call_id: str | None = None, tool_name: str | None = None,
                       finish_reason: str | None = None, token_count: int | None = None,
                       reasoning: str | None = None, reasoning_content: str | None = None,
                       reasoning_details: Any = None, codex_reasoning_items: Any = None,
                       codex_message_items: Any = None, timestamp: float | None = None) -> int:
        """Append one message (one transaction) and return its id."""
        encoded = encode_fields(session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp, token_count,
                                finish_reason, reasoning, reasoning_content, reasoning_details, codex_reasoning_items,
                                codex_message_items)
        return self._append(session_id, [encoded])[0]

    def append_messages(self, session_id: str, messages: Iterable[Mapping[str, Any]]) -> list[int]:
        """Append several messages to one session in a single transaction; returns their ids."""
        encoded = [encode_message(session_id, m) for m in messages]
        return self._append(session_id, encoded) if encoded else []

    def _append(self, session_id: str, encoded: list[EncodedMessage]) -> list[int]:
        # everything that needs no lock (encoding) is done by now: other writers wait only for this,
        # and the search indexes are kept up after the commit (see _keep_index_up)
        if self._indexer is not None:
            with self._turn:
                pass  # the indexer thread, when it waits for _lock, goes first
        transaction = write_transaction(self._conn, defer_sync=True)
        calls = encoded[0].tool_call_count if len(encoded) == 1 else sum([e.tool_call_count for e in encoded])
        with self._lock:
            with transaction as conn:
                if conn.execute(_COUNT_APPENDED_SQL, (len(encoded), calls, session_id)).rowcount == 0:
                    raise SessionNotFoundError(session_id)
                ids = [_insert(conn, e.values) for e in encoded]
            waiting = indexing.waiting_estimate(self._conn, ids[-1])
        # durable: the WAL is flushed here, holding no lock, so the next writer (another process,
        # or this store's indexer thread) is at work meanwhile (walsync.py)
        transaction.sync()
        self._checkpointer.note_commit(len(ids))
        if waiting >= indexing.BATCH_ROWS:
            self._keep_index_up(waiting)
        return ids

    def get_messages(self, session_id: str) -> list[dict[str, Any]]:
        """All messages of a session in append order, JSON columns decoded."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT id, {', '.join(MESSAGE_FIELDS)} FROM messages WHERE session_id = ? "
                "ORDER BY timestamp, id", (session_id,)).fetchall()
        return [decode_message(r) for r in rows]

    def message_count(self, session_id: str | None = None) -> int:
        """Number of messages in one session, or in the whole store."""
        with self._lock:
            if session_id is None:
                return int(self._conn.execute("SELECT count(*) FROM messages").fetchone()[0])
            return int(self._conn.execute("SELECT count(*) FROM messages WHERE session_id = ?",
                                          (session_id,)).fetchone()[0])

    # -- search --------------------------------------------------------------
    def search(self, query: str, *, role_filter: str | Sequence[str] | None = None,
               exclude_session_ids: Iterable[str] | None = None, exclude_lineage_of: str | None = None,
               limit: int = 20, collapse_copies: bool = False) -> list[SearchHit]:
        """Full-text search; any string is safe (see query.py for the syntax).

        Returns hits best first (BM25), each with session id, message id, role,
        snippet, rank and timestamp. ``exclude_lineage_of`` drops the whole session
        tree of the given session (the conversation the caller is in).
        ``collapse_copies`` returns a message that compression copied into several
        parts of a chain once, as the hit in the earliest part (see
        copies.py); more candidates are fetched to fill *limit*.
        """
        # imported here: listing, showing and appending never need the query language or ranking
        from .prefixes import PrefixExpander
        from .query import parse
        from .copies import best_distinct_hits, collapse_chain_copies, has_earlier_copy
        from .search import SearchFilters, normalise_roles, run_search

        # a lone surrogate ('\ud800', or a non-UTF-8 byte from a command line) cannot reach SQLite;
        # as U+FFFD it matches nothing it should not, and the rest of the query still works
        plan = parse(_LONE_SURROGATE.sub("\ufffd", query) if isinstance(query, str) else query)
        if plan.empty:
            return []
        limit = max(0, min(int(limit), MAX_SEARCH_LIMIT))
        excluded = set(exclude_session_ids or ())
        with self._lock, read_transaction(self._conn) as conn:
            if self._prefixes is None:
                self._prefixes = PrefixExpander(self._conn)
            if exclude_lineage_of:
                excluded |= lineage.lineage_ids(conn, exclude_lineage_of)
            filters = SearchFilters(roles=normalise_roles(role_filter), exclude_session_ids=tuple(sorted(excluded)))
            upto = indexing.indexed_upto(conn)

            def ranked(n: int) -> list[SearchHit]:
                return run_search(conn, plan, filters, limit=n, rank_window=self.rank_window,
                                  include_recent=True, expander=self._prefixes, indexed_upto=upto)

            if not collapse_copies:
                return ranked(limit)

            def collapse(hits: list[SearchHit]) -> list[SearchHit]:
                tips = lineage.compression_tips(conn, dict.fromkeys(h.session_id for h in hits))
                return collapse_chain_copies(conn, hits, tips)

            return best_distinct_hits(ranked, collapse, limit, COLLAPSE_FETCH_CAP, lambda tied: has_earlier_copy(conn, tied))

    # -- helpers -------------------------------------------------------------
    def _exists(self, session_id: str) -> bool:
        return self._conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None

    def _title_taken(self, title: str, session_id: str) -> bool:
        row = self._conn.execute("SELECT id FROM sessions WHERE title = ?", (_clean_title(title),)).fetchone()
        return row is not None and row[0] != session_id


def _insert(conn: sqlite3.Connection, values: tuple[Any, ...]) -> int:
    try:
        return conn.execute(INSERT_MESSAGE_SQL, values).lastrowid  # type: ignore[return-value]
    except UnicodeEncodeError:
        # lone surrogates (from a bad decode upstream) cannot be stored as UTF-8
        fixed = tuple(v.encode("utf-8", "replace").decode("utf-8") if isinstance(v, str) else v for v in values)
        return conn.execute(INSERT_MESSAGE_SQL, fixed).lastrowid  # type: ignore[return-value]


def _clean_title(title: str | None) -> str | None:
    if title is None:
        return None
    clean = " ".join(title.split())
    return clean or None
