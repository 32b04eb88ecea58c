"""Real installs of package plugins into throwaway venvs: wheel, local package directory, update, remove."""

from __future__ import annotations

import json
import stat

import pytest

from distribution_support import greeter_project

pytestmark = pytest.mark.slow


def test_a_local_wheel_installs_loads_its_hooks_and_stores_its_secret(venv, home, wheels, tmp_path):
    wheel = wheels.wheel("hermes_greeter-1.0.0")
    result = venv.hermes_run("plugins", "install", str(wheel), "--enable", "--env", "GREETER_TOKEN=s3cret", home=home, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Successfully installed hermes-greeter-1.0.0" in result.stdout  # pip's own output, streamed
    assert "Greeter is ready: say hello." in result.stdout  # after-install.md
    greeter = venv.listing(home, tmp_path)["greeter"]
    assert greeter["loaded"] is True and greeter["error"] is None
    assert greeter["hooks"] == ["on_session_start", "pre_llm_call"] and greeter["tools"] == ["greeter_count"]
    assert greeter["install"] == {"source": "path", "spec": str(wheel), "version": "1.0.0", "commit": "", "pinned": "==1.0.0"}
    env_file = home / ".env"
    assert env_file.read_text() == "GREETER_TOKEN=s3cret\n"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert (venv.site_packages / "hermes_greeter" / "plugin.yaml").is_file()


def test_a_plugin_from_a_local_package_directory_updates_to_the_new_version(venv, home, tmp_path):
    project = greeter_project(tmp_path / "greeter", "1.0.0")
    first = venv.hermes_run("plugins", "install", str(project), "--no-build-isolation", "--no-input", home=home, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "'greeter' is installed but off; turn it on with 'hermes plugins enable greeter'" in first.stdout
    assert "GREETER_TOKEN is not set" in first.stderr  # --no-input: reported, not asked
    greeter_project(project, "1.1.0")  # the author releases 1.1.0 in the same directory
    update = venv.hermes_run("plugins", "update", "greeter", "--no-build-isolation", home=home, cwd=tmp_path)
    assert update.returncode == 0, update.stdout + update.stderr
    assert "updated 'greeter': 1.0.0 -> 1.1.0" in update.stdout
    lock = json.loads((home / "plugins.lock").read_text())["plugins"]["greeter"]
    assert (lock["source"], lock["layout"], lock["version"], lock["location"]) == ("path", "package", "1.1.0", str(project))
    assert [p.name for p in venv.site_packages.glob("hermes_greeter-*.dist-info")] == ["hermes_greeter-1.1.0.dist-info"]


def test_index_install_then_update_then_remove(venv, home, wheels, tmp_path):
    links = ["--no-index", "--find-links"]
    installed = venv.hermes_run("plugins", "install", "hermes-greeter", "--enable", *links, str(wheels.index_old), home=home, cwd=tmp_path, stdin="tok\n")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (home / ".env").read_text() == "GREETER_TOKEN=tok\n"  # the answer came through standard input
    listing = venv.listing(home, tmp_path)
    assert listing["greeter"]["version"] == "1.0.0" and listing["greeter"]["loaded"] is True
    assert listing["greeter"]["install"]["source"] == "index" and listing["greeter"]["install"]["pinned"] == "==1.0.0"

    again = venv.hermes_run("plugins", "install", "hermes-greeter", *links, str(wheels.index), home=home, cwd=tmp_path)
    assert again.returncode == 1 and "already installed as 'greeter' ==1.0.0 -> run 'hermes plugins update greeter'" in again.stderr

    updated = venv.hermes_run("plugins", "update", "greeter", *links, str(wheels.index), home=home, cwd=tmp_path)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "updated 'greeter': 1.0.0 -> 1.1.0" in updated.stdout
    assert venv.listing(home, tmp_path)["greeter"]["version"] == "1.1.0"
    current = venv.hermes_run("plugins", "update", "--all", *links, str(wheels.index), home=home, cwd=tmp_path)
    assert current.returncode == 0 and "'greeter' is up to date (1.1.0)" in current.stdout

    removed = venv.hermes_run("plugins", "remove", "greeter", home=home, cwd=tmp_path)
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert "removed 'greeter'; removed plugins.enabled from config.yaml" in removed.stdout
    assert "greeter" not in venv.listing(home, tmp_path)
    assert not list(venv.site_packages.glob("hermes_greeter*"))
    assert json.loads((home / "plugins.lock").read_text())["plugins"] == {}
    assert "greeter" not in (home / "config.yaml").read_text()


def test_a_plugin_installed_with_pip_install_e_updates(venv, home, tmp_path):
    # An editable install keeps the code in the project: site-packages holds only a .pth file
    # or an import finder, so the module must be looked up the way the interpreter finds it.
    project = greeter_project(tmp_path / "greeter", "1.0.0")
    editable = venv.run("-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-e", str(project), cwd=tmp_path)
    assert editable.returncode == 0, editable.stdout + editable.stderr
    assert not (venv.site_packages / "hermes_greeter").exists()
    updated = venv.hermes_run("plugins", "update", "greeter", "--no-index", home=home, cwd=tmp_path)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "'greeter' is up to date (1.0.0)" in updated.stdout
    lock = json.loads((home / "plugins.lock").read_text())["plugins"]["greeter"]
    assert (lock["distribution"], lock["version"]) == ("hermes-greeter", "1.0.0")
    greeter = venv.listing(home, tmp_path)["greeter"]
    assert greeter["version"] == "1.0.0" and greeter["install"]["source"] == "index"
