"""pip (or uv) as a subprocess of the host's own interpreter, output streamed, failures explained."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hermes_core.distribution.console import Console
from hermes_core.distribution.errors import InstallError

# pip's default index, named in messages when neither --index-url nor PIP_INDEX_URL says otherwise.
DEFAULT_INDEX = "https://pypi.org/simple"

_NETWORK_PATTERNS = (
    "Failed to establish a new connection",
    "NewConnectionError",
    "Connection refused",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "ConnectTimeoutError",
    "Read timed out",
    "ProxyError",
    "SSLError",
    "Could not fetch URL",
    "error sending request",
    "Failed to fetch",
)
_CONFLICT_PATTERNS = ("ResolutionImpossible", "conflicting dependencies", "No solution found when resolving")
_BUILD_PATTERNS = ("metadata-generation-failed", "Failed to build", "subprocess-exited-with-error", "Failed to prepare distributions")


@dataclass(frozen=True)
class PipOptions:
    """Where pip looks for packages and how it builds them; passed through as given."""

    index_url: str = ""
    find_links: tuple[str, ...] = ()
    no_index: bool = False
    no_build_isolation: bool = False

    def args(self) -> list[str]:
        args: list[str] = []
        if self.index_url:
            args += ["--index-url", self.index_url]
        for link in self.find_links:
            args += ["--find-links", link]
        if self.no_index:
            args.append("--no-index")
        if self.no_build_isolation:
            args.append("--no-build-isolation")
        return args

    def index_label(self, env: Mapping[str, str]) -> str:
        if self.no_index:
            links = ", ".join(self.find_links) or "no location"
            return f"the local package directories ({links})"
        return f"the package index {self.index_url or env.get('PIP_INDEX_URL') or DEFAULT_INDEX}"


@dataclass(frozen=True)
class PipResult:
    returncode: int
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run_streamed(command: Sequence[str], console: Console, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> PipResult:
    """Run ``command``, echoing each output line as it arrives; return its exit code and output."""
    lines: list[str] = []
    try:
        process = subprocess.Popen(
            list(command),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            bufsize=1,
            env=dict(env) if env is not None else None,
            cwd=cwd,
        )
    except OSError as exc:
        return PipResult(127, f"cannot run {command[0]}: {exc.strerror}")
    assert process.stdout is not None
    with process.stdout:
        for line in process.stdout:
            console.stream(line)
            lines.append(line)
    return PipResult(process.wait(), "".join(lines))


class PipRunner:
    """Runs ``python -m pip`` for the interpreter hermes runs in (``uv pip`` when pip is absent)."""

    def __init__(self, console: Console, *, python: str | None = None) -> None:
        self.console = console
        self.python = python or sys.executable
        self._base: list[str] | None = None
        self._uv = False

    @property
    def base_command(self) -> list[str]:
        """The installer command: pip of this interpreter, else uv pointed at it."""
        if self._base is None:
            self._base = self._detect()
        return self._base

    @property
    def is_uv(self) -> bool:
        _ = self.base_command  # detection sets the flag
        return self._uv

    def _detect(self) -> list[str]:
        import importlib.util

        has_pip = importlib.util.find_spec("pip") is not None if self.python == sys.executable else _can_import_pip(self.python)
        if has_pip:
            return [self.python, "-m", "pip"]
        uv = shutil.which("uv")
        if uv:
            self._uv = True
            return [uv, "pip"]
        raise InstallError(
            "cannot install packages",
            f"pip is not installed for {self.python}, and uv is not on PATH",
            f"run '{self.python} -m ensurepip', or install uv",
            rolled_back=False,
        )

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        # pip must never stop to ask for a password or a confirmation: nobody may be there to answer.
        env.setdefault("PIP_NO_INPUT", "1")
        env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        if self.is_uv:
            env.setdefault("UV_NO_PROGRESS", "1")
        return env

    def install(self, targets: Sequence[str], options: PipOptions, *, upgrade: bool = False) -> PipResult:
        command = [*self.base_command, "install"]
        if self.is_uv:
            command += ["--python", self.python]
        else:
            command += ["--progress-bar", "off"]
        if upgrade:
            command.append("--upgrade")
        command += options.args()
        command += list(targets)
        return run_streamed(command, self.console, env=self._env())

    def uninstall(self, distributions: Sequence[str]) -> PipResult:
        command = [*self.base_command, "uninstall"]
        command += ["--python", self.python] if self.is_uv else ["--yes"]
        return run_streamed([*command, *distributions], self.console, env=self._env())


def _can_import_pip(python: str) -> bool:
    result = subprocess.run([python, "-c", "import pip"], capture_output=True)
    return result.returncode == 0


def _last_error_line(output: str) -> str:
    errors = [line.strip() for line in output.splitlines() if line.strip().startswith(("ERROR:", "error:"))]
    if errors:
        message = errors[-1].split(":", 1)[1].strip()
        if message.rstrip(":") not in {"", "Exception"}:
            return message
    # "ERROR: Exception:" opens the traceback of pip itself: its last line names what went wrong
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return _EXCEPTION_PATH.sub("", lines[-1]) if lines else "no output"


#: ``pip._vendor.tomli.TOMLDecodeError: ...`` -> ``TOMLDecodeError: ...``
_EXCEPTION_PATH = re.compile(r"^(?:[A-Za-z_]\w*\.)+(?=\w+(?:Error|Exception)\b)")


def index_unreachable(options: PipOptions, env: Mapping[str, str]) -> bool:
    """Whether a TCP connection to the index host fails (pip only logs this with -v when it does not retry)."""
    import socket
    from urllib.parse import urlsplit

    if options.no_index:
        return False
    url = urlsplit(options.index_url or env.get("PIP_INDEX_URL") or DEFAULT_INDEX)
    if url.scheme not in {"http", "https"} or not url.hostname:
        return False
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=5):
            return False
    except OSError:
        return True


def explain_failure(output: str, options: PipOptions, env: Mapping[str, str] | None = None) -> tuple[str, str]:
    """Turn pip's (or uv's) output into one cause and one fix."""
    env = os.environ if env is None else env
    where = options.index_label(env)
    found_nothing = "(from versions: none)" in output
    if any(p in output for p in _NETWORK_PATTERNS) or (found_nothing and index_unreachable(options, env)):
        return (
            f"pip could not reach {where} (network failure)",
            "check the network connection and proxy settings, or install from a local wheel or with "
            "'--no-index --find-links DIR'",
        )
    if any(p in output for p in _CONFLICT_PATTERNS):
        causes = re.findall(r"^\s*(\S.* depends on .+)$", output, re.MULTILINE)
        detail = f" ({'; '.join(c.strip() for c in causes[:4])})" if causes else ""
        return (
            f"pip found no set of versions that satisfies every requirement (a dependency conflict){detail}",
            "loosen the plugin's requirements, or upgrade or remove the package it conflicts with; pip's explanation is above",
        )
    missing = re.search(r"No matching distribution found for (\S+)", output) or re.search(r"Because (\S+) was not found", output)
    if missing:
        requirement = missing.group(1)
        versions = re.search(rf"requirement {re.escape(requirement)} \(from versions: ([^)]*)\)", output)
        found = versions.group(1).strip() if versions else ""
        seen = f"; available: {found}" if found and found != "none" else ""
        return (
            f"no package matching '{requirement}' was found on {where}{seen}",
            "check the name and the version constraint, or point pip at the right place with --index-url or --find-links",
        )
    toml = re.search(r"TOMLDecodeError: (.+)", output)
    if toml:
        return (
            f"the project's pyproject.toml is not valid TOML: {toml.group(1).strip()}",
            "fix pyproject.toml at that line and column, then install again",
        )
    if any(p in output for p in _BUILD_PATTERNS):
        return (
            f"pip could not build the package: {_last_error_line(output)}",
            "fix the project's build (see pip's output above); for a local project without network access add "
            "'--no-build-isolation'",
        )
    if "Permission denied" in output or "[Errno 13]" in output:
        return (
            f"pip has no permission to write to the environment of {sys.executable}",
            "run hermes as the owner of that environment, or install hermes into a virtual environment",
        )
    return (f"pip failed: {_last_error_line(output)}", "see pip's output above")
