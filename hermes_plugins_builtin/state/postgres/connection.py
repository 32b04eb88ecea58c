"""Reaching PostgreSQL: the connection pool, readable errors, and retry across a server restart.

A URL's password never appears in a message: errors name the host, the port,
the database and the user, and ``redact_url`` is what any caller prints.
"""
from __future__ import annotations

import contextlib
import random
import time
from typing import Any, Callable, Iterator, TypeVar
from urllib.parse import urlsplit, urlunsplit

from ..errors import StateStoreError

T = TypeVar("T")
# a restarting server (or a failover) is back within seconds to a minute; a write waits that long
RECONNECT_BUDGET_S = 60.0
CONNECT_TIMEOUT_S = 5


def redact_url(url: str) -> str:
    """*url* with its password replaced by ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = parts.username or ""
    return urlunsplit((parts.scheme, f"{user}:***@{netloc}", parts.path, parts.query, parts.fragment))


def describe(url: str) -> str:
    """'database "x" as user "u" on host:port' for messages."""
    try:
        parts = urlsplit(url)
        port = parts.port or 5432
    except ValueError:
        return redact_url(url)
    database = parts.path.lstrip("/") or parts.username or "postgres"
    return f"database {database!r} as user {parts.username or '(default)'!r} on {parts.hostname or 'localhost'}:{port}"


def check_url(url: object) -> str:
    """The URL if it is a PostgreSQL URL; a StateStoreError naming the fix otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise StateStoreError("state.backend is 'postgres' but no database URL is set -> set HERMES_STATE_URL "
                              "in $HERMES_HOME/.env (postgresql://user:password@host:5432/dbname)")
    scheme = url.split(":", 1)[0].lower()
    if scheme not in ("postgresql", "postgres"):
        raise StateStoreError(f"state URL {redact_url(url)!r} is not a PostgreSQL URL -> it must start with "
                              "postgresql://")
    try:
        urlsplit(url).port
    except ValueError as exc:
        raise StateStoreError(f"state URL {redact_url(url)!r} cannot be read ({exc}) -> "
                              "use postgresql://user:password@host:5432/dbname") from exc
    return url


def connection_error(url: str, exc: BaseException) -> StateStoreError:
    """A one-line error for a failed connection: unreachable, wrong credentials, no database."""
    text = str(exc).lower()
    where = describe(url)
    if "password authentication failed" in text or "no password supplied" in text or "authentication" in text:
        return StateStoreError(f"PostgreSQL refused the credentials for {where} -> check the user and password "
                               "in HERMES_STATE_URL ($HERMES_HOME/.env)")
    if "does not exist" in text and "database" in text:
        return StateStoreError(f"PostgreSQL has no {where.split(' as ')[0]} -> create it "
                               "(createdb) or fix the name in the state URL")
    return StateStoreError(f"cannot reach PostgreSQL for {where} ({_first_line(exc)}) -> start the server, "
                           "or fix the host and port in the state URL")


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text.replace("connection failed: ", "")


def is_transient(exc: BaseException) -> bool:
    """True for errors a retry can cure: a dropped connection, a restarting server, a serialization clash."""
    import psycopg

    if isinstance(exc, (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected)):
        return True
    if isinstance(exc, (psycopg.errors.AdminShutdown, psycopg.errors.CannotConnectNow)):
        return True
    # a statement cancelled or over one of the server's limits (a lexeme too long, too many columns)
    # would fail the same way again
    return isinstance(exc, psycopg.OperationalError) and not isinstance(
        exc, (psycopg.errors.QueryCanceled, psycopg.errors.ProgramLimitExceeded))


class Pool:
    """One connection pool per store; ``transaction()`` hands out a connection inside BEGIN/COMMIT."""

    def __init__(
        self, url: str, *, max_size: int = 8, clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep, jitter: Callable[[], float] = random.random,
    ) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        # the retry loop's time, as parameters so a test can play a failure sequence on a clock it sets
        self._clock, self._sleep, self._jitter = clock, sleep, jitter
        try:  # the first connection tells a wrong password or a missing server at once
            psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S).close()
        except psycopg.Error as exc:
            raise connection_error(url, exc) from None
        self._pool = ConnectionPool(url, min_size=1, max_size=max_size, open=True, timeout=CONNECT_TIMEOUT_S * 2,
                                    kwargs={"connect_timeout": CONNECT_TIMEOUT_S}, name="hermes-state")
        # no check on checkout (a round trip per transaction): a connection that broke
        # meanwhile fails its first statement, and run() retries on a fresh one

    def close(self) -> None:
        self._pool.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        with self._pool.connection() as conn:
            with conn.transaction():
                yield conn

    def run(self, work: Callable[[Any], T], *, budget_s: float = RECONNECT_BUDGET_S) -> T:
        """Run *work(conn)* in one transaction, again on a transient failure until *budget_s* is spent.

        Work given here must be safe to repeat: writes carry idempotency keys, so a
        commit whose acknowledgement was lost is not applied twice.
        """
        import psycopg
        from psycopg_pool import PoolTimeout

        deadline = self._clock() + budget_s
        delay = 0.05
        while True:
            try:
                with self.transaction() as conn:
                    return work(conn)
            except (psycopg.Error, PoolTimeout) as exc:
                if isinstance(exc, psycopg.Error) and not is_transient(exc):
                    raise
                if self._clock() >= deadline:
                    raise connection_error(self.url, exc) from None
                # a broken connection must not go back into circulation
                self._pool.check()
                self._sleep(delay * (1 + self._jitter()))
                delay = min(delay * 2, 1.0)
