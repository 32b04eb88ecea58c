"""Real wheels in throwaway venvs: entry-point plugins, bundled plugins from a non-editable install."""

from __future__ import annotations

from pathlib import Path

import pytest

from venv_support import FIXTURE_PLUGINS, ThrowawayVenv, build_wheel

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def wheels(tmp_path_factory, hermes_wheel) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("wheels")
    return {"hermes": hermes_wheel, "weather": build_wheel(FIXTURE_PLUGINS / "weather", out)}


@pytest.fixture(scope="session")
def venv(tmp_path_factory, wheels) -> ThrowawayVenv:
    env = ThrowawayVenv(tmp_path_factory.mktemp("venv") / "env")
    env.install(wheels["hermes"], wheels["weather"])
    return env


def test_the_wheel_ships_bundled_plugins_and_the_schema(wheels):
    import zipfile

    names = zipfile.ZipFile(wheels["hermes"]).namelist()
    assert "hermes_core/schemas/plugin.schema.json" in names
    assert "hermes_core/py.typed" in names
    assert "hermes_bundled_plugins/observability/hook_log/plugin.yaml" in names
    assert "hermes_bundled_plugins/observability/hook_log/__init__.py" in names
    assert {"plugin.yaml", "__init__.py", "provider.py"} <= {n.rsplit("/", 1)[1] for n in names if n.startswith("hermes_bundled_plugins/memory/mem0/")}
    assert not [n for n in names if "__pycache__" in n]


def test_an_installed_wheel_plugin_is_discovered_by_entry_point_and_loads(venv, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("plugins:\n  enabled: [weather]\n")
    entries = {e["key"]: e for e in venv.hermes_json("plugins", "list", "--load", cwd=tmp_path, home=home)}
    weather = entries["weather"]
    assert weather["source"] == "entrypoint" and weather["version"] == "0.3.1"
    assert weather["loaded"] is True and weather["error"] is None
    assert weather["hooks"] == ["on_session_start", "pre_llm_call"] and weather["tools"] == ["weather_now"]
    assert Path(weather["path"]).parent == venv.site_packages


def test_bundled_plugins_are_found_from_a_non_editable_install(venv, tmp_path):
    home = tmp_path / "home2"
    home.mkdir()
    entries = {e["key"]: e for e in venv.hermes_json("plugins", "list", cwd=tmp_path, home=home)}
    hook_log = entries["observability/hook_log"]
    assert hook_log["source"] == "bundled"
    assert Path(hook_log["path"]).is_relative_to(venv.site_packages / "hermes_bundled_plugins")
    mem0 = entries["memory/mem0"]
    assert mem0["source"] == "bundled" and mem0["kind"] == "exclusive"


def test_validate_accepts_the_built_wheel(venv, wheels, tmp_path):
    result = venv.hermes("plugins", "validate", str(wheels["weather"]), cwd=tmp_path, home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok   weather 0.3.1 (standalone)" in result.stdout


def test_validate_rejects_a_wheel_without_hermes_entry_points(wheels, tmp_path, run_hermes):
    import zipfile

    broken = tmp_path / "broken-0.1-py3-none-any.whl"
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("broken/__init__.py", "")
        archive.writestr("broken-0.1.dist-info/METADATA", "Name: broken\n")
    result = run_hermes("plugins", "validate", str(broken))
    assert result.exit_code == 1 and "declares no entry point" in result.stdout


@pytest.mark.parametrize(
    ("entry_points", "cause"),
    [
        (b"weather = weather\n", "cannot be parsed (MissingSectionHeaderError"),
        (b"[hermes_agent.plugins]\na = x\na = y\n", "cannot be parsed (DuplicateOptionError"),
        (b"[hermes_agent.plugins]\nw = \xff\n", "is not UTF-8"),
    ],
)
def test_validate_names_a_malformed_entry_points_file(tmp_path, run_hermes, entry_points, cause):
    import zipfile

    broken = tmp_path / "broken-0.1-py3-none-any.whl"
    with zipfile.ZipFile(broken, "w") as archive:
        archive.writestr("broken/__init__.py", "")
        archive.writestr("broken-0.1.dist-info/entry_points.txt", entry_points)
    result = run_hermes("plugins", "validate", str(broken))
    assert result.exit_code == 1 and "internal error" not in result.stderr
    assert f"broken-0.1.dist-info/entry_points.txt {cause}" in result.stdout and "rebuild the wheel" in result.stdout


def test_the_pytest_plugin_is_registered_by_entry_point(venv, tmp_path):
    result = venv.run("-c", "import importlib.metadata as m; print([e.value for e in m.entry_points(group='pytest11') if e.name == 'hermes'])", cwd=tmp_path)
    assert result.stdout.strip() == "['hermes_core.testing.fixtures']"


def test_a_published_style_memory_package_loads_with_pip_alone_and_after_its_installer(tmp_path, hermes_wheel):
    """Both entry-point groups, a shim installer, a provider with its own fallback base class."""
    out = tmp_path / "wheels"
    env = ThrowawayVenv(tmp_path / "env")
    env.install(hermes_wheel, build_wheel(FIXTURE_PLUGINS / "vault_memory", out))
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("plugins:\n  enabled: [vault]\nmemory:\n  provider: vault\n")
    for step in ("pip alone", "after the installer"):
        entries = [e for e in env.hermes_json("plugins", "list", "--load", cwd=tmp_path, home=home) if e["name"] == "vault"]
        assert len(entries) == 1, (step, entries)
        (vault,) = entries
        assert vault["loaded"] and vault["error"] is None and not vault["warnings"], (step, vault)
        assert vault["version"] == "1.4.0" and vault["tools"] == ["vault_status"] and vault["memory_providers"] == ["vault"]
        status = env.hermes("memory", "status", "--json", cwd=tmp_path, home=home)
        assert status.returncode == 0 and '"available": true' in status.stdout, (step, status.stdout, status.stderr)
        installed = env.run("-m", "hermes_vault.install", cwd=tmp_path, env={"HERMES_HOME": str(home)})
        assert installed.returncode == 0, installed.stderr
    assert vault["also_at"] == [str(home / "plugins" / "vault")]


def test_the_installed_honcho_plugin_sets_up_and_is_selected(venv, wheels, tmp_path):
    import zipfile

    names = zipfile.ZipFile(wheels["hermes"]).namelist()
    assert {"plugin.yaml", "__init__.py", "provider.py", "cli.py"} <= {n.rsplit("/", 1)[1] for n in names if n.startswith("hermes_bundled_plugins/memory/honcho/")}
    home = tmp_path / "home3"
    home.mkdir()
    setup = venv.hermes("honcho", "setup", "--no-input", "--base-url", "http://localhost:8000", "--peer-name", "eri", cwd=tmp_path, home=home)
    assert setup.returncode == 0, setup.stderr
    status = venv.hermes("memory", "status", "--offline", cwd=tmp_path, home=home)  # no Honcho server runs here
    assert status.returncode == 0 and "honcho [plugin memory/honcho] (available)" in status.stdout, status.stdout + status.stderr
