"""Checkpoints of memory backfills, per target provider, in state.db (tables of schema v4).

Each confirmed item is committed on its own with the name of the next item to hand over, so a
process killed at any moment leaves a ledger that says what is done and which single item was in
the provider's hands. Nothing here knows what an item is; the host names them.
"""
from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Iterable

from .connection import read_transaction, write_transaction


@dataclass(frozen=True)
class BackfillJob:
    """One provider's backfill: the messages it covers and where it stands."""

    provider: str
    upto_message_id: int
    started_at: float
    updated_at: float
    finished_at: float | None
    in_flight: str | None
    done: int


class BackfillLedger:
    """The checkpoints of one target provider; shares the store's connection and lock."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock, provider: str) -> None:
        if not provider:
            raise ValueError("a backfill ledger needs the target provider's name")
        self._conn = conn
        self._lock = lock
        self.provider = provider

    def job(self) -> BackfillJob | None:
        """The provider's job, or ``None`` when no backfill into it was ever started."""
        with self._lock, read_transaction(self._conn) as conn:
            row = conn.execute("SELECT upto_message_id, started_at, updated_at, finished_at, in_flight "
                               "FROM memory_backfill_jobs WHERE provider = ?", (self.provider,)).fetchone()
            if row is None:
                return None
            done = conn.execute("SELECT count(*) FROM memory_backfill_done WHERE provider = ?",
                                (self.provider,)).fetchone()[0]
        return BackfillJob(self.provider, int(row[0]), row[1], row[2], row[3], row[4], int(done))

    def start(self, upto_message_id: int) -> BackfillJob:
        """The existing job (its bound stays: resuming covers the same messages), or a new one up to *upto_message_id*."""
        now = time.time()
        with self._lock, write_transaction(self._conn) as conn:
            conn.execute("INSERT OR IGNORE INTO memory_backfill_jobs (provider, upto_message_id, started_at, updated_at) "
                         "VALUES (?, ?, ?, ?)", (self.provider, int(upto_message_id), now, now))
            conn.execute("UPDATE memory_backfill_jobs SET finished_at = NULL WHERE provider = ?", (self.provider,))
        job = self.job()
        assert job is not None
        return job

    def done_items(self, prefix: str = "") -> set[str]:
        """Items confirmed so far (those starting with *prefix*)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT item FROM memory_backfill_done WHERE provider = ? AND item >= ? AND item < ?",
                (self.provider, prefix, prefix + "\U0010ffff")).fetchall()
        return {r[0] for r in rows}

    def hand_over(self, item: str) -> None:
        """Record that *item* is about to go to the provider."""
        with self._lock, write_transaction(self._conn) as conn:
            conn.execute("UPDATE memory_backfill_jobs SET in_flight = ?, updated_at = ? WHERE provider = ?",
                         (item, time.time(), self.provider))

    def confirm(self, items: Iterable[str], next_item: str | None = None) -> None:
        """Record *items* as stored by the provider and *next_item* as handed over, in one commit."""
        now = time.time()
        with self._lock, write_transaction(self._conn) as conn:
            conn.executemany("INSERT OR IGNORE INTO memory_backfill_done (provider, item, done_at) VALUES (?, ?, ?)",
                             [(self.provider, item, now) for item in items])
            conn.execute("UPDATE memory_backfill_jobs SET in_flight = ?, updated_at = ? WHERE provider = ?",
                         (next_item, now, self.provider))

    def record_done(self, items: Iterable[str]) -> None:
        """Record *items* as stored, leaving the job (if any) as it is: for imports beside a backfill."""
        now = time.time()
        with self._lock, write_transaction(self._conn) as conn:
            conn.executemany("INSERT OR IGNORE INTO memory_backfill_done (provider, item, done_at) VALUES (?, ?, ?)",
                             [(self.provider, item, now) for item in items])

    def finish(self) -> None:
        """Mark the job complete (nothing in flight)."""
        now = time.time()
        with self._lock, write_transaction(self._conn) as conn:
            conn.execute("UPDATE memory_backfill_jobs SET in_flight = NULL, finished_at = ?, updated_at = ? "
                         "WHERE provider = ?", (now, now, self.provider))

    def forget(self, kinds: Iterable[str] | None = None) -> int:
        """Delete the job and this provider's checkpoints (only items named ``<kind>:...`` when *kinds*
        is given); returns how many items were deleted."""
        with self._lock, write_transaction(self._conn) as conn:
            if kinds is None:
                count = conn.execute("DELETE FROM memory_backfill_done WHERE provider = ?", (self.provider,)).rowcount
            else:
                count = sum(conn.execute("DELETE FROM memory_backfill_done WHERE provider = ? AND item >= ? AND item < ?",
                                         (self.provider, f"{kind}:", f"{kind};")).rowcount for kind in kinds)
            conn.execute("DELETE FROM memory_backfill_jobs WHERE provider = ?", (self.provider,))
        return int(count)
