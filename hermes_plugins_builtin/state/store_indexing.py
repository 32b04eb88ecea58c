"""SessionStore's index upkeep after an append: the indexer thread's step, the lag bound, waiting for the index."""
from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from typing import Callable, Iterator

from . import indexing
from .connection import write_transaction
from .errors import StateStoreError
from .indexer import BackgroundIndexer


class IndexUpkeepMixin:
    """Keeps the search indexes up with the appended rows, off the append's transaction (indexer.py)."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    _turn: threading.Lock
    _durable: bool
    _closed: bool
    _indexer: BackgroundIndexer | None
    _waiting: Callable[[], int]  # MaintenanceMixin's: rows above the mark

    def _keep_index_up(self, waiting: int) -> None:
        """A batch is waiting: wake the indexer, or index it here if there is none or it lags
        MAX_WAITING rows behind (so that what a search reads unindexed stays bounded)."""
        if self._indexer is not None and waiting < indexing.MAX_WAITING:
            self._indexer.wake()
            return
        try:
            with self._lock, self._index_commits():
                with write_transaction(self._conn) as conn:
                    indexing.index_pending(conn)
        except (sqlite3.Error, StateStoreError):
            # the append has committed and stands; its batch rolled back whole and waits
            # (searchable) for the next append or the indexer to try again
            pass

    def _apply_prepared(self, rows: list[indexing.PreparedRow], start: int) -> int:
        """The indexer thread's step under the write lock (see indexer.py)."""
        with self._turn, self._lock:
            if self._closed:
                return 0
            with self._index_commits(), write_transaction(self._conn) as conn:
                return indexing.apply_prepared(conn, rows, start)

    @contextlib.contextmanager
    def _index_commits(self) -> Iterator[None]:
        """Commit index upkeep without an fsync: it is derived from rows already durable, and its
        mark commits with it, so losing such a commit to a power cut leaves rows waiting, not lost.
        The next durable commit's fsync covers it anyway (one WAL, written in order)."""
        if not self._durable:
            yield
            return
        flush = getattr(self._conn, "commit_sync", None)
        if flush is not None:  # the connection is at NORMAL and flushes after durable commits only
            self._conn.commit_sync = None  # type: ignore[attr-defined]
            try:
                yield
            finally:
                self._conn.commit_sync = flush  # type: ignore[attr-defined]
            return
        self._conn.execute("PRAGMA synchronous = NORMAL")
        try:
            yield
        finally:
            self._conn.execute("PRAGMA synchronous = FULL")

    def wait_for_index(self, timeout: float | None = None) -> bool:
        """Block until fewer than a batch of rows wait for the indexes (True), or *timeout* passes.

        The indexer thread does the work; nothing here indexes. Rows a search can find
        either way: this is for tests, benchmarks and tools that want the index caught up.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                waiting = self._waiting()
            if waiting < indexing.BATCH_ROWS:
                return True
            if self._indexer is None:
                return False
            seen = self._indexer.rounds
            self._indexer.wake()
            left = None if deadline is None else deadline - time.monotonic()
            if (left is not None and left <= 0) or not self._indexer.wait_round(seen, left):
                return False

    def index_status(self) -> dict[str, float]:
        """Rows waiting for the indexes, and this store's indexer thread's passes, rows and CPU seconds."""
        indexer = self._indexer
        with self._lock:
            waiting = self._waiting()
        return {"waiting": waiting, "indexer_passes": indexer.passes if indexer else 0,
                "indexer_rows": indexer.rows if indexer else 0, "indexer_cpu_s": indexer.cpu_s if indexer else 0.0}

