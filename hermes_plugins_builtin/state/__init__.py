"""SQLite session store (state.db): sessions, messages, lineage and full-text search."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from .errors import (NotAStateDatabaseError, SchemaTooNewError, SessionExistsError, SessionNotFoundError,
                     StateStoreError, StoreBusyError, TitleInUseError)
from .indexing import ProgressCallback
from .records import StoreStats
from .schema import SCHEMA_VERSION
from .store import SessionStore

#: Names of the search machinery, imported on first use (a sessions listing never needs them).
_SEARCH_NAMES = {"QueryPlan": ".query", "parse": ".query", "SearchHit": ".search"}


def __getattr__(name: str) -> Any:
    if name in _SEARCH_NAMES:
        import importlib

        return getattr(importlib.import_module(_SEARCH_NAMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
    "open_configured_store",
    "open_store",
    "parse",
]


#: ``state.synchronous``: "normal" (default) or "full".
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
            f"state.{SYNCHRONOUS_SETTING} is {value!r} -> it must be 'normal' (the default) or 'full' "
            f"(an fsync per commit); fix it with: hermes config set state.{SYNCHRONOUS_SETTING} full"
        )
    return _SYNCHRONOUS[key]


def open_store(hermes_home: Path, *, progress: ProgressCallback | None = None, durable: bool = False) -> SessionStore:
    """The store on ``hermes_home/state.db``; the host's ``factory(hermes_home)``.

    The optional *progress* (rows_done, rows_total) lets a caller that knows about
    it (``hermes sessions``) show the indexing a migration does while opening.
    *durable* selects ``synchronous=FULL`` (see durable_from_setting).
    """
    return SessionStore(hermes_home / "state.db", progress=progress, durable=durable)


BACKENDS = ("sqlite", "postgres")


def configured_backend(config: Mapping[str, Any]) -> str:
    """``state.backend`` checked: 'sqlite' (the default) or 'postgres'."""
    state = config.get("state") if isinstance(config.get("state"), Mapping) else {}
    backend = state.get("backend") or "sqlite"
    if backend not in BACKENDS:
        raise StateStoreError(f"state.backend is {backend!r} -> use 'sqlite' (one host, the default) or "
                              "'postgres' (many hosts sharing one database)")
    return str(backend)


def open_location(location: str | Path, *, progress: ProgressCallback | None = None) -> Any:
    """A store at an explicit place: a postgresql:// URL, or the path of a state.db."""
    text = str(location)
    if text.split(":", 1)[0].lower() in ("postgresql", "postgres"):
        from .postgres import open_postgres_store

        return open_postgres_store(text)
    return SessionStore(Path(text).expanduser(), progress=progress)


def open_configured_store(hermes_home: Path, config: Mapping[str, Any], env: Mapping[str, str], *,
                          progress: ProgressCallback | None = None, location: str | Path | None = None) -> Any:
    """The store ``state.backend`` names (state.db under *hermes_home*, or the PostgreSQL
    database), or the one at *location* when given."""
    if location is not None:
        return open_location(location, progress=progress)
    if configured_backend(config) == "sqlite":
        state = config.get("state") if isinstance(config.get("state"), Mapping) else {}
        return open_store(hermes_home, progress=progress, durable=durable_from_setting(state.get(SYNCHRONOUS_SETTING)))
    from .postgres import open_postgres_store
    from .postgres.settings import resolve_url

    return open_postgres_store(resolve_url(hermes_home, config, env))


def register(ctx) -> None:  # noqa: ANN001 - the host's PluginContext
    """Serve the configured session store: ``$HERMES_HOME/state.db`` unless ``state.backend`` says otherwise."""
    config, env = ctx.config, getattr(ctx._manager, "env", None) or {}

    def factory(hermes_home: Path, *, progress: ProgressCallback | None = None,
                location: str | Path | None = None) -> Any:
        return open_configured_store(hermes_home, config, env, progress=progress, location=location)

    ctx.register_session_store(factory)
