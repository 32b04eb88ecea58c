"""An OS file lock that queues hermes writers of one state.db before SQLite's own lock.

SQLite's busy handler polls: a writer that finds the database locked sleeps
1, 2, 5 ... 100 ms and tries again, so under contention a commit waits for a timer
rather than for the holder, and waiters can starve each other. Every store
therefore takes an exclusive ``flock`` on ``<db>-lock`` around its write
transactions. The kernel wakes a waiter the moment the holder lets go, so
``BEGIN IMMEDIATE`` then finds SQLite's lock free. Readers never take it (WAL
readers do not block). Writers that are not hermes (the sqlite3 shell) are still
covered by SQLite's busy timeout and the retry in connection.py.

Where ``flock`` is unavailable (Windows, a read-only directory) the lock is a no-op
and SQLite's own locking does the job alone, as before.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .walsync import WalSync

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = "-lock"


class WriterLock:
    """Exclusive, blocking, re-entrant within one thread; one per connection.

    The lock file is opened on first use, so a store that only reads creates nothing.
    """

    def __init__(self, db_path: Path, suffix: str = LOCK_SUFFIX) -> None:
        self.path = Path(str(db_path) + suffix)
        self._fd: int | None = None
        self._usable = fcntl is not None
        self._depth = 0
        self._owner: int | None = None
        self._guard = threading.Lock()

    def _open(self) -> int | None:
        if self._fd is None and self._usable:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                self._usable = False  # unwritable directory: SQLite's locking alone
        return self._fd

    def acquire(self, *, blocking: bool = True) -> bool:
        """Take the lock, waiting for the holder unless *blocking* is False."""
        me = threading.get_ident()
        if self._owner == me:
            self._depth += 1
            return True
        if not self._guard.acquire(blocking):
            return False
        try:
            fd = self._open()
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            self._guard.release()
            return False
        except BaseException:
            self._guard.release()
            raise
        self._owner, self._depth = me, 1
        return True

    def release(self) -> None:
        """Let the next writer in (an inner release of a nested acquire does nothing)."""
        self._depth -= 1
        if self._depth:
            return
        self._owner = None
        try:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._guard.release()

    def close(self) -> None:
        """Close the lock file (a lock still held goes with it)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class StoreConnection(sqlite3.Connection):
    """A connection that carries the writer lock of its database file."""

    writer_lock: WriterLock
    commit_sync: "WalSync | None" = None  # a durable store's WAL flush (walsync.py)

    def close(self) -> None:
        super().close()
        lock = getattr(self, "writer_lock", None)
        if lock is not None:
            lock.close()
        if self.commit_sync is not None:
            self.commit_sync.close()
