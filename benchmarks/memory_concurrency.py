"""Built-in memory under concurrent writer processes: nothing lost, at sizes too big for the test suite.

Run: python benchmarks/memory_concurrency.py [--processes 8] [--writes 500] [--dir PATH] [--json]

The test suite (tests/builtin/memory/test_concurrency.py) proves the property at a size that runs in
seconds; this script checks the same property at the large sizes and reports how long it took and how
many times the writers took turns. Each write re-reads and rewrites the whole file under the lock, so
the run time grows with the square of the total number of writes (8 x 500 takes minutes on a loaded
2-core machine).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "builtin" / "memory"))

from concurrent_writers import check_no_write_lost, run_writers  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--writes", type=int, default=500, help="writes per process")
    parser.add_argument("--dir", type=Path, default=None, help="where HERMES_HOME is created (default: a temporary directory)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as home:
        started = time.perf_counter()
        run_writers(Path(home), args.processes, args.writes)
        elapsed = time.perf_counter() - started
        turns = check_no_write_lost(Path(home), args.processes, args.writes)
    result = {
        "processes": args.processes,
        "writes_per_process": args.writes,
        "seconds": round(elapsed, 2),
        "writes_per_second": round(args.processes * args.writes / elapsed, 1),
        "writer_turns": turns,
        "load": os.getloadavg(),
        "ok": True,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.processes} processes x {args.writes} writes: nothing lost, {turns} changes of writer, "
            f"{elapsed:.1f} s ({result['writes_per_second']} writes/s), load {result['load'][0]:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
