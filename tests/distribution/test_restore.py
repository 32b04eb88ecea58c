"""Restoring plugins.lock and installing from a list (-r), in-process: what each lock entry pins,
what counts as already installed, and how a run with failures reports them.

Packages restored with pip into a fresh venv are covered by test_install_sources.py; here every
source is a directory plugin (copied, or cloned with the real git), so no pip run is needed.
"""

from __future__ import annotations

import io
import json
import shutil
from importlib.metadata import version as installed_version

import pytest
import yaml

from distribution_support import commit_files, git_repo, tree_state, write_files
from hermes_core.distribution.console import Console
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.installer import InstallOptions, Installer, installed_copy, pinned_spec
from hermes_core.distribution.lockfile import LockEntry, lock_path, read_lock
from hermes_core.distribution.specs import PluginSpec
from hermes_core.errors import HermesError


def plugin_files(name: str, version: str) -> dict[str, str]:
    return {
        "plugin.yaml": f"name: {name}\nversion: '{version}'\nprovides_hooks: [on_session_reset]\n",
        "__init__.py": "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: None)\n",
    }


def index_entry(**changes) -> LockEntry:
    fields = {"key": "weather", "spec": "Hermes_Weather>=0.3", "source": "index", "layout": "package",
              "version": "0.3.1", "distribution": "hermes-weather", "plugins": ["weather"]}
    return LockEntry(**{**fields, **changes})


class Captured:
    """An installer whose console writes into strings."""

    def __init__(self, home, **options) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()
        options.setdefault("interactive", False)
        self.installer = Installer(home, Console(out=self.out, err=self.err), InstallOptions(**options))


# -- pinned_spec: the SPEC a lock entry is reinstalled from ----------------------------------------


def test_an_index_entry_is_pinned_to_its_recorded_version_and_keeps_the_users_spec():
    spec = pinned_spec(index_entry())
    assert spec == PluginSpec("Hermes_Weather>=0.3", "requirement", "hermes-weather==0.3.1", distribution="hermes-weather")
    assert spec.source == "index"


def test_an_index_entry_without_a_version_asks_for_the_distribution_alone():
    assert pinned_spec(index_entry(version="")) == PluginSpec("Hermes_Weather>=0.3", "requirement", "hermes-weather", distribution="hermes-weather")


def test_an_index_entry_naming_no_distribution_cannot_be_restored():
    with pytest.raises(InstallError) as raised:
        pinned_spec(index_entry(distribution=""))
    assert str(raised.value) == "cannot restore 'weather': its lock entry names no distribution -> install it again by name. Nothing was changed."


def test_a_git_entry_keeps_its_url_subdirectory_and_ref():
    entry = LockEntry("tally", "gh:me/mono@v2#plugins/tally", "git", "package", "0.2", "hermes-tally",
                      location="https://example.invalid/mono.git", subdir="plugins/tally", ref="v2", commit="ab" * 20)
    assert pinned_spec(entry) == PluginSpec("gh:me/mono@v2#plugins/tally", "git", "https://example.invalid/mono.git", "plugins/tally", "v2")


def test_a_path_entry_is_read_again_from_where_it_was_installed(tmp_path):
    source = write_files(tmp_path / "memo-src", plugin_files("memo", "1.0"))
    entry = LockEntry("memo", "./memo-src", "path", "directory", "1.0", location=str(source))
    assert pinned_spec(entry) == PluginSpec(str(source), "directory", str(source))


def test_a_path_entry_whose_source_is_gone_names_the_path_and_the_fix(tmp_path):
    gone = tmp_path / "gone"
    with pytest.raises(InstallError) as raised:
        pinned_spec(LockEntry("memo", "./gone", "path", "directory", "1.0", location=str(gone)))
    assert str(raised.value) == (
        f"cannot restore 'memo': it was installed from {gone}, which no longer exists -> install it again from where it is now. Nothing was changed."
    )


# -- installed_copy: what is already there --------------------------------------------------------


def test_an_installed_distribution_at_the_pinned_version_is_already_there(tmp_path):
    pinned = installed_version("PyYAML")  # a distribution this environment really has
    assert installed_copy(index_entry(distribution="pyyaml", version=pinned), tmp_path) == f"pyyaml {pinned}"
    assert installed_copy(index_entry(distribution="PyYAML", version=pinned), tmp_path) == f"PyYAML {pinned}"


