"""The PostgreSQL schema and its migrations, serialised across hosts by an advisory lock.

Every host that opens the store runs ``bring_up_to_date``: the first one to take
the lock creates or migrates the tables, the others wait on the lock and then
find the work done. A database written by a newer schema is refused untouched.
"""
from __future__ import annotations

from typing import Any, Callable

from ..backfill_ledger import POSTGRES_DDL as POSTGRES_BACKFILL_DDL
from ..errors import NotAStateDatabaseError, SchemaTooNewError
from .connection import redact_url

SCHEMA_VERSION = 3
# one fixed key for pg_advisory_xact_lock: "hermes-state" folded into a bigint
MIGRATION_LOCK_KEY = 0x68_65_72_6D_65_73_01

V1_DDL = """
CREATE TABLE hermes_state_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE sessions (
    id text PRIMARY KEY,
    source text NOT NULL,
    user_id text,
    model text,
    model_config text,
    system_prompt text,
    parent_session_id text REFERENCES sessions(id) ON DELETE SET NULL,
    started_at double precision NOT NULL,
    ended_at double precision,
    end_reason text,
    message_count bigint NOT NULL DEFAULT 0,
    tool_call_count bigint NOT NULL DEFAULT 0,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cache_read_tokens bigint NOT NULL DEFAULT 0,
    cache_write_tokens bigint NOT NULL DEFAULT 0,
    reasoning_tokens bigint NOT NULL DEFAULT 0,
    billing_provider text,
    billing_base_url text,
    billing_mode text,
    estimated_cost_usd double precision,
    actual_cost_usd double precision,
    cost_status text,
    cost_source text,
    pricing_version text,
    title text,
    api_call_count bigint NOT NULL DEFAULT 0
);
CREATE INDEX sessions_source ON sessions (source);
CREATE INDEX sessions_parent ON sessions (parent_session_id);
CREATE INDEX sessions_started ON sessions (started_at DESC);
CREATE UNIQUE INDEX sessions_title ON sessions (title) WHERE title IS NOT NULL;
CREATE TABLE messages (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    append_key text NOT NULL UNIQUE,
    role text NOT NULL,
    content text,
    tool_call_id text,
    tool_calls text,
    tool_name text,
    timestamp double precision NOT NULL,
    token_count bigint,
    finish_reason text,
    reasoning text,
    reasoning_content text,
    reasoning_details text,
    codex_reasoning_items text,
    codex_message_items text,
    search_text text NOT NULL,
    words tsvector NOT NULL,
    grams text[]
);
CREATE INDEX messages_session ON messages (session_id, timestamp, id);
CREATE INDEX messages_words ON messages USING gin (words);
CREATE INDEX messages_grams ON messages USING gin (grams) WHERE grams IS NOT NULL;
"""

# v2: memory backfill checkpoints, as in state.db's v4 (see ../backfill_ledger.py)
# v3: the GIN indexes take each new row at once instead of queueing it in their pending list.
# With the pending list on (PostgreSQL's default) every search scans all rows appended since the
# last vacuum, linearly: a rare word took 15 ms at 20k messages instead of well under 1 ms. Writes
# pay the index update instead, off the search path.
V3_DDL = """
ALTER INDEX messages_words SET (fastupdate = off);
ALTER INDEX messages_grams SET (fastupdate = off);
SELECT gin_clean_pending_list('messages_words'::regclass);
SELECT gin_clean_pending_list('messages_grams'::regclass);
"""

MIGRATIONS: dict[int, Callable[[Any], None]] = {
    1: lambda conn: conn.execute(V1_DDL),
    2: lambda conn: conn.execute(POSTGRES_BACKFILL_DDL),
    3: lambda conn: conn.execute(V3_DDL),
}


def _tables(conn: Any) -> set[str]:
    # one statement, one snapshot: checking the two tables in two statements could see another
    # host's migration commit in between ("sessions" but no "hermes_state_meta": a foreign table).
    # A scan of pg_tables sees what other hosts committed; to_regclass() reads the catalog cache,
    # which an advisory lock does not refresh.
    rows = conn.execute("SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
                        "AND tablename IN ('hermes_state_meta', 'sessions')").fetchall()
    return {r[0] for r in rows}


def current_version(conn: Any, url: str) -> int:
    """0 for an empty database; the stored version otherwise (refusing foreign and newer ones)."""
    tables = _tables(conn)
    if "hermes_state_meta" not in tables:
        if "sessions" in tables:
            raise NotAStateDatabaseError(redact_url(url), "it has a 'sessions' table that hermes did not create")
        return 0
    row = conn.execute("SELECT value FROM hermes_state_meta WHERE key = 'schema_version'").fetchone()
    version = int(row[0]) if row else 0
    if version > SCHEMA_VERSION:
        raise SchemaTooNewError(redact_url(url), version, SCHEMA_VERSION)
    return version


def bring_up_to_date(conn: Any, url: str) -> int:
    """Create or migrate the schema inside the caller's transaction; returns the version."""
    if current_version(conn, url) == SCHEMA_VERSION:
        return SCHEMA_VERSION  # the common case: no lock taken
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
    version = current_version(conn, url)  # another host may have finished while we waited
    for target in range(version + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[target](conn)
        conn.execute("INSERT INTO hermes_state_meta (key, value) VALUES ('schema_version', %s) "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(target),))
    return SCHEMA_VERSION
