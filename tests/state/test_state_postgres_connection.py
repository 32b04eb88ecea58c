"""Reaching PostgreSQL: the URL checks and their messages, redaction, which failures are retried, the
retry budget, where the URL comes from, and the migrations a host runs when it opens an older database."""
from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest

from hermes_plugins_builtin.state import NotAStateDatabaseError, StateStoreError
from hermes_plugins_builtin.state.postgres import open_postgres_store
from hermes_plugins_builtin.state.postgres.connection import (Pool, check_url, connection_error, describe,
                                                              is_transient, redact_url)
from hermes_plugins_builtin.state.postgres.schema import (MIGRATION_LOCK_KEY, SCHEMA_VERSION, current_version,
                                                          fill_postings)
from hermes_plugins_builtin.state.postgres.settings import resolve_url

SECRET = "s3cr3t-pw"


@pytest.mark.parametrize(("url", "shown"), [
    (f"postgresql://u:{SECRET}@db:5432/h", "postgresql://u:***@db:5432/h"),
    (f"postgresql://u:{SECRET}@db/h?sslmode=require#x", "postgresql://u:***@db/h?sslmode=require#x"),
    (f"postgresql://:{SECRET}@db/h", "postgresql://:***@db/h"),
    (f"postgresql://u:p@{SECRET}@db/h", "postgresql://u:***@db/h"),  # an unencoded '@' in the password
    ("postgresql://u@db/h", "postgresql://u@db/h"),
    (f"postgresql://u:{SECRET}@[::1/h", "<unparseable URL>"),
])
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert redact_url(url) == shown


@pytest.mark.parametrize(("url", "text"), [
    (f"postgresql://ann:{SECRET}@db.example:6543/notes", "database 'notes' as user 'ann' on db.example:6543"),
    ("postgresql://ann@db.example/notes", "database 'notes' as user 'ann' on db.example:5432"),
    ("postgresql://ann@db.example/XLedger", "database 'XLedger' as user 'ann' on db.example:5432"),
    ("postgresql://ann@db.example", "database 'ann' as user 'ann' on db.example:5432"),  # libpq's default database
    ("postgresql:///notes", "database 'notes' as user '(default)' on localhost:5432"),
    ("postgresql://", "database 'postgres' as user '(default)' on localhost:5432"),
    (f"postgresql://ann:{SECRET}@db:port/notes", "postgresql://ann:***@db:port/notes"),
])
def test_messages_describe_the_server_by_database_user_host_and_port(url: str, text: str) -> None:
    assert describe(url) == text


def test_a_missing_or_foreign_url_is_refused_with_the_fix_and_never_the_password() -> None:
    for missing in (None, "", "   ", 5):
        with pytest.raises(StateStoreError, match=r"no database URL is set -> set HERMES_STATE_URL in \$HERMES_HOME/.env"):
            check_url(missing)
    with pytest.raises(StateStoreError) as info:
        check_url(f"mysql://u:{SECRET}@db/h")
    assert "'mysql://u:***@db/h' is not a PostgreSQL URL -> it must start with postgresql://" in str(info.value)
    with pytest.raises(StateStoreError) as info:
        check_url(f"postgresql://u:{SECRET}@db:54x32/h")
    assert str(info.value).startswith("state URL 'postgresql://u:***@db:54x32/h' cannot be read (")
    assert str(info.value).endswith(") -> use postgresql://user:password@host:5432/dbname") and SECRET not in str(info.value)
    for good in ("postgresql://u@db/h", "postgres://u@db/h", "PostgreSQL://u@db/h"):
        assert check_url(good) == good


