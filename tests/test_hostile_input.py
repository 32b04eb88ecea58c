"""Bad input gets a clear error and loses nothing: manifests, queries, config values, YAML, imports, homes."""

from __future__ import annotations

import os
import stat
import time

import pytest
import yaml

from hermes_core.config import load_config
from hermes_core.errors import ConfigError

# What a non-UTF-8 byte on a command line becomes in sys.argv (surrogateescape).
BAD_BYTE = "\udcff"


def _snapshot(home):
    return {p.relative_to(home): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("manifest", ["name: bad\nrequires_env: 42\n", "name: bad\noptional_env: true\n", "name: bad\nrequires_env: oops\n"])
def test_a_scalar_env_list_is_that_plugins_schema_error_not_the_hosts_crash(make_plugin, run_hermes, monkeypatch, manifest):
    make_plugin("bad", "def register(ctx): pass\n", manifest=manifest)
    listing = run_hermes("plugins", "list")
    assert listing.exit_code == 0 and "bad: plugin 'bad'" in listing.stdout and "is not of type 'array'" in listing.stdout
    assert run_hermes("plugins", "info", "bad").exit_code == 0
    assert run_hermes("plugins", "disable", "bad").exit_code == 0
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    assert run_hermes("plugins", "enable", "bad").exit_code == 0


def test_a_lone_surrogate_in_a_search_query_is_searched_not_crashed_on(run_hermes):
    assert run_hermes("sessions", "import", "/dev/null").exit_code == 1  # creates state.db on the way
    for query in (f"deploy{BAD_BYTE}", "\ud800", f"\"a{BAD_BYTE}\" OR b*"):
        result = run_hermes("sessions", "search", "--", query)
        assert result.exit_code == 0 and result.stdout.strip() == "no matches", result.stderr


def test_the_store_search_api_takes_lone_surrogates(hermes_home):
    from hermes_plugins_builtin.state.store import SessionStore

    with SessionStore(hermes_home / "state.db") as store:
        session = store.create_session(source="cli")
        store.append_messages(session, [{"role": "user", "content": "deploy the thing"}])
        assert store.search("\ud800") == []
        assert [h.session_id for h in store.search("deploy \ud800x")] in ([], [session])
        assert [h.session_id for h in store.search("deploy")] == [session]


@pytest.mark.parametrize("key, value", [("x.y", f"v{BAD_BYTE}"), (f"x{BAD_BYTE}.y", "v"), ("x.y", "\ud800"), ("model.name", f"gpt{BAD_BYTE}")])
def test_config_set_refuses_text_that_is_not_utf8_and_leaves_the_file_readable(hermes_home, run_hermes, key, value):
    assert run_hermes("config", "set", "memory.provider", "mem0").exit_code == 0
    before = _snapshot(hermes_home)
    result = run_hermes("config", "set", key, value)
    assert result.exit_code == 1 and "not valid UTF-8" in result.stderr and "Traceback" not in result.stderr
    assert _snapshot(hermes_home) == before
    assert run_hermes("config", "get", "memory.provider").stdout.strip() == "mem0"


def test_an_env_value_that_is_not_utf8_is_refused(hermes_home, run_hermes):
    result = run_hermes("config", "set", "SOME_API_KEY", f"k{BAD_BYTE}")
    assert result.exit_code == 1 and "not valid UTF-8" in result.stderr
    assert not (hermes_home / ".env").exists()


@pytest.mark.parametrize(
    "value, expected",
    [
        ("&a [*a]", "recursive alias"),
        ("[" * 5000 + "]" * 5000, "nested more than 100 levels"),
        ("[" * 5000, "nested more than 100 levels"),
        ("[" * 200000 + "]" * 200000, "nested more than 100 levels"),  # the C parser itself crashes on this
    ],
)
def test_config_set_refuses_recursive_and_deep_values(hermes_home, run_hermes, value, expected):
    result = run_hermes("config", "set", "x.y", value)
    assert result.exit_code == 1 and expected in result.stderr, result.stderr
    assert not (hermes_home / "config.yaml").exists()


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 10)}]\n" for prev, name in zip("abcdefgh", "bcdefghi")
)


