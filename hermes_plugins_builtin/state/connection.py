"""Opening state.db (private file modes, pragmas) and the retrying write transaction."""
from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import stat
import time
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from .checkpoint import AUTOCHECKPOINT_PAGES
from .errors import MOVE_ASIDE_FIX, StateStoreError, StoreBusyError
from .walsync import USABLE as WAL_SYNC_USABLE, WalSync
from .writelock import StoreConnection, WriterLock

T = TypeVar("T")
SIDECAR_SUFFIXES = ("-wal", "-shm")

# hermes writers queue on the file lock in writelock.py, so SQLite's lock is free
# when they ask for it. SQLite's own busy handler (which polls on a timer) and the
# application-level retry only cover other programs and WAL recovery.
BUSY_TIMEOUT_MS = 2_000
WRITE_ATTEMPTS = 12
RETRY_SLEEP_S = (0.005, 0.050)


def create_private_file(path: Path) -> None:
    """Create *path* empty with mode 0600 if it does not exist yet (SQLite copies the
    main file's mode to its -wal/-shm sidecars)."""
    from hermes_core.files import make_private_dirs

    make_private_dirs(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if os.path.islink(path) and not path.exists():
            # SQLite would make a new, empty store at the far end (say, on a disk not mounted yet)
            # and the history would seem gone
            raise StateStoreError(
                f"{path} is a symbolic link to {os.path.realpath(path)}, which does not exist -> mount or restore "
                "the file it points to, or remove the link (hermes then starts a new, empty state.db there); "
                "nothing was created"
            ) from None
        mode = path.stat().st_mode
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
            # SQLite would block on a FIFO or fail with 'disk I/O error' on a device
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
            raise StateStoreError(f"{path} is {kind}, not a database file -> {MOVE_ASIDE_FIX}")
        return
    os.close(fd)


def restrict_modes(path: Path) -> None:
    """Take group and other access away from the database and whichever sidecars exist (older
    files may be wider); the owner's bits are left alone, so a store made read-only stays read-only."""
    for candidate in (path, *(Path(str(path) + s) for s in SIDECAR_SUFFIXES)):
        try:
            mode = candidate.stat().st_mode & 0o777
            if mode & 0o077:
                os.chmod(candidate, mode & 0o700)
        except FileNotFoundError:
            continue


def open_raw(path: Path) -> sqlite3.Connection:
    """A connection that has not written anything yet (safe before the version check)."""
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False, factory=StoreConnection)
    conn.writer_lock = WriterLock(path)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def configure(conn: sqlite3.Connection, *, durable: bool) -> None:
    """Pragmas for a store connection; WAL is the only one that touches the file."""
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if mode.lower() != "wal":
        try:
            with_retry(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
        except sqlite3.OperationalError as exc:
            _raise_if_read_only(conn, exc)
            raise
    # NORMAL in WAL mode: a commit is atomic and survives a process crash; only an
    # OS crash or power loss can lose the last commits (never corrupts). Durable adds
    # an fsync of the WAL per commit: after the write lock is let go (walsync.py), or
    # inside COMMIT (SQLite's FULL) where the WAL cannot be flushed from here.
    own_flush = durable and WAL_SYNC_USABLE and isinstance(conn, StoreConnection)
    conn.execute(f"PRAGMA synchronous = {'FULL' if durable and not own_flush else 'NORMAL'}")
    if own_flush:
        main_file = next(row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main")
        conn.commit_sync = WalSync(Path(main_file))  # type: ignore[attr-defined]
    # most checkpoint work happens on a background thread (checkpoint.py); this finishes it
    conn.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA cache_size = -16000")
    # reads go straight to the OS page cache instead of through read() calls
    conn.execute("PRAGMA mmap_size = 268435456")
    # Debian builds enable secure_delete; FAST still scrubs deleted cells but does not
    # rewrite whole freed pages, which FTS segment merges produce constantly.
    conn.execute("PRAGMA secure_delete = FAST")


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _raise_if_read_only(conn: sqlite3.Connection, exc: sqlite3.OperationalError) -> None:
    """Raise the error naming the file for a write SQLite refused as read-only (the file made
    read-only, a read-only mount); return for any other failure."""
    if (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF != sqlite3.SQLITE_READONLY:
        return
    path = next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "state.db")
    raise StateStoreError(
        f"{path} cannot be written ({exc}) -> give your user write access to it and to its directory "
        f"(chmod u+w '{path}' '{os.path.dirname(path)}'); reading commands (sessions list, show, search, "
        "export) work as it is; nothing was changed"
    ) from exc


def _backoff(attempt: int) -> None:
    lo, hi = RETRY_SLEEP_S
    time.sleep(random.uniform(lo, hi) * min(attempt + 1, 4))


def with_retry(action: Callable[[], T], attempts: int | None = None) -> T:
    """Run *action* again (after a jittered sleep) while SQLite reports busy."""
    attempts = WRITE_ATTEMPTS if attempts is None else attempts
    for attempt in range(attempts):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            if attempt == attempts - 1:
                raise StoreBusyError(f"state.db stayed locked after {attempts} attempts ({exc}) -> another "
                                     "hermes process is writing a lot at once; try again in a moment") from exc
            _backoff(attempt)
    raise AssertionError("unreachable")


class write_transaction:  # noqa: N801 - used as ``with write_transaction(conn) as conn``, like the others
    """BEGIN IMMEDIATE (bounded jittered retry), COMMIT on success, ROLLBACK on error.

    Taking the write lock up front means no statement inside can fail with
    "database is locked" half-way, so the body never needs its own retry. A
    connection opened by open_raw first waits for the other hermes writers on
    the file lock (see writelock.py). (A class rather than a generator-based
    context manager: every append enters one.)

    A durable store's connection flushes the WAL after the COMMIT, once the lock is
    let go (walsync.py); with *defer_sync* the caller calls ``sync()`` itself, after
    letting go of its own locks too.
    """

    __slots__ = ("_conn", "_lock", "_defer", "_flush")

    def __init__(self, conn: sqlite3.Connection, *, defer_sync: bool = False) -> None:
        self._conn = conn
        self._lock: WriterLock | None = getattr(conn, "writer_lock", None)
        self._defer = defer_sync
        self._flush: Callable[[], None] | None = None  # set by a COMMIT that needs a flush

    def __enter__(self) -> sqlite3.Connection:
        if self._lock is not None:
            self._lock.acquire()
        try:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:  # a writer that is not hermes holds SQLite's lock
                if not _is_busy(exc):
                    _raise_if_read_only(self._conn, exc)
                    raise
                with_retry(lambda: self._conn.execute("BEGIN IMMEDIATE"))
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise
        return self._conn

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        conn = self._conn
        try:
            if exc_type is None:
                try:
                    try:
                        conn.execute("COMMIT")
                    except sqlite3.OperationalError as exc:  # a reader of a program that is not hermes
                        if not _is_busy(exc):
                            raise
                        with_retry(lambda: conn.execute("COMMIT"))
                    # read now, under the caller's locks: an index commit on another thread
                    # turns the connection's flush off while it runs (store_indexing.py)
                    self._flush = getattr(conn, "commit_sync", None)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            elif conn.in_transaction:
                conn.execute("ROLLBACK")
        finally:
            if self._lock is not None:
                self._lock.release()
        if isinstance(exc, sqlite3.OperationalError):
            _raise_if_read_only(conn, exc)
        if not self._defer:
            self.sync()

    def sync(self) -> None:
        """Make the committed transaction durable, if the connection is durable and this
        transaction committed (the other writers may be at work already)."""
        flush, self._flush = self._flush, None
        if flush is not None:
            flush()


@contextlib.contextmanager
def read_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One consistent snapshot for several SELECTs (WAL readers never wait for writers)."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")


@contextlib.contextmanager
def write_transaction_if_free(conn: sqlite3.Connection, wait_ms: int = 50) -> Iterator[bool]:
    """Like write_transaction when the lock is free (within *wait_ms* for SQLite's); yields
    False, with no transaction, when another writer holds it."""
    lock = getattr(conn, "writer_lock", None)
    if lock is not None and not lock.acquire(blocking=False):
        yield False
        return
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            yield False
            return
        finally:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            yield True
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        if lock is not None:
            lock.release()
