"""8 real processes x 500 writes each through the public API, all at once: nothing is lost."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

from hermes_plugins_builtin.memory import BuiltinMemoryProvider
from hermes_plugins_builtin.memory.entries import parse_entries

PROCESSES = 8
WRITES = 500


def _writer(home: str, worker: int, start: multiprocessing.synchronize.Barrier, failures: multiprocessing.Queue) -> None:
    provider = BuiltinMemoryProvider(Path(home), memory_char_limit=1_000_000)
    provider.initialize(f"session-{worker}", platform="cli")
    start.wait()  # every process is ready before any writes, so the writes really overlap
    for i in range(WRITES):
        answer = json.loads(provider.handle_tool_call("memory", {"action": "add", "content": f"p{worker}-{i:04d}"}))
        if not answer.get("success"):
            failures.put((worker, i, answer))
            failures.close()
            failures.join_thread()  # flushed before the hard exit below
            os._exit(1)
    os._exit(0)


def test_concurrent_processes_lose_no_write(hermes_home):
    context = multiprocessing.get_context("fork")
    start = context.Barrier(PROCESSES)
    failures = context.Queue()
    workers = [context.Process(target=_writer, args=(str(hermes_home), w, start, failures)) for w in range(PROCESSES)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    reported = [failures.get_nowait() for _ in range(failures.qsize())]
    assert reported == [] and [w.exitcode for w in workers] == [0] * PROCESSES

    path = hermes_home / "memories" / "MEMORY.md"
    entries = parse_entries(path.read_bytes().decode("utf-8"))
    expected = {f"p{w}-{i:04d}" for w in range(PROCESSES) for i in range(WRITES)}
    assert len(entries) == len(expected) == PROCESSES * WRITES
    assert set(entries) == expected
    # Each process's own writes appear in the order it made them.
    for w in range(PROCESSES):
        mine = [e for e in entries if e.startswith(f"p{w}-")]
        assert mine == sorted(mine)
    assert sorted(p.name for p in path.parent.iterdir()) == ["MEMORY.md", "MEMORY.md.lock"]
