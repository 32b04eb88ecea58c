"""Directory plugins (no pip involved), run in-process: install, --force, update, remove, env, list."""

from __future__ import annotations

import json
import zipfile

import pytest
import yaml

from distribution_support import write_files


def plugin_source(root, version="1.0", **extra_files):
    return write_files(
        root,
        {
            "plugin.yaml": f"name: memo\nversion: '{version}'\nprovides_hooks: [on_session_reset]\nrequires_env: [{{name: MEMO_TOKEN, secret: true, description: the memo service token}}]\n",
            "__init__.py": "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: None)\n",
            "memo.cfg.example": "depth = 1\n",
            "after-install.md": "Memo is installed.\n",
            **extra_files,
        },
    )


@pytest.fixture
def source(tmp_path):
    root = plugin_source(tmp_path / "memo-src")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "junk.pyc").write_bytes(b"\0")
    return root


def test_a_directory_plugin_is_copied_configured_and_loads(run_hermes, hermes_home, source):
    result = run_hermes("plugins", "install", str(source), "--enable", input="typed-token\n")
    assert result.exit_code == 0, result.stderr
    target = hermes_home / "plugins" / "memo"
    assert sorted(p.name for p in target.iterdir()) == ["__init__.py", "after-install.md", "memo.cfg", "memo.cfg.example", "plugin.yaml"]
    assert "created memo.cfg from memo.cfg.example" in result.stdout and "Memo is installed." in result.stdout
    assert "MEMO_TOKEN (the memo service token): (reading a line from standard input)" in result.stdout
    assert "typed-token" not in result.stdout  # the secret is stored, never printed
    assert (hermes_home / ".env").read_text() == "MEMO_TOKEN=typed-token\n"
    memo = next(e for e in run_hermes("plugins", "list", "--json", "--load").json() if e["key"] == "memo")
    assert memo["loaded"] is True and memo["hooks"] == ["on_session_reset"]
    assert memo["install"] == {"source": "path", "spec": str(source), "version": "1.0", "commit": "", "pinned": "==1.0"}
    table = run_hermes("plugins", "list").stdout
    assert "INSTALLED FROM" in table.splitlines()[0] and "path ==1.0" in table


def test_an_installed_name_needs_force_and_force_replaces_it(run_hermes, hermes_home, source, tmp_path):
    assert run_hermes("plugins", "install", str(source), "--no-input").exit_code == 0
    newer = plugin_source(tmp_path / "memo-2", version="2.0")
    refused = run_hermes("plugins", "install", str(newer), "--no-input")
    assert refused.exit_code == 1
    assert f"a plugin named 'memo' is already installed at {(hermes_home / 'plugins' / 'memo').resolve()}" in refused.stderr
    forced = run_hermes("plugins", "install", str(newer), "--no-input", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "version: '2.0'" in (hermes_home / "plugins" / "memo" / "plugin.yaml").read_text()
    assert list(json.loads((hermes_home / "plugins.lock").read_text())["plugins"]) == ["memo"]


def test_update_from_the_source_directory_keeps_the_users_settings(run_hermes, hermes_home, source):
    run_hermes("plugins", "install", str(source), "--no-input", "--env", "MEMO_TOKEN=t")
    settings = hermes_home / "plugins" / "memo" / "memo.cfg"
    settings.write_text("depth = 7\n")
    plugin_source(source, version="1.5")
    result = run_hermes("plugins", "update", "memo")
    assert result.exit_code == 0, result.stderr
    assert "updated 'memo': 1.0 -> 1.5" in result.stdout and "kept your memo.cfg" in result.stdout
    assert settings.read_text() == "depth = 7\n"


def test_a_zip_of_a_directory_plugin_installs_as_a_directory_plugin(run_hermes, hermes_home, source, tmp_path):
    archive = tmp_path / "memo.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for file in source.iterdir():
            if file.is_file():
                zipped.write(file, f"memo/{file.name}")
    result = run_hermes("plugins", "install", str(archive), "--no-input")
    assert result.exit_code == 0, result.stderr
    assert (hermes_home / "plugins" / "memo" / "plugin.yaml").is_file()


def test_remove_deletes_the_directory_and_every_config_mention(run_hermes, hermes_home, source):
    run_hermes("plugins", "install", str(source), "--no-input", "--enable")
    config = yaml.safe_load((hermes_home / "config.yaml").read_text())
    config["plugins"]["entries"] = {"memo": {"settings": {"depth": 3}}, "other": {}}
    config["plugins"]["disabled"] = ["other"]
    (hermes_home / "config.yaml").write_text(yaml.safe_dump(config))
    result = run_hermes("plugins", "remove", "memo")
    assert result.exit_code == 0, result.stderr
    assert "removed 'memo'; removed plugins.enabled, plugins.entries.memo from config.yaml" in result.stdout
    assert not (hermes_home / "plugins" / "memo").exists()
    after = yaml.safe_load((hermes_home / "config.yaml").read_text())
    assert after["plugins"] == {"enabled": [], "disabled": ["other"], "entries": {"other": {}}}
    assert json.loads((hermes_home / "plugins.lock").read_text())["plugins"] == {}


def test_remove_suggests_close_names_and_refuses_shipped_plugins(run_hermes, source):
    run_hermes("plugins", "install", str(source), "--no-input")
    unknown = run_hermes("plugins", "remove", "mem")
    assert unknown.exit_code == 1 and "no installed plugin named 'mem' (did you mean 'memo'?)" in unknown.stderr
    bundled = run_hermes("plugins", "remove", "observability/hook_log")
    assert bundled.exit_code == 1 and "is a bundled plugin; it ships with hermes" in bundled.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("plugins", "install"), "give exactly one SPEC or -r FILE"),
        (("plugins", "install", "x", "-r", "f"), "give exactly one SPEC or -r FILE"),
        (("plugins", "install", "x", "--env", "NOPE"), "--env 'NOPE' is not KEY=VALUE"),
        (("plugins", "update"), "give a plugin NAME or --all"),
        (("plugins", "install", "-r", "/no/such/file"), "/no/such/file: cannot be read"),
    ],
)
def test_usage_errors_are_one_line(run_hermes, argv, message):
    result = run_hermes(*argv)
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("hermes: error: ") and message in result.stderr and result.stderr.count("\n") == 1


def test_a_damaged_lock_stops_an_install_before_anything_changes(run_hermes, hermes_home, source):
    (hermes_home / "plugins.lock").write_text("{not json")
    result = run_hermes("plugins", "install", str(source), "--no-input")
    assert result.exit_code == 1 and "plugins.lock: not a plugins.lock (invalid JSON" in result.stderr
    assert not (hermes_home / "plugins").exists()
    assert "INSTALLED FROM" in run_hermes("plugins", "list").stdout  # listing still works
