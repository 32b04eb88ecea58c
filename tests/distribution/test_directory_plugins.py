"""Directory plugins (no pip involved), run in-process: install, --force, update, remove, env, list."""

from __future__ import annotations

import json
import os
import stat
import zipfile

import pytest
import yaml

from distribution_support import commit_files, git, git_repo, tree_state, write_files


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


def test_a_directory_plugin_is_copied_configured_and_loads(run_hermes, hermes_home, source, monkeypatch):
    # loading the plugin exports its .env into this process; a second run in the same process
    # (mutmut runs the tests several times in one) would then find MEMO_TOKEN set and not ask
    monkeypatch.setenv("MEMO_TOKEN", "")  # recorded, so the value the plugin exports is removed afterwards
    monkeypatch.delenv("MEMO_TOKEN")
    result = run_hermes("plugins", "install", str(source), "--enable", input="typed-token\n")
    assert result.exit_code == 0, result.stderr
    target = hermes_home / "plugins" / "memo"
    assert sorted(p.name for p in target.iterdir()) == ["__init__.py", "__pycache__", "after-install.md", "memo.cfg", "memo.cfg.example", "plugin.yaml"]
    # the source's bytecode is not copied; the directory Python will write it to is the owner's alone
    assert "junk.pyc" not in {p.name for p in (target / "__pycache__").iterdir()} and stat.S_IMODE((target / "__pycache__").stat().st_mode) == 0o700
    assert "created memo.cfg from memo.cfg.example" in result.stdout and "Memo is installed." in result.stdout
    assert "MEMO_TOKEN (the memo service token): (reading a line from standard input)" in result.stdout
    assert "typed-token" not in result.stdout  # the secret is stored, never printed
    assert (hermes_home / ".env").read_text() == "MEMO_TOKEN=typed-token\n"
    memo = next(e for e in run_hermes("plugins", "list", "--json", "--load").json() if e["key"] == "memo")
    assert memo["loaded"] is True and memo["hooks"] == ["on_session_reset"]
    assert memo["install"] == {"source": "path", "spec": str(source), "version": "1.0", "commit": "", "pinned": "==1.0"}
    table = run_hermes("plugins", "list").stdout
    assert "INSTALLED FROM" in table.splitlines()[0] and "path ==1.0" in table
    assert run_hermes("plugins", "info", "memo", "--json").json()["install"] == memo["install"]
    assert "installed from: path ==1.0" in run_hermes("plugins", "info", "memo").stdout


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


def test_a_plugin_directory_made_by_hand_is_deleted_only_when_told_to(run_hermes, hermes_home):
    # The README's two-file plugin: written in place, never installed, so it may be its author's only copy.
    plugin = hermes_home / "plugins" / "no_rm"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: no_rm\nversion: 1.0.0\ndescription: by hand\nkind: standalone\n")
    (plugin / "__init__.py").write_text("def register(ctx):\n    pass\n")
    assert run_hermes("plugins", "enable", "no_rm").exit_code == 0
    config = (hermes_home / "config.yaml").read_text()
    refused = run_hermes("plugins", "remove", "no_rm")  # nobody at a terminal to ask
    assert refused.exit_code == 1 and f"{plugin} was not installed by 'hermes plugins install'" in refused.stderr
    assert "'hermes plugins remove no_rm --yes'" in refused.stderr and refused.stderr.rstrip().endswith("Nothing was changed.")
    as_json = run_hermes("plugins", "remove", "no_rm", "--json")
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["error"].startswith("cannot remove 'no_rm'")
    assert (plugin / "__init__.py").is_file() and (hermes_home / "config.yaml").read_text() == config
    removed = run_hermes("plugins", "remove", "no_rm", "--yes")
    assert removed.exit_code == 0, removed.stderr
    assert not plugin.exists() and "no_rm" not in (hermes_home / "config.yaml").read_text()


def test_an_installed_plugin_directory_is_removed_without_asking(run_hermes, hermes_home, source):
    assert run_hermes("plugins", "install", str(source), "--no-input").exit_code == 0
    assert run_hermes("plugins", "remove", "memo").exit_code == 0  # hermes made it: a copy of the source
    assert not (hermes_home / "plugins" / "memo").exists() and source.is_dir()