@pytest.mark.parametrize(("server_said", "expected"), [
    ('FATAL:  password authentication failed for user "ann"',
     "PostgreSQL refused the credentials for database 'h' as user 'ann' on db:5432 -> check the user and password in "
     "HERMES_STATE_URL ($HERMES_HOME/.env)"),
    ('FATAL:  Ident authentication failed for user "ann"', "refused the credentials"),
    ("fe_sendauth: no password supplied", "refused the credentials"),
    ('FATAL:  database "h" does not exist', "PostgreSQL has no database 'h' -> create it (createdb)"),
    ('FATAL:  role "ann" does not exist', "cannot reach PostgreSQL for database 'h'"),
    ("connection failed: connection refused\n\tIs the server running on that host?",
     "cannot reach PostgreSQL for database 'h' as user 'ann' on db:5432 (connection refused) -> start the server, "
     "or fix the host and port in the state URL"),
])
def test_a_failed_connection_is_one_line_naming_the_cause(server_said: str, expected: str) -> None:
    error = connection_error(f"postgresql://ann:{SECRET}@db/h", psycopg.OperationalError(server_said))
    assert expected in str(error) and SECRET not in str(error) and "\n" not in str(error)


def test_a_failure_without_a_message_is_named_by_its_type() -> None:
    error = connection_error("postgresql://ann@db/h", psycopg.OperationalError(""))
    assert "(OperationalError) -> start the server" in str(error)


