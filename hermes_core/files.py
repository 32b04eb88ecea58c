"""How hermes creates, replaces and reads its own files, whatever the umask and whatever sits at a path.

- Directories hermes creates (HERMES_HOME, memories/, plugins/, cache/) are 0700.
- New files are 0600 (secrets, memory, caches) or 0644 (what others may read); a file
  that already exists keeps the mode its owner gave it.
- A replacement is atomic: readers and crashes see the old or the new file, never half.
- A file that is a symbolic link (a dotfiles checkout linked into HERMES_HOME) stays one: its target is replaced.
- Reads of files others can write (config.yaml, plugin.yaml, imports) refuse FIFOs,
  devices and directories, and stop at a size limit instead of filling memory.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from hermes_core.errors import HermesError

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
SHARED_FILE_MODE = 0o644
#: Suffix of temp files, so a killed writer's leftovers can be recognised (``.<name>.<random>.tmp``).
TEMP_SUFFIX = ".tmp"


class UnreadableFileError(HermesError):
    """A file hermes was asked to read is not a regular file, is too large, or is not UTF-8."""


def temp_prefix(path: Path) -> str:
    """The name prefix of ``path``'s temp files."""
    return f".{path.name}."


def make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and missing parents with mode 0700, whatever the umask.

    Only directories created here are chmod-ed: an existing one keeps the mode its owner chose.
    """
    missing: list[Path] = []
    current = directory
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=PRIVATE_DIR_MODE)
        except FileExistsError:
            if not path.is_dir():
                raise
            continue
        # mkdir's mode is masked by the umask; chmod is not
        os.chmod(path, PRIVATE_DIR_MODE)
    if not directory.is_dir():
        raise NotADirectoryError(20, "Not a directory", str(directory))


def atomic_write_bytes(path: Path, data: bytes, *, new_mode: int = SHARED_FILE_MODE, exact_mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically (temp file in the same directory, fsync, rename).

    An existing file keeps its mode (a user's chmod 600 survives); a new one gets ``new_mode``,
    regardless of the umask. ``exact_mode`` is for files that must be private whatever was there
    before (exported transcripts). Missing parent directories are created 0700. Without ``exact_mode``,
    a symbolic link is written through: its target is replaced and the link stays.
    """
    import tempfile  # deferred: only writers need it

    if exact_mode is not None:
        mode = exact_mode
    else:
        path = _link_target(path)
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = new_mode
    make_private_dirs(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path), suffix=TEMP_SUFFIX)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        # the data must be on disk before the rename makes it the file, or a power cut can leave it empty
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


def _link_target(path: Path) -> Path:
    """Where a write to ``path`` goes: a symbolic link is written through, so it stays a link.

    Users keep config.yaml, .env or MEMORY.md in a dotfiles repository and link them into
    $HERMES_HOME; renaming the temp file over the link would cut it, and the linked file would
    silently stop receiving changes. (Exports pass ``exact_mode`` and replace what is there.)
    """
    if not os.path.islink(path):
        return path
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"it is a symbolic link to {target}, whose directory does not exist", str(path))
    if target.exists() and not target.is_file():
        # a link to /dev/null or a FIFO: renaming a file over that would replace a device for the whole machine
        raise OSError(errno.EINVAL, f"it is a symbolic link to {target}, which is not a regular file", str(path))
    return target


