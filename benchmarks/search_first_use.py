#!/usr/bin/env python3
"""What a process's first searches cost: this checkout against a git revision, interleaved.

A one-shot command (``hermes sessions search``) opens the store and searches once;
a gateway keeps the store open and searches again and again. Caches that pay off
over many searches must not make the first one dearer. For every query class of
the shared workload this starts a fresh process per side, in alternating order,
that opens a copy of --db and searches the same query twice, reading the
thread's CPU time around each search (imports included: they are part of what
the first search costs). Both sides run with byte-code caches warmed by a first,
untimed round. Reported per query: the median CPU of each side's first and
second search, and the median of the per-round ratios (this ÷ baseline) with
its quartiles.

    python3 benchmarks/search_first_use.py --db .bench/relevance/state.db --baseline main
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from fair import machine  # noqa: E402
from session_store_reference import shared  # noqa: E402

_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
import hermes_plugins_builtin.state as package
from hermes_plugins_builtin.state import SessionStore
assert package.__file__.startswith(sys.argv[1]), package.__file__  # the side asked for, not the installed one
store = SessionStore(sys.argv[2])
times = []
for _ in range(2):
    start = time.thread_time()
    store.search(sys.argv[3], limit=20)
    times.append(time.thread_time() - start)
print(*times)
"""


def _export(revision: str, into: Path) -> Path:
    """The source packages of *revision* in a directory of their own."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "hermes_core", "hermes_plugins_builtin"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _one(source: Path, db: Path, query: str, pycache: Path) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(source), PYTHONPYCACHEPREFIX=str(pycache))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(source), str(db), query], check=True,
                         capture_output=True, text=True, env=env, cwd=tempfile.gettempdir()).stdout.split()
    return float(out[0]) * 1e3, float(out[1]) * 1e3


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return q[0], statistics.median(values), q[2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, required=True, help="a session-store database (copied; never modified)")
    ap.add_argument("--baseline", default="main", help="git revision to compare with (default: main)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not args.db.is_file():
        ap.error(f"{args.db} does not exist -> build one with benchmarks/session_store.py or search_relevance.py")
    queries = [(cat, pool[0]) for cat, pool in shared.QUERY_CATEGORIES]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "baseline").mkdir()
        base = _export(args.baseline, (work / "baseline").resolve())
        sides = {"this": (REPO, work / "pyc-this"), "baseline": (base, work / "pyc-baseline")}
        db = work / "state.db"
        subprocess.run(["cp", str(args.db), str(db)], check=True)
        for source, pycache in sides.values():  # warm the byte-code caches
            _one(source, db, queries[0][1], pycache)
        got: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for r in range(args.rounds):
            for cat, query in queries:
                order = ("this", "baseline") if r % 2 == 0 else ("baseline", "this")
                for side in order:
                    source, pycache = sides[side]
                    got.setdefault((cat, side), []).append(_one(source, db, query, pycache))
    report = {"machine": machine(), "baseline": args.baseline, "rounds": args.rounds, "classes": {}}
    for cat, query in queries:
        this, base_runs = got[(cat, "this")], got[(cat, "baseline")]
        ratios = [t[0] / b[0] for t, b in zip(this, base_runs)]
        report["classes"][cat] = {
            "query": query,
            "first_ms": {"this": round(statistics.median(t[0] for t in this), 2),
                         "baseline": round(statistics.median(b[0] for b in base_runs), 2)},
            "second_ms": {"this": round(statistics.median(t[1] for t in this), 2),
                          "baseline": round(statistics.median(b[1] for b in base_runs), 2)},
            "first_ratio_q1_median_q3": [round(x, 2) for x in _quartiles(ratios)],
        }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"this checkout vs {args.baseline}, {args.rounds} rounds, load {report['machine']['load']}")
    print(f"{'class':<22} {'first search ms (this / base)':>30} {'ratio [IQR]':>20} {'second ms (this / base)':>26}")
    for cat, c in report["classes"].items():
        q1, med, q3 = c["first_ratio_q1_median_q3"]
        print(f"{cat:<22} {c['first_ms']['this']:>14.2f} / {c['first_ms']['baseline']:<13.2f}"
              f" {med:>7.2f}x [{q1:.2f}-{q3:.2f}]"
              f" {c['second_ms']['this']:>12.2f} / {c['second_ms']['baseline']:<11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
