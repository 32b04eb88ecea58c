"""``hermes plugins update`` and ``remove``: act on what plugins.lock (or discovery) says is installed."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from hermes_core._version import __version__
from hermes_core.discovery import PluginCandidate, discover_plugins, user_plugins_root
from hermes_core.plugin_candidate import normal_name
from hermes_core.distribution import git_source, postinstall
from hermes_core.distribution.checks import plugin_name_check, plugin_target
from hermes_core.distribution.directory_install import stage_directory
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.installer import Installer, Outcome, remove_tree
from hermes_core.distribution.lockfile import LockEntry, find_entry, read_lock, write_lock
from hermes_core.distribution.sources import Fetched, fetch
from hermes_core.distribution.specs import PluginSpec, canonical_name, parse_spec
from hermes_core.errors import HermesError, split_cause_and_fix


def _discovered(home: Path) -> list[PluginCandidate]:
    # No manifest cache: a failed command must leave $HERMES_HOME exactly as it was.
    return discover_plugins(home, running_version=__version__, use_cache=False).candidates


def _find_candidate(home: Path, name: str) -> PluginCandidate | None:
    candidates = _discovered(home)
    for candidate in candidates:
        if name in {candidate.key, candidate.name}:
            return candidate
    wanted = canonical_name(name)
    by_dist = [c for c in candidates if c.entry_point and canonical_name(c.entry_point.distribution) == wanted]
    return by_dist[0] if len(by_dist) == 1 else None


def _unknown(home: Path, name: str, entries: dict[str, LockEntry]) -> HermesError:
    import difflib

    removable = [c.key for c in _discovered(home) if c.source not in {"builtin", "bundled"}]
    known = list(dict.fromkeys([*entries, *removable]))
    close = difflib.get_close_matches(name, known, n=3)
    hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
    return HermesError(f"no installed plugin named {name!r}{hint} -> 'hermes plugins list' shows every plugin found")


def entry_for(home: Path, name: str, entries: dict[str, LockEntry]) -> LockEntry:
    """The lock entry of ``name``, or one made up from discovery for plugins installed by hand."""
    name = normal_name(name)  # keys are compared in NFC (plugin_candidate.normal_name)
    entry = find_entry(entries, name)
    if entry is not None:
        return entry
    candidate = _find_candidate(home, name)
    if candidate is None:
        raise _unknown(home, name, entries)
    if candidate.source == "builtin":
        raise HermesError(f"'{candidate.key}' is a builtin plugin; it ships with hermes and is always on -> upgrade hermes to update it")
    if candidate.source == "bundled":
        raise HermesError(f"'{candidate.key}' is a bundled plugin; it ships with hermes -> upgrade hermes to update it, or disable it with 'hermes plugins disable {candidate.key}'")
    if candidate.source == "project":
        raise HermesError(f"'{candidate.key}' is a project plugin in {candidate.path} -> it belongs to the project; change or delete it there")
    if candidate.entry_point is not None:
        dist = candidate.entry_point.distribution
        return LockEntry(candidate.key, dist, "index", "package", candidate.version, canonical_name(dist), plugins=[candidate.key])
    directory = Path(candidate.path)
    if (directory / ".git").is_dir():
        url = _origin(directory)
        return LockEntry(candidate.key, url, "git", "directory", candidate.version, location=url, commit=git_source.head_commit(directory), plugins=[candidate.key])
    return LockEntry(candidate.key, str(directory), "manual", "directory", candidate.version, location=str(directory), plugins=[candidate.key])


def _origin(directory: Path) -> str:
    import subprocess

    result = subprocess.run(["git", "-C", str(directory), "remote", "get-url", "origin"], capture_output=True, text=True)
    return result.stdout.strip()


# --- update ----------------------------------------------------------------------


def update(installer: Installer, name: str) -> Outcome:
    """Bring one plugin to the newest version its SPEC allows; the old one stays on any failure."""
    home, console = installer.home, installer.console
    entries = read_lock(installer.lock_file)
    entry = entry_for(home, name, entries)
    console.step(f"updating '{entry.key}' ({entry.source}{', ' + entry.location if entry.location else ''})")
    if entry.source == "manual":
        raise HermesError(f"'{entry.key}' in {entry.location} was not installed with 'hermes plugins install' -> update its files by hand, or install it again with --force from its source")
    subject = f"cannot update '{entry.key}'"
    try:
        if entry.layout == "package":
            outcome = installer.install_spec(_update_spec(entry), record_spec=entry.spec, upgrade=True, replace=True, announce=False)
        else:
            outcome = _update_directory(installer, entry, entries)
    except InstallError as exc:
        # The steps an update shares with install (clone, pip, checks) name their own action;
        # the user asked for an update, and that is what failed.
        if exc.subject == subject:
            raise
        raise InstallError(subject, exc.cause, exc.fix, rolled_back=exc.rolled_back) from exc
    except HermesError as exc:  # e.g. the recorded path is gone: nothing was started
        raise HermesError(f"{subject}: {exc}") from exc
    console.info(_update_report(entry, outcome))
    return outcome


def _describe(entry: LockEntry) -> str:
    return entry.version + (f" @{entry.commit[:7]}" if entry.commit else "")


def _update_report(before: LockEntry, outcome: Outcome) -> str:
    after = outcome.entry
    if (after.commit and after.commit != before.commit) or after.version != before.version:
        return f"updated '{before.key}': {_describe(before)} -> {_describe(after)}"
    if outcome.changed and not after.commit and before.source == "path":
        return f"reinstalled '{before.key}' from {after.location} (same version, {after.version})"
    pinned = " (its SPEC pins this version)" if "==" in before.spec else ""
    return f"'{before.key}' is up to date ({_describe(after)}){pinned}"


def _update_spec(entry: LockEntry) -> PluginSpec:
    if entry.source == "index":
        return parse_spec(entry.spec)
    if entry.source == "git":
        return PluginSpec(entry.spec, "git", entry.location, entry.subdir, entry.ref)
    return parse_spec(entry.location)


def _update_directory(installer: Installer, entry: LockEntry, entries: dict[str, LockEntry]) -> Outcome:
    home, console = installer.home, installer.console
    subject = f"cannot update '{entry.key}'"
    installed = plugin_target(user_plugins_root(home), entry.key, subject)
    if entry.source == "git" and (installed / ".git").is_dir():
        # Pull into a staged copy: a failed pull or an invalid new version leaves the plugin untouched.
        spec = PluginSpec(entry.spec, "git", entry.location, entry.subdir, entry.ref)
        commits: list[str] = []

        def pull(staged: Path) -> None:
            commits.append(git_source.pull_ff_only(staged, console, entry.location))

        staged = stage_directory(installed, home, console, subject=subject, replace=True, keep_git=True, prepare=pull)
        fetched = Fetched(spec, "directory", str(installed), commit=commits[0] if commits else "", keeps_git=True)
        return installer.finish(staged, fetched, entries, record_spec=entry.spec, announce=False)
    spec = _update_spec(entry)
    with tempfile.TemporaryDirectory(prefix="hermes-update-") as workdir:
        fetched = fetch(spec, Path(workdir), console)
        if fetched.layout != "directory":
            raise InstallError(subject, f"{spec.location} is now a Python package, not a directory plugin", f"run 'hermes plugins remove {entry.key}' and install it again")
        staged = stage_directory(Path(fetched.target), home, console, subject=subject, replace=True, keep_git=fetched.keeps_git, update_from=installed)
        return installer.finish(staged, fetched, entries, record_spec=entry.spec, announce=False)


def update_all(installer: Installer) -> list[Outcome]:
    entries = read_lock(installer.lock_file)
    if not entries:
        installer.console.info(f"no plugins recorded in {installer.lock_file}; nothing to update")
        return []
    outcomes, failures = [], []
    for key in sorted(entries):
        try:
            outcomes.append(update(installer, key))
        except HermesError as exc:
            installer.console.warn(f"{key}: {exc}")
            failures.append(f"'{key}' ({exc})")
    if failures:
        raise HermesError(f"{len(failures)} of {len(entries)} plugin(s) could not be updated: {'; '.join(failures)} -> the others were updated; fix those causes and run 'hermes plugins update' for each")
    return outcomes


# --- remove ----------------------------------------------------------------------


def _plugin_directory(home: Path, entry: LockEntry, subject: str) -> Path:
    """The path of a directory plugin in $HERMES_HOME/plugins, not resolved: it may be a link."""
    root = user_plugins_root(home)
    if entry.source == "manual" and entry.location and root in Path(entry.location).parents:
        target = Path(entry.location)  # where discovery found it, e.g. plugins/<category>/<name>
    else:
        plugin_name_check(entry.key, subject)
        target = root / entry.key
    # The plugin itself may be a link (only the link is removed), but the directories leading to
    # it must really be inside the plugins directory: no '..', no linked category directory.
    inside = root.resolve()
    parent = target.parent.resolve()
    if ".." in target.parts or (parent != inside and inside not in parent.parents):
        raise InstallError(
            subject,
            f"{target} is not inside {root} once links and '..' are resolved (it leads to {parent / target.name})",
            f"delete it yourself if you mean to, then remove its entry from {home / 'plugins.lock'}",
        )
    return target


def remove(installer: Installer, name: str, *, confirm_delete: Callable[[Path], bool] | None = None) -> LockEntry | None:
    """Uninstall a package plugin or delete a directory plugin; drop its config and lock entries.

    A directory plugin that ``plugins.lock`` does not record was put there by hand, so it may be the only copy of the
    author's work: it is deleted only when ``confirm_delete(directory)`` says yes (``None`` if it says no: nothing is
    removed), and refused when there is nobody to ask (``confirm_delete`` is ``None``).
    """
    from hermes_core.distribution.distributions import find_installed
    from hermes_core.distribution.pip_runner import PipOptions, PipRunner, explain_failure
    from hermes_core.distribution.site_snapshot import site_dirs

    home, console = installer.home, installer.console
    entries = read_lock(installer.lock_file)
    entry = entry_for(home, name, entries)
    subject = f"cannot remove '{entry.key}'"
    try:  # config.yaml is edited last: one it cannot edit must stop the removal before anything is deleted
        postinstall.check_config_editable(home)
    except HermesError as exc:
        cause, fix = split_cause_and_fix(str(exc))
        raise InstallError(subject, cause, fix.rstrip(".") or "fix it and try again") from exc
    if entry.layout == "package":
        present = find_installed(entry.distribution, site_dirs()) if entry.distribution else None
        if present is None:
            console.warn(f"the distribution '{entry.distribution}' is not installed in this environment; forgetting '{entry.key}'")
        else:
            console.step(f"uninstalling {present.name} {present.version}")
            result = PipRunner(console).uninstall([present.name])
            if not result.ok:
                console.replay_tail()
                cause, fix = explain_failure(result.output, PipOptions())
                raise InstallError(subject, cause, fix)
    else:
        target = _plugin_directory(home, entry, subject)
        if target.is_symlink():
            # A linked plugin (e.g. a checkout being developed) belongs to whoever linked it:
            # only the link goes, never what it points to.
            console.step(f"unlinking {target} (it points to {os.readlink(target)}, which is kept)")
            target.unlink()
        elif target.exists():
            if find_entry(entries, entry.key) is None:
                if confirm_delete is None:
                    raise InstallError(
                        subject,
                        f"{target} was not installed by 'hermes plugins install' (plugins.lock has no record of it), so it may be the only copy",
                        f"move it out of {target.parent} yourself, or run 'hermes plugins remove {entry.key} --yes' to delete it",
                    )
                if not confirm_delete(target):
                    return None
            console.step(f"deleting {target}")
            remove_tree(target)
        else:
            console.warn(f"{target} does not exist; forgetting '{entry.key}'")
    changed = postinstall.forget_plugins(home, {entry.key, *entry.plugins})
    if entry.key in entries:
        del entries[entry.key]
        write_lock(installer.lock_file, entries)
    suffix = f"; removed {', '.join(changed)} from config.yaml" if changed else ""
    console.info(f"removed '{entry.key}'{suffix}")
    return entry
