"""`hermes plugins`: list/info/enable/disable/validate never import; --load does; no tracebacks."""

from __future__ import annotations

import json

import pytest

IMPORT_MARKER = "import pathlib, os\npathlib.Path(os.environ['HERMES_HOME'], 'IMPORTED').touch()\n"
JSON_KEYS = {"name", "key", "version", "source", "kind", "path", "enabled", "loaded", "error", "hooks", "tools"}


@pytest.fixture
def marker_plugin(make_plugin):
    return make_plugin(
        "marker",
        IMPORT_MARKER + "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n",
        manifest={"name": "marker", "version": "1.0", "provides_hooks": ["on_session_start", "pre_tool_call"]},
    )


def test_management_commands_never_import_plugin_code(marker_plugin, run_hermes, hermes_home):
    for argv in (
        ("plugins", "list"),
        ("plugins", "list", "--json"),
        ("plugins", "info", "marker"),
        ("plugins", "enable", "marker"),
        ("plugins", "list"),
        ("plugins", "disable", "marker"),
        ("plugins", "validate", str(marker_plugin)),
    ):
        result = run_hermes(*argv)
        assert result.exit_code == 0, (argv, result.stderr)
        assert not (hermes_home / "IMPORTED").exists(), argv


def test_list_json_shape_and_sorting(make_plugin, run_hermes):
    make_plugin("zeta", "def register(ctx): pass\n")
    make_plugin("alpha", "def register(ctx): pass\n")
    entries = run_hermes("plugins", "list", "--json").json()
    names = [e["name"] for e in entries]
    assert names == sorted(names) and {"alpha", "zeta"} <= set(names)
    for entry in entries:
        assert JSON_KEYS <= set(entry)
        assert entry["hooks"] == sorted(entry["hooks"]) and entry["tools"] == sorted(entry["tools"])
        assert entry["source"] in {"builtin", "bundled", "user", "project", "entrypoint"}
    alpha = next(e for e in entries if e["name"] == "alpha")
    assert alpha["enabled"] is False and alpha["loaded"] is False and alpha["error"] is None


def test_list_without_load_shows_declared_hooks_and_with_load_what_registered(marker_plugin, run_hermes, hermes_home):
    declared = next(e for e in run_hermes("plugins", "list", "--json").json() if e["name"] == "marker")
    assert declared["hooks"] == ["on_session_start", "pre_tool_call"]
    run_hermes("plugins", "enable", "marker")
    loaded = next(e for e in run_hermes("plugins", "list", "--json", "--load").json() if e["name"] == "marker")
    assert loaded["loaded"] is True and loaded["hooks"] == ["on_session_start"]
    assert (hermes_home / "IMPORTED").exists()


def test_list_prints_manifest_warnings_on_stderr(make_plugin, run_hermes):
    make_plugin("odd", "def register(ctx): pass\n", manifest={"name": "odd", "version": "1.0", "colour": "blue"})
    result = run_hermes("plugins", "list")
    assert result.exit_code == 0 and "odd" in result.stdout
    assert "warning: plugin 'odd' (user," in result.stderr and "unknown key(s) 'colour'" in result.stderr
    assert "warning" not in run_hermes("plugins", "list", "--json").stderr  # JSON readers get it in 'warnings'


def test_a_clash_is_reported_once(make_plugin, run_hermes):
    make_plugin("memory", "def register(ctx): pass\n")  # the key of a builtin
    result = run_hermes("plugins", "list")
    assert result.stderr.count("is ignored: the key is taken by the builtin plugin") == 1


def test_list_load_reports_a_failing_plugin_in_error(make_plugin, run_hermes):
    make_plugin("crashy", "raise ImportError('needs pyowm')\n")
    run_hermes("plugins", "enable", "crashy")
    result = run_hermes("plugins", "list", "--json", "--load")
    entry = next(e for e in result.json() if e["name"] == "crashy")
    assert entry["loaded"] is False and "needs pyowm" in entry["error"]
    assert "Traceback" not in result.stderr
    table = run_hermes("plugins", "list", "--load")
    assert "crashy" in table.stdout and "needs pyowm" in table.stdout and "error" in table.stdout


def test_enable_and_disable_edit_config(make_plugin, run_hermes, hermes_home):
    import yaml

    make_plugin("toggle", "def register(ctx): pass\n")
    assert run_hermes("plugins", "enable", "toggle").exit_code == 0
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["plugins"]["enabled"] == ["toggle"]
    assert run_hermes("plugins", "disable", "toggle").exit_code == 0
    plugins = yaml.safe_load((hermes_home / "config.yaml").read_text())["plugins"]
    assert plugins["disabled"] == ["toggle"] and plugins["enabled"] == []
    unknown = run_hermes("plugins", "enable", "togle")
    assert unknown.exit_code == 1 and "did you mean 'toggle'" in unknown.stderr


