"""Remember which installed distributions declare hermes entry points, so listing plugins skips the scan.

Asking ``importlib.metadata`` costs about 30 ms on every command that lists plugins: importing it
pulls in the email parser, and a scan opens every installed distribution's metadata. The answer
only changes when distributions are installed, removed or edited, so it is stored under
``$HERMES_HOME/cache`` with a fingerprint of what it was computed from:

- every ``sys.path`` entry and its modification time (installing or removing a distribution adds
  or removes a ``*.dist-info`` folder there, which changes the folder's time);
- the ``entry_points.txt`` of every distribution that contributed, with its time and size (an
  editable install rewritten in place).

Any difference, an unreadable file or ``HERMES_NO_PARSE_CACHE=1`` scans again. A fingerprint
with a time less than a second old is not stored: file systems stamp times from a coarse clock,
so a change within the same tick would leave the time as it was (git's "racy" rule). An
``entry_points.txt`` edited by hand inside an unrelated distribution, without touching its folder,
is the one change this does not see until the next install in that folder.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from hermes_core.plugin_candidate import EntryPointRef

CACHE_FILE_NAME = "entry-points.json"
_FORMAT = 1

Fingerprint = list[list[Any]]


def _stat_key(path: str) -> list[Any]:
    try:
        info = os.stat(path)
    except OSError:
        return [path, None, None]
    return [path, info.st_mtime_ns, info.st_size if not os.path.isdir(path) else None]


def path_fingerprint(paths: Iterable[str]) -> Fingerprint:
    """Each import path with its modification time (and size for a file such as a zip)."""
    return [_stat_key(os.path.abspath(entry) if entry else os.getcwd()) for entry in paths]


#: Times closer than this to "now" may still change without moving (coarse file-system clock).
RACY_NS = 1_000_000_000


def _is_racy(rows: Iterable[list[Any]], now_ns: int) -> bool:
    return any(row[1] is not None and row[1] > now_ns - RACY_NS for row in rows)


def _refs_from_json(rows: list[list[str]]) -> list[EntryPointRef]:
    return [EntryPointRef(*row) for row in rows]


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == _FORMAT else None


def cached_entry_points(
    cache_path: Path | None,
    scan: Callable[[], Iterator[tuple[EntryPointRef, str | None]]],
    *,
    paths: list[str] | None = None,
) -> list[EntryPointRef]:
    """The entry points *scan* would find, from the cache file when nothing they came from changed.

    *scan* yields each reference with the path of the ``entry_points.txt`` it came from (or None).
    """
    paths = list(sys.path) if paths is None else paths
    fingerprint = path_fingerprint(paths)
    if cache_path is not None:
        data = _read(cache_path)
        if data is not None and data.get("paths") == fingerprint:
            files = data.get("files", [])
            try:
                if all(_stat_key(row[0]) == row for row in files):
                    return _refs_from_json(data["refs"])
            except (TypeError, IndexError, KeyError):
                pass
    found = list(scan())
    refs = [ref for ref, _ in found]
    if cache_path is not None:
        files = [_stat_key(source) for source in sorted({source for _, source in found if source})]
        if _is_racy([*fingerprint, *files], time.time_ns()):
            return refs
        record = {
            "format": _FORMAT,
            "paths": fingerprint,
            "files": files,
            "refs": [[r.group, r.name, r.value, r.distribution, r.version] for r in refs],
        }
        from hermes_core.config import atomic_write_text

        try:
            atomic_write_text(cache_path, json.dumps(record), mode=0o600)
        except OSError:
            pass  # a read-only home only costs speed
    return refs