@pytest.mark.parametrize("config", [b"\xffa\xf4\x13\xe58", b"plugins: 5\n"])
def test_remove_with_a_config_it_cannot_edit_deletes_nothing(run_hermes, hermes_home, source, config):
    assert run_hermes("plugins", "install", str(source), "--no-input").exit_code == 0
    (hermes_home / "config.yaml").write_bytes(config)
    lock = (hermes_home / "plugins.lock").read_text()
    result = run_hermes("plugins", "remove", "memo")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"hermes: error: cannot remove 'memo': {hermes_home / 'config.yaml'}") and result.stderr.rstrip().endswith("Nothing was changed.")
    assert (hermes_home / "plugins" / "memo" / "__init__.py").is_file() and (hermes_home / "plugins.lock").read_text() == lock


def test_remove_suggests_close_names_and_refuses_shipped_plugins(run_hermes, source):
    run_hermes("plugins", "install", str(source), "--no-input")
    unknown = run_hermes("plugins", "remove", "mem")
    assert unknown.exit_code == 1 and "no installed plugin named 'mem' (did you mean 'memo'?)" in unknown.stderr
    bundled = run_hermes("plugins", "remove", "observability/hook_log")
    assert bundled.exit_code == 1 and "is a bundled plugin; it ships with hermes" in bundled.stderr
    builtin = run_hermes("plugins", "remove", "memory")
    assert builtin.exit_code == 1 and "is a builtin plugin" in builtin.stderr
    assert "plugins disable" not in builtin.stderr  # builtins cannot be disabled: no such advice


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("plugins", "install"), "give exactly one SPEC or -r FILE"),
        (("plugins", "install", "x", "-r", "f"), "give exactly one SPEC or -r FILE"),
        (("plugins", "install", "x", "--env", "NOPE"), "--env 'NOPE' is not KEY=VALUE"),
        (("plugins", "install", "not a spec!"), "'not a spec!' is not a package requirement, an existing path, or a git URL (Expected "),
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
    listing = run_hermes("plugins", "list")
    assert "INSTALLED FROM" in listing.stdout  # listing still works, and says why sources are missing
    assert listing.stderr.count("warning:") == 1 and "plugins.lock: not a plugins.lock (invalid JSON" in listing.stderr
    assert run_hermes("plugins", "list", "--json").stderr.count("\n") == 1


def refused(run_hermes, home, *argv, input=""):
    """Run a command that must fail with one error line and leave $HERMES_HOME as it was; return the line."""
    before = tree_state(home)
    result = run_hermes(*argv, input=input)
    assert result.exit_code == 1, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("hermes: error:")]
    assert len(errors) == 1 and result.stderr.rstrip().endswith(errors[0]), result.stderr
    assert tree_state(home) == before
    return errors[0]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("B=x\ny", "--env 'B': the value for B contains a line break -> give it on one line"),
        ("B-2=y", "--env 'B-2': environment variable name 'B-2' is not valid"),
    ],
)
def test_a_bad_env_value_is_refused_before_anything_is_installed(run_hermes, hermes_home, source, bad, message):
    (hermes_home / ".env").write_text("KEPT=1\n")
    line = refused(run_hermes, hermes_home, "plugins", "install", str(source), "--env", "MEMO_TOKEN=1", "--env", bad, "--enable")
    assert message in line and "x\ny" not in line
    assert not (hermes_home / "plugins").exists()


def test_only_the_variables_the_plugin_declares_are_stored(run_hermes, hermes_home, source):
    result = run_hermes("plugins", "install", str(source), "--no-input", "--env", "MEMO_TOKEN=t", "--env", "OTHER=1", "--env", "PATH_X=2")
    assert result.exit_code == 0, result.stderr
    assert (hermes_home / ".env").read_text() == "MEMO_TOKEN=t\n"
    assert "warning: --env OTHER, PATH_X not stored: 'memo' does not ask for them (it asks for MEMO_TOKEN)" in result.stderr


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("plugins: 5\n", "config.yaml: 'plugins' must be a mapping of keys, not int (5)"),
        ("plugins:\n  enabled: {a: 1}\n", "config.yaml: 'plugins.enabled' must be a list of plugin names, not dict"),
        ("plugins: [unclosed\n", "config.yaml: invalid YAML at line 2, column 1"),
    ],
)
def test_enable_with_a_broken_config_fails_before_installing(run_hermes, hermes_home, source, config, message):
    (hermes_home / "config.yaml").write_text(config)
    line = refused(run_hermes, hermes_home, "plugins", "install", str(source), "--enable", "--env", "MEMO_TOKEN=t")
    assert line.startswith(f"hermes: error: cannot install '{source}': ") and message in line
    assert line.endswith("Nothing was changed.")
    # Without --enable the config is not touched, so the install goes ahead.
    assert run_hermes("plugins", "install", str(source), "--no-input").exit_code == 0


