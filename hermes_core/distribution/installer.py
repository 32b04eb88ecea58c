"""``hermes plugins install``: SPEC -> fetch -> stage (pip or copy) -> validate -> env -> commit -> lock.

Every install is a transaction: until the staged plugin passed validation and the
required environment was asked for, nothing the user owns has changed; on any
failure (or Ctrl-C) site-packages and ``$HERMES_HOME`` are put back as they were.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Union

from hermes_core.discovery import user_plugins_root
from hermes_core.distribution import postinstall
from hermes_core.distribution.checks import PluginInfo
from hermes_core.distribution.console import Console
from hermes_core.distribution.directory_install import StagedDirectory, stage_directory
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.lockfile import LockEntry, find_entry, lock_path, looks_like_lock, parse_lock, read_lock, record_entry, write_lock
from hermes_core.distribution.package_install import StagedPackage, install_package
from hermes_core.distribution.pip_runner import PipOptions
from hermes_core.distribution.sources import Fetched, fetch
from hermes_core.distribution.specs import PluginSpec, canonical_name, parse_spec, spec_from_lines
from hermes_core.errors import HermesError, split_cause_and_fix

Staged = Union[StagedPackage, StagedDirectory]


@dataclass
class InstallOptions:
    """What ``install`` and ``update`` were told on the command line."""

    force: bool = False
    #: ``True``/``False`` from --enable/--no-enable; ``None`` asks on a terminal, else leaves it off.
    enable: bool | None = None
    env: dict[str, str] = field(default_factory=dict)
    pip: PipOptions = field(default_factory=PipOptions)
    #: ``False`` with --no-input: never read answers from standard input.
    interactive: bool = True


@dataclass
class Outcome:
    """What one install or update did."""

    entry: LockEntry
    #: Whether files changed (``False`` when pip found the requirement already satisfied).
    changed: bool
    plugins: list[PluginInfo] = field(default_factory=list)


class Installer:
    """Installs, restores and updates plugins into this interpreter and ``home``."""

    def __init__(self, home: Path, console: Console, options: InstallOptions | None = None) -> None:
        self.home = home
        self.console = console
        self.options = options or InstallOptions()

    @property
    def lock_file(self) -> Path:
        return lock_path(self.home)

    # -- install --------------------------------------------------------------

    def _may_ask(self) -> bool:
        return self.options.interactive and sys.stdin.isatty()

    def preflight(self, subject: str) -> None:
        """Check what the install will write after its commit, so it fails before anything changed.

        ``--env`` values must be storable in .env, and config.yaml must be editable when the
        plugin may be turned on (--enable, or a question on a terminal).
        """
        from hermes_core.config import check_env_value

        checks: list[Callable[[], None]] = [partial(check_env_value, name, value) for name, value in self.options.env.items()]
        if self.options.enable or (self.options.enable is None and self._may_ask()):
            checks.append(partial(postinstall.check_config_editable, self.home))
        for check in checks:
            try:
                check()
            except HermesError as exc:
                cause, fix = split_cause_and_fix(str(exc))
                raise InstallError(subject, cause, fix.rstrip(".") or "fix it and try again") from exc

    def install(self, text: str, *, ref: str = "") -> Outcome:
        spec = parse_spec(text, ref=ref)
        self.preflight(f"cannot install '{spec.text}'")
        entries = read_lock(self.lock_file)  # a damaged lock stops us before anything changes
        existing = find_entry(entries, spec.text) or (find_entry(entries, spec.distribution) if spec.distribution else None)
        if existing is not None and not self.options.force:
            raise InstallError(
                f"cannot install '{spec.text}'",
                f"it is already installed as '{existing.key}' {existing.pinned()}".rstrip(),
                f"run 'hermes plugins update {existing.key}', or install again with --force",
                rolled_back=False,
            )
        outcome = self.install_spec(spec, upgrade=self.options.force, replace=self.options.force)
        self._enable(outcome)
        postinstall.show_after_install(outcome.plugins, self.console)
        return outcome

    def install_spec(
        self,
        spec: PluginSpec,
        *,
        commit: str = "",
        record_spec: str = "",
        upgrade: bool = False,
        replace: bool = False,
        announce: bool = True,
    ) -> Outcome:
        """Fetch, stage, validate and commit one SPEC; record it in the lock as ``record_spec`` (default: as given)."""
        subject = f"cannot install '{spec.text}'"
        entries = read_lock(self.lock_file)
        self.console.step(f"installing '{spec.text}' ({spec.kind}{', ' + spec.location if spec.kind == 'git' else ''})")
        with tempfile.TemporaryDirectory(prefix="hermes-install-") as workdir:
            fetched = fetch(spec, Path(workdir), self.console, commit=commit)
            if fetched.layout == "package":
                staged: Staged = install_package(fetched, self.console, self.options.pip, upgrade=upgrade, subject=subject)
            else:
                staged = stage_directory(
                    Path(fetched.target),
                    self.home,
                    self.console,
                    subject=subject,
                    replace=replace,
                    keep_git=fetched.keeps_git,
                )
            return self.finish(staged, fetched, entries, record_spec=record_spec or spec.text, announce=announce)

    def finish(self, staged: Staged, fetched: Fetched, entries: dict[str, LockEntry], *, record_spec: str, announce: bool = True) -> Outcome:
        """Ask for the environment, then commit the staged plugin and record it."""
        try:
            values = postinstall.collect_env(staged.plugins, self.options.env, self.home, self.console, interactive=self.options.interactive)
        except BaseException:
            staged.rollback()
            raise
        staged.commit()
        postinstall.save_env(self.home, values)
        if isinstance(staged, StagedDirectory):
            for created in postinstall.copy_examples(staged.target):
                self.console.info(f"created {created} from {created}.example; edit it to configure the plugin")
        entry = self._entry(staged, fetched, record_spec)
        write_lock(self.lock_file, record_entry(entries, entry))
        for plugin in staged.plugins:
            for warning in plugin.warnings:
                self.console.warn(warning)
        changed = staged.modified if isinstance(staged, StagedPackage) else True
        if announce:
            self.console.info(self._summary(entry, staged))
        return Outcome(entry, changed, list(staged.plugins))

    def _entry(self, staged: Staged, fetched: Fetched, record_spec: str) -> LockEntry:
        spec = fetched.spec
        keys = [p.key for p in staged.plugins]
        if isinstance(staged, StagedPackage):
            assert staged.dist is not None
            version, distribution = staged.dist.version, canonical_name(staged.dist.name)
        else:
            version, distribution = staged.plugin.version, ""
        return LockEntry(
            key=keys[0],
            spec=record_spec,
            source=spec.source,
            layout=fetched.layout,
            version=version,
            distribution=distribution,
            location="" if spec.kind == "requirement" else spec.location,
            subdir=spec.subdir,
            ref=spec.ref,
            commit=fetched.commit,
            plugins=keys,
        )

    def _summary(self, entry: LockEntry, staged: Staged) -> str:
        what = f"directory {staged.target}" if isinstance(staged, StagedDirectory) else f"package {entry.distribution}"
        origin = "via pip" if entry.source == "index" else f"from {entry.location}" + (f" at {entry.commit[:12]}" if entry.commit else "")
        plugins = ", ".join(f"'{p.key}' {entry.version} ({p.kind})" for p in staged.plugins)
        return f"installed {plugins}: {what} {origin}; recorded in {self.lock_file}"

    def _enable(self, outcome: Outcome, *, ask: bool = True) -> None:
        plugins = outcome.plugins
        decision = self.options.enable
        if decision is None and ask and self._may_ask():
            answer = input(f"Enable {', '.join(p.key for p in plugins)} now? [Y/n] ").strip().lower()
            decision = answer in {"", "y", "yes"}
        if decision:
            postinstall.enable_plugins(self.home, plugins, self.console)
            postinstall.check_loads(self.home, plugins, self.console)
        elif decision is None and ask:
            for plugin in plugins:
                self.console.info(f"'{plugin.key}' is installed but off; turn it on with '{plugin.turn_on_command}'")

    # -- restore (-r) ---------------------------------------------------------

    def install_from_file(self, path: Path, progress: Callable[[int, int], None] | None = None) -> list[Outcome]:
        """Install every SPEC of a plain list, or restore every entry of a plugins.lock.

        ``progress(done, total)`` is told after each entry (the CLI draws it).
        """
        from hermes_core.files import read_limited_text

        try:  # a regular file of at most 1 MiB: a FIFO or a device would block or fill memory
            text = read_limited_text(path, 1 << 20, what="list given to -r")
        except FileNotFoundError:
            raise HermesError(f"{path}: cannot be read (no such file) -> check the path given to -r") from None
        self.preflight(f"cannot install from {path}")
        outcomes: list[Outcome] = []
        failures: list[str] = []
        jobs: list[tuple[str, Callable[[], Outcome | None]]]
        if looks_like_lock(text):
            jobs = [(entry.key, partial(self.restore_entry, entry)) for entry in parse_lock(text, path).values()]
        else:
            jobs = [(line, partial(self.install, line)) for line in spec_from_lines(text)]
        for done, (label, job) in enumerate(jobs, 1):
            try:
                outcome = job()
            except HermesError as exc:
                self.console.warn(f"{label}: {exc}")
                failures.append(f"'{label}' ({exc})")
                continue
            finally:
                if progress is not None:
                    progress(done, len(jobs))
            if outcome is not None:
                outcomes.append(outcome)
        if failures:
            raise HermesError(
                f"{len(failures)} of {len(jobs)} plugin(s) from {path} could not be installed: {'; '.join(failures)} "
                f"-> fix those causes and run 'hermes plugins install -r {path}' again (the others are installed)"
            )
        return outcomes

    def restore_entry(self, entry: LockEntry) -> Outcome | None:
        """Install one lock entry at its pinned version or commit, unless it is already there."""
        present = installed_copy(entry, self.home)
        if present:
            self.console.info(f"'{entry.key}' is already installed ({present})")
            return None
        outcome = self.install_spec(pinned_spec(entry), commit=entry.commit, record_spec=entry.spec, upgrade=True, replace=True)
        # config.yaml (kept with $HERMES_HOME) already says what is on; only --enable changes it.
        self._enable(outcome, ask=False)
        return outcome


def installed_copy(entry: LockEntry, home: Path) -> str:
    """What already satisfies ``entry`` here, described for the user, or ``""`` when it must be installed.

    A package counts only at the pinned version (another version is replaced by the pinned one); a
    directory plugin counts whatever its version, since it may hold the user's edits.
    """
    if entry.layout == "package":
        from hermes_core.distribution.distributions import find_installed
        from hermes_core.distribution.site_snapshot import site_dirs

        present = find_installed(entry.distribution, site_dirs()) if entry.distribution else None
        return f"{entry.distribution} {entry.version}" if present is not None and present.version == entry.version else ""
    directory = user_plugins_root(home) / entry.key
    return str(directory) if directory.is_dir() else ""


def pinned_spec(entry: LockEntry) -> PluginSpec:
    """The SPEC that reinstalls exactly what ``entry`` recorded."""
    if entry.source == "index":
        if not entry.distribution:
            raise InstallError(f"cannot restore '{entry.key}'", "its lock entry names no distribution", "install it again by name")
        requirement = f"{entry.distribution}=={entry.version}" if entry.version else entry.distribution
        return PluginSpec(entry.spec, "requirement", requirement, distribution=entry.distribution)
    if entry.source == "git":
        return PluginSpec(entry.spec, "git", entry.location, entry.subdir, entry.ref)
    if not Path(entry.location).exists():
        raise InstallError(f"cannot restore '{entry.key}'", f"it was installed from {entry.location}, which no longer exists", "install it again from where it is now")
    return parse_spec(entry.location)


def remove_tree(path: Path) -> None:
    """Delete a directory plugin (or just the link, if it is one)."""
    if path.is_symlink():
        path.unlink()
    else:
        shutil.rmtree(path)