def test_enable_accepts_a_list_written_as_one_name(make_plugin, run_hermes, hermes_home):
    import yaml

    make_plugin("first", "def register(ctx): pass\n")
    make_plugin("second", "def register(ctx): pass\n")
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: first\n  disabled: second\n")
    assert run_hermes("plugins", "enable", "second").exit_code == 0
    plugins = yaml.safe_load((hermes_home / "config.yaml").read_text())["plugins"]
    assert plugins["enabled"] == ["first", "second"] and plugins["disabled"] == []
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: {first: true}\n")
    broken = run_hermes("plugins", "enable", "second")
    assert broken.exit_code == 1 and "plugins.enabled is {'first': True}, but it must be a list of names" in broken.stderr


def test_a_name_two_plugins_share_asks_for_the_key(make_plugin, run_hermes, tmp_path, monkeypatch):
    bundled = tmp_path / "bundled"
    for category in ("cat1", "cat2"):
        make_plugin("foo", "def register(ctx): pass\n", where=bundled, category=category)
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(bundled))
    result = run_hermes("plugins", "info", "foo")
    assert result.exit_code == 1 and "2 plugins are named 'foo' -> name one by its key: cat1/foo, cat2/foo" in result.stderr
    assert run_hermes("plugins", "info", "cat2/foo", "--json").json()["key"] == "cat2/foo"


def test_info_shows_problems_and_env(make_plugin, run_hermes, monkeypatch):
    make_plugin("needy", "def register(ctx): pass\n", manifest={"name": "needy", "provides_hooks": "weird", "requires_env": ["NEEDY_TOKEN"]})
    info = run_hermes("plugins", "info", "needy", "--json").json()
    assert info["requires_env"] == [{"name": "NEEDY_TOKEN", "present": False, "secret": False, "description": ""}]
    assert info["problems"][0]["field"] == "provides_hooks" and "fix" in info["problems"][0]
    monkeypatch.setenv("NEEDY_TOKEN", "x")
    text = run_hermes("plugins", "info", "needy").stdout
    assert "NEEDY_TOKEN (set)" in text and "problem: plugin 'needy'" in text


def test_validate_reports_every_problem_and_exits_nonzero(tmp_path, run_hermes):
    plugin = tmp_path / "bad"
    plugin.mkdir()
    (plugin / "plugin.yaml").write_text("name: bad\nprovides_tools: memory\nprovides_hooks: yes\n")
    (plugin / "__init__.py").write_text("X = 1\n")
    result = run_hermes("plugins", "validate", str(plugin))
    assert result.exit_code == 1
    assert "'provides_tools'" in result.stdout and "'provides_hooks'" in result.stdout
    assert "neither register(ctx) nor @hookimpl" in result.stdout
    data = run_hermes("plugins", "validate", str(plugin), "--json").json()
    assert data[0]["ok"] is False and len(data[0]["problems"]) == 2
    missing = run_hermes("plugins", "validate", str(tmp_path / "nothing"))
    assert missing.exit_code == 1 and "does not exist" in missing.stderr


def test_a_broken_config_never_shows_a_traceback(run_hermes, hermes_home):
    (hermes_home / "config.yaml").write_text("plugins: {enabled: [\n")
    result = run_hermes("plugins", "list")
    assert result.exit_code == 1
    assert result.stderr.startswith("hermes: error: ") and "invalid YAML" in result.stderr
    assert "Traceback" not in result.stderr
    debug = run_hermes("--debug", "plugins", "list")
    assert "Traceback" in debug.stderr


def test_debug_tracing_shows_discovery_and_hook_calls(make_plugin, plugin_manager, capsys, monkeypatch):
    make_plugin("traced", "def register(ctx):\n    ctx.register_hook('pre_tool_call', lambda **kw: {'action': 'block', 'message': 'no'})\n")
    monkeypatch.setenv("HERMES_PLUGINS_DEBUG", "1")
    manager = plugin_manager(enabled=["traced"])
    manager.hooks.pre_tool_call(tool_name="terminal", args={}, task_id="t")
    err = capsys.readouterr().err
    assert "policy: user plugin 'traced' enabled" in err
    assert "load: plugin 'traced' loaded" in err
    assert "hook pre_tool_call: plugin 'traced'" in err and "-> block" in err


def test_help_and_version(run_hermes):
    from hermes_core import __version__

    assert run_hermes("--version").stdout.strip() == f"hermes {__version__}"
    help_text = run_hermes("--help").stdout
    assert "plugins" in help_text and "config" in help_text
    assert run_hermes().exit_code == 0


def test_a_plugin_commands_own_p_option_is_not_taken_as_a_profile(make_plugin, plugin_manager, run_hermes):
    make_plugin("pflag", "def setup(p):\n    p.add_argument('-p', dest='port')\ndef run(args):\n    print('port', args.port)\ndef register(ctx):\n    ctx.register_cli_command('serve', 'serve', setup, run)\n")
    plugin_manager(enabled=["pflag"])
    result = run_hermes("serve", "-p", "8080")
    assert result.exit_code == 0 and result.stdout == "port 8080\n"


