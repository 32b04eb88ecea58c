"""Schema of state.db: the first layout (v1) and every forward migration since.

Each migration is a function of a connection that already holds the write lock;
the runner applies them in order inside one transaction, so a crash leaves the
file at its old version. Historical DDL is frozen here on purpose: tests build
databases of every earlier version from it and migrate them forward.
"""
from __future__ import annotations

import sqlite3
from typing import Callable

from .backfill_ledger import SQLITE_DDL as SQLITE_BACKFILL_DDL
from .grams import GRAMS_FORMAT
from .errors import NotAStateDatabaseError, SchemaTooNewError
from .indexing import ProgressCallback, index_pending
from .impact_upkeep import rebuild_lists

SCHEMA_VERSION = 5
#: The first version with the batched word and gram indexes (state_meta.indexed_upto).
BATCHED_INDEX_VERSION = 3

# v1: sessions and messages with a word index over message content only.
V1_DDL = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER NOT NULL DEFAULT 0,
    tool_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    title TEXT
);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE UNIQUE INDEX idx_sessions_title ON sessions(title) WHERE title IS NOT NULL;
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id');
CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
"""

# v2: token, cost and billing counters on sessions.
V2_SESSION_COLUMNS = (
    ("cache_read_tokens", "INTEGER NOT NULL DEFAULT 0"),
    ("cache_write_tokens", "INTEGER NOT NULL DEFAULT 0"),
    ("reasoning_tokens", "INTEGER NOT NULL DEFAULT 0"),
    ("billing_provider", "TEXT"),
    ("billing_base_url", "TEXT"),
    ("billing_mode", "TEXT"),
    ("estimated_cost_usd", "REAL"),
    ("actual_cost_usd", "REAL"),
    ("cost_status", "TEXT"),
    ("cost_source", "TEXT"),
    ("pricing_version", "TEXT"),
    ("api_call_count", "INTEGER NOT NULL DEFAULT 0"),
)

# v3: reasoning columns; the word index covers content + tool name + tool-call
# name/arguments through a generated (never stored) column; a gram side index
# serves scripts without spaces.
V3_MESSAGE_COLUMNS = (
    ("reasoning", "TEXT"),
    ("reasoning_content", "TEXT"),
    ("reasoning_details", "TEXT"),
    ("codex_reasoning_items", "TEXT"),
    ("codex_message_items", "TEXT"),
)


def _tool_call_text(i: int) -> str:
    return (f"coalesce(json_extract(tool_calls, '$[{i}].function.name'), '') || ' ' || "
            f"coalesce(json_extract(tool_calls, '$[{i}].function.arguments'), '')")


# Names and arguments of up to 4 calls; anything else (odd shapes, more calls) is
# indexed raw. JSON escapes such as \n are blanked so "\ndef" does not become "ndef".
_TOOL_TEXT = (
    "CASE WHEN tool_calls IS NULL THEN '' "
    "WHEN json_valid(tool_calls) AND json_type(tool_calls) = 'array' "
    "AND json_array_length(tool_calls) <= 4 THEN "
    + " || ' ' || ".join(_tool_call_text(i) for i in range(4))
    + " ELSE tool_calls END"
)
SEARCH_TEXT_SQL = (
    "coalesce(content, '') || ' ' || coalesce(tool_name, '') || ' ' || "
    f"replace(replace(replace({_TOOL_TEXT}, '\\n', ' '), '\\t', ' '), '\\r', ' ')"
)

WORD_TOKENIZER = "unicode61 remove_diacritics 2"
# So: symbols (emoji) are gram letters too (grams.py); a file whose gram index was built by an
# older GRAMS_FORMAT gets the table made again with this tokenizer (indexing.rebuild_grams)
GRAM_TOKENIZER = "unicode61 remove_diacritics 0 categories 'L* N* Co M* So'"
GRAMS_TABLE_DDL = f"""
CREATE VIRTUAL TABLE messages_grams USING fts5(grams, content='', tokenize="{GRAM_TOKENIZER}");
INSERT INTO messages_grams(messages_grams, rank) VALUES ('automerge', 0);
"""

# Rows are indexed in batches (see indexing.py): ``state_meta.indexed_upto`` is the
# highest message id both indexes hold; every row above it is pending. Deletes and
# edits only touch the word index for rows it holds.
INDEXED_UPTO_SQL = "(SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = 'indexed_upto')"

V3_INDEX_DDL = f"""
DROP TRIGGER IF EXISTS messages_fts_ai;
DROP TRIGGER IF EXISTS messages_fts_ad;
DROP TRIGGER IF EXISTS messages_fts_au;
DROP TABLE IF EXISTS messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5(
    search_text, content='messages', content_rowid='id', tokenize="{WORD_TOKENIZER}"
);
CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages WHEN old.id <= {INDEXED_UPTO_SQL} BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text);
END;
CREATE TRIGGER messages_fts_au AFTER UPDATE OF content, tool_name, tool_calls ON messages
WHEN old.id <= {INDEXED_UPTO_SQL} BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text);
    INSERT INTO messages_fts(rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE VIRTUAL TABLE messages_grams USING fts5(grams, content='', tokenize="{GRAM_TOKENIZER}");
INSERT INTO messages_fts(messages_fts, rank) VALUES ('automerge', 0);
INSERT INTO messages_fts(messages_fts, rank) VALUES ('usermerge', 8);
INSERT INTO messages_grams(messages_grams, rank) VALUES ('automerge', 0);
"""


# v4: memory backfill checkpoints (see backfill_ledger.py). A job per target provider fixes the
# messages it covers (id <= upto_message_id) when it starts; every item (a built-in entry, a turn,
# a session end) handed over and confirmed is a row of memory_backfill_done, and in_flight names
# the one item handed over but not yet confirmed, so an interrupted run knows what to resend.
V4_DDL = SQLITE_BACKFILL_DDL

# v5: impact lists let a query with thousands of matches be ranked by BM25 over
# all of them (ranking.py).
V5_DDL = """
CREATE TABLE IF NOT EXISTS rank_terms (
    term TEXT PRIMARY KEY,
    df INTEGER NOT NULL,
    checked_at INTEGER NOT NULL,
    tracked INTEGER NOT NULL,
    floor REAL NOT NULL,
    listed INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rank_lists (
    term TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    tf INTEGER NOT NULL,
    dl INTEGER NOT NULL,
    impact REAL NOT NULL,
    PRIMARY KEY (term, message_id)
) WITHOUT ROWID;
"""


def _migrate_to_v1(conn: sqlite3.Connection) -> None:
    run_script(conn, V1_DDL)


def _migrate_to_v2(conn: sqlite3.Connection) -> None:
    have = _columns(conn, "sessions")
    for name, decl in V2_SESSION_COLUMNS:
        if name not in have:
            conn.execute(f"ALTER TABLE sessions ADD COLUMN {name} {decl}")


def _migrate_to_v3(conn: sqlite3.Connection) -> None:
    have = _columns(conn, "messages")
    for name, decl in V3_MESSAGE_COLUMNS:
        if name not in have:
            conn.execute(f"ALTER TABLE messages ADD COLUMN {name} {decl}")
    if "search_text" not in have:
        conn.execute(f"ALTER TABLE messages ADD COLUMN search_text TEXT "
                     f"GENERATED ALWAYS AS ({SEARCH_TEXT_SQL}) VIRTUAL")
    conn.execute("INSERT OR REPLACE INTO state_meta(key, value) VALUES ('indexed_upto', '0')")
    run_script(conn, V3_INDEX_DDL)
    conn.execute("INSERT OR REPLACE INTO state_meta(key, value) VALUES ('grams_format', ?)", (GRAMS_FORMAT,))
    # every existing row is now waiting: migrate() indexes them in this same transaction


def _migrate_to_v4(conn: sqlite3.Connection) -> None:
    run_script(conn, V4_DDL)


def _migrate_to_v5(conn: sqlite3.Connection) -> None:
    run_script(conn, V5_DDL)
    # lists for the rows indexed so far; migrate() then indexes the waiting rows,
    # which adds them to the lists
    rebuild_lists(conn)


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _migrate_to_v1,
    2: _migrate_to_v2,
    3: _migrate_to_v3,
    4: _migrate_to_v4,
    5: _migrate_to_v5,
}


def run_script(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the open transaction; run statement by statement
    for statement in _split_statements(script):
        conn.execute(statement)


def _split_statements(script: str) -> list[str]:
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_xinfo({table})")}


def read_version(conn: sqlite3.Connection, path: str) -> int:
    """Schema version of the open database; 0 for a brand-new empty file."""
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not names:
        return 0
    if "schema_version" not in names:
        raise NotAStateDatabaseError(path, "it is an SQLite database of some other program: "
                                           "it has no schema_version table")
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    if row is None or row[0] is None:
        raise NotAStateDatabaseError(path, "its schema_version table is empty")
    return int(row[0])


def check_not_too_new(conn: sqlite3.Connection, path: str) -> int:
    """Read the version and refuse (without writing anything) a newer schema."""
    version = read_version(conn, path)
    if version > SCHEMA_VERSION:
        raise SchemaTooNewError(path, version, SCHEMA_VERSION)
    return version


def migrate(conn: sqlite3.Connection, path: str, target: int = SCHEMA_VERSION,
            progress: ProgressCallback | None = None) -> tuple[int, int]:
    """Bring the schema up to *target*; the caller holds an open write transaction.

    Returns (version found, version now). Re-reads the version under the lock, so
    two processes opening an old file at once migrate it exactly once. A migration
    that (re)builds the search indexes leaves every row waiting; they are indexed
    here, reporting progress(rows_done, rows_total), since on a big store that is
    the part that takes minutes.
    """
    found = check_not_too_new(conn, path)
    for version in range(found + 1, target + 1):
        MIGRATIONS[version](conn)
    if found < target and target >= BATCHED_INDEX_VERSION:
        index_pending(conn, progress)
    if target > found:
        conn.execute("DELETE FROM schema_version")
        conn.execute("INSERT INTO schema_version(version) VALUES (?)", (target,))
    return found, max(found, target)


__all__ = ["SCHEMA_VERSION", "GRAMS_FORMAT", "SEARCH_TEXT_SQL", "migrate", "check_not_too_new", "read_version"]