def test_an_alias_bomb_in_config_yaml_is_refused_fast_and_never_cached(hermes_home, run_hermes):
    (hermes_home / "config.yaml").write_text(ALIAS_BOMB)
    started = time.monotonic()
    result = run_hermes("config", "show")
    assert result.exit_code == 1 and "refused YAML" in result.stderr and "alias bomb" in result.stderr
    assert time.monotonic() - started < 5
    assert not (hermes_home / "cache" / "config.yaml.json").exists()


def test_yaml_limits_keep_ordinary_anchors_and_merge_keys():
    from hermes_core.yaml_limits import load_yaml

    assert load_yaml("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\nl: [*b, *b]\n") == {
        "base": {"x": 1},
        "m": {"x": 1, "y": 2},
        "l": [{"x": 1}, {"x": 1}],
    }


def test_an_alias_bomb_in_a_plugin_yaml_is_that_plugins_problem(make_plugin, run_hermes):
    make_plugin("bomb", "def register(ctx): pass\n", manifest="name: bomb\n" + ALIAS_BOMB.replace("a:", "x_a:", 1))
    result = run_hermes("plugins", "list")
    assert result.exit_code == 0 and "plugin.yaml is refused YAML" in result.stdout


def test_sessions_import_refuses_devices_fifos_deep_and_surrogate_json(hermes_home, run_hermes, tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100000 + "]" * 100000 + "\n")
    surrogate = tmp_path / "surrogate.jsonl"
    surrogate.write_text('{"role": "user", "content": "a\\ud800"}\n')
    for path, expected in [
        ("/dev/zero", "is a device or socket, not a regular file"),
        (str(fifo), "is a FIFO, not a regular file"),
        (str(deep), "nested too deeply"),
        (str(surrogate), "lone surrogate (U+D800)"),
        (str(tmp_path), "is a directory"),
    ]:
        result = run_hermes("sessions", "import", path)
        assert result.exit_code == 1 and expected in result.stderr, (path, result.stderr)


def test_config_yaml_that_is_a_fifo_or_huge_is_refused(hermes_home, run_hermes):
    os.mkfifo(hermes_home / "config.yaml")
    result = run_hermes("config", "show")
    assert result.exit_code == 1 and "is a FIFO, not a regular file" in result.stderr
    (hermes_home / "config.yaml").unlink()
    (hermes_home / "config.yaml").write_text("a: " + "x" * (2 << 20) + "\n")
    result = run_hermes("config", "show")
    assert result.exit_code == 1 and "over the limit of 1,048,576" in result.stderr


def test_memory_add_of_text_that_is_not_utf8_is_refused_without_a_traceback(hermes_home, run_hermes, capfd):
    result = run_hermes("memory", "add", "--", f"note {BAD_BYTE}")
    captured = capfd.readouterr()
    assert result.exit_code == 1 and "byte 0xff" in result.stderr
    assert "Traceback" not in result.stderr + captured.err + captured.out
    assert run_hermes("memory", "add", "--", "note").exit_code == 0


def test_the_memory_tool_refuses_a_lone_surrogate_as_an_answer():
    from hermes_plugins_builtin.memory.operations import EditError, parse_request

    with pytest.raises(EditError, match="not valid UTF-8"):
        parse_request({"action": "add", "target": "memory", "content": "a\ud800"})


def test_a_home_that_cannot_be_created_or_is_a_file_is_named(tmp_path, run_hermes, monkeypatch):
    monkeypatch.setenv("HERMES_HOME", "/proc/hermes-cannot-exist")
    for argv in (("config", "set", "a.b", "c"), ("memory", "add", "x"), ("sessions", "list")):
        result = run_hermes(*argv)
        assert result.exit_code == 1 and "HERMES_HOME (/proc/hermes-cannot-exist) cannot be created" in result.stderr, argv
    a_file = tmp_path / "home-file"
    a_file.write_text("")
    for home in (a_file, a_file / "sub"):
        monkeypatch.setenv("HERMES_HOME", str(home))
        result = run_hermes("config", "show")
        assert result.exit_code == 1 and "is a file, not a directory" in result.stderr and "permissions" not in result.stderr