def selectable_plugin(root, name, kind):
    """A directory plugin turned on by a selection: a memory provider or a context engine."""
    if kind == "exclusive":
        return write_files(root, {"plugin.yaml": f"name: {name}\nkind: exclusive\n", "__init__.py": "def register(ctx):\n    pass\n"})
    engine = f"""
        from hermes_core import ContextEngine


        class Engine(ContextEngine):
            @property
            def name(self):
                return "{name}"

            def update_from_response(self, usage):
                pass

            def should_compress(self, prompt_tokens=None):
                return False

            def compress(self, messages, current_tokens=None, focus_topic=None):
                return list(messages)


        def register(ctx):
            ctx.register_context_engine(Engine())
        """
    return write_files(root, {"plugin.yaml": f"name: {name}\nkind: standalone\n", "__init__.py": engine})


@pytest.mark.parametrize(("kind", "setting", "hint"), [("exclusive", "memory.provider", "hermes memory setup sel"),
                                                     ("standalone", "context.engine", "hermes config set context.engine sel")])
def test_providers_and_engines_are_turned_on_by_their_selection(run_hermes, hermes_home, tmp_path, kind, setting, hint):
    plugin = selectable_plugin(tmp_path / "sel", "sel", kind)
    hinted = run_hermes("plugins", "install", str(plugin), "--no-input")
    assert hinted.exit_code == 0, hinted.stderr
    assert f"'sel' is installed but off; turn it on with '{hint}'" in hinted.stdout
    (hermes_home / "config.yaml").write_text("plugins:\n  disabled: [sel]\n")
    enabled = run_hermes("plugins", "install", str(plugin), "--force", "--enable")
    assert enabled.exit_code == 0, enabled.stderr
    assert f"'sel' selected ({setting})" in enabled.stdout
    group, leaf = setting.split(".")
    config = yaml.safe_load((hermes_home / "config.yaml").read_text())
    assert config[group][leaf] == "sel" and config["plugins"] == {"disabled": []}
    listed = next(e for e in run_hermes("plugins", "list", "--json").json() if e["key"] == "sel")
    assert listed["enabled"] is True


def test_a_git_url_may_name_its_ref_the_pip_way(run_hermes, hermes_home, tmp_path):
    repo = git_repo(tmp_path / "memo-repo", {"memo/plugin.yaml": "name: memo\nversion: '1.0'\n", "memo/__init__.py": ""})
    git(repo, "tag", "v1")
    commit_files(repo, {"memo/plugin.yaml": "name: memo\nversion: '2.0'\n"}, "newer")
    result = run_hermes("plugins", "install", f"git+file://{repo}@v1#memo", "--no-input")
    assert result.exit_code == 0, result.stderr
    assert "version: '1.0'" in (hermes_home / "plugins" / "memo" / "plugin.yaml").read_text()
    lock = json.loads((hermes_home / "plugins.lock").read_text())["plugins"]["memo"]
    assert (lock["location"], lock["ref"], lock["subdir"]) == (f"file://{repo}", "v1", "memo")


def test_an_unreachable_https_repository_is_a_network_failure(run_hermes, hermes_home):
    line = refused(run_hermes, hermes_home, "plugins", "install", "https://127.0.0.1:9/owner/repo.git")
    assert "git could not reach https://127.0.0.1:9/owner/repo.git (network failure)" in line


def test_a_failed_update_says_it_cannot_update(run_hermes, hermes_home, tmp_path):
    repo = git_repo(tmp_path / "memo-repo", {"plugin.yaml": "name: memo\nversion: '1.0'\n", "__init__.py": ""})
    assert run_hermes("plugins", "install", f"file://{repo}", "--no-input").exit_code == 0
    os.rename(repo, tmp_path / "moved")
    line = refused(run_hermes, hermes_home, "plugins", "update", "memo")
    assert line.startswith("hermes: error: cannot update 'memo': there is no git repository at") and "Nothing was changed." in line


def test_an_update_from_a_path_that_is_gone_says_it_cannot_update(run_hermes, hermes_home, source, tmp_path):
    assert run_hermes("plugins", "install", str(source), "--no-input").exit_code == 0
    os.rename(source, tmp_path / "moved")
    line = refused(run_hermes, hermes_home, "plugins", "update", "memo")
    assert line.startswith(f"hermes: error: cannot update 'memo': '{source}': no such file or directory")


