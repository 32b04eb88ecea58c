"""Undo a pip run exactly: hard-link snapshots of the directories pip writes to, and what changed in them.

pip commits its own transaction as soon as it exits 0, but hermes only accepts an
install after the plugin's manifest passed validation. A snapshot taken before pip
runs lets a rejected install put every file back, including packages pip upgraded
or replaced. Hard links make the snapshot cheap: pip never writes into an existing
file, it removes it and writes a new one, so a link keeps the old content alive.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STASH_PREFIX = ".hermes-rollback-"

# ("d",) for directories, ("f", dev, inode) for files, ("l", target) for symlinks.
Entry = tuple[Any, ...]


def _target_paths() -> dict[str, str]:
    """The install scheme pip will use: this environment's, or the user's when it is not writable."""
    import sys

    paths = sysconfig.get_paths()
    in_venv = sys.prefix != sys.base_prefix
    if in_venv or os.access(paths["purelib"], os.W_OK):
        return paths
    # pip falls back to a --user install outside a venv when site-packages is read-only.
    return sysconfig.get_paths(scheme=f"{os.name}_user")


def install_roots() -> list[Path]:
    """The directories an install into this interpreter writes to: site-packages and scripts."""
    paths = _target_paths()
    roots: list[Path] = []
    for key in ("purelib", "platlib", "scripts"):
        path = Path(paths[key]).resolve()
        if not any(path == r or r in path.parents for r in roots):
            roots = [r for r in roots if path not in r.parents]
            roots.append(path)
    return roots


def site_dirs() -> list[Path]:
    """The site-packages directories distributions of this interpreter are installed in."""
    candidates = [sysconfig.get_paths()[k] for k in ("purelib", "platlib")]
    candidates += [_target_paths()[k] for k in ("purelib", "platlib")]
    return [p for p in dict.fromkeys(Path(c).resolve() for c in candidates) if p.is_dir()]


def _scan(root: Path) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        if base == root:
            dirnames[:] = [d for d in dirnames if not d.startswith(STASH_PREFIX)]
        for name in list(dirnames):
            full = base / name
            rel = str(full.relative_to(root))
            if full.is_symlink():
                entries[rel] = ("l", os.readlink(full))
                dirnames.remove(name)  # a linked directory is restored as the link, not walked
            else:
                entries[rel] = ("d",)
        for name in filenames:
            full = base / name
            rel = str(full.relative_to(root))
            if full.is_symlink():
                entries[rel] = ("l", os.readlink(full))
            else:
                info = full.lstat()
                entries[rel] = ("f", info.st_dev, info.st_ino)
    return entries


@dataclass
class _RootSnapshot:
    root: Path
    stash: Path
    #: ``None`` when the root did not exist: restoring then removes it if pip created it.
    entries: dict[str, Entry] | None


class SiteSnapshot:
    """The state of the install roots before pip ran; :meth:`restore` returns to it."""

    def __init__(self, roots: list[_RootSnapshot]) -> None:
        self._roots = roots

    @classmethod
    def capture(cls, roots: Iterable[Path] | None = None) -> SiteSnapshot:
        taken: list[_RootSnapshot] = []
        try:
            for root in install_roots() if roots is None else roots:
                root = Path(root).resolve()
                stash = Path(tempfile.mkdtemp(prefix=STASH_PREFIX, dir=_stash_parent(root)))
                entries = _scan(root) if root.is_dir() else None
                taken.append(_RootSnapshot(root, stash, entries))
                for rel, entry in (entries or {}).items():
                    if entry[0] == "f":
                        _keep(root / rel, stash / rel)
        except BaseException:
            for snapshot in taken:
                shutil.rmtree(snapshot.stash, ignore_errors=True)
            raise
        return cls(taken)

    def changed(self) -> list[Path]:
        """Top-level entries of the roots that were added or whose files changed since capture."""
        found: set[Path] = set()
        for snapshot in self._roots:
            now = _scan(snapshot.root) if snapshot.root.is_dir() else {}
            before = snapshot.entries or {}
            for rel in set(now) ^ set(before) | {r for r in now if now[r] != before.get(r)}:
                found.add(snapshot.root / Path(rel).parts[0])
        return sorted(found)

    def restore(self) -> None:
        """Put every root back exactly as it was at capture, then drop the snapshot."""
        for snapshot in self._roots:
            root, before = snapshot.root, snapshot.entries
            if before is None:
                shutil.rmtree(root, ignore_errors=True)
                continue
            now = _scan(root)
            # Deepest first, so a directory is empty of new things when it is looked at.
            for rel in sorted(now, key=lambda r: r.count(os.sep), reverse=True):
                if before.get(rel) == now[rel] or (now[rel][0] == "d" and before.get(rel, ("",))[0] == "d"):
                    continue
                path = root / rel
                if now[rel][0] == "d":
                    shutil.rmtree(path, ignore_errors=True)
                elif path.is_symlink() or path.exists():
                    path.unlink()
            for rel in sorted(before, key=lambda r: r.count(os.sep)):
                path = root / rel
                if os.path.lexists(path):
                    continue
                entry = before[rel]
                if entry[0] == "d":
                    path.mkdir(parents=True, exist_ok=True)
                elif entry[0] == "l":
                    path.parent.mkdir(parents=True, exist_ok=True)
                    os.symlink(entry[1], path)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    _keep(snapshot.stash / rel, path)
        self.discard()

    def discard(self) -> None:
        """Forget the snapshot (the install is accepted)."""
        for snapshot in self._roots:
            shutil.rmtree(snapshot.stash, ignore_errors=True)
        self._roots = []


def _stash_parent(root: Path) -> Path:
    # Beside the root, so hard links stay on one file system; the system temp dir otherwise.
    parent = root.parent
    return parent if parent.is_dir() and os.access(parent, os.W_OK) else Path(tempfile.gettempdir())


def _keep(source: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)  # another file system, or links not allowed