# --- .env ----------------------------------------------------------------------


def test_env_file_is_read_as_python_dotenv_reads_it(hermes_home):
    from hermes_core.config import read_env_file

    (hermes_home / ".env").write_text(
        "A=abc # my key\n"
        'B="quoted value" # note\n'
        "C='single # not a comment'\n"
        "export D=exported\n"
        "# E=commented\n"
        'F="line\\nbreak"\n'
        "G=${NOT_EXPANDED}\n"
    )
    assert read_env_file(hermes_home) == {
        "A": "abc",
        "B": "quoted value",
        "C": "single # not a comment",
        "D": "exported",
        "F": "line\nbreak",
        "G": "${NOT_EXPANDED}",
    }


def test_env_values_round_trip_and_other_lines_are_kept(hermes_home):
    from hermes_core.config import read_env_file, save_env_value

    (hermes_home / ".env").write_text("# my secrets\nKEEP=1 # why\nnot a binding\n")
    tricky = ["a b", "x # y", "it's", 'say "hi"', "back\\slash", "${HOME}", "$dollar", "ünïcode", " padded "]
    for index, value in enumerate(tricky):
        save_env_value(hermes_home, f"V{index}", value)
    save_env_value(hermes_home, "V0", "changed")
    assert read_env_file(hermes_home) == {"KEEP": "1", "V0": "changed", **{f"V{i}": v for i, v in enumerate(tricky) if i}}
    text = (hermes_home / ".env").read_text()
    assert text.startswith("# my secrets\nKEEP=1 # why\nnot a binding\n") and text.count("V0=") == 1


