"""SQLite session store (state.db): sessions, messages, lineage and full-text search."""
from __future__ import annotations

import functools
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
    "durable_from_setting",
    "open_store",
    "parse",
]


#: ``plugins.entries.state.settings.synchronous``: "normal" (default) or "full".
SYNCHRONOUS_SETTING = "synchronous"
_SYNCHRONOUS = {"normal": False, "full": True}


def durable_from_setting(value: object) -> bool:
    """``True`` for ``synchronous: full`` (an fsync per commit), ``False`` for ``normal``.

    See docs/sessions.md#durability for what NORMAL risks (the last commits on power
    loss, never corruption).
    """
    if value is None:
        return False
    key = str(value).strip().lower()
    if key not in _SYNCHRONOUS:
        raise StateStoreError(
            f"plugins.entries.state.settings.{SYNCHRONOUS_SETTING} is {value!r} -> it must be 'normal' or 'full'; "
            f"fix it with: hermes config set plugins.entries.state.settings.{SYNCHRONOUS_SETTING} full"
        )
    return _SYNCHRONOUS[key]


def open_store(hermes_home: Path, *, progress: ProgressCallback | None = None, durable: bool = False) -> SessionStore:
    """The store on ``hermes_home/state.db``; the host's ``factory(hermes_home)``.

    The optional *progress* (rows_done, rows_total) lets a caller that knows about
    it (``hermes sessions``) show the indexing a migration does while opening.
    *durable* selects ``synchronous=FULL`` (see durable_from_setting).
    """
    return SessionStore(hermes_home / "state.db", progress=progress, durable=durable)


def register(ctx) -> None:  # noqa: ANN001 - the host's PluginContext
    """Serve ``$HERMES_HOME/state.db`` as the host's session store."""
    durable = durable_from_setting(ctx.get_config(SYNCHRONOUS_SETTING))
    ctx.register_session_store(functools.partial(open_store, durable=durable))