@pytest.mark.parametrize(("error", "transient"), [
    (psycopg.errors.SerializationFailure("clash"), True),
    (psycopg.errors.DeadlockDetected("deadlock"), True),
    (psycopg.errors.AdminShutdown("restarting"), True),
    (psycopg.errors.CannotConnectNow("starting up"), True),
    (psycopg.OperationalError("server closed the connection"), True),
    (psycopg.errors.QueryCanceled("statement timeout"), False),  # an OperationalError that a retry would repeat
    (psycopg.errors.ProgramLimitExceeded("word is too long"), False),  # so is a server limit
    (psycopg.errors.UniqueViolation("duplicate"), False),
    (psycopg.errors.UndefinedTable("no such table"), False),
])
def test_only_failures_a_retry_can_cure_are_retried(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient


@pytest.fixture
def pool(pg_url: str):
    opened = Pool(pg_url, max_size=2)
    opened.run(lambda conn: conn.execute("CREATE TABLE rows (n int)"))
    yield opened
    opened.close()


def _rows(pool: Pool) -> list[int]:
    return pool.run(lambda conn: [r[0] for r in conn.execute("SELECT n FROM rows ORDER BY n").fetchall()])


def test_the_pool_hands_out_as_many_connections_as_it_is_sized_for(pool: Pool) -> None:
    with pool.transaction() as first, pool.transaction() as second:  # max_size=2: both at once, no wait
        first.execute("INSERT INTO rows VALUES (1)")
        assert second.execute("SELECT count(*) FROM rows").fetchone() == (0,)  # another connection: not committed yet
    assert _rows(pool) == [1]


def test_work_hit_by_a_transient_failure_is_run_again_and_applied_once(pool: Pool) -> None:
    calls: list[int] = []

    def work(conn) -> str:
        calls.append(1)
        conn.execute("INSERT INTO rows VALUES (%s)", (len(calls),))
        if len(calls) == 1:
            raise psycopg.errors.SerializationFailure("could not serialize access")
        return "done"

    assert pool.run(work) == "done"
    assert len(calls) == 2 and _rows(pool) == [2]  # the failed attempt's insert was rolled back


def test_work_failing_for_good_is_raised_at_once_and_leaves_nothing(pool: Pool) -> None:
    calls: list[int] = []

    def work(conn) -> None:
        calls.append(1)
        conn.execute("INSERT INTO rows VALUES (1)")
        conn.execute("SELECT * FROM no_such_table")

    with pytest.raises(psycopg.errors.UndefinedTable):
        pool.run(work)
    assert calls == [1] and _rows(pool) == []


def test_retries_stop_when_the_budget_is_spent_and_name_the_server_not_the_password(pool: Pool, pg_server) -> None:
    calls: list[int] = []

    def work(conn) -> None:
        calls.append(1)
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    with pytest.raises(StateStoreError) as info:
        pool.run(work, budget_s=0.0)
    assert calls == [1]
    with pytest.raises(StateStoreError):
        pool.run(work, budget_s=0.3)  # backs off between attempts and still gives up
    assert 2 <= len(calls) <= 10
    message = str(info.value)
    assert f"127.0.0.1:{pg_server.port}" in message and "server closed the connection" in message
    assert pg_server.password not in message
    assert _rows(pool) == []  # the pool still works after the failures


def test_a_database_with_a_sessions_table_of_its_own_is_refused_untouched(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE sessions (id int)")
    with pytest.raises(NotAStateDatabaseError) as info:
        open_postgres_store(pg_url)
    assert "'sessions' table that hermes did not create" in str(info.value)
    assert "hermes-test-secret" not in str(info.value) and "***" in str(info.value)
    with psycopg.connect(pg_url) as conn:
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert tables == {"sessions"}


def test_a_newer_schema_is_refused_naming_the_database_and_both_versions(pg_url: str) -> None:
    from hermes_plugins_builtin.state import SchemaTooNewError

    open_postgres_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE hermes_state_meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(SchemaTooNewError) as info:
        open_postgres_store(pg_url)
    assert str(info.value).startswith(f"{redact_url(pg_url)} was written by a newer hermes (session-store schema version "
                                      f"{SCHEMA_VERSION + 1}; this version understands versions up to {SCHEMA_VERSION})")


def _postings(url: str) -> set[tuple[str, int]]:
    with psycopg.connect(url) as conn:
        return {(w, m) for w, m in conn.execute("SELECT word, message_id FROM message_words")}


def test_a_version_3_database_is_migrated_with_postings_for_every_message(pg_url: str) -> None:
    with open_postgres_store(pg_url) as store:
        store.create_session("s", "cli")
        store.append_messages("s", [{"role": "user", "content": f"apple number {i}"} for i in range(5)])
    postings = _postings(pg_url)
    assert len({m for _, m in postings}) == 5
    with psycopg.connect(pg_url, autocommit=True) as conn:  # what a version 3 database looks like
        conn.execute("DROP TRIGGER messages_drop_words ON messages")
        conn.execute("DROP FUNCTION hermes_drop_message_words()")
        conn.execute("DROP TABLE message_words")
        conn.execute("UPDATE hermes_state_meta SET value = '3' WHERE key = 'schema_version'")
    with open_postgres_store(pg_url) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert len(store.search("apple")) == 5
        store.delete_session("s")  # the trigger the migration made drops the postings
    assert _postings(pg_url) == set()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT value FROM hermes_state_meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)
        assert current_version(conn, pg_url) == SCHEMA_VERSION


def test_postings_are_rebuilt_in_batches_without_missing_a_message(pg_url: str) -> None:
    with open_postgres_store(pg_url) as store:
        store.create_session("s", "cli")
        store.append_messages("s", [{"role": "user", "content": f"pear {i}"} for i in range(7)])
    built = _postings(pg_url)
    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM message_words")
        fill_postings(conn, batch=2)
    assert _postings(pg_url) == built and len({m for _, m in built}) == 7


def test_an_up_to_date_database_opens_without_waiting_for_the_migration_lock(pg_url: str) -> None:
    open_postgres_store(pg_url).close()
    with psycopg.connect(pg_url) as holder:
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))  # another host migrating
        opened: list[object] = []
        thread = threading.Thread(target=lambda: opened.append(open_postgres_store(pg_url, pool_size=1)))
        thread.start()
        thread.join(60)  # a bound in case the lock is taken; the store opens at once when it is not
        holder.rollback()  # let a waiting open go on, so the thread ends either way
    thread.join(60)
    assert opened and not thread.is_alive()
    opened[0].close()  # type: ignore[attr-defined]


def test_the_url_comes_from_the_environment_then_dotenv_then_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = {"state": {"url": "postgresql://cfg@db/h"}}
    assert resolve_url(home, config, {"HERMES_STATE_URL": "postgresql://env@db/h"}) == "postgresql://env@db/h"
    (home / ".env").write_text("HERMES_STATE_URL=postgresql://dotenv@db/h\n")
    assert resolve_url(home, config, {}) == "postgresql://dotenv@db/h"
    (home / ".env").unlink()
    assert resolve_url(home, config, {}) == "postgresql://cfg@db/h"
    with pytest.raises(StateStoreError, match="HERMES_STATE_URL"):
        resolve_url(home, {"state": "postgres"}, {})  # no url anywhere
    with pytest.raises(StateStoreError) as info:
        resolve_url(home, config, {"HERMES_STATE_URL": f"mysql://u:{SECRET}@db/h"})
    assert SECRET not in str(info.value)