@pytest.mark.parametrize("name", ["LD_PRELOAD", "PATH", "PYTHONPATH", "HERMES_HOME", "PYTHONHOME", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PYTHONSTARTUP"])
def test_env_refuses_loader_and_interpreter_variables(hermes_home, run_hermes, name):
    result = run_hermes("config", "set", name, "/tmp/evil")
    assert result.exit_code == 1 and f"{name} cannot be set in .env" in result.stderr and "subprocess" in result.stderr
    assert not (hermes_home / ".env").exists()


def test_env_file_never_exports_loader_variables(hermes_home, caplog):
    from hermes_core.config import export_env_file, read_env_file

    (hermes_home / ".env").write_text("LD_PRELOAD=/tmp/evil.so\nPYTHONPATH=/tmp\nGOOD_TOKEN=t\nPYTHON_API_KEY=ok\n")
    env: dict[str, str] = {}
    assert sorted(export_env_file(hermes_home, env)) == ["GOOD_TOKEN", "PYTHON_API_KEY"]
    assert env == {"GOOD_TOKEN": "t", "PYTHON_API_KEY": "ok"}
    assert "LD_PRELOAD was not exported" in caplog.text and "PYTHONPATH was not exported" in caplog.text
    assert "LD_PRELOAD" not in read_env_file(hermes_home)


# --- typed values and ranges ----------------------------------------------------


@pytest.mark.parametrize(
    "key, text, stored",
    [
        ("model.name", "3.10", "3.10"),
        ("model.name", "no", "no"),
        ("memory.provider", "0123", "0123"),
        ("context.engine", "true", "true"),
        ("model.context_length", "200000", 200000),
        ("plugins.hook_callback_timeout", "2.5", 2.5),
        ("plugins.compat", "yes", True),
        ("compression.enabled", "off", False),
        ("plugins.enabled", "[a, b]", ["a", "b"]),
        ("plugins.entries.x.settings.depth", "3", 3),
    ],
)
def test_config_set_types_a_value_by_its_setting(hermes_home, run_hermes, key, text, stored):
    assert run_hermes("config", "set", key, text).exit_code == 0
    assert load_config(hermes_home).get(key) == stored
    node = yaml.safe_load((hermes_home / "config.yaml").read_text())
    for part in key.split("."):
        node = node[part]
    assert node == stored and type(node) is type(stored)


@pytest.mark.parametrize(
    "key, text, allowed",
    [
        ("plugins.hook_callback_timeout", "9999", "a number from 0 to 600"),
        ("plugins.hook_callback_timeout", "-1", "a number from 0 to 600"),
        ("model.context_length", "-5", "a whole number at least 1"),
        ("model.context_length", "1.5", "a whole number at least 1"),
        ("compression.threshold", "0", "a number more than 0, at most 1"),
        ("prompt_caching.cache_ttl", "2d", "one of '5m', '1h'"),
        ("auxiliary.session_search.max_chars", "10", "a whole number at least 1000"),
        ("memory.memory_char_limit", "nan", "a whole number at least 1"),
        ("plugins", "5", "a mapping of settings"),
        ("plugins", "{hook_callback_timeout: 9999}", "a number from 0 to 600"),
    ],
)
def test_config_set_checks_ranges_naming_key_value_and_range(hermes_home, run_hermes, key, text, allowed):
    result = run_hermes("config", "set", key, text)
    assert result.exit_code == 1 and allowed in result.stderr and f"{key}" in result.stderr and " is " in result.stderr and " -> " in result.stderr, result.stderr
    assert not (hermes_home / "config.yaml").exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("plugins: 5\n", "plugins is 5, but it must be a mapping of settings"),
        ("plugins:\n  hook_callback_timeout: 9999\n", "plugins.hook_callback_timeout is 9999, but it must be a number from 0 to 600"),
        ("model:\n  context_length: -5\n", "model.context_length is -5, but it must be a whole number at least 1"),
    ],
)
def test_config_yaml_is_checked_on_load(hermes_home, run_hermes, text, message):
    (hermes_home / "config.yaml").write_text(text)
    with pytest.raises(ConfigError, match="config.yaml: " + message.replace(".", r"\.").replace("(", r"\(")):
        load_config(hermes_home)
    for argv in (("plugins", "list"), ("plugins", "enable", "hook_log"), ("config", "show")):
        result = run_hermes(*argv)
        assert result.exit_code == 1 and message in result.stderr, (argv, result.stderr)
    # the way out still works: config set and unset read the file as written
    assert run_hermes("config", "unset", text.split(":")[0]).exit_code == 0
    assert run_hermes("config", "show").exit_code == 0


