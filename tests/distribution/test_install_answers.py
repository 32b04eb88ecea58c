"""What an install asks, refuses, records and says, in-process.

It asks to turn the plugin on only on a terminal (a real pty here) and reads the answer as a person
types it, checks config.yaml before anything is installed when it may edit it, and refuses a second
install of what plugins.lock already records. What it records and prints for a package is checked
from the step after pip (``Installer.finish``) with a real wheel unpacked into a site directory in
tmp_path, as pip unpacks a pure-Python wheel: pip itself, and the snapshot of this interpreter's
site-packages around it, take seconds and are covered by the venv tests of test_install_packages.py.
"""

from __future__ import annotations

import io
import os
import zipfile

import pytest
import yaml

from distribution_support import tree_state, write_files
from distribution_support import commit_files, git, git_repo
from hermes_core.distribution.checks import describe_package
from hermes_core.distribution.console import Console
from hermes_core.distribution.distributions import find_installed
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.installer import InstallOptions, Installer
from hermes_core.distribution.lockfile import LockEntry, lock_path, read_lock, write_lock
from hermes_core.distribution.package_install import StagedPackage
from hermes_core.distribution.pip_runner import PipOptions
from hermes_core.distribution.sources import Fetched
from hermes_core.distribution.specs import PluginSpec

#: No package index: a requirement that reached pip would fail at once instead of going to the network.
NO_INDEX = PipOptions(no_index=True)


