"""A published directory plugin (plugin.yaml and __init__.py at its root) that keeps a pyproject.toml for
its tests and tools only is installed the way Hermes Agent's 'plugins install owner/repo' installs it:
copied into $HERMES_HOME/plugins. A pyproject.toml that declares a hermes entry point still makes a package."""

from __future__ import annotations

from pathlib import Path

import pytest
from distribution_support import git_repo, write_files

from hermes_core.distribution.specs import installs_as_package

PROVIDER = '''
class RoutedMemory:
    name = "routed"
    def is_available(self):
        return True
    def initialize(self, session_id, **kwargs):
        pass
    def get_tool_schemas(self):
        return []


def register(ctx):
    ctx.register_memory_provider(RoutedMemory())
'''
# what such repositories ship: a project table for pytest and linters, no entry points
DEV_ONLY_PYPROJECT = '''[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "hermes-plugin-routed"
version = "0.1.0"
dependencies = []

[project.optional-dependencies]
test = ["pytest>=7"]

[tool.pytest.ini_options]
testpaths = ["tests"]
'''
FILES = {"plugin.yaml": "name: routed\nversion: 0.1.0\nkind: exclusive\n", "__init__.py": PROVIDER,
         "pyproject.toml": DEV_ONLY_PYPROJECT, "tests/test_routed.py": "def test_nothing():\n    pass\n"}


def test_a_local_checkout_is_copied_as_a_directory_plugin(run_hermes, hermes_home, tmp_path):
    source = tmp_path / "hermes-plugin-routed"
    source.mkdir()
    write_files(source, FILES)
    result = run_hermes("plugins", "install", str(source), "--no-input", "--json")
    assert result.exit_code == 0, result.stderr
    (installed,) = result.json()
    assert installed["layout"] == "directory"
    assert (hermes_home / "plugins" / "routed" / "plugin.yaml").is_file()
    assert run_hermes("memory", "setup", "routed", "--yes").exit_code == 0
    status = run_hermes("memory", "status", "--json")
    assert status.exit_code == 0, status.stdout + status.stderr
    assert (status.json()["plugin"], status.json()["available"]) == ("routed", True)


def test_the_repository_installs_from_git_and_keeps_its_work_tree(run_hermes, hermes_home, tmp_path):
    repo = git_repo(tmp_path / "hermes-plugin-routed", FILES)
    result = run_hermes("plugins", "install", f"file://{repo}", "--no-input")
    assert result.exit_code == 0, result.stderr
    assert (hermes_home / "plugins" / "routed" / ".git").is_dir()


@pytest.mark.parametrize(("extra", "package"), [
    ({}, False),
    ({"pyproject.toml": DEV_ONLY_PYPROJECT + '\n[project.entry-points."hermes_agent.memory_providers"]\nrouted = "routed"\n'}, True),
    ({"pyproject.toml": DEV_ONLY_PYPROJECT + '\n[tool.poetry.plugins."hermes_agent.plugins"]\nrouted = "routed"\n'}, True),
    ({"pyproject.toml": DEV_ONLY_PYPROJECT.replace('dependencies = []', 'dynamic = ["entry-points"]')}, True),
    ({"setup.py": "from setuptools import setup\nsetup()\n"}, True),
    ({"pyproject.toml": "[project\nname = broken"}, True),  # pip reports what is wrong with it
    ({"__init__.py": None}, True),  # no directory plugin at the root: a project like any other
])
def test_what_makes_a_directory_with_a_pyproject_a_package(tmp_path, extra, package):
    files = {**FILES, **extra}
    write_files(tmp_path, {name: text for name, text in files.items() if text is not None})
    assert installs_as_package(tmp_path) is package


def test_a_project_without_a_plugin_at_its_root_is_still_a_package(tmp_path):
    write_files(tmp_path, {"pyproject.toml": DEV_ONLY_PYPROJECT})
    assert installs_as_package(tmp_path) is True
    assert installs_as_package(tmp_path / "nowhere") is False

