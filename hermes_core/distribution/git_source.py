"""git as a subprocess: clone (shallow unless a commit is pinned), pull --ff-only, read HEAD."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from hermes_core.distribution.console import Console
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.pip_runner import run_streamed

_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


def _git() -> str:
    git = shutil.which("git")
    if git is None:
        raise InstallError("cannot install from git", "the git command is not on PATH", "install git and try again", rolled_back=False)
    return git


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # Never wait for a password prompt nobody may answer; fail with git's message instead.
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_ASKPASS", "echo")
    return env


# What ssh (git@, ssh://) and curl (https://) say when the host cannot be reached.
_NETWORK_PATTERNS: tuple[str, ...] = (
    "could not resolve host",
    "could not resolve proxy",
    "connection refused",
    "failed to connect to",
    "couldn't connect to server",
    "could not connect to server",
    "timed out",
    "network is unreachable",
    "no route to host",
    "connection reset",
)


def _explain(output: str, url: str) -> tuple[str, str]:
    lowered = output.lower()
    if any(pattern in lowered for pattern in _NETWORK_PATTERNS):
        return (f"git could not reach {url} (network failure)", "check the network connection, or clone the repository yourself and install the local path")
    if "remote branch" in lowered and "not found" in lowered:
        return (f"{url} has no branch or tag of that name", "check the name given with --ref")
    if "repository not found" in lowered or "does not appear to be a git repository" in lowered:
        return (f"there is no git repository at {url}", "check the URL (for GitHub: 'owner/repo')")
    if "authentication failed" in lowered or "could not read username" in lowered or "permission denied" in lowered:
        return (f"git was refused access to {url}", "check your credentials or SSH key, or use an https URL of a public repository")
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return (f"git failed: {lines[-1] if lines else 'no output'}", "see git's output above")


def clone(url: str, dest: Path, console: Console, *, ref: str = "", commit: str = "") -> str:
    """Clone ``url`` into ``dest`` at ``ref`` (branch or tag) or ``commit``; return the commit checked out."""
    if url.startswith("http://"):
        console.warn(f"{url} is fetched over plain http; anyone on the network path could change what is installed")
    pinned = commit or (ref if _COMMIT.match(ref) else "")
    command = [_git(), "clone", "--quiet"]
    if not pinned:
        command += ["--depth", "1"]
        if ref:
            command += ["--branch", ref]
    command += ["--", url, str(dest)]
    result = run_streamed(command, console, env=_env())
    if not result.ok:
        cause, fix = _explain(result.output, url)
        raise InstallError(f"cannot clone '{url}'", cause, fix)
    if pinned:
        # reset (not checkout) keeps the default branch checked out, so a later
        # 'update' can pull it fast-forward from the pinned commit.
        result = run_streamed([_git(), "-C", str(dest), "reset", "--quiet", "--hard", pinned], console, env=_env())
        if not result.ok:
            raise InstallError(f"cannot check out {pinned} of '{url}'", "the commit is not in the repository", "check the commit id, or install without pinning it")
    return head_commit(dest)


def head_commit(repo: Path) -> str:
    import subprocess

    result = subprocess.run([_git(), "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, env=_env())
    return result.stdout.strip() if result.returncode == 0 else ""


def pull_ff_only(repo: Path, console: Console, url: str) -> str:
    """Fast-forward ``repo`` to its upstream; return the new HEAD commit."""
    result = run_streamed([_git(), "-C", str(repo), "pull", "--quiet", "--ff-only"], console, env=_env())
    if not result.ok:
        if "not possible to fast-forward" in result.output or "Not possible to fast-forward" in result.output or "diverg" in result.output:
            raise InstallError(
                f"cannot update from '{url}'",
                "the upstream history was rewritten, so the local copy cannot be fast-forwarded",
                "remove the plugin and install it again",
            )
        if "not currently on a branch" in result.output or "detached" in result.output.lower():
            raise InstallError(f"cannot update from '{url}'", "the plugin is pinned to a commit, not on a branch", "install it again with --ref BRANCH")
        cause, fix = _explain(result.output, url)
        raise InstallError(f"cannot update from '{url}'", cause, fix)
    return head_commit(repo)
