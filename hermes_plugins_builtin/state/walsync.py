"""Durable commits whose fsync waits outside the write lock (``synchronous: full``).

At ``PRAGMA synchronous = FULL`` SQLite fsyncs the WAL inside COMMIT, while it
still holds the database's one write lock: every other writer waits for this
writer's disk flush as well as for its SQL, so four writer processes reached a
third of what the disk allows (one fsync per commit, see docs/benchmarks.md).

A durable store therefore commits at ``synchronous = NORMAL`` (the frames are
written to the WAL, nothing is flushed), lets go of the write lock, and only
then flushes the WAL file itself, before the append returns. The caller gets
what FULL gives: when a durable write returns, it survives a power cut. The
next writer meanwhile runs its SQL, and flushes that land together cover each
other (a flush of the WAL covers every frame written before it).

What differs from FULL: another connection can read a commit during the
moment between its COMMIT and its flush. A power cut in that moment loses it
(its writer never returned), and with it every later commit that had not been
flushed either: SQLite recovers the WAL only up to the first frame missing,
so a commit that did return was flushed, and so was everything before it.
Never corruption: NORMAL in WAL mode already flushes the WAL before every
checkpoint copies it into the database, which is flushed after.

Where the WAL cannot be opened for flushing (not POSIX), the store keeps SQLite's
own ``synchronous = FULL``.
"""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from .errors import StateStoreError

WAL_SUFFIX = "-wal"
_flush = getattr(os, "fdatasync", os.fsync)  # a WAL's data and size, as SQLite's FULL asks for
USABLE = os.name == "posix"


class WalSync:
    """Flushes one database's WAL file; one per store connection, opened on first use.

    The descriptor stays valid for the connection's life: SQLite removes the WAL only
    when the last connection closes, or leaves WAL mode, which needs every other
    connection closed (so the flushed file is always the one SQLite writes).
    """

    def __init__(self, db_path: Path) -> None:
        self.path = Path(str(db_path) + WAL_SUFFIX)
        self._fd: int | None = None
        self._opening = threading.Lock()  # flushes run outside the store's lock: two first ones may race
        self.flushes = 0  # tests and benchmarks read these two
        self.seconds = 0.0  # spent waiting for the disk

    def __call__(self) -> None:
        """Flush everything written to the WAL so far (called after a durable COMMIT)."""
        try:
            fd = self._fd
            if fd is None:
                with self._opening:
                    if self._fd is None:
                        # the file exists: this connection has just committed into it
                        self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                    fd = self._fd
            started = time.perf_counter()
            _flush(fd)
            self.seconds += time.perf_counter() - started
        except OSError as exc:
            raise StateStoreError(f"{self.path} could not be flushed to disk ({exc}) -> the write is stored but "
                                  "may not survive a power cut; check the disk and its free space") from exc
        self.flushes += 1

    def close(self) -> None:
        """Close the WAL's descriptor (the store is closing)."""
        with self._opening:
            fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:  # a store dropped without close(): the descriptor goes with it
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
