"""What keeps mem0 trouble out of the turn and keeps writes from being lost.

- :class:`CircuitBreaker`: after N consecutive failures, calls are skipped for a cooldown.
- :class:`Outbox`: writes that could not be made wait in ``$HERMES_HOME/mem0/pending.jsonl`` (in
  order, across restarts) and are retried; after ``max_attempts`` they move to ``failed.jsonl`` and
  stay listed by ``hermes memory status``.
- :class:`StatusFile`: the last error, kept in ``state.json`` so another process (status) can show it.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

logger = logging.getLogger("hermes.plugins.memory.mem0")


class CircuitBreaker:
    """Closed -> open after ``threshold`` consecutive failures; half-open once ``cooldown`` passed."""

    def __init__(self, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._failures = 0
        self._open_until = 0.0
        self._lock = threading.Lock()

    @property
    def failures(self) -> int:
        return self._failures

    def allows(self) -> bool:
        with self._lock:
            return self._failures < self.threshold or self._clock() >= self._open_until

    def seconds_left(self) -> float:
        with self._lock:
            if self._failures < self.threshold:
                return 0.0
            return max(self._open_until - self._clock(), 0.0)

    def succeeded(self) -> None:
        with self._lock:
            self._failures = 0

    def failed(self) -> bool:
        """Count a failure; ``True`` when this one opened the breaker."""
        with self._lock:
            self._failures += 1
            if self._failures < self.threshold:
                return False
            reopened = self._failures == self.threshold or self._clock() >= self._open_until
            self._open_until = self._clock() + self.cooldown
            return reopened


def _atomic_write(path: Path, text: str) -> None:
    from hermes_core.config import atomic_write_text

    atomic_write_text(path, text, mode=0o600)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            logger.warning("%s line %d is not JSON and is skipped", path, number)
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    if not records:
        path.unlink(missing_ok=True)
        return
    _atomic_write(path, "".join(_jsonl_line(r) for r in records))


def _jsonl_line(record: dict[str, Any]) -> str:
    """One record, its text readable as written; escaped when it holds a lone surrogate (bytes that were
    not UTF-8, as from a terminal), which UTF-8 cannot hold: JSON's escape keeps it, and the write."""
    line = json.dumps(record, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(record)
    return line + "\n"


class Outbox:
    """Writes waiting to be made, in order; one lock guards both files."""

    def __init__(self, directory: Path, max_attempts: int) -> None:
        self.directory = directory
        self.pending_path = directory / "pending.jsonl"
        self.failed_path = directory / "failed.jsonl"
        self.max_attempts = max_attempts
        self._thread_lock = threading.RLock()
        self._file_lock: Any = None

    @contextmanager
    def _lock(self) -> Iterator[None]:
        """Threads of this process, then other hermes processes sharing the home (a second chat, status)."""
        with self._thread_lock:
            if self._file_lock is None:
                from filelock import FileLock

                self.directory.mkdir(parents=True, exist_ok=True)
                self._file_lock = FileLock(str(self.directory / "outbox.lock"), timeout=120)
            with self._file_lock:
                yield

    def pending(self) -> list[dict[str, Any]]:
        with self._lock():
            return _read_jsonl(self.pending_path)

    def failed(self) -> list[dict[str, Any]]:
        with self._lock():
            return _read_jsonl(self.failed_path)

    def put(self, write: dict[str, Any], error: str) -> bool:
        """Queue ``write`` with the cause; ``False`` when even the queue file cannot be written."""
        record = dict(write, attempts=int(write.get("attempts", 0)), error=error, queued_at=write.get("queued_at") or time.time())
        try:
            with self._lock():
                _write_jsonl(self.pending_path, _read_jsonl(self.pending_path) + [record])
            return True
        except OSError as exc:  # filelock's Timeout is an OSError too
            logger.error("mem0: a write could not be made (%s) nor queued in %s (%s); it is lost: %.200s", error, self.pending_path, exc, json.dumps(write))
            return False

    def replay(self, make: Callable[[dict[str, Any]], None], allowed: Callable[[], bool]) -> tuple[int, str]:
        """Retry queued writes in order until one fails; returns (made, last error)."""
        with self._lock():
            records = _read_jsonl(self.pending_path)
            made, error = 0, ""
            while records and allowed():
                record = records[0]
                try:
                    make(record)
                except Exception as exc:  # the backend's errors are many; each is a reason to keep the write
                    error = f"{type(exc).__name__}: {exc}"
                    record["attempts"] = int(record.get("attempts", 0)) + 1
                    record["error"] = error
                    if record["attempts"] >= self.max_attempts:
                        try:
                            _write_jsonl(self.failed_path, _read_jsonl(self.failed_path) + [record])
                        except OSError as exc:
                            # it stays first in line, and the writes made before it are not made twice
                            logger.error("mem0: cannot move a write given up after %d attempts to %s (%s); it stays queued", record["attempts"], self.failed_path, exc)
                            break
                        records.pop(0)
                        logger.error("mem0: giving up on a write after %d attempts (%s); kept in %s", record["attempts"], error, self.failed_path)
                        continue
                    break
                records.pop(0)
                made += 1
            try:
                _write_jsonl(self.pending_path, records)
            except OSError as exc:
                logger.error("mem0: cannot update %s: %s", self.pending_path, exc)
            return made, error


class StatusFile:
    """``state.json``: the last error and when, for ``hermes memory status`` in another process."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "state.json"

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def record_error(self, operation: str, message: str) -> None:
        self._update(last_error={"operation": operation, "message": message, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})

    def record_success(self) -> None:
        self._update(last_success_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

    def _update(self, **fields: Any) -> None:
        data = self.read()
        data.update(fields)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(self.path, json.dumps(data, indent=2) + "\n")
        except OSError as exc:  # status bookkeeping must never break a turn
            logger.debug("mem0: cannot write %s: %s", self.path, exc)
