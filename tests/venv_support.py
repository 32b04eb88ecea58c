"""Real wheels and throwaway virtual environments for packaging tests (no index is ever used)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURE_PLUGINS = Path(__file__).resolve().parent / "fixtures" / "plugins"


_NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".bench", ".pytest_cache", ".hypothesis", ".mutation", "mutants")


def build_wheel(project: Path, out_dir: Path) -> Path:
    """Build ``project`` into ``out_dir`` with the running environment's setuptools (no download).

    The build runs on a copy, so setuptools' build/ and egg-info never land in the source tree.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    source = Path(tempfile.mkdtemp(prefix="hermes-build-")) / project.name
    shutil.copytree(project, source, ignore=_NOT_SOURCES)
    before = set(out_dir.glob("*.whl"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(out_dir), str(source)],
        check=True,
        capture_output=True,
        text=True,
    )
    shutil.rmtree(source.parent, ignore_errors=True)
    (wheel,) = set(out_dir.glob("*.whl")) - before
    return wheel


def build_sdist(project: Path, out_dir: Path, *, wheel_too: bool = False) -> Path:
    """Build the sdist of ``project`` into ``out_dir`` (and, with ``wheel_too``, a wheel from a copy)
    with the running environment's setuptools; setuptools' output goes to ``out_dir/build.log``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    source = Path(tempfile.mkdtemp(prefix="hermes-build-")) / project.name
    shutil.copytree(project, source, ignore=_NOT_SOURCES)
    # setuptools rewrites sys.argv during a build, so the output directory is read first
    backend = "from setuptools import build_meta as b; import sys; out = sys.argv[1]; name = b.build_sdist(out)"
    if wheel_too:
        backend += "; b.build_wheel(out)"
    backend += "; print('BUILT ' + name)"
    built = subprocess.run([sys.executable, "-c", backend, str(out_dir)], cwd=source, capture_output=True, text=True)
    (out_dir / "build.log").write_text(built.stdout + built.stderr)
    shutil.rmtree(source.parent, ignore_errors=True)
    if built.returncode != 0:
        raise RuntimeError(f"building {project} failed:\n{built.stderr[-3000:]}")
    (name,) = [line[len("BUILT ") :] for line in built.stdout.splitlines() if line.startswith("BUILT ")]
    return out_dir / name


class ThrowawayVenv:
    """A venv whose dependencies come from the test environment via a ``.pth`` line.

    Packages under test are installed with ``pip --target`` into its own site-packages,
    which come first on ``sys.path``, so they shadow anything of the same name outside.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
        self.python = root / "bin" / "python"
        self.site_packages = Path(
            subprocess.run(
                [str(self.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
        # A plain path line (not addsitedir), so the outer editable install's finder stays inactive.
        deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        (self.site_packages / "_outer_dependencies.pth").write_text("\n".join(sorted(deps)) + "\n")

    @classmethod
    def at(cls, root: Path) -> ThrowawayVenv:
        """The venv another process of the same test run already made at ``root``."""
        venv = cls.__new__(cls)
        venv.root = root
        venv.python = root / "bin" / "python"
        (venv.site_packages,) = root.glob("lib/python*/site-packages")
        return venv

    def install(self, *wheels: Path) -> None:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--upgrade", "--target", str(self.site_packages), *map(str, wheels)],
            check=True,
            capture_output=True,
            text=True,
        )

    def run(self, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON"))}
        full_env.update(env or {})
        return subprocess.run([str(self.python), *args], cwd=cwd, env=full_env, capture_output=True, text=True)

    def hermes(self, *argv: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
        return self.run("-m", "hermes_core.cli.main", *argv, cwd=cwd, env={"HERMES_HOME": str(home)})

    def hermes_json(self, *argv: str, cwd: Path, home: Path) -> list[dict]:
        result = self.hermes(*argv, "--json", cwd=cwd, home=home)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)
