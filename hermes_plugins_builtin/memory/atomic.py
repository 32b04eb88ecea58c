"""Crash-safe replacement of a file: temp file in the same directory, fsync, os.replace."""

from __future__ import annotations

import os
from pathlib import Path

# the host's writer names its temp files .<name>.<random>.tmp; these identify a killed writer's leftovers
from hermes_core.files import TEMP_SUFFIX, temp_prefix

#: Mode of a memory file created for the first time: it holds a profile of the user.
NEW_FILE_MODE = 0o600


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so a reader, or a crash at any instant, sees the old or the new file.

    The host's one atomic writer (hermes_core.files): an existing file keeps its mode, a new
    one is 0600. The caller holds the file's lock: temp names are unique anyway, but leftovers
    are only cleaned up under the lock (see :func:`remove_stale_temps`).
    """
    from hermes_core.files import atomic_write_text

    atomic_write_text(path, text, new_mode=NEW_FILE_MODE)


def remove_stale_temps(path: Path) -> None:
    """Delete temp files a killed writer left beside ``path``; call only while holding its lock.

    An ``OSError`` names the leftover in ``filename`` (a directory of a temp file's name cannot be unlinked).
    """
    prefix = temp_prefix(path)
    try:
        names = os.listdir(path.parent)
    except FileNotFoundError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith(TEMP_SUFFIX):
            try:
                os.unlink(path.parent / name)
            except FileNotFoundError:
                pass
