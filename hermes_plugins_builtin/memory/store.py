"""One memory file on disk: lock-free reads, and read-modify-write under an exclusive lock."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from filelock import FileLock, Timeout

from hermes_core.errors import HermesError
from hermes_core.files import make_private_dirs

from .atomic import atomic_write, remove_stale_temps
from .entries import join_entries, parse_entries
from .operations import EditError

T = TypeVar("T")


class MemoryFileError(EditError, HermesError):
    """A memory file (or its directory or lock) cannot be read or written: a directory in its place, permissions, a full disk.

    An :class:`EditError`, so the tool answers it like any refused edit instead of logging a traceback:
    the cause is on the user's disk, not in the code; and a HermesError, so a command that reads
    the files (``hermes memory show``) reports it as one line through the provider contract.
    """


def file_error(path: Path, exc: OSError, doing: str) -> MemoryFileError:
    """The error for ``exc`` raised while doing ``doing`` to ``path``: the file, the cause, the fix."""
    cause = exc.strerror or type(exc).__name__
    if isinstance(exc, IsADirectoryError):
        fix = f"move the directory aside (mv '{path}' '{path}.bak'); the file is created again by the next write"
    elif isinstance(exc, (NotADirectoryError, FileExistsError)):
        fix = f"'{path.parent}' must be a directory: move the file of that name aside"
    elif isinstance(exc, PermissionError):
        fix = f"give your user access: chmod u+rw '{path}' and chmod u+rwx '{path.parent}'"
    else:
        fix = "check the file and its disk (free space, mount), then try again"
    return MemoryFileError(f"{path}: cannot {doing} ({cause}) -> {fix}")


#: Far above any memory file (a few thousand characters, a few hundred KB when a limit was lowered by hand).
MAX_FILE_BYTES = 16 << 20

#: How long a write waits for another process's write before giving up with an error.
LOCK_TIMEOUT = 10.0
# filelock polls a held lock; its default 50 ms would idle most of the time between writes that take ~1 ms.
_LOCK_POLL_INTERVAL = 0.0005


class MemoryFile:
    """``MEMORY.md`` or ``USER.md``: entries read from it, edits applied under ``<name>.lock``."""

    def __init__(self, path: Path, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.path = path
        #: A separate file: the data file is replaced on every write, so it cannot carry the lock itself.
        self.lock_path = path.with_name(path.name + ".lock")
        # mode 0600 whatever the umask: the lock sits beside the user's profile
        self._file_lock = FileLock(self.lock_path, timeout=lock_timeout, mode=0o600, poll_interval=_LOCK_POLL_INTERVAL)
        # Threads of one process queue here first, so they do not poll the file lock against each other.
        self._thread_lock = threading.Lock()

    def _read_bytes(self) -> bytes | None:
        """The file's bytes, ``None`` when there is none. A FIFO would block the read forever and a device
        (a link to /dev/zero) would never end, so what is not a regular file or a directory (which the
        read names) is refused, and so is a file far larger than any memory file."""
        try:
            info = os.stat(self.path)
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)) or info.st_size > MAX_FILE_BYTES:
                what = (f"{info.st_size:,} bytes, where a memory file holds a few thousand characters" if stat.S_ISREG(info.st_mode)
                        else "a FIFO, not a regular file" if stat.S_ISFIFO(info.st_mode) else "a device or socket, not a regular file")
                raise MemoryFileError(f"{self.path}: cannot read it ({what}) -> move it aside (mv '{self.path}' '{self.path}.bak'); "
                                      "the file is created again by the next write")
            return self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise file_error(self.path, exc, "read it") from exc

    def read(self) -> list[str]:
        """The entries on disk. No lock needed: writes replace the file whole, so a read sees one version."""
        data = self._read_bytes()
        return [] if data is None else parse_entries(data.decode("utf-8", errors="replace"))

    def _read_for_edit(self) -> list[str]:
        """The entries, read strictly: an edit rewrites the whole file, so bytes that are not UTF-8 would come
        back as U+FFFD and the original would be lost for good. Such a file is refused, left as it is."""
        data = self._read_bytes()
        if data is None:
            return []
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MemoryFileError(
                f"{self.path}: cannot edit it (not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}; "
                "an edit would replace what cannot be read) -> convert it to UTF-8 (e.g. with iconv) or move it "
                "aside; it was not changed"
            ) from None
        return parse_entries(text)

    def update(self, change: Callable[[list[str]], tuple[list[str] | None, T]]) -> T:
        """Run ``change(current_entries)`` under the lock; write the entries it returns (``None``: no write).

        The entries are read again after the lock is taken, so an edit made by another
        process since this one last looked is never lost.
        """
        try:
            make_private_dirs(self.path.parent)  # memories/ is 0700 whatever the umask
        except OSError as exc:
            raise file_error(self.path, exc, "create its directory") from exc
        with self._thread_lock:
            try:
                self._file_lock.acquire()
            except Timeout:
                raise EditError(
                    f"{self.path.name} is locked by another process (waited {self._file_lock.timeout:g} s) -> try again once that write is done"
                ) from None
            except OSError as exc:
                raise file_error(self.lock_path, exc, "create this lock file") from exc
            try:
                try:
                    remove_stale_temps(self.path)
                except OSError as exc:
                    # the fix concerns the leftover (a directory of a temp file's name, say), not the memory file
                    leftover = Path(exc.filename or self.path.parent)
                    raise file_error(leftover, exc, "remove this leftover of an interrupted write") from exc
                new_entries, result = change(self._read_for_edit())
                if new_entries is not None:
                    try:
                        atomic_write(self.path, join_entries(new_entries))
                    except OSError as exc:
                        raise file_error(self.path, exc, "write it") from exc
                return result
            finally:
                self._file_lock.release()
