"""The meaning stage's verdicts kept on disk, so a process that renders memory does not embed every entry again.

Every ``hermes memory show`` and every session start is a new process that scans each MEMORY.md and USER.md entry.
The other detectors take about a millisecond a note; the stage takes tens, and loading the encoder more. Its verdicts
are kept in ``$HERMES_HOME/cache/scanner-meaning.json``, keyed by the note's SHA-256 under a digest of the weights
and the encoder: new weights or another encoder start from nothing. The file holds the stage's verdicts only (the
other detectors always run), at most :data:`LIMIT` of them, oldest dropped first. Two processes that add verdicts at
once may lose one's additions: those notes are embedded again, nothing else. Each write first reads what other
processes kept since, so a long-lived process does not erase their verdicts.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path

from hermes_core.config import get_hermes_home
from hermes_core.errors import HermesError
from hermes_core.files import make_private_dirs, read_limited_bytes

from ..findings import FAMILIES

#: MEMORY.md and USER.md hold a few dozen entries; this keeps their verdicts with room for edits, and keeps the file
#: small, since each new verdict rewrites it.
LIMIT = 1024
#: Bytes read at most: LIMIT verdicts with spans of a few hundred characters fit many times over.
_FILE_LIMIT = 16 << 20
Verdict = tuple[str, str] | None  # (family, span) or clean

_loaded: dict[Path, dict[str, Verdict]] = {}
#: Scans run on several threads (hook workers, a delegated review): the verdicts are read and written under this lock.
_LOCK = threading.Lock()


def path() -> Path:
    return get_hermes_home() / "cache" / "scanner-meaning.json"


def key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read(file: Path, model: str) -> dict[str, Verdict]:
    try:
        stored = json.loads(read_limited_bytes(file, _FILE_LIMIT, what="scanner cache").decode("utf-8"))
    except (OSError, ValueError, HermesError):  # none yet, not a file, too big or damaged: start again (only a cache)
        return {}
    if not isinstance(stored, dict) or stored.get("model") != model or not isinstance(stored.get("verdicts"), dict):
        return {}
    verdicts: dict[str, Verdict] = {}
    for name, value in stored["verdicts"].items():
        if value is None:
            verdicts[name] = None
        elif isinstance(value, list) and len(value) == 2 and value[0] in FAMILIES and isinstance(value[1], str):
            verdicts[name] = (value[0], value[1])
    return verdicts


def _verdicts(model: str) -> tuple[Path, dict[str, Verdict]]:
    file = path()
    if file not in _loaded:
        _loaded[file] = _read(file, model)
    return file, _loaded[file]


def lookup(text: str, model: str) -> tuple[bool, Verdict]:
    """``(True, verdict)`` when the stage has judged ``text`` with this model before, else ``(False, None)``."""
    name = key(text)
    with _LOCK:
        _, verdicts = _verdicts(model)
        return (True, verdicts[name]) if name in verdicts else (False, None)


def store(text: str, model: str, verdict: Verdict) -> None:
    """Keep ``verdict`` for ``text``; a cache that cannot be written is left as it is (the scan does not fail)."""
    with _LOCK:
        file, known = _verdicts(model)
        # What other processes kept since this one read the file (a gateway runs for days beside CLI commands)
        # stays: without this re-read, each write of a long-lived process would erase all of theirs.
        verdicts = _loaded[file] = {**_read(file, model), **known}
        verdicts.pop(key(text), None)  # re-inserted last: the newest verdict is dropped last
        verdicts[key(text)] = verdict
        while len(verdicts) > LIMIT:
            del verdicts[next(iter(verdicts))]
        data = {"model": model, "verdicts": {name: None if v is None else list(v) for name, v in verdicts.items()}}
        try:  # ASCII JSON: a span with a lone surrogate (scan() takes any str) is kept escaped, not unwritable
            _replace(file, json.dumps(data))
        except (OSError, HermesError):
            pass


def _replace(file: Path, text: str) -> None:
    """Replace ``file`` with ``text`` through a temporary file and a rename, without fsync: a cache lost to a power
    cut is rebuilt, so a memory write pays no flush for it (its own two are the ones that keep the note)."""
    make_private_dirs(file.parent)
    handle, temporary = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)
    try:
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(text)
        os.chmod(temporary, 0o600)
        os.replace(temporary, file)
    except BaseException:
        os.unlink(temporary)
        raise
