"""SQLite session store (state.db): sessions, messages, lineage and full-text search."""
from __future__ import annotations

from pathlib import Path

from .errors import (NotAStateDatabaseError, SchemaTooNewError, SessionExistsError, SessionNotFoundError,
                     StateStoreError, StoreBusyError, TitleInUseError)
from .indexing import ProgressCallback
from .query import QueryPlan, parse
from .records import StoreStats
from .schema import SCHEMA_VERSION
from .search import SearchHit
from .store import SessionStore

__all__ = [
    "SCHEMA_VERSION",
    "NotAStateDatabaseError",
    "ProgressCallback",
    "QueryPlan",
    "SchemaTooNewError",
    "SearchHit",
    "SessionExistsError",
    "SessionNotFoundError",
    "SessionStore",
    "StateStoreError",
    "StoreBusyError",
    "StoreStats",
    "TitleInUseError",
    "open_store",
    "parse",
]


def open_store(hermes_home: Path, *, progress: ProgressCallback | None = None) -> SessionStore:
    """The store on ``hermes_home/state.db``; the host's ``factory(hermes_home)``.

    The optional *progress* (rows_done, rows_total) lets a caller that knows about
    it (``hermes sessions``) show the indexing a migration does while opening.
    """
    return SessionStore(hermes_home / "state.db", progress=progress)


def register(ctx) -> None:  # noqa: ANN001 - the host's PluginContext
    """Serve ``$HERMES_HOME/state.db`` as the host's session store."""
    ctx.register_session_store(open_store)
