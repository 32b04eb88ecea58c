"""git repositories (file://), local directory plugins, and restoring plugins.lock into a fresh venv
(in-process restores, and their failures, are in test_restore.py)."""

from __future__ import annotations

import json
import shutil
import stat

import pytest

from distribution_support import PluginVenv, commit_files, git, git_repo, package_project

pytestmark = pytest.mark.slow

NOTES_INIT = """
from hermes_core import hookimpl


@hookimpl
def on_session_end(session_id, completed):
    return None


def register(ctx):
    ctx.register_hook("post_tool_call", lambda **kw: None)
"""


def notes_files(version: str) -> dict[str, str]:
    return {
        "plugin.yaml": f"""
            name: notes
            version: "{version}"
            provides_hooks: [on_session_end, post_tool_call]
            requires_env:
              - name: NOTES_KEY
                secret: true
            """,
        "__init__.py": NOTES_INIT,
        "settings.toml.example": "folder = '~/notes'\n",
        "after-install.md": "Notes installed. Edit settings.toml to choose the folder.\n",
    }


def test_a_directory_plugin_from_git_installs_updates_and_is_removed(venv, home, tmp_path):
    repo = git_repo(tmp_path / "notes-repo", notes_files("1.0"))
    url = f"file://{repo}"
    installed = venv.hermes_run("plugins", "install", url, "--enable", home=home, cwd=tmp_path, stdin="key-from-stdin\n")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    plugin_dir = home / "plugins" / "notes"
    assert (home / ".env").read_text() == "NOTES_KEY=key-from-stdin\n"
    assert stat.S_IMODE((home / ".env").stat().st_mode) == 0o600
    assert (plugin_dir / "settings.toml").read_text() == "folder = '~/notes'\n"  # copied from the .example
    assert "Notes installed. Edit settings.toml" in installed.stdout
    notes = venv.listing(home, tmp_path)["notes"]
    assert notes["source"] == "user" and notes["loaded"] is True and notes["hooks"] == ["on_session_end", "post_tool_call"]
    first_commit = git(repo, "rev-parse", "HEAD")
    assert notes["install"]["source"] == "git" and notes["install"]["commit"] == first_commit

    (plugin_dir / "settings.toml").write_text("folder = '/mine'\n")  # the user configures it
    second_commit = commit_files(repo, notes_files("1.1"), "release 1.1")
    updated = venv.hermes_run("plugins", "update", "notes", home=home, cwd=tmp_path)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert f"updated 'notes': 1.0 @{first_commit[:7]} -> 1.1 @{second_commit[:7]}" in updated.stdout
    assert (plugin_dir / "settings.toml").read_text() == "folder = '/mine'\n"
    assert git(plugin_dir, "rev-parse", "HEAD") == second_commit
    assert not [p for p in (home / "plugins").iterdir() if p.name.startswith(".")]  # no staging left

    removed = venv.hermes_run("plugins", "remove", "notes", home=home, cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert not plugin_dir.exists() and "notes" not in venv.listing(home, tmp_path)
    assert "notes" not in (home / "config.yaml").read_text()


def test_an_update_that_would_break_the_plugin_keeps_the_installed_one(venv, home, tmp_path):
    repo = git_repo(tmp_path / "notes-repo", notes_files("1.0"))
    assert venv.hermes_run("plugins", "install", f"file://{repo}", "--no-input", home=home, cwd=tmp_path).returncode == 0
    before = sorted(p.name for p in (home / "plugins" / "notes").iterdir())
    commit_files(repo, {"plugin.yaml": "name: notes\nversion: '2.0'\nkind: bogus\n"}, "broken release")
    updated = venv.hermes_run("plugins", "update", "notes", home=home, cwd=tmp_path)
    assert updated.returncode == 1
    assert "cannot update 'notes': plugin 'notes' is invalid: 'kind'" in updated.stderr and "Nothing was changed." in updated.stderr
    assert sorted(p.name for p in (home / "plugins" / "notes").iterdir()) == before
    assert "version: \"1.0\"" in (home / "plugins" / "notes" / "plugin.yaml").read_text()


def tally_project(repo, version):
    code = "from hermes_core import hookimpl\n\n\n@hookimpl\ndef on_session_start(session_id):\n    return None\n"
    return package_project(repo / "plugins" / "tally", "hermes-tally", version, entry_point="tally", manifest="name: tally\nprovides_hooks: [on_session_start]\n", code=code)


def test_a_package_in_a_git_subdirectory_is_installed_pinned_and_updated(venv, home, tmp_path):
    repo = tmp_path / "mono"
    tally_project(repo, "0.2.0")
    (repo / "README.md").write_text("a monorepo\n")
    git(repo, "init", "-q", "-b", "main")
    commit = commit_files(repo, {}, "first")
    result = venv.hermes_run("plugins", "install", f"file://{repo}#plugins/tally", "--enable", "--no-build-isolation", home=home, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    tally = venv.listing(home, tmp_path)["tally"]
    assert tally["source"] == "entrypoint" and tally["loaded"] is True and tally["hooks"] == ["on_session_start"]
    lock = json.loads((home / "plugins.lock").read_text())["plugins"]["tally"]
    assert (lock["source"], lock["layout"], lock["subdir"], lock["commit"], lock["version"]) == ("git", "package", "plugins/tally", commit, "0.2.0")
    assert venv.listing(home, tmp_path)["tally"]["install"]["pinned"] == f"@{commit[:7]}"

    tally_project(repo, "0.3.0")
    newer = commit_files(repo, {}, "0.3.0")
    updated = venv.hermes_run("plugins", "update", "tally", "--no-build-isolation", home=home, cwd=tmp_path)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert f"updated 'tally': 0.2.0 @{commit[:7]} -> 0.3.0 @{newer[:7]}" in updated.stdout
    assert venv.listing(home, tmp_path)["tally"]["version"] == "0.3.0"


def test_the_lock_restores_every_plugin_into_a_fresh_venv(venv, home, wheels, prepared_venv, tmp_path):
    links = ("--no-index", "--find-links")
    notes_repo = git_repo(tmp_path / "notes-repo", notes_files("1.0"))
    local = tmp_path / "local_dir_plugin"
    local.mkdir()
    (local / "plugin.yaml").write_text("name: localdir\nversion: '3'\nprovides_hooks: [on_session_reset]\n")
    (local / "__init__.py").write_text("def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: None)\n")
    for argv in (
        ("hermes-greeter", *links, str(wheels.index_old), "--env", "GREETER_TOKEN=x"),
        (f"file://{notes_repo}", "--env", "NOTES_KEY=y"),
        (str(local),),
    ):
        result = venv.hermes_run("plugins", "install", *argv, "--enable", home=home, cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
    commit_files(notes_repo, notes_files("9.9"), "a later release the lock must not pick up")
    expected = venv.listing(home, tmp_path)

    # A new machine: a fresh venv, the old config and lock, no plugins.
    new_home = tmp_path / "new-home"
    new_home.mkdir()
    for name in ("config.yaml", ".env", "plugins.lock"):
        shutil.copy2(home / name, new_home / name)
    fresh = PluginVenv.clone_of(prepared_venv, tmp_path / "fresh-venv")
    restored = fresh.hermes_run("plugins", "install", "-r", str(new_home / "plugins.lock"), *links, str(wheels.index), home=new_home, cwd=tmp_path)
    assert restored.returncode == 0, restored.stdout + restored.stderr
    listing = fresh.listing(new_home, tmp_path)
    for key in ("greeter", "notes", "localdir"):
        assert listing[key]["loaded"] is True, listing[key]["error"]
        for field in ("version", "hooks", "tools", "install"):
            assert listing[key][field] == expected[key][field], (key, field)
    assert listing["greeter"]["version"] == "1.0.0"  # pinned, though the index now has 1.1.0
    assert (new_home / "plugins.lock").read_text() == (home / "plugins.lock").read_text()

    again = fresh.hermes_run("plugins", "install", "-r", str(new_home / "plugins.lock"), *links, str(wheels.index), home=new_home, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.count("is already installed") == 3
