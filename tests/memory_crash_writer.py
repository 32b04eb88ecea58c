"""The writer child of tests/builtin/memory/test_crash.py, importable by name so it runs from a forkserver.

Forking the test's own worker would copy its page tables (a worker that ran much of the suite holds a gigabyte or
more: about 80 ms a fork per gigabyte, and the copy-on-write faults after it); the forkserver is a small process that
imported hermes and warmed the write scanner once (below), so each of the test's hundred children starts in a few
milliseconds.
"""

from __future__ import annotations

import json
import os
import signal
import stat
from multiprocessing.connection import Connection
from pathlib import Path

from hermes_plugins_builtin.memory import BuiltinMemoryProvider
from hermes_plugins_builtin.memory.scanner import scan

WINDOW = 5
# Large records, so a good share of each write is spent writing and syncing the file.
BODY = "abcdefghij" * 300

assert scan("warm-up note") is None  # the scanner's data is loaded once, in the forkserver every child is forked from


def record(index: int) -> str:
    return f"record {index:06d} {BODY}"


def expected_state(last: int) -> set[str]:
    """The entries after operation ``last``: a sliding window of the newest ``WINDOW`` records."""
    return {record(k) for k in range(max(0, last - WINDOW + 1), last + 1)}


def _is_memory_file(fd: int) -> bool:
    """A file under memories/ (the scanner's verdict cache, a regular file too, is written in the same operation)."""
    return stat.S_ISREG(os.fstat(fd).st_mode) and "memories" in Path(os.readlink(f"/proc/self/fd/{fd}")).parts


def writer(home: str, start: int, mode: str, park_at: int, progress: Connection) -> None:
    """Child process: run operations ``start, start+1, ...``; park where ``mode`` says, report each success as one byte
    on ``progress`` (``P`` parked, ``d`` done, ``E`` failed)."""
    os.environ["HERMES_HOME"] = home  # the forkserver was started before the test chose its home
    out = progress.fileno()
    current = {"op": -1}
    real_write, real_fsync, real_replace = os.write, os.fsync, os.replace

    def park() -> None:
        real_write(out, b"P")
        while True:
            signal.pause()  # until the parent's SIGKILL

    def write(fd: int, data: bytes) -> int:
        if mode == "torn_temp" and current["op"] == park_at and _is_memory_file(fd):
            real_write(fd, bytes(data[: len(data) // 2]))
            park()
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        if mode == "before_fsync" and current["op"] == park_at and _is_memory_file(fd):
            park()
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        real_replace(src, dst)
        if mode == "after_replace" and current["op"] == park_at and "memories" in Path(dst).parts:
            park()

    os.write, os.fsync, os.replace = write, fsync, replace  # this child only
    provider = BuiltinMemoryProvider(Path(home), memory_char_limit=1_000_000)
    for op in range(start, start + 10_000):
        current["op"] = op
        if op < WINDOW:
            args = {"action": "add", "content": record(op)}
        else:
            args = {"action": "replace", "old_text": f"record {op - WINDOW:06d} ", "content": record(op)}
        answer = json.loads(provider.handle_tool_call("memory", args))
        if not answer.get("success"):
            real_write(out, b"E")
            os._exit(1)
        real_write(out, b"d")
    os._exit(0)