def test_a_password_written_in_config_yaml_is_refused_with_the_fix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(f"state:\n  backend: postgres\n  url: postgresql://u:{SECRET}@db/h\n")
    with pytest.raises(StateStoreError) as info:
        resolve_url(home, {"state": {"url": f"postgresql://u:{SECRET}@db/h"}}, {})
    message = str(info.value)
    assert SECRET not in message and "postgresql://u:***@db/h" in message
    assert f"state.url in {home / 'config.yaml'} holds a password" in message
    assert f"move the URL to HERMES_STATE_URL in {home / '.env'}" in message
    # a reference to the variable, or a URL without a password, is fine there
    for written, expanded in (("${HERMES_STATE_URL}", f"postgresql://u:{SECRET}@db/h"), ("postgresql://u@db/h", "postgresql://u@db/h"),
                              ("postgresql://u:${DB_PASSWORD}@db/h", f"postgresql://u:{SECRET}@db/h"),
                              ("postgresql://u:pw@[::1/h", "postgresql://u@db/h")):
        (home / "config.yaml").write_text(f"state:\n  backend: postgres\n  url: '{written}'\n")
        assert resolve_url(home, {"state": {"url": expanded}}, {}) == expanded


class _ScriptedTime:
    """The retry loop's clock and sleep: the clock reads the scripted instants, each sleep is recorded."""

    def __init__(self, *instants: float) -> None:
        self.instants = list(instants)
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.instants.pop(0)


def test_retries_back_off_doubling_from_50_ms_with_jitter_up_to_1_s_until_the_deadline(pg_url: str) -> None:
    scripted = _ScriptedTime(100.0, *[100.0] * 7, 105.0)  # the start, seven failures in time, one at the deadline
    opened = Pool(pg_url, max_size=1, clock=scripted.clock, sleep=scripted.sleeps.append, jitter=lambda: 0.5)
    calls: list[int] = []

    def work(conn) -> None:
        calls.append(1)
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    try:
        with pytest.raises(StateStoreError):
            opened.run(work, budget_s=5.0)
    finally:
        opened.close()
    # each wait is the delay times (1 + jitter); the delay doubles from 0.05 s and stops at 1 s
    assert scripted.sleeps == pytest.approx([0.075, 0.15, 0.3, 0.6, 1.2, 1.5, 1.5])
    assert len(calls) == 8 and scripted.instants == []  # a failure exactly at the deadline is the last


def test_the_jitter_spreads_each_wait_between_one_and_two_delays(pg_url: str) -> None:
    for jitter, first_wait in ((0.0, 0.05), (0.999, 0.09995)):
        scripted = _ScriptedTime(0.0, 0.0, 1.0)
        opened = Pool(pg_url, max_size=1, clock=scripted.clock, sleep=scripted.sleeps.append, jitter=lambda: jitter)
        try:
            with pytest.raises(StateStoreError):
                opened.run(lambda conn: conn.execute("SELECT pg_terminate_backend(pg_backend_pid())"), budget_s=1.0)
        finally:
            opened.close()
        assert scripted.sleeps == pytest.approx([first_wait])


def test_the_pool_waits_for_a_connection_at_most_twice_the_connect_timeout_and_names_itself(pool: Pool) -> None:
    # psycopg_pool's own settings: how long a checkout waits when every connection is busy or the
    # server does not answer (a server that never answers cannot be made on loopback), and the name
    # its log lines carry
    assert pool._pool.timeout == 10.0 and pool._pool.kwargs == {"connect_timeout": 5}
    assert pool._pool.name == "hermes-state" and (pool._pool.min_size, pool._pool.max_size) == (1, 2)
