"""``$HERMES_HOME/plugins.lock``: every plugin hermes installed, pinned, so ``install -r`` can restore them.

The file is JSON with sorted keys, one entry per install, written atomically::

    {"lock_version": 1, "plugins": {"weather": {"spec": "hermes-weather", "source": "index",
     "layout": "package", "distribution": "hermes-weather", "version": "0.3.1", ...}}}

Cheap to import: ``hermes plugins list`` reads it to show where plugins came from.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from hermes_core.errors import HermesError

LOCK_FILE_NAME = "plugins.lock"
LOCK_VERSION = 1


@dataclass
class LockEntry:
    """One installed plugin source: what was asked for and what it resolved to."""

    #: The primary plugin key (the first entry point, or the directory plugin's name).
    key: str
    #: The SPEC as the user gave it.
    spec: str
    #: ``index``, ``path`` or ``git``.
    source: str
    #: ``package`` (installed with pip) or ``directory`` (copied into $HERMES_HOME/plugins).
    layout: str
    version: str = ""
    distribution: str = ""
    #: The absolute path or the clone URL (empty for the index).
    location: str = ""
    subdir: str = ""
    ref: str = ""
    commit: str = ""
    #: Every plugin key the install provides (a distribution may declare several).
    plugins: list[str] = field(default_factory=list)

    def pinned(self) -> str:
        """A short description of what is pinned: ``==0.3.1``, ``@1a2b3c4``."""
        if self.commit:
            return f"@{self.commit[:7]}"
        return f"=={self.version}" if self.version else ""

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("key")
        return data

    def provides(self, name: str) -> bool:
        """Whether ``name`` is this entry's key, one of its plugins, or its distribution."""
        from hermes_core.distribution.specs import canonical_name

        if name == self.key or name in self.plugins:
            return True
        return bool(self.distribution) and canonical_name(name) == canonical_name(self.distribution)


def lock_path(home: Path) -> Path:
    return home / LOCK_FILE_NAME


def read_lock(path: Path) -> dict[str, LockEntry]:
    """Read a lock file; a missing file is an empty lock. Raises HermesError for a damaged one."""
    from hermes_core.files import UnreadableFileError, read_limited_text

    try:  # a regular UTF-8 file of bounded size; a FIFO or a device would block or fill memory
        text = read_limited_text(path, 16 << 20, what="plugins.lock")
    except FileNotFoundError:
        return {}
    except UnreadableFileError as exc:
        raise HermesError(f"{exc}, or restore plugins.lock from a backup") from None
    return parse_lock(text, path)


def parse_lock(text: str, path: Path) -> dict[str, LockEntry]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HermesError(f"{path}: not a plugins.lock (invalid JSON: {exc}) -> restore it from a backup or delete it") from exc
    if not isinstance(data, dict) or not isinstance(data.get("plugins"), dict):
        raise HermesError(f"{path}: not a plugins.lock (no 'plugins' mapping) -> restore it from a backup or delete it")
    version = data.get("lock_version", 1)  # the first format had no version field
    if not isinstance(version, int) or isinstance(version, bool):
        raise HermesError(f"{path}: lock_version {version!r} is not a whole number -> restore it from a backup or delete it")
    if version > LOCK_VERSION:
        raise HermesError(f"{path}: lock_version {version!r} is newer than this hermes understands ({LOCK_VERSION}) -> upgrade hermes")
    known = {f.name for f in fields(LockEntry)} - {"key"}
    entries: dict[str, LockEntry] = {}
    for key, raw in sorted(data["plugins"].items()):
        if not isinstance(raw, dict) or not isinstance(raw.get("spec"), str):
            raise HermesError(f"{path}: the entry {key!r} has no 'spec' -> remove the entry, or install the plugin again")
        values = {k: v for k, v in raw.items() if k in known}
        values.setdefault("source", "index")
        values.setdefault("layout", "package")
        values["plugins"] = [str(p) for p in values.get("plugins") or [key]]
        entries[key] = LockEntry(key=key, **values)
    return entries


def looks_like_lock(text: str) -> bool:
    """Whether an ``-r`` file is a plugins.lock rather than a list of SPECs."""
    return text.lstrip().startswith("{")


def record_entry(entries: dict[str, LockEntry], entry: LockEntry) -> dict[str, LockEntry]:
    """``entries`` with ``entry`` in place of every entry it supersedes: the same key, a plugin key
    in common, or the same distribution (whose plugin key may have changed since)."""
    kept = {
        key: old
        for key, old in entries.items()
        if not (old.key == entry.key or set(old.plugins) & set(entry.plugins) or (entry.distribution and old.distribution == entry.distribution))
    }
    kept[entry.key] = entry
    return kept


def write_lock(path: Path, entries: dict[str, LockEntry]) -> None:
    from hermes_core.config import atomic_write_text

    data = {"lock_version": LOCK_VERSION, "plugins": {key: entries[key].as_dict() for key in sorted(entries)}}
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def find_entry(entries: dict[str, LockEntry], name: str) -> LockEntry | None:
    if name in entries:
        return entries[name]
    matches = [e for e in entries.values() if e.provides(name)]
    return matches[0] if len(matches) == 1 else None


def install_info(home: Path) -> dict[str, dict[str, str]]:
    """For ``hermes plugins list``: plugin key -> where it was installed from and what is pinned.

    A damaged lock stops the commands that write it; listing goes on without it, with one
    warning on stderr (stdout may be JSON a script reads).
    """
    import sys

    try:
        entries = read_lock(lock_path(home))
    except HermesError as exc:
        print(f"warning: {exc}", file=sys.stderr)
        return {}
    info: dict[str, dict[str, str]] = {}
    for entry in entries.values():
        summary = {
            "source": entry.source,
            "spec": entry.spec,
            "version": entry.version,
            "commit": entry.commit,
            "pinned": entry.pinned(),
        }
        for key in entry.plugins or [entry.key]:
            info[key] = summary
    return info
