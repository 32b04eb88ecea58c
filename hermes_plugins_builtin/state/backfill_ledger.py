"""Checkpoints of memory backfills, per target provider, in the session store (both backends).

Each confirmed item is committed on its own with the name of the next item to hand over, so a
process killed at any moment leaves a ledger that says what is done and which single item was in
the provider's hands. Nothing here knows what an item is; the host names them.

The SQL is written once, with sqlite3 placeholders, for both backends: the SQLite store runs it
directly, the PostgreSQL store through its placeholder adapter (postgres/adapter.py).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar

T = TypeVar("T")
#: ``run(work)``: call ``work(conn)`` inside one transaction (read or write) and return its result.
Runner = Callable[[Callable[[Any], T]], T]

SQLITE_DDL = """
CREATE TABLE memory_backfill_jobs (
    provider TEXT PRIMARY KEY,
    upto_message_id INTEGER NOT NULL,
    started_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    finished_at REAL,
    in_flight TEXT
);
CREATE TABLE memory_backfill_done (
    provider TEXT NOT NULL,
    item TEXT NOT NULL,
    done_at REAL NOT NULL,
    PRIMARY KEY (provider, item)
) WITHOUT ROWID;
"""
POSTGRES_DDL = """
CREATE TABLE memory_backfill_jobs (
    provider text PRIMARY KEY,
    upto_message_id bigint NOT NULL,
    started_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    finished_at double precision,
    in_flight text
);
CREATE TABLE memory_backfill_done (
    provider text NOT NULL,
    item text NOT NULL,
    done_at double precision NOT NULL,
    PRIMARY KEY (provider, item)
);
"""
_INSERT_DONE = "INSERT INTO memory_backfill_done (provider, item, done_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"


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
    """The checkpoints of one target provider, read and written through the store's transactions."""

    def __init__(self, read: Runner, write: Runner, provider: str) -> None:
        if not provider:
            raise ValueError("a backfill ledger needs the target provider's name")
        self._read = read
        self._write = write
        self.provider = provider

    def job(self) -> BackfillJob | None:
        """The provider's job, or ``None`` when no backfill into it was ever started."""
        def work(conn: Any) -> BackfillJob | None:
            row = conn.execute("SELECT upto_message_id, started_at, updated_at, finished_at, in_flight "
                               "FROM memory_backfill_jobs WHERE provider = ?", (self.provider,)).fetchone()
            if row is None:
                return None
            done = conn.execute("SELECT count(*) FROM memory_backfill_done WHERE provider = ?",
                                (self.provider,)).fetchone()[0]
            return BackfillJob(self.provider, int(row[0]), row[1], row[2], row[3], row[4], int(done))

        return self._read(work)

    def start(self, upto_message_id: int) -> BackfillJob:
        """The existing job (its bound stays: resuming covers the same messages), or a new one up to *upto_message_id*."""
        now = time.time()

        def work(conn: Any) -> None:
            conn.execute("INSERT INTO memory_backfill_jobs (provider, upto_message_id, started_at, updated_at) "
                         "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", (self.provider, int(upto_message_id), now, now))
            conn.execute("UPDATE memory_backfill_jobs SET finished_at = NULL WHERE provider = ?", (self.provider,))

        self._write(work)
        job = self.job()
        assert job is not None
        return job

    def done_items(self, prefix: str = "") -> set[str]:
        """Items confirmed so far (those starting with *prefix*)."""
        if not prefix:
            sql, params = "SELECT item FROM memory_backfill_done WHERE provider = ?", (self.provider,)
        else:
            sql = "SELECT item FROM memory_backfill_done WHERE provider = ? AND substr(item, 1, ?) = ?"
            params = (self.provider, len(prefix), prefix)
        return {r[0] for r in self._read(lambda conn: conn.execute(sql, params).fetchall())}

    def hand_over(self, item: str) -> None:
        """Record that *item* is about to go to the provider."""
        self._write(lambda conn: conn.execute("UPDATE memory_backfill_jobs SET in_flight = ?, updated_at = ? WHERE provider = ?",
                                              (item, time.time(), self.provider)))

    def confirm(self, items: Iterable[str], next_item: str | None = None) -> None:
        """Record *items* as stored by the provider and *next_item* as handed over, in one commit."""
        now, items = time.time(), list(items)

        def work(conn: Any) -> None:
            for item in items:
                conn.execute(_INSERT_DONE, (self.provider, item, now))
            conn.execute("UPDATE memory_backfill_jobs SET in_flight = ?, updated_at = ? WHERE provider = ?",
                         (next_item, now, self.provider))

        self._write(work)

    def record_done(self, items: Iterable[str]) -> None:
        """Record *items* as stored, leaving the job (if any) as it is: for imports beside a backfill."""
        now, items = time.time(), list(items)

        def work(conn: Any) -> None:
            for item in items:
                conn.execute(_INSERT_DONE, (self.provider, item, now))

        self._write(work)

    def finish(self) -> None:
        """Mark the job complete (nothing in flight)."""
        now = time.time()
        self._write(lambda conn: conn.execute("UPDATE memory_backfill_jobs SET in_flight = NULL, finished_at = ?, updated_at = ? "
                                              "WHERE provider = ?", (now, now, self.provider)))

    def forget(self, kinds: Iterable[str] | None = None) -> int:
        """Delete the job and this provider's checkpoints (only items named ``<kind>:...`` when *kinds*
        is given); returns how many items were deleted."""
        def work(conn: Any) -> int:
            if kinds is None:
                count = conn.execute("DELETE FROM memory_backfill_done WHERE provider = ?", (self.provider,)).rowcount
            else:
                count = sum(conn.execute("DELETE FROM memory_backfill_done WHERE provider = ? AND substr(item, 1, ?) = ?",
                                         (self.provider, len(kind) + 1, f"{kind}:")).rowcount for kind in kinds)
            conn.execute("DELETE FROM memory_backfill_jobs WHERE provider = ?", (self.provider,))
            return int(count)

        return self._write(work)