def test_references_are_checked_as_the_value_they_expand_to(hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text("model:\n  timeout: ${MODEL_TIMEOUT:-60}\n")
    assert load_config(hermes_home).get("model.timeout") == "60"
    monkeypatch.setenv("MODEL_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="model.timeout is 'soon'"):
        load_config(hermes_home)


# --- modes ----------------------------------------------------------------------


def test_config_set_keeps_the_mode_the_user_chose(hermes_home, run_hermes):
    assert run_hermes("config", "set", "memory.provider", "a").exit_code == 0
    path = hermes_home / "config.yaml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    path.chmod(0o600)
    assert run_hermes("config", "set", "memory.provider", "b").exit_code == 0
    assert run_hermes("config", "unset", "memory.provider").exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.fixture
def open_umask():
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def test_hermes_own_files_and_dirs_are_private_whatever_the_umask(tmp_path, monkeypatch, run_hermes, open_umask):
    home = tmp_path / "fresh-home"
    monkeypatch.setenv("HERMES_HOME", str(home))
    source = tmp_path / "src" / "umplug"
    source.mkdir(parents=True)
    (source / "plugin.yaml").write_text("name: umplug\nversion: 0.1.0\n")
    (source / "__init__.py").write_text("def register(ctx): pass\n")
    for path in (source.parent, source, *source.iterdir()):
        path.chmod(0o777)
    conversation = tmp_path / "one.jsonl"
    conversation.write_text('{"role": "user", "content": "hi"}\n')
    for argv in (
        ("memory", "add", "hello"),
        ("sessions", "import", str(conversation)),
        ("config", "set", "memory.provider", "x"),
        ("config", "set", "SOME_TOKEN", "x"),
        ("plugins", "install", str(source), "--no-input", "--enable"),
    ):
        result = run_hermes(*argv)
        assert result.exit_code == 0, (argv, result.stderr)
    modes = {str(p.relative_to(home)): stat.S_IMODE(p.stat().st_mode) for p in [home, *home.rglob("*")]}
    for name in (".", "memories", "plugins", "cache"):
        assert modes[name] == 0o700, (name, oct(modes[name]))
    for name in (".env", "memories/MEMORY.md", "memories/MEMORY.md.lock", "state.db", "cache/config.yaml.json"):
        assert modes[name] == 0o600, (name, oct(modes[name]))
    assert modes["config.yaml"] == modes["plugins.lock"] == 0o644
    assert not [name for name, mode in modes.items() if mode & 0o022], modes
    listing = run_hermes("plugins", "list", "--load")
    assert "world-writable" not in listing.stdout + listing.stderr and "umplug: hooks" in listing.stdout


def test_a_refused_chat_leaves_state_db_without_sidecars(hermes_home, run_hermes):
    assert run_hermes("memory", "add", "note").exit_code == 0
    before = _snapshot(hermes_home)
    result = run_hermes("chat", "-q", "hi")
    assert result.exit_code == 1 and "no model is configured" in result.stderr
    after = _snapshot(hermes_home)
    assert all(after.get(name) == data for name, data in before.items() if not str(name).startswith("cache"))
    assert not [name for name in after if str(name).endswith(("-wal", "-shm"))], sorted(map(str, after))


def test_a_second_double_dash_in_memory_replace_is_text_not_a_crash(hermes_home, run_hermes):
    assert run_hermes("memory", "add", "keep this").exit_code == 0
    result = run_hermes("memory", "replace", "--", "", "--")
    assert result.exit_code == 1 and "internal error" not in result.stderr


def test_env_and_lock_files_with_nul_or_bad_bytes_are_errors_or_skipped_lines(hermes_home, run_hermes):
    (hermes_home / ".env").write_bytes(b"A=\"unterminated\n\x00B=1\nGOOD=yes\nNUL=a\x00b\n")
    result = run_hermes("memory", "show")
    assert result.exit_code == 0, result.stderr
    from hermes_core.config import read_env_file

    assert read_env_file(hermes_home).get("GOOD") == "yes" and "NUL" not in read_env_file(hermes_home)
    (hermes_home / "plugins.lock").write_bytes(b"\x80")
    result = run_hermes("plugins", "list")  # the listing still works; the lock's problem is named
    said = result.stdout + result.stderr
    assert result.exit_code in (0, 1) and "plugins.lock" in said and "is not UTF-8 text" in said and "internal error" not in said


def test_memory_import_refuses_devices_and_fifos(hermes_home, run_hermes, tmp_path):
    fifo = tmp_path / "records.jsonl"
    os.mkfifo(fifo)
    for path, expected in (("/dev/zero", "is a device or socket"), (str(fifo), "is a FIFO")):
        result = run_hermes("memory", "import", path)
        assert result.exit_code == 1 and expected in result.stderr and "nothing was imported" in result.stderr


def test_sessions_migrate_refuses_a_target_that_is_not_a_regular_file(hermes_home, run_hermes, tmp_path):
    for target in ("/dev/zero", str(tmp_path)):
        result = run_hermes("sessions", "migrate", "--to", target)
        assert result.exit_code == 1 and "is not a regular file" in result.stderr, result.stderr


def test_a_key_written_with_no_value_counts_as_not_set(hermes_home):
    (hermes_home / "config.yaml").write_text("memory:\n  provider:\nplugins:\n  enabled:\n  hook_callback_timeout:\n")
    config = load_config(hermes_home)
    assert config.get("memory.provider") is None and config.get("plugins.enabled") is None