def test_an_installed_distribution_at_another_version_or_an_absent_one_is_installed(tmp_path):
    assert installed_copy(index_entry(distribution="pyyaml", version="0.0.1"), tmp_path) == ""
    assert installed_copy(index_entry(distribution="hermes-no-such-distribution", version="1.0"), tmp_path) == ""
    # an entry naming no distribution is never taken as installed (pinned_spec then explains why it cannot be restored)
    assert installed_copy(index_entry(distribution="", version=""), tmp_path) == ""


def test_a_directory_plugin_counts_as_installed_whatever_its_version(tmp_path):
    entry = LockEntry("memo", "x", "path", "directory", "9.9", distribution="pyyaml")
    assert installed_copy(entry, tmp_path) == ""
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "memo").write_text("a file, not a plugin directory")
    assert installed_copy(entry, tmp_path) == ""
    (tmp_path / "plugins" / "memo").unlink()
    write_files(tmp_path / "plugins" / "memo", plugin_files("memo", "1.0"))
    assert installed_copy(entry, tmp_path) == str(tmp_path / "plugins" / "memo")
    # the plugin's directory decides for a directory entry, never a distribution of the same name
    assert installed_copy(LockEntry("other", "x", "path", "directory", installed_version("PyYAML"), distribution="pyyaml"), tmp_path) == ""


# -- install -r: a lock file ----------------------------------------------------------------------


def installed_from_git(run_hermes, hermes_home, tmp_path):
    """A git plugin installed at v1 (repo tag), then the repository moved on to 2.0."""
    repo = git_repo(tmp_path / "notes-repo", {f"notes/{k}": v for k, v in plugin_files("notes", "1.0").items()})
    pinned = commit_files(repo, {"notes/README.md": "the release the lock pins\n"}, "1.0 final")
    result = run_hermes("plugins", "install", f"file://{repo}#notes", "--no-input")
    assert result.exit_code == 0, result.stderr
    commit_files(repo, {f"notes/{k}": v for k, v in plugin_files("notes", "2.0").items()}, "2.0")
    return repo, pinned


def test_a_lock_restores_a_git_plugin_at_its_commit_and_is_recorded_unchanged(run_hermes, hermes_home, tmp_path):
    repo, pinned = installed_from_git(run_hermes, hermes_home, tmp_path)
    local = write_files(tmp_path / "local-src", plugin_files("localdir", "3"))
    assert run_hermes("plugins", "install", str(local), "--no-input").exit_code == 0
    lock = lock_path(hermes_home).read_text()
    new_home = tmp_path / "new-home"
    new_home.mkdir()
    lock_path(new_home).write_text(lock)

    captured = Captured(new_home)
    progress: list[tuple[int, int]] = []
    outcomes = captured.installer.install_from_file(lock_path(new_home), progress=lambda done, total: progress.append((done, total)))

    assert progress == [(1, 2), (2, 2)]
    assert [(o.entry.key, o.changed, [p.key for p in o.plugins]) for o in outcomes] == [("localdir", True, ["localdir"]), ("notes", True, ["notes"])]
    assert "version: '1.0'" in (new_home / "plugins" / "notes" / "plugin.yaml").read_text()  # the commit, not the branch tip
    assert (new_home / "plugins" / "notes" / "README.md").is_file()
    assert lock_path(new_home).read_text() == lock  # every entry recorded as it was: spec, commit, version
    assert read_lock(lock_path(new_home))["notes"].commit == pinned
    shown = captured.out.getvalue()
    assert f"==> installing 'file://{repo}#notes' (git, file://{repo})" in shown
    assert f"==> installing '{local}' (directory)" in shown
    assert (
        f"installed 'notes' 1.0 (standalone): directory {new_home / 'plugins' / 'notes'} from file://{repo} at {pinned[:12]}; "
        f"recorded in {lock_path(new_home)}"
    ) in shown
    # a restore keeps config.yaml as it is: no question, and no advice to turn the plugin on
    assert "is installed but off" not in shown and not (new_home / "config.yaml").exists()
    assert captured.err.getvalue() == ""

    again = Captured(new_home)
    assert again.installer.install_from_file(lock_path(new_home)) == []
    assert again.out.getvalue().splitlines() == [
        f"'localdir' is already installed ({new_home / 'plugins' / 'localdir'})",
        f"'notes' is already installed ({new_home / 'plugins' / 'notes'})",
    ]


