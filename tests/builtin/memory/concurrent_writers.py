"""Real writer processes adding memory entries at once, and the check that none was lost.

Shared by the test (a size that runs in seconds) and benchmarks/memory_concurrency.py (large sizes).
"""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

from hermes_plugins_builtin.memory import BuiltinMemoryProvider
from hermes_plugins_builtin.memory.entries import parse_entries


def _writer(home: str, worker: int, writes: int, start: multiprocessing.synchronize.Barrier, failures: multiprocessing.Queue) -> None:
    provider = BuiltinMemoryProvider(Path(home), memory_char_limit=1_000_000)
    provider.initialize(f"session-{worker}", platform="cli")
    start.wait()  # every process is ready before any writes, so the writes really overlap
    for i in range(writes):
        answer = json.loads(provider.handle_tool_call("memory", {"action": "add", "content": f"p{worker}-{i:04d}"}))
        if not answer.get("success"):
            failures.put((worker, i, answer))
            failures.close()
            failures.join_thread()  # flushed before the hard exit below
            os._exit(1)
    os._exit(0)


def run_writers(home: Path, processes: int, writes: int) -> None:
    """Start ``processes`` forked writers of ``writes`` entries each, released together; assert each succeeded."""
    context = multiprocessing.get_context("fork")
    start = context.Barrier(processes)
    failures = context.Queue()
    workers = [context.Process(target=_writer, args=(str(home), w, writes, start, failures)) for w in range(processes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    reported = [failures.get_nowait() for _ in range(failures.qsize())]
    assert reported == [] and [w.exitcode for w in workers] == [0] * processes


def check_no_write_lost(home: Path, processes: int, writes: int) -> int:
    """Assert every write is in MEMORY.md once, in each writer's order, with no stray file; return the
    number of times consecutive entries come from different writers (how much the writes interleaved)."""
    path = home / "memories" / "MEMORY.md"
    entries = parse_entries(path.read_bytes().decode("utf-8"))
    expected = {f"p{w}-{i:04d}" for w in range(processes) for i in range(writes)}
    assert len(entries) == len(expected) == processes * writes
    assert set(entries) == expected
    for w in range(processes):  # each process's own writes appear in the order it made them
        mine = [e for e in entries if e.startswith(f"p{w}-")]
        assert mine == sorted(mine)
    assert sorted(p.name for p in path.parent.iterdir()) == ["MEMORY.md", "MEMORY.md.lock"]
    return sum(1 for a, b in zip(entries, entries[1:]) if a.split("-")[0] != b.split("-")[0])
