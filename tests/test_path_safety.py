"""Path safety on every source, and `hermes plugins validate` on hostile wheels and plugin.yml projects."""

from __future__ import annotations

import os
import zipfile

import pytest

from hermes_core.discovery import check_path_safety

IMPORT_MARKER = "import os, pathlib\npathlib.Path(os.environ['HERMES_HOME'], 'IMPORTED_{name}').write_text('x')\ndef register(ctx): pass\n"


@pytest.fixture
def project_plugins(monkeypatch, tmp_path):
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    return tmp_path / "project"


def _refused(manager, key):
    record = manager.get(key)
    assert record is not None and not record.loaded and record.error, record
    assert not (manager.home / f"IMPORTED_{key.replace('/', '_')}").exists(), "refused plugin code ran"
    return record.error


def test_a_world_writable_project_plugin_is_refused(make_plugin, plugin_manager, project_plugins):
    directory = make_plugin("loose", IMPORT_MARKER.format(name="loose"), where="project")
    directory.chmod(0o777)
    error = _refused(plugin_manager(enabled=["loose"], strict=False, cwd=project_plugins), "loose")
    assert "world-writable" in error and f"chmod o-w {directory}" in error


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing a file's owner needs root")
def test_a_foreign_owned_project_plugin_is_refused(make_plugin, plugin_manager, project_plugins):
    directory = make_plugin("foreign", IMPORT_MARKER.format(name="foreign"), where="project")
    os.chown(directory, 4343, 4343)
    error = _refused(plugin_manager(enabled=["foreign"], strict=False, cwd=project_plugins), "foreign")
    assert "owned by uid 4343" in error


def test_other_writable_without_group_writable_is_refused(make_plugin, plugin_manager):
    directory = make_plugin("ow", IMPORT_MARKER.format(name="ow"))
    directory.chmod(0o757)  # o+w, g-w: the check must look at the "other" bit itself
    assert "world-writable" in _refused(plugin_manager(enabled=["ow"], strict=False), "ow")


def test_group_writable_alone_is_accepted(make_plugin, plugin_manager):
    directory = make_plugin("gw", "def register(ctx): pass\n")
    directory.chmod(0o775)
    assert plugin_manager(enabled=["gw"]).get("gw").loaded


def test_a_symlinked_subdirectory_pointing_outside_is_refused(make_plugin, plugin_manager, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "helpers.py").write_text("X = 1\n")
    directory = make_plugin("linked", IMPORT_MARKER.format(name="linked"))
    (directory / "lib").symlink_to(outside, target_is_directory=True)
    error = _refused(plugin_manager(enabled=["linked"], strict=False), "linked")
    assert "lib is a symlink to" in error and "outside the plugin directory" in error


def test_a_symlink_nested_in_a_subdirectory_is_found(tmp_path):
    root = tmp_path / "plugin"
    (root / "pkg" / "deep").mkdir(parents=True)
    (root / "pkg" / "deep" / "escape.py").symlink_to(tmp_path)
    (problem,) = check_path_safety(root, check_owner=False)
    assert "pkg/deep/escape.py is a symlink to" in problem[0]


def _wheel(path, members: dict[str, str]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


@pytest.mark.parametrize("evil", ["../../outside.py", "evilpkg/../../../outside.py", "/etc/cron.d/evil"])
def test_validate_refuses_a_wheel_with_members_escaping_the_root(tmp_path, run_hermes, evil):
    wheel = _wheel(
        tmp_path / "evilpkg-1.0-py3-none-any.whl",
        {
            "evilpkg/__init__.py": "def register(ctx): pass\n",
            "evilpkg/plugin.yaml": "name: evilpkg\nversion: 1.0\n",
            "evilpkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: evilpkg\nVersion: 1.0\n",
            "evilpkg-1.0.dist-info/entry_points.txt": "[hermes_agent.plugins]\nevilpkg = evilpkg\n",
            evil: "print('pwned')\n",
        },
    )
    result = run_hermes("plugins", "validate", str(wheel), "--json")
    assert result.exit_code == 1
    (report,) = result.json()
    assert report["ok"] is False
    assert any("archive members escape the install root" in p["cause"] and evil in p["cause"] for p in report["problems"])


def test_validate_accepts_a_project_whose_manifest_is_plugin_yml(tmp_path, run_hermes):
    package = tmp_path / "hermes-alt" / "src" / "alt_plugin"
    package.mkdir(parents=True)
    (package / "plugin.yml").write_text("name: alt_plugin\nversion: 1.2.0\nprovides_hooks: [on_session_start]\n")
    (package / "__init__.py").write_text("def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n")
    result = run_hermes("plugins", "validate", str(tmp_path / "hermes-alt"), "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    (report,) = result.json()
    assert report["ok"] is True and report["name"] == "alt_plugin"
    broken = tmp_path / "hermes-bad" / "src" / "bad_plugin"
    broken.mkdir(parents=True)
    (broken / "plugin.yml").write_text("name: bad_plugin\nprovides_hooks: nonsense\n")
    (broken / "__init__.py").write_text("def register(ctx): pass\n")
    result = run_hermes("plugins", "validate", str(tmp_path / "hermes-bad"), "--json")
    assert result.exit_code == 1 and "'provides_hooks'" in result.stdout  # the .yml manifest is read, not skipped