def test_restoring_with_enable_turns_the_restored_plugins_on(run_hermes, hermes_home, tmp_path):
    local = write_files(tmp_path / "local-src", plugin_files("localdir", "3"))
    assert run_hermes("plugins", "install", str(local), "--no-input").exit_code == 0
    new_home = tmp_path / "new-home"
    new_home.mkdir()
    lock_path(new_home).write_text(lock_path(hermes_home).read_text())
    Captured(new_home, enable=True).installer.install_from_file(lock_path(new_home))
    assert yaml.safe_load((new_home / "config.yaml").read_text())["plugins"]["enabled"] == ["localdir"]


def lock_with_a_lost_source(tmp_path, **more):
    """A lock of 'hello' (its source is there) and 'gone' (its source directory was deleted), and ``more``."""
    hello = write_files(tmp_path / "hello", plugin_files("hello", "1.0"))
    gone = tmp_path / "gone"
    plugins = {
        "gone": {"spec": str(gone), "source": "path", "layout": "directory", "location": str(gone), "plugins": ["gone"]},
        "hello": {"spec": "./hello", "source": "path", "layout": "directory", "location": str(hello), "plugins": ["hello"]},
    }
    return {"lock_version": 1, "plugins": {**plugins, **more}}, gone


def test_a_lock_entry_that_cannot_be_restored_is_reported_and_the_others_are_installed(hermes_home, tmp_path):
    lock, gone = lock_with_a_lost_source(tmp_path, nodist={"spec": "nodist", "source": "index", "layout": "package"})
    path = tmp_path / "plugins.lock"
    path.write_text(json.dumps(lock))
    captured = Captured(hermes_home)
    progress: list[tuple[int, int]] = []
    with pytest.raises(HermesError) as raised:
        captured.installer.install_from_file(path, progress=lambda done, total: progress.append((done, total)))
    gone_error = f"cannot restore 'gone': it was installed from {gone}, which no longer exists -> install it again from where it is now. Nothing was changed."
    nodist_error = "cannot restore 'nodist': its lock entry names no distribution -> install it again by name. Nothing was changed."
    assert str(raised.value) == (
        f"2 of 3 plugin(s) from {path} could not be installed: 'gone' ({gone_error}); 'nodist' ({nodist_error}) "
        f"-> fix those causes and run 'hermes plugins install -r {path}' again (the others are installed)"
    )
    assert progress == [(1, 3), (2, 3), (3, 3)]  # told after a failure too
    assert captured.err.getvalue().splitlines() == [f"warning: gone: {gone_error}", f"warning: nodist: {nodist_error}"]
    assert (hermes_home / "plugins" / "hello" / "plugin.yaml").is_file()
    assert read_lock(lock_path(hermes_home))["hello"].spec == "./hello"


# -- install -r: a list of SPECs ------------------------------------------------------------------


def test_a_list_installs_each_spec_and_reports_the_ones_that_failed(hermes_home, tmp_path):
    first = write_files(tmp_path / "first", plugin_files("first", "1.0"))
    second = write_files(tmp_path / "second", plugin_files("second", "2.0"))
    listing = tmp_path / "plugins.txt"
    listing.write_text(f"# plugins of this machine\n{first}\n\n{second}  # the second one\n{tmp_path / 'missing'}\n")
    captured = Captured(hermes_home)
    progress: list[tuple[int, int]] = []
    with pytest.raises(HermesError) as raised:
        captured.installer.install_from_file(listing, progress=lambda done, total: progress.append((done, total)))
    message = str(raised.value)
    assert message.startswith(f"1 of 3 plugin(s) from {listing} could not be installed: '{tmp_path / 'missing'}' (")
    assert progress == [(1, 3), (2, 3), (3, 3)]
    assert sorted(read_lock(lock_path(hermes_home))) == ["first", "second"]
    # installing from a list is an install: the usual advice follows each plugin
    assert "'second' is installed but off; turn it on with" in captured.out.getvalue()

    # again: both are installed already, and an install without --force says so for each
    again = tmp_path / "again.txt"
    again.write_text(f"{first}\n{second}\n")
    with pytest.raises(HermesError) as raised:
        Captured(hermes_home).installer.install_from_file(again)
    assert str(raised.value).startswith(
        f"2 of 2 plugin(s) from {again} could not be installed: '{first}' (cannot install '{first}': a plugin named 'first' is already installed at"
    )


