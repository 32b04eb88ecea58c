"""Install a directory plugin: stage a copy inside ``$HERMES_HOME/plugins``, validate it, swap it in."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hermes_core._version import __version__
from hermes_core.discovery import read_directory_plugin, user_plugins_root
from hermes_core.distribution.checks import PluginInfo, plugin_target, read_directory_info, validate_source
from hermes_core.distribution.console import Console
from hermes_core.distribution.errors import InstallError
from hermes_core.files import make_private_dirs

#: Staging directories start with '.', which discovery skips, so a half-done install is never loaded.
STAGE_PREFIX = ".hermes-install-"
_NOT_COPIED = shutil.ignore_patterns("__pycache__", "*.pyc")


@dataclass
class StagedDirectory:
    """A validated copy waiting beside its final place; :meth:`commit` renames it into place."""

    plugin: PluginInfo
    stage_root: Path
    staged: Path
    target: Path
    created_root: Path | None

    @property
    def plugins(self) -> list[PluginInfo]:
        return [self.plugin]

    def commit(self) -> None:
        # Two renames in one directory: the old copy is never half replaced.
        previous = self.stage_root / ".previous"
        if self.target.exists():
            os.replace(self.target, previous)
        os.replace(self.staged, self.target)
        self.plugin.directory = self.target
        # the manifest was checked in the staging copy, which is gone now: name the file where it stays
        self.plugin.warnings = [w.replace(str(self.staged), str(self.target)) for w in self.plugin.warnings]
        shutil.rmtree(self.stage_root, ignore_errors=True)

    def rollback(self) -> None:
        _discard(self.stage_root, self.created_root)


def _discard(stage_root: Path, created_root: Path | None) -> None:
    shutil.rmtree(stage_root, ignore_errors=True)
    if created_root is not None:
        try:
            created_root.rmdir()
        except OSError:
            pass  # something else was put there meanwhile; leave it


def remove_group_and_other_write(tree: Path) -> None:
    """chmod go-w every directory and file of ``tree`` (links are left alone): code hermes runs is the owner's alone."""
    for path in (tree, *tree.rglob("*")):
        if path.is_symlink():
            continue
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o022:
            os.chmod(path, mode & ~0o022)


def make_bytecode_dirs_private(tree: Path) -> None:
    """Give every directory of ``tree`` that holds Python source an owner-only ``__pycache__``.

    Python creates that directory on first import with the mode the umask leaves (world-writable under umask 000),
    and bytecode planted there runs in place of the source. Made here, before anything imports the plugin, it is
    the owner's alone whatever the umask; Python then only adds files to it.
    """
    for package in {source.parent for source in tree.rglob("*.py")}:
        if ".git" in package.relative_to(tree).parts:
            continue
        try:
            make_private_dirs(package / "__pycache__")
        except PermissionError:
            continue  # a directory the plugin ships read-only: Python, running as the same user, cannot write there either


def _source_name(source: Path) -> str:
    candidate = read_directory_plugin(source, source="path", running_version=__version__)
    return candidate.name


def _copy(source: Path, dest: Path, *, keep_git: bool, subject: str) -> None:
    ignore = _NOT_COPIED if keep_git else shutil.ignore_patterns("__pycache__", "*.pyc", ".git")
    try:
        shutil.copytree(source, dest, symlinks=True, ignore=ignore)
    except shutil.Error as exc:  # one (source, destination, reason) per file it could not copy: a FIFO, a socket, no permission
        failures = [entry for entry in exc.args[0] if isinstance(entry, tuple) and len(entry) == 3] if exc.args else []
        if not failures:
            raise
        first, _, reason = failures[0]
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise InstallError(subject, f"{first} cannot be copied: {reason.replace(f'`{first}` ', '')}{more}",
                           "remove it from the plugin directory (a plugin holds regular files, directories and links)") from None


def carry_over_local_files(installed: Path, staged: Path) -> list[str]:
    """Copy the files made from ``*.example`` templates (the user's settings) into the new copy."""
    kept: list[str] = []
    for example in staged.rglob("*.example"):
        if ".git" in example.relative_to(staged).parts:
            continue
        real = example.with_suffix("")
        old = installed / real.relative_to(staged)
        if old.is_file() and not real.exists():
            shutil.copy2(old, real)
            kept.append(str(real.relative_to(staged)))
    return kept


def stage_directory(
    source: Path,
    home: Path,
    console: Console,
    *,
    subject: str,
    replace: bool,
    keep_git: bool = False,
    update_from: Path | None = None,
    prepare: Callable[[Path], None] | None = None,
) -> StagedDirectory:
    """Validate ``source``, copy it next to its final place and validate the copy.

    :param replace: an existing plugin of the same name may be replaced (``--force``, update).
    :param update_from: the installed copy whose local files are carried over.
    :param prepare: runs on the staged copy before it is validated (e.g. ``git pull``).
    """
    console.step("checking the plugin manifest")
    name = _source_name(source)
    root = user_plugins_root(home)
    target = plugin_target(root, name, subject)
    if prepare is None:
        validate_source(source, subject, required=True)
    if (target.exists() or target.is_symlink()) and not replace:
        raise InstallError(subject, f"a plugin named '{name}' is already installed at {target}", f"run 'hermes plugins update {name}', or install again with --force to replace it")
    created_root = None
    if not root.exists():
        make_private_dirs(root)  # plugins/ is 0700 whatever the umask
        created_root = root
    stage_root = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=root))
    try:
        staged = stage_root / name
        console.step(f"copying the plugin to {target}")
        _copy(source, staged, keep_git=keep_git, subject=subject)
        if update_from is not None and update_from.is_dir():
            for kept in carry_over_local_files(update_from, staged):
                console.step(f"kept your {kept}")
        if prepare is not None:
            prepare(staged)
        # A copy made under umask 000 (or of a world-writable tree, or files a pull added under it) would be refused
        # by discovery; done last, so it covers the carried-over settings and whatever prepare() wrote as well.
        remove_group_and_other_write(staged)
        make_bytecode_dirs_private(staged)
        plugin = read_directory_info(staged, subject)
    except BaseException:
        _discard(stage_root, created_root)
        raise
    return StagedDirectory(plugin, stage_root, staged, target, created_root)
