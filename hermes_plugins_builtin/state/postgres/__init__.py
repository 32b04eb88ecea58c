"""The session store on PostgreSQL (``state.backend: postgres``): many hosts, one history.

Imported only when that backend is configured: psycopg and its pool are an extra
(``pip install 'hermes-host[postgres]'``), never a cost of the default SQLite store.
"""
from __future__ import annotations

from ..errors import StateStoreError
from .connection import redact_url

__all__ = ["PostgresSessionStore", "open_postgres_store", "redact_url"]

INSTALL_HINT = "pip install 'hermes-host[postgres]'"


def open_postgres_store(url: str, **options: object) -> "PostgresSessionStore":
    """Open (creating or migrating) the store in the database at *url*."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise StateStoreError(f"state.backend is 'postgres' but the PostgreSQL driver is not installed "
                              f"({exc.name} missing) -> {INSTALL_HINT}") from None
    from .store import PostgresSessionStore

    return PostgresSessionStore(url, **options)  # type: ignore[arg-type]


def __getattr__(name: str) -> object:
    if name == "PostgresSessionStore":
        from .store import PostgresSessionStore

        return PostgresSessionStore
    raise AttributeError(name)
