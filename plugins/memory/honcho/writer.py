"""Writes to Honcho: writeFrequency modes, chunking, retries, and a journal of writes that failed.

- ``async``: a background thread sends each turn in order; drained at session end and shutdown.
- ``turn``: each turn is sent before ``sync_turn`` returns.
- ``session``: turns are kept and sent together when the session ends.
- ``N``: turns are kept and sent every N turns (and at session end).

A send that fails is retried (network faults, 429, 5xx); one that still fails is written to
``$HERMES_HOME/honcho/failed_writes.jsonl`` with its cause, logged, reported by
``hermes memory status``, and sent again when the next session starts. Nothing is dropped silently.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .client import HonchoCallError

logger = logging.getLogger("hermes.plugins.honcho")

CONTINUED = "[continued] "
DEFAULT_RETRY_DELAYS = (0.25, 1.0)


@dataclass
class PendingMessage:
    session: str
    peer: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    #: ISO 8601 time the message was said, when it is not now (replayed history).
    created_at: str | None = None
    #: True when Honcho may hold this message already (replayed history, a resend after a crash or a
    #: timeout): it is checked against the session before it is sent again (see held.py).
    may_be_stored: bool = False


def chunk_message(text: str, max_chars: int) -> list[str]:
    """``text`` in pieces of at most ``max_chars``, cut at whitespace when possible; every piece
    after the first starts with ``[continued]`` (counted within the limit)."""
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    rest = text
    while rest:
        prefix = CONTINUED if pieces else ""
        room = max_chars - len(prefix)
        if len(rest) <= room:
            pieces.append(prefix + rest)
            break
        cut = rest.rfind(" ", room // 2, room + 1)
        cut = cut if cut > 0 else room
        pieces.append(prefix + rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return pieces


def iso_time(timestamp: float | str | None) -> str | None:
    """A message's time as ISO 8601 UTC, from epoch seconds or an ISO string; ``None`` when unknown."""
    if timestamp is None or timestamp == "" or isinstance(timestamp, bool):
        return None
    if isinstance(timestamp, (int, float)):
        return datetime.fromtimestamp(float(timestamp), UTC).isoformat()
    try:
        return datetime.fromisoformat(str(timestamp).replace("Z", "+00:00")).isoformat()
    except ValueError:
        return None


def _journal_line(entry: dict[str, Any]) -> str:
    """One entry as a line of JSON, readable as written; a lone surrogate (a byte that was not UTF-8, as
    from a terminal) cannot be UTF-8 and is written as JSON's ``\\udcXX`` escape, which reads back the same."""
    return json.dumps(entry, ensure_ascii=False).encode("utf-8", "backslashreplace").decode("utf-8") + "\n"