def test_remove_unlinks_a_linked_plugin_and_keeps_what_it_points_to(run_hermes, hermes_home, source):
    (hermes_home / "plugins").mkdir()
    link = hermes_home / "plugins" / "memo"
    link.symlink_to(source)
    doctor = next(e for e in run_hermes("plugins", "doctor", "--json").json() if e["key"] == "memo")
    assert doctor["ok"] is True, doctor  # a linked plugin is healthy, and removable
    result = run_hermes("plugins", "remove", "memo")
    assert result.exit_code == 0, result.stderr
    assert f"unlinking {link} (it points to {source}, which is kept)" in result.stdout
    assert not link.exists() and not link.is_symlink()
    assert (source / "plugin.yaml").is_file() and (source / "memo.cfg.example").is_file()


def test_remove_never_deletes_outside_the_plugins_directory(run_hermes, hermes_home, tmp_path):
    from hermes_core.distribution.lockfile import LockEntry, lock_path, write_lock

    outside = tmp_path / "outside"
    (outside / "victim").mkdir(parents=True)
    (outside / "victim" / "keep.txt").write_text("mine")
    plugins = hermes_home / "plugins"
    plugins.mkdir()
    # a category directory that is a link to somewhere else
    (plugins / "cat").symlink_to(outside)
    sneaky = LockEntry("cat/victim", str(plugins / "cat" / "victim"), "manual", "directory", "1", location=str(plugins / "cat" / "victim"), plugins=["cat/victim"])
    # a lock entry whose location climbs out with '..'
    climbing = LockEntry("climber", "x", "manual", "directory", "1", location=str(plugins / ".." / ".." / "outside" / "victim"), plugins=["climber"])
    write_lock(lock_path(hermes_home), {"cat/victim": sneaky, "climber": climbing})
    for key in ("cat/victim", "climber"):
        result = run_hermes("plugins", "remove", key)
        assert result.exit_code == 1 and "is not inside" in result.stderr, result.stderr
    assert (outside / "victim" / "keep.txt").read_text() == "mine"


def test_an_update_pulled_under_umask_000_leaves_nothing_others_can_write(run_hermes, hermes_home, tmp_path):
    # the update pulls into a staged copy: files and packages the new commit adds are made under the process's umask
    repo = git_repo(tmp_path / "memo-repo", {"plugin.yaml": "name: memo\nversion: '1.0'\n", "__init__.py": "def register(ctx):\n    pass\n"})
    previous = os.umask(0)
    try:
        assert run_hermes("plugins", "install", f"file://{repo}", "--no-input").exit_code == 0
        commit_files(repo, {"plugin.yaml": "name: memo\nversion: '2.0'\n", "helpers/__init__.py": "", "helpers/text.py": "X = 1\n"}, "2.0")
        updated = run_hermes("plugins", "update", "memo")
    finally:
        os.umask(previous)
    assert updated.exit_code == 0, updated.stderr
    target = hermes_home / "plugins" / "memo"
    assert (target / "helpers" / "text.py").is_file()
    writable = [str(p.relative_to(target)) for p in (target, *target.rglob("*")) if not p.is_symlink() and stat.S_IMODE(p.stat().st_mode) & 0o022]
    assert writable == []
    assert stat.S_IMODE((target / "helpers" / "__pycache__").stat().st_mode) == 0o700


def test_a_directory_nobody_may_write_gets_no_bytecode_directory_and_the_rest_do(tmp_path):
    import shutil
    import subprocess

    from hermes_core.distribution.directory_install import make_bytecode_dirs_private

    tree = write_files(tmp_path / "copy", {"__init__.py": "", "locked/__init__.py": "", "open/__init__.py": ""})
    # chattr +i stops even root from creating entries: what a read-only directory is to an unprivileged user
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(tree / "locked")], capture_output=True).returncode != 0:
        pytest.skip("this file system cannot make a directory immutable (chattr +i)")
    try:
        make_bytecode_dirs_private(tree)
    finally:
        subprocess.run(["chattr", "-i", str(tree / "locked")], check=True)
    assert not (tree / "locked" / "__pycache__").exists()
    assert stat.S_IMODE((tree / "open" / "__pycache__").stat().st_mode) == 0o700
    assert stat.S_IMODE((tree / "__pycache__").stat().st_mode) == 0o700
