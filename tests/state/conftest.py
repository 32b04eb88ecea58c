"""Fixtures for the session-store tests: a real state.db, and a real PostgreSQL server.

``store`` is the contract fixture: each test that takes it runs once on SQLite and
once on PostgreSQL. ``sqlite_store`` is for what only the SQLite file has (WAL,
file modes, the batched index).
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from hermes_core.testing.postgres import PostgresServer, running_server
from hermes_plugins_builtin.state import SessionStore

# --import-mode=importlib keeps test directories off sys.path; the tests import
# state_support by name, and so do the worker processes they spawn
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "state.db"


#: Where the test server keeps its cluster when the machine has room there: memory (tmpfs). On a shared disk, creating
#: a database per test, the checkpoint of a server restart and deleting the cluster at the end cost minutes of disk
#: waits per worker; in memory the same server does the same work in seconds. fsync=on stays: what a test can do to
#: the server (stop, restart, kill a session) it survives the same way, since data is lost only when the machine is.
_IN_MEMORY = Path("/dev/shm")
_ROOM_NEEDED = 1 << 30  # the cluster (~40 MB), the databases of the tests running at once and the module-scoped ones


def _cluster_parent() -> Path | None:
    """``/dev/shm`` when it exists with room to spare, else ``None`` (the system's temporary directory)."""
    try:
        room = shutil.disk_usage(_IN_MEMORY).free
    except OSError:
        return None
    return _IN_MEMORY if room >= _ROOM_NEEDED and os.access(_IN_MEMORY, os.W_OK) else None


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    with running_server(parent=_cluster_parent()) as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> Iterator[str]:
    """A new, empty database on the shared test server, dropped after the test (so the cluster stays small)."""
    name = pg_server.create_database()
    yield pg_server.url(name)
    pg_server.drop_database(name)


@pytest.fixture
def sqlite_store(db_path: Path) -> Iterator[SessionStore]:
    s = SessionStore(db_path)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def open_backend_store(backend: str, request: pytest.FixtureRequest, db_path: Path) -> Any:
    """A function opening a (new or the same) store of the test's backend, closed after the test."""
    opened: list[Any] = []
    target = db_path if backend == "sqlite" else request.getfixturevalue("pg_url")

    def open_store(**options: Any) -> Any:
        if backend == "sqlite":
            store = SessionStore(target, **options)
        else:
            from hermes_plugins_builtin.state.postgres import open_postgres_store

            store = open_postgres_store(target, **options)
        opened.append(store)
        return store

    yield open_store
    for store in opened:
        store.close()


@pytest.fixture
def store(open_backend_store: Any) -> Any:
    return open_backend_store()
