"""SQLite session store (state.db): sessions, messages, lineage and full-text search."""
from __future__ import annotations

from .errors import (NotAStateDatabaseError, SchemaTooNewError, SessionExistsError, SessionNotFoundError,
                     StateStoreError, StoreBusyError, TitleInUseError)
from .query import QueryPlan, parse
from .records import StoreStats
from .schema import SCHEMA_VERSION
from .search import SearchHit
from .store import SessionStore

__all__ = [
    "SCHEMA_VERSION",
    "NotAStateDatabaseError",
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
    "parse",
]


def register(ctx) -> None:  # noqa: ANN001 - the host's PluginContext
    """Serve ``$HERMES_HOME/state.db`` as the host's session store."""
    ctx.register_session_store(lambda hermes_home: SessionStore(hermes_home / "state.db"))
