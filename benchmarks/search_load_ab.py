#!/usr/bin/env python3
"""Two versions of the search code, query by query, against one database while writers append.

search_under_load.py times one version; comparing two of its runs on a shared
machine compares two different loads. Here both versions search the same copy of
the database at the same time as the same writer processes append to it: each in
its own searcher process (``--baseline`` is a source tree of the other version,
e.g. ``git archive main | tar -x -C /tmp/main``), taking turns query by query in
A-B then B-A order, never both at once. Each search reports its wall time, the
searching thread's CPU time and its run-queue wait (schedstat), and the table gives
p50/p95 per side and the median of the per-query ratios (this tree ÷ baseline)
with their quartiles.

    python3 benchmarks/search_load_ab.py --db .bench/session_store/ours_normal.db --baseline /tmp/main
    python3 benchmarks/search_load_ab.py --db ... --baseline /tmp/main --writer-rate 25 --pace-ms 20 --json
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from fair import machine, percentile, ratio_stats  # noqa: E402
from session_store_reference import shared  # noqa: E402

QUERIES = [(cat, query) for cat, pool in shared.QUERY_CATEGORIES for query in pool]


def serve(source: Path, db: Path, warm_passes: int) -> None:
    """Searcher process: warm up, then answer 'index' lines with 'wall cpu runq' (seconds)."""
    sys.path.insert(0, str(source))
    from hermes_plugins_builtin.state import SessionStore
    from search_under_load import runq_wait_ns

    store = SessionStore(db)
    for _ in range(warm_passes):
        for _, query in QUERIES:
            store.search(query, limit=20)
    print("ready", flush=True)
    for line in sys.stdin:
        _, query = QUERIES[int(line)]
        a = time.perf_counter()
        wait0, cpu0 = runq_wait_ns(), time.thread_time()
        store.search(query, limit=20)
        cpu, wait1 = time.thread_time() - cpu0, runq_wait_ns()
        print(f"{time.perf_counter() - a} {cpu} {(wait1 - wait0) / 1e9}", flush=True)
    store.close()


class Searcher:
    def __init__(self, source: Path, db: Path, warm_passes: int) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(source), str(HERE)]))
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", str(source), "--db", str(db),
                                      "--warm-passes", str(warm_passes)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def ready(self) -> None:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            raise SystemExit(f"a searcher process failed to start ({line.strip() or 'no output'})")

    def search(self, index: int) -> tuple[float, float, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{index}\n")
        self.proc.stdin.flush()
        wall, cpu, runq = (float(x) for x in self.proc.stdout.readline().split())
        return wall, cpu, runq

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def run(db: Path, baseline: Path, *, writers: int, rate: float, iters: int, pace_ms: float,
        warm_passes: int) -> dict[str, Any]:
    import search_under_load

    ctx = mp.get_context("spawn")
    stop, q = ctx.Event(), ctx.Queue()
    start = ctx.Barrier(writers + 1)
    procs = [ctx.Process(target=search_under_load._writer, args=(str(db), w, rate, start, stop, q))
             for w in range(writers)]
    for p in procs:
        p.start()
    sides = {"baseline": Searcher(baseline, db, warm_passes), "this": Searcher(REPO, db, warm_passes)}
    for s in sides.values():
        s.ready()
    if writers:
        start.wait(timeout=600)
        time.sleep(1.0)
    loads = [machine()["load"]]
    rows: dict[str, dict[str, dict[str, list[float]]]] = {
        cat: {side: {"wall": [], "cpu": [], "runq": []} for side in sides} for cat, _ in shared.QUERY_CATEGORIES}
    ratios: dict[str, dict[str, list[float]]] = {cat: {"wall": [], "cpu": []} for cat, _ in shared.QUERY_CATEGORIES}
    for i in range(iters):
        for cat, pool in shared.QUERY_CATEGORIES:
            index = QUERIES.index((cat, pool[i % len(pool)]))
            # A-B, then B-A for the class's next query (alternating over all steps would give a
            # class the same order every time: there is an even number of classes)
            order = ("baseline", "this") if i % 2 == 0 else ("this", "baseline")
            got = {}
            for side in order:
                if pace_ms:
                    time.sleep(pace_ms / 1000)
                got[side] = sides[side].search(index)
                for k, v in zip(("wall", "cpu", "runq"), got[side]):
                    rows[cat][side][k].append(v)
            for n, k in enumerate(("wall", "cpu")):
                if got["baseline"][n] > 0:
                    ratios[cat][k].append(got["this"][n] / got["baseline"][n])
    loads.append(machine()["load"])
    stop.set()
    results = [q.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    for s in sides.values():
        s.close()

    def ms(values: list[float], p: float) -> float:
        return round(percentile(values, p) * 1e3, 3)

    classes = {cat: {side: {k: {"p50": ms(v, 0.5), "p95": ms(v, 0.95)} for k, v in per.items()}
                     for side, per in by_side.items()}
               for cat, by_side in rows.items()}
    for cat in classes:
        classes[cat]["ratio_this_over_baseline"] = {k: ratio_stats(v).as_dict() for k, v in ratios[cat].items()}
    return {"writers": writers, "writer_rate_per_s": rate or "flat out", "pace_ms": pace_ms, "iters": iters,
            "writer_msgs_per_s": round(sum(r["appended"] for r in results)
                                       / max((r["elapsed_s"] for r in results), default=1), 1),
            "load": loads, "baseline": str(baseline), "classes": classes}


def print_table(report: dict[str, Any]) -> None:
    print(f"writers {report['writers']} ({report['writer_rate_per_s']}), {report['writer_msgs_per_s']} msg/s, "
          f"pace {report['pace_ms']} ms, load {report['load']}; ms, baseline -> this")
    print(f"{'class':<20} {'CPU p50':>13} {'CPU p95':>13} {'wall p95':>15} {'runq p95':>15}"
          f" {'CPU ratio [IQR]':>20}")
    for cat, c in report["classes"].items():
        b, t, r = c["baseline"], c["this"], c["ratio_this_over_baseline"]["cpu"]
        print(f"{cat:<20} {b['cpu']['p50']:>5.2f} -> {t['cpu']['p50']:<5.2f} {b['cpu']['p95']:>5.2f} -> "
              f"{t['cpu']['p95']:<5.2f} {b['wall']['p95']:>6.2f} -> {t['wall']['p95']:<6.2f} "
              f"{b['runq']['p95']:>6.2f} -> {t['runq']['p95']:<6.2f} "
              f"{r['median']:>6.2f} [{r['q1']:.2f}-{r['q3']:.2f}]")


def main(argv: list[str] | None = None) -> int:
    # (imported here: it puts this tree first on sys.path, which a baseline searcher must not have
    # before it has imported its own hermes)
    import search_under_load

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    search_under_load.load_arguments(ap, iters=100)
    ap.add_argument("--baseline", type=Path, help="source tree of the version to compare with")
    ap.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        serve(args.serve, args.db, args.warm_passes)
        return 0
    if not args.db.is_file():
        ap.error(f"{args.db} does not exist -> build one with benchmarks/session_store.py first")
    if args.baseline is None or not (args.baseline / "hermes_plugins_builtin" / "state").is_dir():
        ap.error("--baseline must be a source tree of hermes (e.g. git archive main | tar -x -C /tmp/main)")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), os.environ.get("PYTHONPATH", "")])
    report = search_under_load.on_a_copy(args.db, args.workdir, lambda copy: run(
        copy, args.baseline.resolve(), writers=args.writers, rate=args.writer_rate, iters=args.iters,
        pace_ms=args.pace_ms, warm_passes=args.warm_passes))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return 0

if __name__ == "__main__":
    sys.exit(main())