def atomic_write_text(path: Path, text: str, *, new_mode: int = SHARED_FILE_MODE, exact_mode: int | None = None) -> None:
    """:func:`atomic_write_bytes` of ``text`` as UTF-8; text that cannot be UTF-8 never reaches the disk."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise HermesError(
            f"{path}: not written, the text holds {_describe_bad_char(text, exc)} which is not valid UTF-8 "
            "-> give the value as UTF-8 text"
        ) from exc
    atomic_write_bytes(path, data, new_mode=new_mode, exact_mode=exact_mode)


def _fsync_directory(directory: Path) -> None:
    # makes the rename itself durable; not every platform or filesystem allows opening a directory
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


def _describe_bad_char(text: str, exc: UnicodeEncodeError) -> str:
    char = text[exc.start]
    code = ord(char)
    # a byte that was not UTF-8 on the command line arrives as U+DC80..U+DCFF (surrogateescape)
    if 0xDC80 <= code <= 0xDCFF:
        return f"the byte 0x{code - 0xDC00:02x} at position {exc.start}"
    return f"the lone surrogate U+{code:04X} at position {exc.start}"


def check_utf8(text: str, what: str, fix: str = "give it as UTF-8 text") -> None:
    """Raise HermesError naming ``what`` unless ``text`` can be written as UTF-8.

    Command-line bytes that are not UTF-8 and lone surrogates from an API both fail here.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise HermesError(f"{what} holds {_describe_bad_char(text, exc)}, which is not valid UTF-8 -> {fix}") from None


def read_limited_bytes(path: Path, limit: int, *, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, refusing FIFOs, devices, directories and files over ``limit``.

    :raises FileNotFoundError: when ``path`` does not exist (callers decide what missing means).
    :raises UnreadableFileError: for anything else that keeps it from being read.
    """
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not hang before fstat can refuse it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise UnreadableFileError(f"{path}: the {what} is a directory -> give the path of a file") from None
    except NotADirectoryError:
        raise UnreadableFileError(f"{path}: a part of this path is a file, not a directory -> check the path") from None
    except OSError as exc:
        raise UnreadableFileError(f"{path}: the {what} cannot be opened ({exc.strerror}) -> check the path and its permissions") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableFileError(f"{path}: the {what} is a directory -> give the path of a file")
        if not stat.S_ISREG(info.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device or socket"
            raise UnreadableFileError(f"{path}: the {what} is {kind}, not a regular file -> give the path of a regular file")
        if info.st_size > limit:
            raise UnreadableFileError(
                f"{path}: the {what} is {info.st_size:,} bytes, over the limit of {limit:,} -> use a smaller file"
            )
        chunks: list[bytes] = []
        size = 0
        while True:  # a file can grow while it is read: the limit holds for what is actually read
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise UnreadableFileError(f"{path}: the {what} is over the limit of {limit:,} bytes -> use a smaller file")
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableFileError(f"{path}: the {what} cannot be read ({exc.strerror}) -> check the path and its permissions") from None
    finally:
        os.close(fd)


def read_stdin_text(limit: int, *, what: str) -> str:
    """Standard input as UTF-8 text, for a file argument of ``-``: at most ``limit`` bytes, a leading BOM dropped.

    :raises UnreadableFileError: over the limit, or not UTF-8 (naming the line, as for a file).
    """
    import sys

    stream = sys.stdin
    if stream is None:
        raise UnreadableFileError(f"'-' reads the {what} from standard input, and there is none -> pipe it in, or give a file name")
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin (an embedding host, a test)
        data = stream.read(limit + 1).encode("utf-8", "surrogateescape")
    else:
        data = buffer.read(limit + 1)
    if len(data) > limit:
        raise UnreadableFileError(f"-: the {what} on standard input is over the limit of {limit:,} bytes -> give less, or a file")
    return _utf8_text(data, "-", f"the {what} on standard input")


def read_limited_text(path: Path, limit: int, *, what: str = "file") -> str:
    """:func:`read_limited_bytes` decoded as UTF-8 (a leading byte-order mark is dropped)."""
    return _utf8_text(read_limited_bytes(path, limit, what=what), str(path), f"the {what}")


def _utf8_text(data: bytes, where: str, subject: str) -> str:
    """``data`` as UTF-8 (a leading byte-order mark dropped), or an error naming the line and the byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UnreadableFileError(
            f"{where}:{line}: {subject} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}) "
            "-> convert it to UTF-8 (e.g. with iconv)"
        ) from None