@pytest.fixture
def terminal(monkeypatch):
    """Standard input is a real terminal (a pty); ``terminal("y")`` types a line into it."""
    master, slave = os.openpty()
    stdin = os.fdopen(slave, "r", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    yield lambda line: os.write(master, (line + "\n").encode())
    stdin.close()
    os.close(master)


@pytest.fixture
def memo(tmp_path):
    return write_files(tmp_path / "memo-src", {
        "plugin.yaml": "name: memo\nversion: '1.0'\nprovides_hooks: [on_session_reset]\n",
        "__init__.py": "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: None)\n",
    })


def installer(home, **options):
    out = io.StringIO()
    options.setdefault("pip", NO_INDEX)
    return Installer(home, Console(out=out, err=out), InstallOptions(**options)), out


def enabled(home) -> list[str]:
    path = home / "config.yaml"
    return (yaml.safe_load(path.read_text()) or {}).get("plugins", {}).get("enabled", []) if path.exists() else []


@pytest.mark.parametrize("answer", ["", "y", "Y", "yes", " YES ", "Yes"])
def test_yes_or_just_enter_at_the_question_turns_the_plugin_on(hermes_home, memo, terminal, capsys, answer):
    terminal(answer)
    install, out = installer(hermes_home)
    install.install(str(memo))
    assert capsys.readouterr().out == "Enable memo now? [Y/n] "
    assert enabled(hermes_home) == ["memo"]
    assert "is installed but off" not in out.getvalue()


@pytest.mark.parametrize("answer", ["n", "no", "N", "nope", "y es"])
def test_any_other_answer_leaves_it_off_without_more_advice(hermes_home, memo, terminal, capsys, answer):
    terminal(answer)
    install, out = installer(hermes_home)
    install.install(str(memo))
    assert capsys.readouterr().out == "Enable memo now? [Y/n] "
    assert enabled(hermes_home) == []
    assert (hermes_home / "plugins" / "memo" / "plugin.yaml").is_file()
    assert "is installed but off" not in out.getvalue()  # the user just said so


def test_no_input_on_a_terminal_asks_nothing_and_says_how_to_turn_it_on(hermes_home, memo, terminal, capsys):
    (hermes_home / "config.yaml").write_text("plugins: 5\n")  # not read: nothing will edit it
    install, out = installer(hermes_home, interactive=False)
    install.install(str(memo))
    assert capsys.readouterr().out == ""
    assert "'memo' is installed but off; turn it on with 'hermes plugins enable memo'" in out.getvalue()
    assert (hermes_home / "config.yaml").read_text() == "plugins: 5\n"


def test_on_a_terminal_a_broken_config_stops_the_install_before_the_question(hermes_home, memo, terminal, capsys):
    (hermes_home / "config.yaml").write_text("plugins: 5\n")
    before = tree_state(hermes_home)
    install, _ = installer(hermes_home)
    with pytest.raises(InstallError) as raised:
        install.install(str(memo))
    assert str(raised.value) == (
        f"cannot install '{memo}': {hermes_home / 'config.yaml'}: 'plugins' must be a mapping of keys, not int (5) "
        "-> fix that key in the file, or move the file aside. Nothing was changed."
    )
    assert tree_state(hermes_home) == before and capsys.readouterr().out == ""


def test_enable_false_never_asks_and_never_advises(hermes_home, memo, terminal, capsys):
    install, out = installer(hermes_home, enable=False)
    install.install(str(memo))
    assert capsys.readouterr().out == "" and "is installed but off" not in out.getvalue()
    assert enabled(hermes_home) == []


# -- what plugins.lock already records -----------------------------------------------------------


def weather_lock(home):
    entry = LockEntry("weather", "hermes-weather", "index", "package", "0.3.1", "hermes-weather", plugins=["weather", "forecast"])
    write_lock(lock_path(home), {"weather": entry})
    return lock_path(home).read_bytes()


def real_wheel(directory, name="hermes_weather", version="0.4"):
    """A wheel as setuptools lays it out; it needs a distribution no index has, so pip could never install it."""
    path = directory / f"{name}-{version}-py3-none-any.whl"
    dist_info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{name}/__init__.py", "def register(ctx):\n    pass\n")
        wheel.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nRequires-Dist: hermes-no-such-dependency\n")
        wheel.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{dist_info}/entry_points.txt", f"[hermes_agent.plugins]\nweather = {name}\n")
        wheel.writestr(f"{dist_info}/RECORD", "")
    return path


@pytest.mark.parametrize("asked", ["hermes-weather", "Hermes_Weather", "weather", "forecast", "hermes-weather==0.5"])
def test_a_second_install_of_a_recorded_plugin_points_to_update_or_force(hermes_home, asked):
    lock = weather_lock(hermes_home)
    install, _ = installer(hermes_home)
    with pytest.raises(InstallError) as raised:
        install.install(asked)
    assert str(raised.value) == (
        f"cannot install '{asked}': it is already installed as 'weather' ==0.3.1 "
        "-> run 'hermes plugins update weather', or install again with --force."  # nothing was touched, so nothing was rolled back
    )
    assert lock_path(hermes_home).read_bytes() == lock


def test_a_wheel_of_a_recorded_distribution_is_refused_by_its_file_name(hermes_home, tmp_path):
    lock = weather_lock(hermes_home)
    wheel = real_wheel(tmp_path)
    install, _ = installer(hermes_home)
    with pytest.raises(InstallError) as raised:
        install.install(str(wheel))
    assert str(raised.value) == (
        f"cannot install '{wheel}': it is already installed as 'weather' ==0.3.1 -> run 'hermes plugins update weather', or install again with --force."
    )
    assert lock_path(hermes_home).read_bytes() == lock


def test_an_entry_with_nothing_pinned_is_named_without_a_trailing_space(hermes_home, memo):
    write_lock(lock_path(hermes_home), {"memo": LockEntry("memo", str(memo), "path", "directory", plugins=["memo"])})
    with pytest.raises(InstallError) as raised:
        installer(hermes_home)[0].install("memo")
    assert "it is already installed as 'memo' -> run 'hermes plugins update memo'" in str(raised.value)


def test_the_summary_and_the_lock_entry_of_a_directory_install(hermes_home, memo):
    install, out = installer(hermes_home, interactive=False)
    outcome = install.install(str(memo))
    target = hermes_home / "plugins" / "memo"
    assert f"installed 'memo' 1.0 (standalone): directory {target} from {memo}; recorded in {lock_path(hermes_home)}" in out.getvalue()
    assert outcome.changed is True and [p.key for p in outcome.plugins] == ["memo"]
    expected = LockEntry("memo", str(memo), "path", "directory", "1.0", "", str(memo), plugins=["memo"])
    assert outcome.entry == expected and read_lock(lock_path(hermes_home)) == {"memo": expected}


def test_a_directory_plugins_manifest_warnings_are_shown(hermes_home, tmp_path):
    source = write_files(tmp_path / "memo-src", {"plugin.yaml": "name: memo\nversion: '1.0'\nfrobnicate: 1\n", "__init__.py": ""})
    install, out = installer(hermes_home, interactive=False)
    install.install(str(source))
    installed = hermes_home / "plugins" / "memo" / "plugin.yaml"
    # named where the file stays, not in the staging copy it was checked in (gone once installed)
    assert (f"warning: plugin 'memo' (user, {installed}): unknown key(s) 'frobnicate' in plugin.yaml are ignored"
            in out.getvalue().splitlines())


def test_install_json_lists_each_plugins_manifest_warnings(run_hermes, hermes_home, tmp_path):
    registering = "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: None)\n"
    noisy = write_files(tmp_path / "memo-src", {"plugin.yaml": "name: memo\nversion: '1.0'\nfrobnicate: 1\n", "__init__.py": registering})
    quiet = write_files(tmp_path / "calm-src", {"plugin.yaml": "name: calm\nversion: '1.0'\n", "__init__.py": registering})
    idle = write_files(tmp_path / "idle-src", {"plugin.yaml": "name: idle\nversion: '1.0'\n", "__init__.py": "# nothing yet\n"})
    for source, expected in ((noisy, [f"plugin 'memo' (user, {hermes_home / 'plugins' / 'memo' / 'plugin.yaml'}): "
                                      "unknown key(s) 'frobnicate' in plugin.yaml are ignored"]), (quiet, []),
                             # what 'hermes plugins validate' says of the code, install says too
                             (idle, ["plugin 'idle': __init__.py defines neither register(ctx) nor @hookimpl functions, so it would do nothing"])):
        result = run_hermes("plugins", "install", str(source), "--json")
        assert result.exit_code == 0, result.stderr
        assert [p["warnings"] for p in result.json()[0]["plugins"]] == [expected]
        assert all(f"warning: {w}" in result.stderr for w in expected)


def test_a_git_directory_plugin_keeps_its_work_tree_and_a_subdirectory_does_not(run_hermes, hermes_home, tmp_path):
    whole = git_repo(tmp_path / "memo-repo", {"plugin.yaml": "name: memo\nversion: '1.0'\n", "__init__.py": ""})
    mono = git_repo(tmp_path / "mono", {"notes/plugin.yaml": "name: notes\nversion: '1.0'\n", "notes/__init__.py": ""})
    assert run_hermes("plugins", "install", f"file://{whole}", "--no-input").exit_code == 0
    assert run_hermes("plugins", "install", f"file://{mono}#notes", "--no-input").exit_code == 0
    assert (hermes_home / "plugins" / "memo" / ".git").is_dir()  # 'update' pulls into it
    assert not (hermes_home / "plugins" / "notes" / ".git").exists()


def test_ref_picks_the_revision_a_git_plugin_is_installed_at(hermes_home, tmp_path):
    repo = git_repo(tmp_path / "memo-repo", {"plugin.yaml": "name: memo\nversion: '1.0'\n", "__init__.py": ""})
    git(repo, "tag", "v1")
    commit_files(repo, {"plugin.yaml": "name: memo\nversion: '2.0'\n"}, "2.0")
    outcome = installer(hermes_home, interactive=False)[0].install(f"file://{repo}", ref="v1")
    assert (outcome.entry.version, outcome.entry.ref) == ("1.0", "v1")
    assert "version: '1.0'" in (hermes_home / "plugins" / "memo" / "plugin.yaml").read_text()


# -- after pip: the lock entry and the summary of a package ---------------------------------------


def unpacked_wheel(site, *, version="0.3.1"):
    """hermes-weather: two plugins in one distribution; 'weather' has a plugin.yaml, 'forecast' none."""
    files = {
        "hermes_weather/__init__.py": "def register(ctx):\n    pass\n",
        "hermes_weather/plugin.yaml": f"name: weather\nversion: '{version}'\n",
        "hermes_forecast/__init__.py": "def register(ctx):\n    pass\n",
        f"hermes_weather-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: hermes-weather\nVersion: {version}\n",
        f"hermes_weather-{version}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"hermes_weather-{version}.dist-info/entry_points.txt": "[hermes_agent.plugins]\nweather = hermes_weather\nforecast = hermes_forecast\n",
        f"hermes_weather-{version}.dist-info/RECORD": "",
    }
    wheel = site.parent / f"hermes_weather-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    dist = find_installed("Hermes_Weather", [site])
    assert dist is not None
    return StagedPackage(dist=dist, plugins=describe_package(dist, [site], "cannot install 'x'"), changed=[dist])


def test_a_package_from_the_index_is_recorded_pinned_with_every_plugin_and_summed_up(hermes_home, tmp_path):
    staged = unpacked_wheel(tmp_path / "site")
    spec = PluginSpec("Hermes_Weather>=0.3", "requirement", "Hermes_Weather>=0.3", distribution="hermes-weather")
    install, out = installer(hermes_home, interactive=False)
    outcome = install.finish(staged, Fetched(spec, "package", spec.location, "hermes-weather"), {}, record_spec=spec.text)
    expected = LockEntry("weather", "Hermes_Weather>=0.3", "index", "package", "0.3.1", "hermes-weather", plugins=["weather", "forecast"])
    assert outcome.entry == expected and read_lock(lock_path(hermes_home)) == {"weather": expected}
    assert outcome.changed is True
    printed = out.getvalue().splitlines()
    assert f"installed 'weather' 0.3.1 (standalone), 'forecast' 0.3.1 (standalone): package hermes-weather via pip; recorded in {lock_path(hermes_home)}" in printed
    assert any(line.startswith("warning: plugin 'forecast': no plugin.yaml in hermes_forecast") for line in printed)


def test_a_package_pip_left_as_it_was_is_reported_unchanged(hermes_home, tmp_path):
    staged = unpacked_wheel(tmp_path / "site")
    staged.changed = []  # pip: "Requirement already satisfied"
    spec = PluginSpec("hermes-weather", "requirement", "hermes-weather", distribution="hermes-weather")
    outcome = installer(hermes_home, interactive=False)[0].finish(staged, Fetched(spec, "package", "hermes-weather"), {}, record_spec="hermes-weather")
    assert outcome.changed is False


def test_a_package_from_git_is_recorded_with_its_url_subdirectory_ref_and_commit(hermes_home, tmp_path):
    staged = unpacked_wheel(tmp_path / "site", version="0.4.0")
    url, commit = "https://example.invalid/mono.git", "0123456789abcdef0123456789abcdef01234567"
    spec = PluginSpec(f"git+{url}@v4#weather", "git", url, "weather", "v4")
    install, out = installer(hermes_home, interactive=False)
    outcome = install.finish(staged, Fetched(spec, "package", str(tmp_path / "checkout" / "weather"), commit=commit), {}, record_spec=spec.text)
    assert outcome.entry == LockEntry(
        "weather", spec.text, "git", "package", "0.4.0", "hermes-weather", location=url, subdir="weather", ref="v4", commit=commit, plugins=["weather", "forecast"]
    )
    assert f"package hermes-weather from {url} at 0123456789ab; recorded in" in out.getvalue()
