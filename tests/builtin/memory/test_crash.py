"""SIGKILL of a writer mid-write, 100 times: the file always parses and holds a state some write committed.

Four kill points rotate. Three are pinned inside the write itself by parking the child
process at that point (it waits for a signal, so no timing is involved): half-way through
writing the temp file, just before its fsync, and just after ``os.replace`` while the lock is
still held. The fourth kills a free-running writer after a random number of completed writes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import memory_crash_writer
from memory_crash_writer import WINDOW, expected_state, record, writer

from hermes_plugins_builtin.memory import BuiltinMemoryProvider
from hermes_plugins_builtin.memory.entries import parse_entries

RUNS = 100
RECORD = re.compile(r"^record (\d{6}) (?:abcdefghij){300}$")
MODES = ("torn_temp", "before_fsync", "after_replace", "free_running")


def _read_state(path: Path) -> int:
    """Parse the file strictly; return the newest operation it reflects (-1 for none)."""
    if not path.exists():
        return -1
    entries = parse_entries(path.read_bytes().decode("utf-8"))  # strict: a torn file would fail here
    indexes = []
    for entry in entries:
        match = RECORD.match(entry)
        assert match, f"malformed entry: {entry[:60]!r}..."
        indexes.append(int(match.group(1)))
    last = max(indexes, default=-1)
    assert set(entries) == expected_state(last), f"entries are not the state after operation {last}"
    return last


@pytest.fixture
def hermes_home(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The home on a RAM filesystem where there is one. A SIGKILL ends the process, not the kernel: what a killed
    writer handed to the kernel stays in the page cache whether or not it was flushed, so the disk's flush time (most
    of this test's wall time on a busy disk) decides nothing here. The writes still call fsync where they always do,
    and the kill points before and after it are the same."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield hermes_home
        return
    home = Path(tempfile.mkdtemp(prefix="hermes-crash-", dir=shm))
    monkeypatch.setenv("HERMES_HOME", str(home))
    yield home
    shutil.rmtree(home, ignore_errors=True)


def _temps(path: Path) -> list[str]:
    return [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("seed", [20261122])
def test_sigkill_mid_write_never_leaves_an_unparseable_file(hermes_home, seed, monkeypatch):
    rng = random.Random(seed)
    # Each child is forked from a small forkserver that imported the writer (and warmed the scanner) once; see
    # tests/memory_crash_writer.py for why not from this process. The server takes its import path from PYTHONPATH
    # (Python 3.11 does not pass it this process's sys.path): without it the preload fails in silence and every child
    # imports hermes again (0.4 s each).
    tests_dir = str(Path(memory_crash_writer.__file__).parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [tests_dir, os.environ.get("PYTHONPATH")])))
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["memory_crash_writer"])
    path = hermes_home / "memories" / "MEMORY.md"
    last = -1
    for run in range(RUNS):
        mode = MODES[run % len(MODES)]
        start = last + 1
        park_at = start + rng.randint(0, 3)
        reader, sender = context.Pipe(duplex=False)
        child = context.Process(target=writer, args=(str(hermes_home), start, mode, park_at, sender))
        child.start()
        sender.close()  # the child holds its own copy: a dead child ends the parent's reads
        read_end = reader.fileno()
        try:
            if mode == "free_running":
                wanted = rng.randint(1, 4)
                got = b""
                while got.count(b"d") < wanted:
                    chunk = os.read(read_end, 1)
                    assert chunk and chunk != b"E", f"run {run}: the writer failed or died early"
                    got += chunk
            else:
                got = b""
                while not got.endswith(b"P"):
                    chunk = os.read(read_end, 1)
                    assert chunk and chunk != b"E", f"run {run}: the writer failed or died before parking"
                    got += chunk
            os.kill(child.pid, signal.SIGKILL)
            child.join()
        finally:
            reader.close()
        assert child.exitcode == -signal.SIGKILL

        newest = _read_state(path)
        completed = got.count(b"d")
        if mode in ("torn_temp", "before_fsync"):
            # Killed inside operation park_at, before its rename: the file is exactly the previous state.
            assert newest == park_at - 1, (run, mode)
            assert _temps(path), "the kill should have left the half-written temp file behind"
        elif mode == "after_replace":
            assert newest == park_at, (run, mode)
        else:
            assert newest >= start + completed - 1, (run, mode)
        last = newest

    # The next write through the API takes the lock the dead writers held, cleans up their temps, and continues.
    provider = BuiltinMemoryProvider(hermes_home, memory_char_limit=1_000_000)
    answer = json.loads(
        provider.handle_tool_call("memory", {"action": "replace", "old_text": f"record {last - WINDOW + 1:06d} ", "content": record(last + 1)})
    )
    assert answer["success"] is True
    assert _read_state(path) == last + 1
    assert _temps(path) == []
