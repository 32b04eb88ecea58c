"""Crash-safe replacement of a file: temp file in the same directory, fsync, os.replace."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

#: Mode of a memory file created for the first time: it holds a profile of the user.
NEW_FILE_MODE = 0o600
#: Suffix of temp files; with :func:`temp_prefix` it identifies a killed writer's leftovers.
TEMP_SUFFIX = ".tmp"


def temp_prefix(path: Path) -> str:
    """The name prefix of ``path``'s temp files, so leftovers can be recognised."""
    return f".{path.name}."


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so a reader, or a crash at any instant, sees the old or the new file.

    The caller holds the file's lock: temp names are unique anyway, but leftovers are
    only cleaned up under the lock (see :func:`remove_stale_temps`).
    """
    data = text.encode("utf-8")
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    # Same directory, so os.replace is a rename within one filesystem and therefore atomic.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path), suffix=TEMP_SUFFIX)
    try:
        if mode != NEW_FILE_MODE:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        # The data must be on disk before the rename makes it the file; else a power cut can leave it empty.
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable; not every platform or filesystem allows opening a directory.
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temps(path: Path) -> int:
    """Delete temp files a killed writer left beside ``path``; call only while holding its lock."""
    removed = 0
    prefix = temp_prefix(path)
    try:
        names = os.listdir(path.parent)
    except FileNotFoundError:
        return 0
    for name in names:
        if name.startswith(prefix) and name.endswith(TEMP_SUFFIX):
            try:
                os.unlink(path.parent / name)
                removed += 1
            except FileNotFoundError:
                pass
    return removed
