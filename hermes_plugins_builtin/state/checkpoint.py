"""Copies WAL pages back into state.db from a background thread, off the append path.

SQLite's auto-checkpoint runs inside the commit that pushes the WAL past 1,000
pages: it copies them into the database file and fsyncs, 20-60 ms spent inside
one append. Here the store also wakes a daemon thread (with its own connection)
every CHECKPOINT_EVERY_MESSAGES appended messages for a PASSIVE checkpoint, which
never blocks readers or writers; the sqlite3 module releases the GIL while it runs.
Counting messages rather than commits keeps each pass about the same size whether
messages arrive one per commit or a turn at a time (about 6 WAL frames per message,
so a pass copies ~600, well below the auto-checkpoint's 1,000). Each pass costs two
fsyncs at FULL (the WAL, then the database file), so passes every 100 messages add
2 % to the one fsync per durable append, where every 30 commits added 7 %; a page
rewritten by many appends (the session's counters, the newest index pages) is also
copied once per pass rather than once per version.
The auto-checkpoint stays on: a passive pass cannot finish while appends keep
arriving, so the WAL could never start over on its own, but by the time the
auto-checkpoint fires the thread has already copied nearly every page, and
finishing the job is quick.

Neither kind of pass can make the WAL start over while some reader is always
reading, which is what a gateway searching while several processes append
looks like: the WAL grew to 10,000 pages (40 MB) in a benchmark, and a page a
search needs is then read from the WAL with a read() call instead of from the
memory map, which made each search several times as expensive. So once the WAL
holds more than RESTART_FRAMES frames, the thread takes the writers' file lock
and asks for a RESTART checkpoint: it waits (RESTART_WAIT_MS at most) for the
readers of the moment to finish, never blocks a reader, and the next commit
starts the WAL from its beginning.
"""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from .writelock import WriterLock

CHECKPOINT_EVERY_MESSAGES = 100
AUTOCHECKPOINT_PAGES = 1000  # SQLite's default, set explicitly because the design relies on it
RESTART_FRAMES = 2 * AUTOCHECKPOINT_PAGES
RESTART_WAIT_MS = 20


class BackgroundCheckpointer:
    """One per store; started on first use, stopped by close()."""

    def __init__(self, path: Path, *, synchronous: str, every_messages: int = CHECKPOINT_EVERY_MESSAGES) -> None:
        self._path = path
        self._synchronous = synchronous
        self._every = every_messages
        self._messages = 0
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._done = threading.Condition()
        self.checkpoints = 0  # completed passes (tests wait on this)
        self.restarts = 0  # passes that made the WAL start over
        self._lock: WriterLock | None = None

    def note_commit(self, messages: int = 1) -> None:
        """Count a commit of *messages* appended messages; every so often wake the thread."""
        self._messages += messages
        if self._messages < self._every:
            return
        self._messages = 0
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"checkpoint:{self._path.name}", daemon=True)
            self._thread.start()
        self._wake.set()

    def wait_for(self, count: int, timeout: float) -> bool:
        """Block until *count* passes have completed (or *timeout* seconds pass)."""
        with self._done:
            return self._done.wait_for(lambda: self.checkpoints >= count, timeout)

    def close(self) -> None:
        """Stop the thread after its current pass."""
        if self._thread is None:
            return
        self._stopping = True
        self._wake.set()
        self._thread.join(timeout=10)
        self._thread = None

    def _restart(self, conn: sqlite3.Connection) -> None:
        """RESTART the WAL while holding the writers' file lock, so they queue on it
        (woken the moment it is released) instead of in SQLite's polling busy handler."""
        if self._lock is None:
            self._lock = WriterLock(self._path)
        self._lock.acquire()
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
            self.restarts += not busy
        finally:
            self._lock.release()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(str(self._path), timeout=RESTART_WAIT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
        except sqlite3.Error:
            return  # the auto-checkpoint keeps the WAL bounded without us, only less smoothly
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                try:
                    _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if frames > RESTART_FRAMES:
                        self._restart(conn)
                except sqlite3.OperationalError:
                    pass  # another connection is checkpointing right now; the next pass catches up
                with self._done:
                    self.checkpoints += 1
                    self._done.notify_all()
        finally:
            conn.close()
            if self._lock is not None:
                self._lock.close()