def test_a_list_that_installs_everything_returns_every_outcome(hermes_home, tmp_path):
    first = write_files(tmp_path / "first", plugin_files("first", "1.0"))
    listing = tmp_path / "plugins.txt"
    listing.write_text(f"{first}\n")
    outcomes = Captured(hermes_home).installer.install_from_file(listing)
    assert [(o.entry.key, o.entry.spec, o.changed) for o in outcomes] == [("first", str(first), True)]


def test_a_missing_list_names_the_path_and_the_option(hermes_home, tmp_path):
    with pytest.raises(HermesError) as raised:
        Captured(hermes_home).installer.install_from_file(tmp_path / "nothing.txt")
    assert str(raised.value) == f"{tmp_path / 'nothing.txt'}: cannot be read (no such file) -> check the path given to -r"


def test_a_bad_env_value_stops_a_list_before_anything_is_installed(hermes_home, tmp_path):
    first = write_files(tmp_path / "first", plugin_files("first", "1.0"))
    listing = tmp_path / "plugins.txt"
    listing.write_text(f"{first}\n")
    before = tree_state(hermes_home)
    with pytest.raises(InstallError) as raised:
        Captured(hermes_home, env={"TOKEN": "two\nlines"}).installer.install_from_file(listing)
    assert str(raised.value).startswith(f"cannot install from {listing}: ")
    assert tree_state(hermes_home) == before


def test_the_cli_reports_a_partly_failed_restore_on_one_line_and_exits_1(run_hermes, hermes_home, tmp_path):
    lock, gone = lock_with_a_lost_source(tmp_path)
    (tmp_path / "plugins.lock").write_text("\n  " + json.dumps(lock))  # leading blank space: still a lock
    result = run_hermes("plugins", "install", "-r", str(tmp_path / "plugins.lock"))
    assert result.exit_code == 1
    assert f"1 of 2 plugin(s) from {tmp_path / 'plugins.lock'} could not be installed: 'gone'" in result.stderr
    assert f"it was installed from {gone}, which no longer exists" in result.stderr and "Traceback" not in result.stderr
    assert (hermes_home / "plugins" / "hello" / "plugin.yaml").is_file()


def test_a_list_over_one_mebibyte_is_refused_by_its_size_and_one_at_the_limit_is_read(hermes_home, tmp_path):
    listing = tmp_path / "plugins.txt"
    listing.write_text("# " + "x" * ((1 << 20) - 3) + "\n")  # exactly 1 MiB, only a comment
    assert Captured(hermes_home).installer.install_from_file(listing) == []
    with listing.open("ab") as file:
        file.write(b"\n")
    with pytest.raises(HermesError) as raised:
        Captured(hermes_home).installer.install_from_file(listing)
    assert str(raised.value) == f"{listing}: the list given to -r is 1,048,577 bytes, over the limit of 1,048,576 -> use a smaller file"


def test_a_damaged_lock_given_to_r_is_named_by_its_path(hermes_home, tmp_path):
    path = tmp_path / "saved.lock"
    path.write_text('{"lock_version": 1, "plugins": ["memo"]}')
    with pytest.raises(HermesError) as raised:
        Captured(hermes_home).installer.install_from_file(path)
    assert str(raised.value) == f"{path}: not a plugins.lock (no 'plugins' mapping) -> restore it from a backup or delete it"


def test_a_stray_file_where_the_plugin_directory_belongs_is_replaced_by_the_restore(run_hermes, hermes_home, tmp_path):
    local = write_files(tmp_path / "local-src", plugin_files("localdir", "3"))
    assert run_hermes("plugins", "install", str(local), "--no-input").exit_code == 0
    target = hermes_home / "plugins" / "localdir"
    shutil.rmtree(target)
    target.write_text("left behind by a failed copy")
    outcomes = Captured(hermes_home).installer.install_from_file(lock_path(hermes_home))
    assert [o.entry.key for o in outcomes] == ["localdir"]
    assert (target / "plugin.yaml").read_text() == plugin_files("localdir", "3")["plugin.yaml"]
