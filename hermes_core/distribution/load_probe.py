"""``hermes plugins doctor --load``: import the enabled plugins in a separate process.

Importing a plugin runs its code, which may raise, hang, call ``os._exit`` or crash the
interpreter. The doctor must survive all of that, so the imports happen in a child process
(``python -m hermes_core.distribution.load_probe HOME REPORT [SKIP ...]``). The child writes
one JSON line to REPORT before and after each plugin; when it dies or overruns, the plugin
it started last is the one to blame, and a new child goes on with the plugins after it.

The time limit is per plugin: it runs from the child's last line, so a slow start of the
interpreter (a loaded machine) or many plugins never make one of them look hung. The child's
own start, before any plugin code runs, gets at least DEFAULT_LOAD_TIMEOUT.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_core.errors import HermesError
from hermes_core.plugin_candidate import command_word

#: Seconds importing and registering one plugin may take (each hang costs at most this once).
DEFAULT_LOAD_TIMEOUT = 60.0
#: How often a running child's report is looked at for progress.
_POLL_SECONDS = 0.05


@dataclass(frozen=True)
class LoadResult:
    """How importing and registering one plugin went; ``error`` is ``None`` when it loaded."""

    key: str
    error: str | None
    fix: str = ""
    #: (cause, fix) of each hook callback that loaded but can never run: an argument its hook never passes, or a
    #: hook name nothing calls.
    dead_hooks: tuple[tuple[str, str], ...] = ()


def probe(home: Path, timeout: float = DEFAULT_LOAD_TIMEOUT, skip: frozenset[str] = frozenset()) -> dict[str, LoadResult]:
    """Load every enabled plugin of ``home`` but those in ``skip`` in child processes; return the result per plugin key."""
    results: dict[str, LoadResult] = {}
    with tempfile.TemporaryDirectory(prefix="hermes-doctor-") as scratch:
        for attempt in range(1000):  # every round settles at least one plugin, so this ends
            report = Path(scratch) / f"report-{attempt}.jsonl"
            outcome, stderr = _run_child(home, report, sorted(skip | set(results)), timeout)
            started: str | None = None
            for line in _read_lines(report):
                if "start" in line:
                    started = line["start"]
                elif "key" in line:
                    started = None
                    dead = tuple((str(c), str(f)) for c, f in line.get("dead_hooks") or ())
                    results[line["key"]] = LoadResult(line["key"], line.get("error"), line.get("fix", ""), dead)
                elif "done" in line:
                    return results
            if started is None:  # died before or between plugins: nothing left to blame
                if outcome is not None:
                    raise HermesError(
                        f"the process loading the plugins {outcome} before loading any plugin: "
                        f"{stderr.strip()[-300:] or 'no message'} -> run 'hermes --debug plugins list --load' to see why"
                    )
                return results
            results[started] = LoadResult(
                started,
                f"importing or registering the plugin {outcome or 'ended the process'}",
                f"run 'hermes --debug plugins list --load' to see where it stops; fix the plugin or disable it: "
                f"'hermes plugins disable {command_word(started)}'",
            )
    return results


def _run_child(home: Path, report: Path, skip: list[str], timeout: float) -> tuple[str | None, str]:
    """Run one child; return what went wrong with it (``None`` if it finished) and its stderr."""
    command = [sys.executable, "-m", "hermes_core.distribution.load_probe", str(home), str(report), *skip]
    env = dict(os.environ, HERMES_HOME=str(home))
    env.pop("HERMES_STRICT_PLUGINS", None)  # every failure is recorded, not raised
    errors = report.with_suffix(".stderr")  # a file, not a pipe: a chatty plugin cannot fill it and stall
    with open(errors, "wb") as stderr_file:
        child = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr_file)
        hung = _wait_while_progressing(child, report, timeout)
    stderr = errors.read_bytes().decode("utf-8", "replace")
    if hung:
        return f"did not finish within {timeout:g} s (the plugin may hang on import)", stderr
    if child.returncode < 0:
        return f"crashed the process (signal {-child.returncode})", stderr
    if child.returncode != 0:
        return f"ended the process with exit status {child.returncode}", stderr
    return None, stderr


def _wait_while_progressing(child: subprocess.Popen[bytes], report: Path, timeout: float) -> bool:
    """Wait for ``child``; kill it and return True once ``timeout`` passes without a new report line."""
    size = 0
    deadline = time.monotonic() + max(timeout, DEFAULT_LOAD_TIMEOUT)  # the child's start: no plugin code yet
    while True:
        try:
            child.wait(timeout=_POLL_SECONDS)
            return False
        except subprocess.TimeoutExpired:
            pass
        grown = report.stat().st_size if report.exists() else 0
        if grown != size:
            size, deadline = grown, time.monotonic() + timeout
        elif time.monotonic() >= deadline:
            child.kill()
            child.wait()
            return True


def _read_lines(report: Path) -> list[dict[str, str]]:
    try:
        text = report.read_text(encoding="utf-8")
    except OSError:
        return []
    lines = []
    for raw in text.splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            break  # a line cut short by the crash
    return lines


def _dead_hooks(record: Any) -> list[tuple[str, str]]:
    """What of a loaded plugin's ``ctx.register_hook`` callbacks can never run, each as (cause, fix)."""
    import difflib

    from hermes_core import hookspecs
    from hermes_core.hooks.signatures import UNMET_ARGUMENTS_FIX

    staged = record.registrations
    dead = [(f"{why}, so it is never called", UNMET_ARGUMENTS_FIX) for _hook, _callback, why in staged.uncallable_hooks]
    for hook, callback in staged.hooks:
        if hook in hookspecs.HOOK_NAMES or hook in hookspecs.KNOWN_EXTRA_HOOKS:
            continue
        close = difflib.get_close_matches(hook, (*hookspecs.HOOK_NAMES, *hookspecs.KNOWN_EXTRA_HOOKS), n=1)
        if not close:  # a name of the plugin's own (fired between its plugins, kept for a later release): not a typo
            continue
        dead.append((f"the callback {getattr(callback, '__name__', callback)!r} is registered for {hook!r}, which hermes never calls",
                     f"register it for {close[0]!r}"))
    return dead


def _child(home: Path, report: Path, skip: set[str]) -> None:
    import logging

    from hermes_core.manager import PluginManager

    logging.disable(logging.CRITICAL)  # failures are reported through REPORT, not as log lines
    manager = PluginManager(home, strict=False)
    # the file is opened before any plugin runs, so a plugin closing fds or redirecting stdout cannot hide it
    fd = os.open(report, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def write(line: dict[str, str | None]) -> None:
        os.write(fd, (json.dumps(line) + "\n").encode("utf-8"))

    for record in manager.discover():
        if not record.enabled or record.key in skip or record.candidate.problems:
            continue  # refused plugins are reported by the checks that need no import
        write({"start": record.key})
        manager.load(record.key)
        cause, _, own_fix = (record.error or "").partition(" -> ")  # a cause that names its own fix keeps it first
        disable = f"disable it: 'hermes plugins disable {command_word(record.key)}'"
        fix = (f"{own_fix}; or {disable}" if own_fix else f"fix the plugin, or {disable}") if record.error else ""
        write({"key": record.key, "error": cause if not record.loaded else None, "fix": fix,
               "dead_hooks": _dead_hooks(record) if record.loaded else []})
    write({"done": "1"})
    os._exit(0)  # no plugin shutdown code or atexit handler can change the verdict now


if __name__ == "__main__":
    _child(Path(sys.argv[1]), Path(sys.argv[2]), set(sys.argv[3:]))
