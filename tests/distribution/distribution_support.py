"""Fixture plugin projects, a local package directory, git repositories and venvs for install tests.

Everything is built here, offline: wheels with ``pip wheel --no-index --no-build-isolation``,
repositories with the real ``git``, venvs as in tests/venv_support.py (cloned from one
prepared venv, which is cheaper than installing hermes into each).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from venv_support import ThrowawayVenv

#: pip settings every subprocess gets: no index can be reached, no user config is read.
ISOLATED_PIP = {
    "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
    "PIP_EXTRA_INDEX_URL": "",
    "PIP_FIND_LINKS": "",
    "PIP_CONFIG_FILE": "/dev/null",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    # A refused connection is retried with back-off by default; once is enough to fail.
    "PIP_RETRIES": "0",
}

GREETER_CODE = '''
"""Greets sessions; counts words."""

import json

from hermes_core import hookimpl


@hookimpl
def on_session_start(session_id, model, platform):
    return None


def count(args, **kwargs):
    return json.dumps({"words": len(str(args.get("text", "")).split())})


def register(ctx):
    ctx.register_hook("pre_llm_call", lambda **kw: "Be kind.")
    ctx.register_tool("greeter_count", "greeter", {"name": "greeter_count", "description": "Count words",
                      "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}, count)
'''

GREETER_MANIFEST = """
name: greeter
version: "{version}"
description: Greets sessions (install test fixture).
provides_hooks: [on_session_start, pre_llm_call]
provides_tools: [greeter_count]
requires_env:
  - name: GREETER_TOKEN
    secret: true
    description: token for the greeting service
"""


def write_files(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def package_project(
    root: Path,
    dist: str,
    version: str,
    *,
    module: str | None = None,
    entry_point: str | None = None,
    group: str = "hermes_agent.plugins",
    code: str = "def register(ctx):\n    pass\n",
    manifest: str | None = None,
    requires: tuple[str, ...] = (),
    extra_files: dict[str, str] | None = None,
) -> Path:
    """Write a setuptools project; ``entry_point=None`` makes a distribution with no plugin."""
    module = module or dist.replace("-", "_")
    data = ["plugin.yaml", "after-install.md"] if manifest is not None else []
    entry = f'[project.entry-points."{group}"]\n{entry_point} = "{module}"\n' if entry_point else ""
    pyproject = (
        '[build-system]\nrequires = ["setuptools>=69"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "{dist}"\nversion = "{version}"\nrequires-python = ">=3.11"\n'
        f"dependencies = {json.dumps(list(requires))}\n\n{entry}\n"
        f'[tool.setuptools]\npackages = ["{module}"]\n\n'
        f"[tool.setuptools.package-data]\n{module} = {json.dumps(data)}\n"
    )
    files = {
        "pyproject.toml": pyproject,
        f"{module}/__init__.py": code,
    }
    if manifest is not None:
        files[f"{module}/plugin.yaml"] = manifest
    files.update(extra_files or {})
    return write_files(root, files)


def greeter_project(root: Path, version: str) -> Path:
    return package_project(
        root,
        "hermes-greeter",
        version,
        entry_point="greeter",
        code=GREETER_CODE,
        manifest=GREETER_MANIFEST.format(version=version),
        extra_files={"hermes_greeter/after-install.md": "Greeter is ready: say hello.\n"},
    )


def build_wheels(projects: list[Path], out_dir: Path) -> None:
    """Build every project into ``out_dir`` in one pip run (no index, no build isolation)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(out_dir), *map(str, projects)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **ISOLATED_PIP},
    )


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    result = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env)
    return result.stdout.strip()


def git_repo(root: Path, files: dict[str, str]) -> Path:
    """A repository with one commit on ``main`` holding ``files``."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


def commit_files(repo: Path, files: dict[str, str], message: str) -> str:
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def tree_state(root: Path) -> dict[str, Any]:
    """Every file, link and directory under ``root`` with its content digest and mode."""
    state: dict[str, Any] = {}
    if not root.exists():
        return state
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(root))
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                state[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                state[rel] = ("dir", stat.S_IMODE(info.st_mode))
            else:
                state[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), stat.S_IMODE(info.st_mode))
    return state


class PluginVenv(ThrowawayVenv):
    """A throwaway venv with hermes installed, where ``hermes`` runs against a given home."""

    @classmethod
    def clone_of(cls, prepared: ThrowawayVenv, root: Path) -> PluginVenv:
        """A copy of a prepared venv: nothing in it depends on its own path except the scripts we do not run."""
        shutil.copytree(prepared.root, root, symlinks=True)
        venv = cls.__new__(cls)
        venv.root = root
        venv.python = root / "bin" / "python"
        venv.site_packages = root / prepared.site_packages.relative_to(prepared.root)
        return venv

    def env(self, home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON", "PIP_"))}
        return {**base, **ISOLATED_PIP, "HERMES_HOME": str(home), **(extra or {})}

    def hermes_run(self, *argv: str, home: Path, cwd: Path, stdin: str = "", extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), "-m", "hermes_core.cli.main", *argv],
            cwd=cwd,
            env=self.env(home, extra_env),
            input=stdin,
            capture_output=True,
            text=True,
        )

    def listing(self, home: Path, cwd: Path) -> dict[str, dict[str, Any]]:
        """``hermes plugins list --json --load`` in this venv, keyed by plugin key."""
        result = self.hermes_run("plugins", "list", "--json", "--load", home=home, cwd=cwd)
        assert result.returncode == 0, result.stderr
        return {entry["key"]: entry for entry in json.loads(result.stdout)}

    def pytest(self, tests: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON", "PIP_"))}
        return subprocess.run(
            [str(self.python), "-m", "pytest", "-v", "-p", "no:cacheprovider", str(tests)],
            cwd=cwd,
            env={**env, **ISOLATED_PIP},
            capture_output=True,
            text=True,
        )