def test_strict_mode_names_the_plugin(make_plugin, plugin_manager):
    from hermes_core.errors import PluginLoadError

    make_plugin("strictly", "import not_a_module_anywhere\n")
    with pytest.raises(PluginLoadError, match=r"plugin 'strictly' \(user, .*\) failed to load: import failed: ModuleNotFoundError"):
        plugin_manager(enabled=["strictly"], strict=True)
    make_plugin("badmani", "def register(ctx): pass\n", manifest={"name": "badmani", "provides_hooks": "odd"})
    with pytest.raises(PluginLoadError, match="badmani"):
        plugin_manager(enabled=["badmani"], strict=True)


def test_a_plugin_yaml_that_is_not_utf8_is_refused_by_name_and_offset(make_plugin, run_hermes, hermes_home):
    latin1 = "name: latin\nversion: '1.0-caf\xe9'\ndescription: caf\xe9 notes\n".encode("latin-1")
    offset = latin1.index(b"\xe9")
    plugin = make_plugin("latin", IMPORT_MARKER + "def register(ctx): pass\n", manifest=False)
    (plugin / "plugin.yaml").write_bytes(latin1)
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [latin]\n")
    config_before = (hermes_home / "config.yaml").read_bytes()

    for argv in (("plugins", "list"), ("plugins", "list", "--load"), ("plugins", "validate", str(plugin))):
        result = run_hermes(*argv)
        shown = result.stdout + result.stderr
        assert "\ufffd" not in shown and "1.0-caf" not in shown, argv  # never a garbled version
        assert f"{plugin / 'plugin.yaml'}" in shown and "not UTF-8" in shown and f"offset {offset}" in shown, (argv, shown)
        assert "re-save plugin.yaml as UTF-8" in shown and "Traceback" not in shown, argv
    assert run_hermes("plugins", "validate", str(plugin)).exit_code == 1
    listed = run_hermes("plugins", "list", "--json", "--load").json()
    entry = next(e for e in listed if e["name"] == "latin")
    assert entry["loaded"] is False and entry["version"] in ("", None)
    assert not (hermes_home / "IMPORTED").exists()  # refused before any of its code ran
    assert (hermes_home / "config.yaml").read_bytes() == config_before
    assert (plugin / "plugin.yaml").read_bytes() == latin1


def test_a_load_failure_that_names_its_own_fix_is_split_into_cause_and_fix(make_plugin, run_hermes, caplog):
    make_plugin("does_nothing", "X = 1\n")
    assert run_hermes("plugins", "enable", "does_nothing").exit_code == 0
    doctor = run_hermes("plugins", "doctor", "--load", "--json")
    [problem] = next(p for p in doctor.json() if p["key"] == "does_nothing")["problems"]
    assert problem["cause"] == "the module has no register(ctx) function and no @hookimpl functions"
    assert problem["fix"] == "add def register(ctx): ...; or disable it: 'hermes plugins disable does_nothing'"
    caplog.clear()
    assert run_hermes("plugins", "list", "--load").exit_code == 0
    warning = next(r.getMessage() for r in caplog.records if "does_nothing" in r.getMessage() and "failed to load" in r.getMessage())
    assert warning.count(" -> ") == 1, warning
    assert warning.endswith("-> add def register(ctx): ...; until then it is skipped, or disable it with 'hermes plugins disable does_nothing'")


def test_an_oversized_manifest_is_one_cause_and_one_fix(make_plugin, run_hermes):
    make_plugin("bloated", "def register(ctx):\n    pass\n", manifest="name: bloated\ndescription: '" + "a" * 300_000 + "'\n")
    [problem] = run_hermes("plugins", "info", "bloated", "--json").json()["problems"]
    assert " -> " not in problem["cause"] and "over the limit of 262,144" in problem["cause"]
    assert problem["fix"] == "replace plugin.yaml with a small regular file"


def test_plugins_info_shows_control_characters_of_a_manifest_instead_of_sending_them(make_plugin, run_hermes):
    make_plugin("shady", "def register(ctx):\n    pass\n",
                manifest={"name": "shady", "version": "1.0", "description": "Helpful\x1b[8m hidden", "author": "Eve\x1b]0;title\x07"})
    shown = run_hermes("plugins", "info", "shady")
    assert shown.exit_code == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "Helpful\\x1b[8m hidden" in shown.stdout and "Eve\\x1b]0;title\\x07" in shown.stdout


def test_strict_mode_names_a_refused_plugin_once(make_plugin, run_hermes, monkeypatch):
    directory = make_plugin("crooked", "def register(ctx):\n    pass\n", manifest="name: crooked\nversion: [1\n")
    assert run_hermes("plugins", "enable", "crooked").exit_code == 0
    monkeypatch.setenv("HERMES_STRICT_PLUGINS", "1")
    result = run_hermes("plugins", "list", "--load")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"hermes: error: plugin 'crooked' (user, {directory / 'plugin.yaml'}): plugin.yaml is not valid YAML"), result.stderr
    assert result.stderr.count("plugin 'crooked'") == 1
