"""Every ``hermes`` subcommand, run in-process with hostile arguments and hostile files.

Whatever the input: exit status 0, 1 or 2; a refusal says something on stderr and is
never an "internal error" or a traceback; and a refused command leaves HERMES_HOME
byte-identical (caches under cache/ aside: they are rebuilt from the files they mirror).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Text as it arrives in sys.argv: non-UTF-8 bytes are U+DC80..U+DCFF (surrogateescape),
# plus lone surrogates an API caller could pass, control characters and YAML/JSON syntax.
HOSTILE_CHARS = st.sampled_from(["\udcff", "\udc80", "\ud800", "\x01", "\x1b", "\n", "\t", "-", "--", "*", "&a", "*a", "[", "{", ":", "'", '"', "\\", "${X}", "..", "/", "é", "\u202e", " "])
HOSTILE_TEXT = st.one_of(
    st.lists(st.one_of(HOSTILE_CHARS, st.text(max_size=4)), max_size=8).map("".join),
    st.sampled_from(["", "-", "--help", "-5", "9999", "nan", "1e999", "3.10", "no", "[" * 300, "&a [*a]", "null"]),
)


def _hostile_files(root: Path) -> list[str]:
    root.mkdir()
    files = {
        "not-utf8.jsonl": b"\xff\xfe{\"role\": \"user\"}\n",
        "nul.yaml": b"name: x\0y\n",
        "deep.json": b"[" * 50_000 + b"]" * 50_000,
        "deep.yaml": b"a: " + b"[" * 50_000 + b"\n",
        "huge.txt": b"x" * (2 << 20),
        "surrogate.jsonl": b'{"role": "user", "content": "\\ud800"}\n',
        "bomb.yaml": b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    os.mkfifo(root / "fifo")
    (root / "loop").symlink_to(root / "loop")
    (root / "to-zero").symlink_to("/dev/zero")
    (root / "dangling").symlink_to(root / "missing")
    locked = root / "read-only-dir"
    locked.mkdir()
    (locked / "plugin.yaml").write_text("name: locked\n")
    locked.chmod(0o500)
    unreadable = root / "unreadable"
    unreadable.write_text("{}")
    unreadable.chmod(0)
    return [str(root / name) for name in sorted(os.listdir(root))] + [str(root), "/dev/zero", "/dev/null", "/proc/self/mem"]


def _commands(path: st.SearchStrategy[str], text: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    arg = st.one_of(text, path)
    fixed = [
        ("plugins", "list"), ("plugins", "list", "--json"), ("plugins", "doctor"), ("config", "show"), ("config", "path"),
        ("memory", "show"), ("memory", "status"), ("sessions", "list"), ("sessions", "stats"), ("sessions", "reindex"),
    ]
    one_arg = [
        ("plugins", "info"), ("plugins", "enable"), ("plugins", "disable"), ("plugins", "validate"), ("plugins", "remove"),
        ("plugins", "update"), ("config", "get"), ("config", "unset"), ("memory", "add", "--"), ("memory", "remove", "--"),
        ("sessions", "show"), ("sessions", "search", "--"), ("sessions", "import"), ("sessions", "prune", "--yes", "--older-than"),
        ("plugins", "install", "--no-input", "--no-index"), ("plugins", "install", "--no-input", "--no-index", "-r"),
        ("memory", "setup", "--yes"), ("memory", "setup", "--yes", "builtin", "--set"), ("chat", "-q"), ("-p",),
        ("memory", "switch", "--yes", "--dry-run"), ("memory", "switch", "--yes", "--backfill", "--since"), ("memory", "export"),
        ("memory", "import", "--dry-run"), ("memory", "import"), ("sessions", "migrate", "--to"),
    ]
    two_args = [("config", "set"), ("memory", "replace", "--")]
    return st.one_of(
        st.sampled_from(fixed).map(list),
        st.tuples(st.sampled_from(one_arg), arg).map(lambda t: [*t[0], t[1]]),
        st.tuples(st.sampled_from(two_args), arg, arg).map(lambda t: [*t[0], t[1], t[2]]),
        st.tuples(text, st.sampled_from(["hooks", "tools"])).map(lambda t: ["plugins", "new", t[0], "--kind", t[1], "-o", "/proc/hermes-no-such-dir"]),
        st.tuples(st.just("sessions"), st.sampled_from(["export"]), text, path).map(lambda t: [t[0], t[1], t[2], "-o", t[3]]),
        st.lists(text, min_size=1, max_size=3),  # unknown commands and options
    )


def _database_rows(path: Path) -> str | None:
    """The rows of a SQLite file, read-only; ``None`` when it is not one. Opening a WAL database
    moves committed pages from state.db-wal into state.db, and opening an empty file (a new
    database) writes the schema, so its bytes are not the thing to compare: its rows are."""
    import sqlite3

    if path.stat().st_size == 0:
        return repr([[], []])
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            # the conversations themselves: a new database gets its schema and metadata on first open
            return repr([connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() if table in tables else [] for table in ("sessions", "messages")])
        finally:
            connection.close()
    except sqlite3.Error:
        return None


def _snapshot(home: Path) -> dict[str, bytes | str]:
    state: dict[str, bytes | str] = {}
    rows = _database_rows(home / "state.db") if (home / "state.db").is_file() else None
    if rows is not None:
        state["state.db (rows)"] = rows
    for path in sorted(home.rglob("*")):
        relative = str(path.relative_to(home))
        if relative == "cache" or relative.startswith("cache/"):
            continue
        if rows is not None and relative.startswith("state.db"):
            continue
        if path.is_symlink():
            state[relative] = "-> " + os.readlink(path)
        elif path.is_file():
            state[relative] = path.read_bytes()
        else:
            state[relative] = f"dir {oct(path.stat().st_mode)}"
    return state


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory):
    return _hostile_files(tmp_path_factory.mktemp("hostile") / "files")


@pytest.fixture
def lived_in_home(hermes_home, run_hermes, make_plugin, tmp_path):
    make_plugin("fine", "def register(ctx): pass\n")
    make_plugin("broken", "def register(ctx): pass\n", manifest="name: broken\nrequires_env: 42\n")
    (tmp_path / "one.jsonl").write_text('{"role": "user", "content": "hello there"}\n')
    for argv in (("config", "set", "memory.provider", ""), ("memory", "add", "a note"), ("sessions", "import", str(tmp_path / "one.jsonl"))):
        assert run_hermes(*argv).exit_code == 0
    return hermes_home


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_command_survives_hostile_input(data, lived_in_home, hostile_files, run_hermes, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = data.draw(_commands(st.sampled_from(hostile_files), HOSTILE_TEXT), label="argv")
    before = _snapshot(lived_in_home)
    try:
        result = run_hermes(*argv)
    finally:
        os.environ["HERMES_HOME"] = str(lived_in_home)  # '-p NAME' points the process at a profile; the next example starts over
    said = result.stderr + result.stdout
    assert result.exit_code in (0, 1, 2), (argv, result)
    assert "internal error" not in said and "Traceback" not in said, (argv, said)
    if result.exit_code != 0:
        assert said.strip(), (argv, result)  # a refusal, or a report such as doctor's, says why
        assert _snapshot(lived_in_home) == before, argv


HOSTILE_CONTENTS = st.one_of(
    st.binary(max_size=64),
    st.sampled_from(
        [
            b"\xff\xfe\x00garbage",
            b"plugins: 5\n",
            b"plugins:\n  enabled: {a: 1}\n",
            b"a: &a [*a]\n",
            b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n",
            b"name: x\nrequires_env: 42\noptional_env: true\nkind: 7\n",
            b"LD_PRELOAD=/tmp/evil.so\nPATH=/tmp\nA=\"unterminated\n\x00B=1\n",
            b"model:\n  context_length: -5\n  timeout: nan\n",
            b"- just\n- a list\n",
            b"x: \"\\ud800\"\n",
        ]
    ),
)
WHERE = st.sampled_from(["config.yaml", ".env", "plugins/fine/plugin.yaml", "memories/MEMORY.md", "plugins.lock", "state.db"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_every_command_survives_hostile_files_in_the_home(data, lived_in_home, run_hermes, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    where = lived_in_home / data.draw(WHERE, label="file")
    original = where.read_bytes() if where.exists() else None
    # An earlier example's command may have succeeded at removing the plugin ('plugins remove fine'): its directory
    # comes back for the file this example puts there.
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_bytes(data.draw(HOSTILE_CONTENTS, label="contents"))
    argv = data.draw(_commands(st.just(str(where)), st.sampled_from(["fine", "x.y", "note", "-"])), label="argv")
    before = _snapshot(lived_in_home)
    try:
        result = run_hermes(*argv)
    finally:
        os.environ["HERMES_HOME"] = str(lived_in_home)
    said = result.stderr + result.stdout
    try:
        assert result.exit_code in (0, 1, 2), (argv, result)
        assert "internal error" not in said and "Traceback" not in said, (argv, said)
        if result.exit_code != 0:
            assert said.strip(), (argv, result)
            assert _snapshot(lived_in_home) == before, argv
    finally:  # the next example starts from the lived-in home again
        if original is None:
            where.unlink(missing_ok=True)
        else:
            where.write_bytes(original)
