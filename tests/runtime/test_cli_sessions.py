"""`hermes sessions` over a real state.db: list, show, search, export/import round trip, prune, stats."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from hermes_plugins_builtin.state import SessionStore


@pytest.fixture
def stored(hermes_home):
    with SessionStore(hermes_home / "state.db") as store:
        first = store.create_session(source="cli", title="Deploy notes", model="m1")
        store.append_messages(first, [
            {"role": "user", "content": "How do we deploy the billing service?"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"deploy/billing.yaml\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "tool_name": "read_file", "content": "replicas: 3"},
            {"role": "assistant", "content": "Run make deploy-billing after the canary is green."},
        ])
        old = store.create_session(source="telegram", started_at=time.time() - 90 * 86400)
        store.append_messages(old, [{"role": "user", "content": "ancient question", "timestamp": time.time() - 90 * 86400}])
    return first, old


def test_list_show_and_search(stored, run_hermes):
    first, old = stored
    rows = run_hermes("sessions", "list", "--json").json()
    assert {r["id"] for r in rows} == {first, old}
    assert [r["id"] for r in run_hermes("sessions", "list", "--source", "telegram", "--json").json()] == [old]
    shown = run_hermes("sessions", "show", first)
    assert "Deploy notes" in shown.stdout and "-> read_file" in shown.stdout and "make deploy-billing" in shown.stdout
    hits = run_hermes("sessions", "search", "deploy/billing.yaml", "--json").json()
    assert hits and hits[0]["session_id"] == first
    assert run_hermes("sessions", "search", "canary", "--role", "user", "--json").json() == []
    missing = run_hermes("sessions", "show", "nope")
    assert missing.exit_code == 1 and "'hermes sessions list' shows the ids" in missing.stderr


def test_export_import_round_trip(stored, run_hermes, tmp_path):
    first, _ = stored
    out = tmp_path / "s.jsonl"
    assert run_hermes("sessions", "export", first, "--format", "jsonl", "-o", str(out)).exit_code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [m["role"] for m in lines] == ["user", "assistant", "tool", "assistant"]
    imported = run_hermes("sessions", "import", str(out), "--title", "Copy")
    assert imported.exit_code == 0, imported.stderr
    new_id = imported.stdout.split()[-1]
    copy = run_hermes("sessions", "show", new_id, "--json").json()
    assert [m["content"] for m in copy["messages"]] == [m["content"] for m in lines]
    assert copy["messages"][1]["tool_calls"][0]["function"]["name"] == "read_file"
    markdown = run_hermes("sessions", "export", first, "--format", "md").stdout
    assert markdown.startswith("# Deploy notes") and "## Tool (read_file)" in markdown


def test_import_refuses_a_bad_file_and_imports_nothing(stored, run_hermes, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "fine"}\nnot json\n')
    before = len(run_hermes("sessions", "list", "--json").json())
    result = run_hermes("sessions", "import", str(bad))
    assert result.exit_code == 1 and "bad.jsonl:2: not JSON" in result.stderr
    assert len(run_hermes("sessions", "list", "--json").json()) == before


def test_prune_and_stats(stored, run_hermes):
    first, old = stored
    assert run_hermes("sessions", "prune", "--older-than", "soon").exit_code == 1
    refused = run_hermes("sessions", "prune", "--older-than", "30d")  # stdin is not a terminal: no one to ask
    assert refused.exit_code == 1 and "add --yes" in refused.stderr
    assert run_hermes("sessions", "prune", "--older-than", "30d", "--yes").stdout.strip() == "deleted 1 session(s)"
    assert [r["id"] for r in run_hermes("sessions", "list", "--json").json()] == [first]
    stats = run_hermes("sessions", "stats", "--json").json()
    assert stats["sessions"] == 1 and stats["messages"] == 4 and stats["db_bytes"] > 0
    assert "database" in run_hermes("sessions", "stats").stdout


def test_import_takes_one_conversation_per_line_as_in_fine_tuning_files(hermes_home, run_hermes, tmp_path):
    data = tmp_path / "train.jsonl"
    data.write_text(
        json.dumps({"messages": [{"role": "system", "content": "You plan trips."}, {"role": "user", "content": "Oslo in May?"}, {"role": "assistant", "content": "Bring a coat."}]})
        + "\n"
        + json.dumps({"messages": [{"role": "user", "content": "Bergen in June?"}, {"role": "assistant", "content": "Rain gear."}]})
        + "\n"
    )
    result = run_hermes("sessions", "import", str(data), "--title", "Trips")
    assert result.exit_code == 0, result.stderr
    ids = [line.split()[-1] for line in result.stdout.splitlines()]
    assert len(ids) == 2 and result.stdout.startswith("imported 2 messages as session")
    with SessionStore(hermes_home / "state.db") as store:
        first, second = (store.get_session(i) for i in ids)
        assert (first["title"], second["title"]) == ("Trips", "Trips #2")
        assert first["system_prompt"] == "You plan trips." and second["system_prompt"] is None
        assert [m["content"] for m in store.get_messages(ids[1])] == ["Bergen in June?", "Rain gear."]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([{"messages": [{"role": "user", "content": "a"}]}, {"role": "user", "content": "b"}], "mixes conversation lines"),
        ([{"messages": [{"role": "user", "content": "a"}, {"content": "no role"}]}], "train.jsonl:1: message 2: the message has no 'role' -> add one of"),
        ([{"role": "robot", "content": "beep"}], "train.jsonl:1: 'role' is 'robot' -> use one of assistant, system, tool, user"),
        ([{"role": ["user"], "content": "a"}], "train.jsonl:1: 'role' is ['user']"),
        ([{"role": "user", "content": [{"type": "text", "text": 5}]}], "a content part's 'text' must be text"),
        ([{"role": "user", "content": {"text": "a"}}], "'content' must be text or a list of parts, not dict"),
        ([{"role": "user", "content": "a"}, {"role": "tool", "content": "r", "tool_call_id": {"id": 1}}], "train.jsonl:2: 'tool_call_id' must be text, not dict"),
        (["just text"], "train.jsonl:1: a chat message must be a JSON object"),
        ([{"messages": "not a list"}], "'messages' must be a list"),
    ],
)
def test_a_bad_conversation_file_imports_nothing(hermes_home, run_hermes, tmp_path, lines, message):
    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_hermes("sessions", "import", str(data))
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.stderr
    assert run_hermes("sessions", "list", "--json").json() == []


# -- a state.db hermes cannot use is a user error, and is left as it was ---------------------


def _newer_schema(path):
    SessionStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    conn.close()


def _garbage(path):
    path.write_bytes(b"my shopping list, not a database\n" * 100)


def _foreign_sqlite(path):
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    conn.close()


@pytest.mark.parametrize(
    ("make", "cause", "fix"),
    [
        (_newer_schema, "schema version 99", "-> upgrade hermes"),
        (_garbage, "file is not a database", "-> move it aside"),
        (_foreign_sqlite, "no schema_version table", "-> move it aside"),
    ],
)
@pytest.mark.parametrize("command", [("sessions", "list"), ("sessions", "stats")])
def test_an_unusable_state_db_is_a_one_line_user_error_and_stays_unmodified(hermes_home, run_hermes, make, cause, fix, command):
    db = hermes_home / "state.db"
    make(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = run_hermes(*command)
    assert result.exit_code == 1, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"hermes: error: {db}") and cause in line and fix in line and "not modified" in line
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not Path(str(db) + "-wal").exists()


def test_a_state_db_that_is_a_directory_is_a_one_line_user_error(hermes_home, run_hermes):
    (hermes_home / "state.db").mkdir()
    result = run_hermes("sessions", "list")
    assert result.exit_code == 1 and "internal error" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"hermes: error: {hermes_home / 'state.db'} cannot be opened") and "permissions" in line


# -- import: encodings and tool calls ---------------------------------------------------------


def test_import_of_a_file_that_is_not_utf8_names_the_file_and_line(hermes_home, run_hermes, tmp_path):
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes(b'{"role": "user", "content": "fine"}\n' + '{"role": "user", "content": "café"}\n'.encode("latin-1"))
    result = run_hermes("sessions", "import", str(latin))
    assert result.exit_code == 1 and "UnicodeDecodeError" not in result.stderr
    assert f"hermes: error: {latin}:2: the file to import is not UTF-8 text (byte 0xe9" in result.stderr and "-> convert it to UTF-8" in result.stderr
    assert run_hermes("sessions", "list", "--json").json() == []


def test_import_accepts_a_utf8_byte_order_mark(hermes_home, run_hermes, tmp_path):
    data = tmp_path / "bom.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + json.dumps({"role": "user", "content": "caf\u00e9"}).encode() + b"\n")
    result = run_hermes("sessions", "import", str(data))
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    ("tool_calls", "message"),
    [
        ("oops", "calls.jsonl:2: 'tool_calls' is a string -> give a list of calls"),
        ({"function": {"name": "x"}}, "calls.jsonl:2: 'tool_calls' is an object -> give a list of calls"),
        (["read_file"], "calls.jsonl:2: tool call 1 has no function.name"),
        ([{"id": "c1", "function": {"arguments": "{}"}}], "calls.jsonl:2: tool call 1 has no function.name"),
        ([{"function": {"name": "ok", "arguments": "{}"}}, {"function": {"name": "grep", "arguments": {"pattern": "x"}}}],
         "calls.jsonl:2: tool call 2 (grep): function.arguments is an object -> give the arguments as a string"),
    ],
)
def test_import_refuses_tool_calls_it_could_not_read_back(hermes_home, run_hermes, tmp_path, tool_calls, message):
    data = tmp_path / "calls.jsonl"
    data.write_text(json.dumps({"role": "user", "content": "hi"}) + "\n"
                    + json.dumps({"role": "assistant", "content": None, "tool_calls": tool_calls}) + "\n")
    result = run_hermes("sessions", "import", str(data))
    assert result.exit_code == 1 and message in result.stderr, result.stderr
    assert run_hermes("sessions", "list", "--json").json() == []


def test_show_and_markdown_export_cope_with_odd_stored_tool_calls(hermes_home, run_hermes):
    with SessionStore(hermes_home / "state.db") as store:
        sid = store.create_session(source="cli", title="Odd calls")
        for odd in ("oops", {"function": {"name": "solo"}}, [7, {"function": "grep"}, {"function": {"name": "find", "arguments": {"n": 1}}}]):
            store.append_message(sid, "assistant", None, tool_calls=odd)
        store.append_message(sid, "assistant", "fine", tool_calls=[{"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{}"}}])
    shown = run_hermes("sessions", "show", sid)
    assert shown.exit_code == 0, shown.stderr
    for expected in ("-> (as stored) oops", "-> solo()", "-> (as stored) 7", '-> (as stored) {"function": "grep"}', '-> find({"n": 1})', "-> ls({})"):
        assert expected in shown.stdout
    markdown = run_hermes("sessions", "export", sid, "--format", "md")
    assert markdown.exit_code == 0, markdown.stderr
    assert "Tool call (as stored): `oops`" in markdown.stdout and "Tool call `find`: `{\"n\": 1}`" in markdown.stdout


# -- export: where it writes, and how privately -------------------------------------------------


def test_export_writes_a_private_file_even_over_a_wider_one(stored, run_hermes, tmp_path):
    first, _ = stored
    out = tmp_path / "notes.md"
    out.write_text("old")
    os.chmod(out, 0o644)
    result = run_hermes("sessions", "export", first, "--format", "md", "-o", str(out), "--force")
    assert result.exit_code == 0, result.stderr
    assert os.stat(out).st_mode & 0o777 == 0o600 and out.read_text().startswith("# Deploy notes")


def test_export_refuses_to_replace_an_existing_file_without_force(stored, run_hermes, tmp_path):
    first, _ = stored
    out = tmp_path / "notes.md"
    out.write_text("the only copy")
    link = tmp_path / "dangling.md"
    link.symlink_to(tmp_path / "missing-target.md")
    for target in (out, link):
        result = run_hermes("sessions", "export", first, "--format", "md", "-o", str(target))
        assert result.exit_code == 1
        assert f"{target} already exists -> add --force to overwrite it" in result.stderr
    assert out.read_text() == "the only copy" and link.is_symlink() and not link.exists()


def test_export_to_a_directory_is_an_error(stored, run_hermes, tmp_path):
    first, _ = stored
    result = run_hermes("sessions", "export", first, "-o", str(tmp_path))
    assert result.exit_code == 1
    assert f"hermes: error: {tmp_path} is a directory -> give a file name, e.g. -o {tmp_path / (first + '.jsonl')}" in result.stderr


def test_export_into_a_missing_directory_is_an_error_and_creates_nothing(stored, run_hermes, tmp_path):
    first, _ = stored
    target = tmp_path / "nonexistent" / "dir" / "f.md"
    result = run_hermes("sessions", "export", first, "--format", "md", "-o", str(target))
    assert result.exit_code == 1
    assert f"the directory {target.parent} does not exist -> create it first" in result.stderr
    assert not (tmp_path / "nonexistent").exists()


# -- reindex, and the indexing a migration does -----------------------------------------------------


def test_reindex_rebuilds_the_indexes_with_progress_and_a_summary(hermes_home, run_hermes):
    with SessionStore(hermes_home / "state.db") as store:
        sid = store.create_session(source="cli")
        store.append_messages(sid, [{"role": "user", "content": f"numbat note {i}"} for i in range(2500)])
        # an index gone wrong behind the store's back: the rows are no longer found
        store._conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('delete-all')")
    assert run_hermes("sessions", "search", "numbat", "--json").json() == []
    result = run_hermes("sessions", "reindex")
    assert result.exit_code == 0, result.stderr
    # stderr is not a terminal here: a few plain lines, no carriage returns
    assert "reindexing: 0/2,500 messages\n" in result.stderr and "reindexing: 2,500/2,500 messages, done in" in result.stderr
    assert "\r" not in result.stderr and result.stderr.count("\n") <= 12
    assert result.stdout.startswith("rebuilt the word and gram search indexes: 2500 messages in ")
    assert len(run_hermes("sessions", "search", "numbat", "--json").json()) == 20
    assert run_hermes("sessions", "reindex", "--json").json()["messages"] == 2500


def test_opening_an_old_state_db_from_the_cli_shows_the_indexing_progress(hermes_home, run_hermes):
    from hermes_plugins_builtin.state import schema

    db = hermes_home / "state.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    schema.migrate(conn, str(db), target=2)
    conn.execute("INSERT INTO sessions (id, source, started_at) VALUES ('old', 'cli', 1000.0)")
    conn.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('old', 'user', ?, 1001.0)",
                     [(f"legacy row {i}",) for i in range(600)])
    conn.execute("COMMIT")
    conn.close()
    result = run_hermes("sessions", "list")
    assert result.exit_code == 0, result.stderr
    assert "indexing state.db for search: 600/600 messages, done in" in result.stderr and "old" in result.stdout
    # once migrated there is nothing left to show
    assert run_hermes("sessions", "list").stderr == ""


# -- search arguments -------------------------------------------------------------------------------


def test_a_query_starting_with_a_dash_needs_the_double_dash_and_the_error_says_so(hermes_home, run_hermes):
    with SessionStore(hermes_home / "state.db") as store:
        sid = store.create_session(source="cli")
        store.append_message(sid, "user", "run it with -verbose please")
    for argv in (("-verbose",), ("run", "-verbose")):
        refused = run_hermes("sessions", "search", *argv)
        assert refused.exit_code == 2 and "hermes sessions search -- -verbose" in refused.stderr.splitlines()[-1]
    hits = run_hermes("sessions", "search", "--json", "--", "-verbose").json()
    assert [h["session_id"] for h in hits] == [sid]


def test_role_accepts_any_case_and_refuses_unknown_roles(stored, run_hermes):
    lower = run_hermes("sessions", "search", "deploy", "--role", "user", "--json").json()
    assert lower and run_hermes("sessions", "search", "deploy", "--role", "USER", "--json").json() == lower
    both = run_hermes("sessions", "search", "deploy", "--role", "User,Assistant", "--json").json()
    assert {h["role"] for h in both} == {"user", "assistant"}
    bogus = run_hermes("sessions", "search", "deploy", "--role", "bogus")
    assert bogus.exit_code == 1
    assert bogus.stderr == "hermes: error: --role 'bogus' is not a message role -> use one of assistant, system, tool, user\n"


def test_list_says_no_session_matches_a_filter_and_refuses_a_limit_below_one(stored, run_hermes):
    nope = run_hermes("sessions", "list", "--source", "nope")
    assert nope.exit_code == 0 and nope.stdout.startswith("no sessions match --source 'nope'")
    for limit in ("0", "-3"):
        refused = run_hermes("sessions", "list", "--limit", limit)
        assert refused.exit_code == 1 and f"--limit {limit} would show nothing -> give 1 or more" in refused.stderr
    assert run_hermes("sessions", "search", "deploy", "--limit", "0").exit_code == 1


def test_search_shows_a_message_copied_along_a_compression_chain_once(hermes_home, run_hermes):
    head = [{"role": "user", "content": "plan the zanzibar migration"}, {"role": "assistant", "content": "zanzibar has three steps"}]
    with SessionStore(hermes_home / "state.db") as store:
        root = store.create_session(source="cli", started_at=1000.0)
        store.append_messages(root, [*head, {"role": "user", "content": "zanzibar step one done"}])
        store.end_session(root, "compression", ended_at=1100.0)
        tip = store.create_session(source="cli", parent_session_id=root, started_at=1100.0)
        store.append_messages(tip, [*head, {"role": "assistant", "content": "summary: zanzibar step one"}])
    hits = run_hermes("sessions", "search", "zanzibar", "--json").json()
    found = sorted((h["snippet"].replace(">>>", "").replace("<<<", ""), h["session_id"]) for h in hits)
    assert found == [
        ("plan the zanzibar migration", root),
        ("summary: zanzibar step one", tip),
        ("zanzibar has three steps", root),
        ("zanzibar step one done", root),
    ]
    lines = run_hermes("sessions", "search", "zanzibar").stdout.splitlines()
    assert sum("plan the >>>zanzibar<<< migration" in line for line in lines) == 1


def test_chat_on_a_state_db_from_a_newer_hermes_is_a_user_error(hermes_home, run_hermes):
    # the store is opened before any request is made: nothing needs to listen on this address
    (hermes_home / "config.yaml").write_text("model:\n  provider: openai\n  name: chat-model\n  base_url: http://127.0.0.1:9/v1\n")
    db = hermes_home / "state.db"
    _newer_schema(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = run_hermes("chat", "-q", "hi", "--no-stream")
    assert result.exit_code == 1 and "internal error" not in result.stderr
    assert f"hermes: error: {db} was written by a newer hermes" in result.stderr and "-> upgrade hermes" in result.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_control_characters_in_stored_text_are_shown_not_obeyed_by_the_terminal(run_hermes, hermes_home, tmp_path):
    # text from an imported file or a model: ESC sequences could clear the screen, recolour or hide the rest
    hostile = "\x1b[2J\x1b]0;owned\x07wipe \x1b[8mhidden\x1b[0m done\rX"
    source = tmp_path / "hostile.jsonl"
    source.write_text(json.dumps({"messages": [{"role": "user", "content": hostile}, {"role": "assistant", "content": "wipe noted"}]}) + "\n",
                      encoding="utf-8")
    assert run_hermes("sessions", "import", str(source), "--title", "t\x1b[31m").exit_code == 0
    session_id = run_hermes("sessions", "list", "--json").json()[0]["id"]
    for argv in (("sessions", "show", session_id), ("sessions", "search", "wipe"), ("sessions", "list")):
        result = run_hermes(*argv)
        assert result.exit_code == 0, result.stderr
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout and "\r" not in result.stdout, (argv, result.stdout)
    assert "\\x1b[2J\\x1b]0;owned\\x07wipe \\x1b[8mhidden\\x1b[0m done\\x0dX" in run_hermes("sessions", "show", session_id).stdout
    assert run_hermes("sessions", "show", session_id, "--json").json()["messages"][0]["content"] == hostile  # data stays as stored


def test_export_to_a_file_reports_in_json_and_takes_the_usual_format_spellings(stored, run_hermes, tmp_path):
    first, _ = stored
    out = tmp_path / "notes.md"
    result = run_hermes("sessions", "export", first, "--format", "markdown", "-o", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json() == {"session_id": first, "file": str(out), "format": "md", "messages": 4}
    assert out.read_text().startswith("# Deploy notes")
    as_json = run_hermes("sessions", "export", first, "--format", "JSON")
    assert as_json.exit_code == 0 and [json.loads(line)["role"] for line in as_json.stdout.splitlines()][0] == "user"
    wrong = run_hermes("sessions", "export", first, "--format", "html", "--json")
    assert wrong.exit_code == 2 and "invalid choice: 'html'" in wrong.json()["error"]
