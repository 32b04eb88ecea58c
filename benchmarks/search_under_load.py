#!/usr/bin/env python3
"""Search while writer processes append: where a search's wall time goes.

Every query class of the shared workload is timed on a copy of a session-store
database while --writers processes keep appending to it. For each search the
script reads the searching thread's CPU time and its run-queue wait
(/proc/thread-self/schedstat) before and after, and splits its wall time into

  cpu      on a CPU (what the search itself costs),
  runq     runnable but waiting for a CPU (other processes were on both cores),
  blocked  neither: sleeping on a lock, a busy handler, I/O.

so a slow search says whether it waited for the machine or for the writers.
Writers append flat out by default (CPU-bound: on 2 cores, 4 writers and a
searcher share 2 CPUs), or at --writer-rate messages per second each (a gateway
whose conversations each write a message every few seconds is far below that).
With --pace-ms the searcher sleeps between searches, as a search arriving from a
user does, instead of searching back to back like a CPU-bound loop.

    python3 benchmarks/search_under_load.py --db .bench/session_store/ours_normal.db
    python3 benchmarks/search_under_load.py --db ... --writer-rate 50 --pace-ms 20 --json
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))
from fair import machine, percentile  # noqa: E402
from session_store_reference import shared  # noqa: E402


def runq_wait_ns() -> int:
    """Nanoseconds the calling thread has spent runnable but waiting for a CPU (0 where unknown).

    (The first field of schedstat, time on a CPU, is only brought up to date at
    scheduler events; time.thread_time() is exact, so CPU time comes from there.)
    """
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _writer(db: str, wid: int, rate: float, start: Any, stop: Any, q: Any) -> None:
    from hermes_plugins_builtin.state import SessionStore

    wl = shared.Workload(seed=7331 + wid, n_sessions=40, n_messages=2000, active_sessions=4, plant=False).build()
    store = SessionStore(db)
    tag = f"w{wid}-{os.getpid()}-{int(time.time() * 1000)}"
    ids = [store.create_session(f"{tag}-{s['id']}", s["source"], model=s["model"]) for s in wl.sessions]
    start.wait(timeout=600)
    lat: list[float] = []
    i, generation = 0, 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    while not stop.is_set():
        si, m = wl.order[i]
        a = time.perf_counter()
        store.append_message(ids[si], m["role"], m.get("content"), tool_calls=m.get("tool_calls"),
                             tool_name=m.get("tool_name"), tool_call_id=m.get("tool_call_id"))
        lat.append(time.perf_counter() - a)
        i += 1
        if i == len(wl.order):
            i, generation = 0, generation + 1
            ids = [store.create_session(f"{tag}-{generation}-{s['id']}", s["source"], model=s["model"])
                   for s in wl.sessions]
        if rate:
            ahead = t0 + len(lat) / rate - time.perf_counter()
            if ahead > 0:
                stop.wait(ahead)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    store.close()
    q.put({"appended": len(lat), "elapsed_s": elapsed, "cpu_s": cpu,
           "append_p50_ms": percentile(lat, 0.5) * 1e3, "append_p99_ms": percentile(lat, 0.99) * 1e3,
           "append_max_ms": max(lat) * 1e3 if lat else 0.0})


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 0.5) * 1e3, 3), "p95": round(percentile(values, 0.95) * 1e3, 3),
            "max": round(max(values) * 1e3, 3)}


def run(db: Path, *, writers: int, rate: float, iters: int, pace_ms: float, warmup_s: float,
        warm_passes: int = 3, timeline: list[tuple[str, int, int]] | None = None) -> dict[str, Any]:
    """Time every query class on *db* while *writers* processes append; returns the report.

    With *timeline*, every timed search is appended to it as (class, start, end) in
    CLOCK_MONOTONIC nanoseconds, the clock a scheduler trace can be recorded in
    (search_wait_trace.py).
    """
    from hermes_plugins_builtin.state import SessionStore

    ctx = mp.get_context("spawn")
    stop, q = ctx.Event(), ctx.Queue()
    start = ctx.Barrier(writers + 1)
    procs = [ctx.Process(target=_writer, args=(str(db), w, rate, start, stop, q)) for w in range(writers)]
    for p in procs:
        p.start()
    store = SessionStore(db)
    # warm the caches the way a running gateway has them (postings take a few searches to build);
    # what the first searches cost is reported beside the timed ones
    warm: dict[str, list[float]] = {cat: [] for cat, _ in shared.QUERY_CATEGORIES}
    for _ in range(warm_passes):
        for cat, pool in shared.QUERY_CATEGORIES:
            for query in pool:
                cpu0 = time.thread_time()
                store.search(query, limit=20)
                warm[cat].append(time.thread_time() - cpu0)
    before = store.message_count()
    if writers:
        start.wait(timeout=600)
        time.sleep(warmup_s)  # writers at full speed before timing
    loads = [machine()["load"]]
    rows: dict[str, dict[str, list[float]]] = {cat: {"wall": [], "cpu": [], "runq": [], "blocked": []}
                                               for cat, _ in shared.QUERY_CATEGORIES}
    t_start = time.perf_counter()
    for i in range(iters):
        for cat, pool in shared.QUERY_CATEGORIES:
            if pace_ms:
                time.sleep(pace_ms / 1000)
            # the clock is read outside the counters: a wait the kernel accounts between two
            # readings of the counter began after the first and ended before the second
            a = time.perf_counter()
            mono0 = time.monotonic_ns()
            wait0, cpu0 = runq_wait_ns(), time.thread_time()
            store.search(pool[i % len(pool)], limit=20)
            cpu, wait1 = time.thread_time() - cpu0, runq_wait_ns()
            if timeline is not None:
                timeline.append((cat, mono0, time.monotonic_ns()))
            wall = time.perf_counter() - a
            runq = (wait1 - wait0) / 1e9
            row = rows[cat]
            row["wall"].append(wall)
            row["cpu"].append(cpu)
            row["runq"].append(runq)
            row["blocked"].append(max(wall - cpu - runq, 0.0))
    searching_s = time.perf_counter() - t_start
    loads.append(machine()["load"])
    stop.set()
    results = [q.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    appended = store.message_count() - before
    store.close()
    classes = {cat: {k: summary(v) for k, v in row.items()} for cat, row in rows.items()}
    for cat, values in warm.items():
        classes[cat]["warmup_cpu_max_ms"] = round(max(values, default=0.0) * 1e3, 2)
    return {"writers": writers, "writer_rate_per_s": rate or "flat out",
            "searcher_tid": threading.get_native_id(), "writer_pids": [p.pid for p in procs], "pace_ms": pace_ms, "iters": iters,
            "searching_s": round(searching_s, 2), "appended_during": appended,
            "writer_msgs_per_s": round(sum(r["appended"] for r in results) / max((r["elapsed_s"] for r in results),
                                                                                 default=1), 1),
            "writer_cpu_share": round(sum(r["cpu_s"] for r in results) / max((r["elapsed_s"] for r in results),
                                                                             default=1), 2),
            "writer_append_max_ms": round(max((r["append_max_ms"] for r in results), default=0), 1),
            "writer_append_p99_ms": round(max((r["append_p99_ms"] for r in results), default=0), 2),
            "warm_passes": warm_passes, "load": loads, "classes": classes}


def print_table(report: dict[str, Any]) -> None:
    print(f"writers {report['writers']} ({report['writer_rate_per_s']}), {report['writer_msgs_per_s']} msg/s "
          f"together, writer CPU {report['writer_cpu_share']} cores, pace {report['pace_ms']} ms, "
          f"load {report['load']}")
    print(f"{'class':<22} {'wall p50/p95':>16} {'cpu p50/p95':>16} {'runq p50/p95':>16} {'blocked p50/p95':>16}"
          f" {'warm-up cpu max':>16}")
    for cat, c in report["classes"].items():
        cells = [f"{c[k]['p50']:.2f}/{c[k]['p95']:.2f}" for k in ("wall", "cpu", "runq", "blocked")]
        print(f"{cat:<22} " + " ".join(f"{x:>16}" for x in cells) + f" {c['warmup_cpu_max_ms']:>16.2f}")


def load_arguments(ap: argparse.ArgumentParser, *, iters: int) -> None:
    """The options of every benchmark that searches while writers append."""
    ap.add_argument("--db", type=Path, required=True, help="a session-store database (copied; never modified)")
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--writer-rate", type=float, default=0.0, help="messages/s per writer (0: flat out)")
    ap.add_argument("--iters", type=int, default=iters, help="searches per query class")
    ap.add_argument("--pace-ms", type=float, default=0.0, help="sleep before each search (0: back to back)")
    ap.add_argument("--warmup-s", type=float, default=1.0)
    ap.add_argument("--warm-passes", type=int, default=3,
                    help="untimed passes over every query before timing (their CPU maximum is reported)")
    ap.add_argument("--workdir", type=Path, default=None, help="where the copy lives (default: next to --db)")
    ap.add_argument("--json", action="store_true")


def on_a_copy(db: Path, workdir: Path | None, measure: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    """*measure* run on a copy of *db* (in *workdir*, else beside it), with the machine's description."""
    with tempfile.TemporaryDirectory(dir=workdir or db.parent) as tmp:
        copy = Path(tmp) / "state.db"
        shutil.copyfile(db, copy)
        return {"machine": machine(), **measure(copy)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    load_arguments(ap, iters=40)
    args = ap.parse_args(argv)
    if not args.db.is_file():
        ap.error(f"{args.db} does not exist -> build one with benchmarks/session_store.py first")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), os.environ.get("PYTHONPATH", "")])
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    report = on_a_copy(args.db, args.workdir, lambda copy: run(
        copy, writers=args.writers, rate=args.writer_rate, iters=args.iters, pace_ms=args.pace_ms,
        warmup_s=args.warmup_s, warm_passes=args.warm_passes))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(report)
    return 0

if __name__ == "__main__":
    sys.exit(main())
