"""The store's indexer thread: waiting rows indexed off the append path, in their own transactions.

SQLite has one write lock per file, and at synchronous=FULL an append holds it
through its commit's fsync. When the batch upkeep of the search indexes ran in
the append that filled a batch, every writer queued behind it too. Now an append
commits only its row, and this thread indexes the waiting rows in transactions
of their own, in three steps:

1. read the waiting rows from a snapshot of its own connection (no lock);
2. tokenize them for the impact lists and the gram index (no lock; ``indexing.prepare``);
3. take the write lock and apply them (``indexing.apply_prepared`` through the store),
   committing at synchronous=NORMAL: the index is derived from the rows, and the mark
   ``indexed_upto`` commits with it, so a commit lost to a power cut only leaves its
   rows waiting again (the next durable append's fsync covers every frame before it).

Steps 1 and 2 run while the appending thread waits for its fsync (or on the other
core). A process killed in step 3 loses nothing: its transaction never commits and
the rows wait for the next indexer. One indexer works at a time across processes
(an ``flock`` on ``<db>-indexer``): the others' threads queue there rather than
tokenize the same rows. Searches read waiting rows literally (tail.py) and never
index; an appender that finds ``indexing.MAX_WAITING`` rows waiting (this thread
starved) indexes them itself, which bounds the lag.
"""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable

from . import indexing
from .connection import open_raw, read_transaction
from .writelock import WriterLock

INDEXER_LOCK_SUFFIX = "-indexer"
#: Rows one pass indexes at most: the write lock is held for about a ms at a time, and a search
#: bringing its cached postings forward (postings.advance_postings) meets jumps of the mark no larger.
PASS_ROWS = 2 * indexing.BATCH_ROWS
Apply = Callable[[list[indexing.PreparedRow], int], int]


class BackgroundIndexer:
    """One per store that appends; the thread starts with the first batch waiting."""

    def __init__(self, path: Path, apply: Apply) -> None:
        self._path = path
        self._apply = apply
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._state = threading.Condition()
        self._busy = False
        self.passes = 0  # passes that indexed something
        self.rows = 0  # rows this thread indexed
        self.cpu_s = 0.0  # the thread's CPU time, all of it (reading, tokenizing, applying)
        self.rounds = 0  # times it woke and looked (tests and wait_idle count on it)

    def wake(self) -> None:
        """A batch is waiting: start the thread if need be and let it look."""
        if self._stopping:
            return
        if self._thread is None or not self._thread.is_alive():  # (a thread an unexpected error ended)
            self._thread = threading.Thread(target=self._run, name=f"indexer:{self._path.name}", daemon=True)
            self._thread.start()
        self._wake.set()

    def wait_round(self, seen: int, timeout: float | None) -> bool:
        """Block until the thread has finished a round after round *seen* (False on timeout or close)."""
        with self._state:
            self._state.wait_for(lambda: self.rounds > seen or self._stopping, timeout)
            return self.rounds > seen

    def close(self, timeout: float = 10.0) -> None:
        """Stop the thread after its current pass (a pass is at most PASS_ROWS rows)."""
        self._stopping = True
        thread, self._thread = self._thread, None
        if thread is not None:
            self._wake.set()
            thread.join(timeout=timeout)
        with self._state:
            self._state.notify_all()

    def _run(self) -> None:
        reader: sqlite3.Connection | None = None
        lock = WriterLock(self._path, INDEXER_LOCK_SUFFIX)
        started = time.thread_time()
        try:
            reader = open_raw(self._path)
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stopping:
                    return
                try:
                    self._drain(reader, lock)
                except sqlite3.Error:
                    pass  # the rows stay waiting (searchable): the next round or an appender indexes them
                finally:
                    with self._state:
                        self.rounds += 1
                        self.cpu_s = time.thread_time() - started
                        self._state.notify_all()
        except sqlite3.Error:
            return  # no connection: appenders index the rows themselves past MAX_WAITING
        finally:
            if reader is not None:
                reader.close()
            lock.close()

    def _drain(self, reader: sqlite3.Connection, lock: WriterLock) -> None:
        lock.acquire()  # another process's indexer may be on these very rows: wait for it, then look
        try:
            while not self._stopping:
                with read_transaction(reader):
                    start = indexing.indexed_upto(reader)
                    rows = indexing.waiting_after(reader, start, PASS_ROWS)
                if len(rows) < indexing.BATCH_ROWS:
                    return
                done = self._apply(indexing.prepare(rows), start)
                self.passes += 1
                self.rows += done
        finally:
            lock.release()
