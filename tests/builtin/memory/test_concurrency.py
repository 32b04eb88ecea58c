"""8 real processes writing through the public API, all at once: nothing is lost.

The property needs overlapping writers, not many writes: 8 processes released together by a
barrier contend for the lock from their first write, and the test checks that they did take
turns. Each write rewrites the whole file, so the cost grows with the square of the total;
the large sizes (8 x 500) run in benchmarks/memory_concurrency.py.
"""

from __future__ import annotations

from concurrent_writers import check_no_write_lost, run_writers

PROCESSES = 8
WRITES = 60


def test_concurrent_processes_lose_no_write(hermes_home):
    run_writers(hermes_home, PROCESSES, WRITES)
    turns = check_no_write_lost(hermes_home, PROCESSES, WRITES)
    # the writers really interleaved (one writer finishing before the next starts would prove nothing)
    assert turns >= PROCESSES
