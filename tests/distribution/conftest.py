"""Session fixtures for install tests: fixture wheels in local package directories, a prepared venv."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

# --import-mode=importlib keeps test directories off sys.path; the tests import distribution_support
# (and it venv_support) by name. tests/conftest.py adds tests/ too, but only after this file has loaded
# when pytest is started on this directory alone.
for _directory in (Path(__file__).parent, Path(__file__).parent.parent):
    if str(_directory) not in sys.path:
        sys.path.insert(0, str(_directory))

from distribution_support import PluginVenv, build_wheels, greeter_project, package_project  # noqa: E402
from venv_support import ThrowawayVenv  # noqa: E402

BAD_MANIFEST = "name: broken\nversion: '1.0'\nprovides_hooks: nonsense\n"


@dataclass(frozen=True)
class Wheels:
    hermes: Path
    #: Every fixture wheel: greeter 1.0.0 and 1.1.0, broken, conflict, depx 1.0/2.0, depy, plain.
    index: Path
    #: Only greeter 1.0.0, to install an old version before updating from ``index``.
    index_old: Path

    def wheel(self, prefix: str) -> Path:
        (found,) = self.index.glob(f"{prefix}*.whl")
        return found


def _fixture_wheels(base: Path) -> None:
    """Build every fixture wheel into ``base/index`` (and greeter 1.0.0 again into ``base/index-old``)."""
    projects = base / "projects"
    # One pip run per batch: pip resolves the projects of a run together, so two versions
    # of one distribution go to different batches.
    batches = [
        [
            greeter_project(projects / "greeter-1.0", "1.0.0"),
            # Valid as a package, invalid as a plugin; it needs depx 2.0, so installing it upgrades depx.
            package_project(projects / "broken", "hermes-broken", "1.0", entry_point="broken", manifest=BAD_MANIFEST, requires=("depx==2.0",)),
            package_project(projects / "conflict", "hermes-conflict", "1.0", entry_point="conflict", manifest="name: conflict\n", requires=("depx==1.0", "depy")),
            package_project(projects / "depx-1", "depx", "1.0"),
            package_project(projects / "depy", "depy", "1.0", requires=("depx==2.0",)),
            package_project(projects / "plain", "plain-library", "1.0"),
        ],
        [greeter_project(projects / "greeter-1.1", "1.1.0"), package_project(projects / "depx-2", "depx", "2.0")],
    ]
    index = base / "index"
    for batch in batches:
        build_wheels(batch, index)
    index_old = base / "index-old"
    index_old.mkdir()
    shutil.copy2(next(index.glob("hermes_greeter-1.0.0-*.whl")), index_old)


@pytest.fixture(scope="session")
def wheels(build_once, hermes_wheel: Path) -> Wheels:
    # built once per run, shared by parallel workers (tests/conftest.py: build_once); read-only
    base = build_once("distribution-wheels", _fixture_wheels)
    return Wheels(hermes_wheel, base / "index", base / "index-old")


@pytest.fixture(scope="session")
def prepared_venv(build_once, wheels: Wheels) -> ThrowawayVenv:
    # tests never change it: `venv` and the template tests work on copies
    root = build_once("prepared-venv", lambda base: ThrowawayVenv(base / "venv").install(wheels.hermes))
    return ThrowawayVenv.at(root / "venv")


@pytest.fixture
def venv(prepared_venv: ThrowawayVenv, tmp_path: Path) -> PluginVenv:
    """A fresh venv with only hermes installed (a copy of the prepared one)."""
    return PluginVenv.clone_of(prepared_venv, tmp_path / "venv")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The $HERMES_HOME the venv's hermes runs against."""
    path = tmp_path / "home"
    path.mkdir()
    return path
