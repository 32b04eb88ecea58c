"""An install asks to turn the plugin on only on a terminal, reads the answer as a person types it,
checks config.yaml before anything is installed when it may edit it, and refuses a second install
of what plugins.lock already records. Directory plugins, in-process; the terminal is a real pty."""

from __future__ import annotations

import io
import os
import zipfile

import pytest
import yaml

from distribution_support import tree_state, write_files
from hermes_core.distribution.console import Console
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.installer import InstallOptions, Installer
from hermes_core.distribution.lockfile import LockEntry, lock_path, read_lock, write_lock
from hermes_core.distribution.pip_runner import PipOptions

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