class FailureJournal:
    """Writes that failed for good, kept on disk until they are sent."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def record(self, messages: Sequence[PendingMessage], cause: str) -> None:
        entry = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "cause": cause, "messages": [asdict(m) for m in messages]}
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            line = _journal_line(entry)
            with self.path.open("a+b") as handle:
                # a crash mid-write leaves a last line without its newline: start a new line, or
                # this entry would be glued to the cut one and skipped with it when read
                if handle.seek(0, os.SEEK_END) > 0:
                    handle.seek(-1, os.SEEK_END)
                    if handle.read(1) != b"\n":
                        line = "\n" + line
                handle.write(line.encode("utf-8"))
            self.path.chmod(0o600)

    def entries(self) -> list[dict[str, Any]]:
        with self._lock:
            return self._read()

    def _read(self) -> list[dict[str, Any]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (FileNotFoundError, UnicodeDecodeError):
            return []
        entries = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash; the rest is still good
            if isinstance(entry, dict) and isinstance(entry.get("messages"), list):
                entries.append(entry)
        return entries

    def replay(self, send: Callable[[list[PendingMessage]], None]) -> int:
        """Send every journalled write again; those that go through are removed. Returns how many did."""
        from hermes_core.config import atomic_write_text

        with self._lock:
            entries = self._read()
            if not entries:
                return 0
            kept, sent = [], 0
            for entry in entries:
                try:
                    # a journalled write may have landed before its request failed or the process died
                    send([PendingMessage(**{**m, "may_be_stored": True}) for m in entry["messages"]])
                    sent += 1
                except HonchoCallError as exc:
                    entry["cause"] = str(exc)
                    kept.append(entry)
                except TypeError:
                    kept.append(entry)  # written by a newer version; leave it for that version
            text = "".join(_journal_line(e) for e in kept)
            if kept:
                atomic_write_text(self.path, text, mode=0o600)
            else:
                self.path.unlink(missing_ok=True)
            return sent


class MessageWriter:
    """Sends turns as ``writeFrequency`` says; ``send(messages)`` does one request (or raises HonchoCallError)."""

    def __init__(
        self,
        send: Callable[[list[PendingMessage]], None],
        *,
        mode: str | int,
        journal: FailureJournal,
        retry_delays: Sequence[float] = DEFAULT_RETRY_DELAYS,
        wait: Callable[[threading.Event, float | None], bool] = threading.Event.wait,
    ) -> None:
        self._send = send
        #: How drain waits for the background thread (``Event.wait``); a test passes one that records the bound.
        self._wait = wait
        self.mode = mode
        self.journal = journal
        self.retry_delays = tuple(retry_delays)
        self._buffer: list[PendingMessage] = []
        self._buffered_turns = 0
        self._lock = threading.Lock()
        self._queue: queue.Queue[list[PendingMessage] | Callable[[], None] | None] | None = None
        self._thread: threading.Thread | None = None
        #: The batch the background thread is sending right now (journalled if the session ends first).
        self._sending: list[PendingMessage] | None = None
        #: Counts for status and benchmarks.
        self.sent_batches = 0
        self.failed_batches = 0

    # -- the turn side --

    def add_turn(self, messages: list[PendingMessage]) -> None:
        if not messages:
            return
        if self.mode == "async":
            self._background().put(messages)
        elif self.mode == "turn":
            self._deliver(messages)
        else:
            with self._lock:
                self._buffer.extend(messages)
                self._buffered_turns += 1
                full = isinstance(self.mode, int) and self._buffered_turns >= self.mode
            if full:
                self.flush_buffer()

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job`` on the background thread, after what is queued (drain waits for it too)."""
        self._background().put(job)

    def flush_buffer(self) -> None:
        """Send what ``session``/``N`` modes kept (in async mode: what is queued is drained instead)."""
        with self._lock:
            batch, self._buffer, self._buffered_turns = self._buffer, [], 0
        if batch:
            self._deliver(batch)

    def drain(self, timeout: float | None = None) -> bool:
        """Send everything kept or queued; ``False`` if the background queue did not empty in time."""
        self.flush_buffer()
        if self._queue is None:
            return True
        done = threading.Event()
        self._queue.put(done.set)
        return self._wait(done, timeout)

    def close(self, timeout: float | None = 10.0) -> bool:
        """Drain, then stop the thread. What is still unsent after ``timeout`` is journalled, not dropped:
        the queued turns, and the one being sent (it may arrive twice if its request still succeeds)."""
        drained = self.drain(timeout)
        if not drained:
            sending = list(self._sending or [])
            leftovers = sending + self._take_queued()
            if leftovers:
                cause = "the session ended before Honcho accepted these messages (server slow or unreachable)"
                if sending:
                    cause += f"; the first {len(sending)} were being sent and may arrive twice"
                self.journal.record(leftovers, cause)
        if self._queue is not None:
            self._queue.put(None)
        return drained

    # -- delivery --

    def _background(self) -> queue.Queue[Any]:
        with self._lock:
            if self._queue is None:
                self._queue = queue.Queue()
                self._thread = threading.Thread(target=self._run, name="honcho-writer", daemon=True)
                self._thread.start()
            return self._queue

    def _take_queued(self) -> list[PendingMessage]:
        taken: list[PendingMessage] = []
        while self._queue is not None:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, list):
                taken.extend(item)
        return taken

    def _run(self) -> None:
        assert self._queue is not None
        while True:
            item = self._queue.get()
            if item is None:
                return
            if callable(item):
                item()
            else:
                self._sending = item
                self._deliver(item)
                self._sending = None

    def _deliver(self, messages: list[PendingMessage]) -> None:
        """Send with retries; a final failure goes to the journal, never raises."""
        last: HonchoCallError | None = None
        for attempt in range(len(self.retry_delays) + 1):
            try:
                self._send(messages)
                self.sent_batches += 1
                return
            except HonchoCallError as exc:
                last = exc
                if not exc.retryable or attempt == len(self.retry_delays):
                    break
                for message in messages:  # a timeout or 5xx may come after the server stored the batch
                    message.may_be_stored = True
                time.sleep(self.retry_delays[attempt])  # back off before the next attempt (not a test sync)
        self.failed_batches += 1
        cause = str(last)
        self.journal.record(messages, cause)
        logger.warning(
            "honcho: %d message(s) could not be saved: %s; they are kept in %s and sent again when the next session starts "
            "('hermes memory status' shows them)",
            len(messages), cause, self.journal.path,
        )
