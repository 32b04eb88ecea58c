"""The source distribution: built from this checkout, it carries the license and the whole test
suite, and a test runs from the unpacked sdist against the sdist's own code."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from venv_support import REPO_ROOT, build_sdist

pytestmark = pytest.mark.slow


def _shipped_test_files(root: Path) -> set[str]:
    """The files of tests/ that belong in a release (no caches)."""
    skip = {"__pycache__", ".hypothesis", ".pytest_cache"}
    return {
        path.relative_to(root).as_posix()
        for path in (root / "tests").rglob("*")
        if path.is_file() and not skip.intersection(path.relative_to(root).parts) and path.suffix != ".pyc"
    }


@pytest.fixture(scope="module")
def unpacked_sdist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    archive = build_sdist(REPO_ROOT, out)
    with tarfile.open(archive) as tar:
        tar.extractall(out, filter="data")
    (root,) = [p for p in out.iterdir() if p.is_dir()]
    return root


def test_the_sdist_carries_the_license_and_every_test_file(unpacked_sdist):
    license_text = (unpacked_sdist / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in license_text
    assert "License-Expression: MIT" in (unpacked_sdist / "PKG-INFO").read_text() or "License: MIT" in (unpacked_sdist / "PKG-INFO").read_text()
    expected = _shipped_test_files(REPO_ROOT)
    assert "tests/conftest.py" in expected
    missing = sorted(expected - _shipped_test_files(unpacked_sdist))
    assert missing == []
    for page in ("hooks.md", "authoring.md", "runtime.md"):  # tests read these
        assert (unpacked_sdist / "docs" / page).is_file()


def test_a_test_runs_from_the_unpacked_sdist_against_its_own_code(unpacked_sdist):
    # PYTHONPATH puts the sdist's packages before this checkout's editable install
    env = dict(os.environ, PYTHONPATH=str(unpacked_sdist), PYTHONDONTWRITEBYTECODE="1")
    where = subprocess.run([sys.executable, "-c", "import hermes_core; print(hermes_core.__file__)"], cwd=unpacked_sdist, env=env, capture_output=True, text=True, check=True)
    assert Path(where.stdout.strip()).is_relative_to(unpacked_sdist)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", "tests/test_manifest.py", "tests/builtin/memory/test_entries.py"],
        cwd=unpacked_sdist, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "error" not in result.stdout.lower().split("passed")[-1]


def test_building_raises_no_setuptools_warning_about_packages(tmp_path):
    import zipfile

    build_sdist(REPO_ROOT, tmp_path, wheel_too=True)
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # the template's cookiecutter hooks ship in the wheel: `hermes plugins new` runs them
    assert {"hermes_plugin_template/hooks/pre_gen_project.py", "hermes_plugin_template/hooks/post_gen_project.py"} <= set(names)
    text = (tmp_path / "build.log").read_text()
    assert "is absent from the `packages` configuration" not in text
    assert "Package would be ignored" not in text


def test_the_template_claims_only_the_classifiers_it_earns():
    import tomllib

    text = (REPO_ROOT / "plugin_template" / "{{cookiecutter.project_slug}}" / "pyproject.toml").read_text()
    # a generated plugin is a hermes plugin, not a pytest plugin (it registers no pytest11 entry point)
    assert "Framework :: Pytest" not in text and "pytest11" not in text
    ours = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    assert "Framework :: Pytest" in ours["classifiers"] and "pytest11" in ours["entry-points"]  # hermes itself is one
