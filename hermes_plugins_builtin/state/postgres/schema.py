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
from .text import gram_array, word_index

SCHEMA_VERSION = 5
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

# v4: postings for ranking (see impact.py): every word of every message with its BM25 weight.
# The primary key (word, message_id) joins the words of a query inside the index; the second
# index hands out a word's best-weighted messages first. No foreign key (its cascade would need
# a third index on message_id): a trigger deletes a message's postings, found through its vector.
V4_DDL = """
CREATE TABLE message_words (word text NOT NULL, message_id bigint NOT NULL, weight real NOT NULL);
-- the planner's word frequencies choose the join order and feed the idf (impact.py):
-- the 1000 most frequent words instead of the 100 function words alone
ALTER TABLE message_words ALTER COLUMN word SET STATISTICS 1000;
CREATE FUNCTION hermes_drop_message_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM message_words WHERE word = ANY(tsvector_to_array(OLD.words)) AND message_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER messages_drop_words AFTER DELETE ON messages
    FOR EACH ROW EXECUTE FUNCTION hermes_drop_message_words();
"""
V4_INDEXES = """
ALTER TABLE message_words ADD PRIMARY KEY (word, message_id) INCLUDE (weight);
CREATE INDEX message_words_best ON message_words (word, weight DESC, message_id DESC);
ANALYZE message_words;
"""


def _v4(conn: Any) -> None:
    conn.execute(V4_DDL)
    fill_postings(conn)  # before the indexes: building them once is faster than growing them
    conn.execute(V4_INDEXES)


def fill_postings(conn: Any, *, batch: int = 2000) -> None:
    """Postings for every message, into an empty table (the v4 migration; a rebuild after clearing it)."""
    after = 0
    while True:
        rows = conn.execute("SELECT id, search_text FROM messages WHERE id > %s ORDER BY id LIMIT %s",
                            (after, batch)).fetchall()
        if not rows:
            return
        with conn.cursor().copy("COPY message_words (word, message_id, weight) FROM STDIN") as copy:
            for message_id, text in rows:
                _, words, weights = word_index(text)
                for word, weight in zip(words, weights):
                    copy.write_row((word, message_id, weight))
        after = rows[-1][0]


def refill_grams(conn: Any, *, batch: int = 2000) -> None:
    """Gram arrays again under the current rules (v5: symbols such as emoji got grams, as in state.db's
    gram index); only rows with non-ASCII text can have any, and only changed arrays are written."""
    after = 0
    while True:
        rows = conn.execute("SELECT id, search_text, grams FROM messages WHERE id > %s "
                            "AND search_text ~ '[^\\x01-\\x7f]' ORDER BY id LIMIT %s", (after, batch)).fetchall()
        if not rows:
            return
        changed = [(grams, message_id) for message_id, text, old in rows
                   if (grams := gram_array(text) or None) != (sorted(old) if old else None)]
        if changed:
            conn.cursor().executemany("UPDATE messages SET grams = %s WHERE id = %s", changed)
        after = rows[-1][0]


MIGRATIONS: dict[int, Callable[[Any], None]] = {
    1: lambda conn: conn.execute(V1_DDL),
    2: lambda conn: conn.execute(POSTGRES_BACKFILL_DDL),
    3: lambda conn: conn.execute(V3_DDL),
    4: _v4,
    5: refill_grams,
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
