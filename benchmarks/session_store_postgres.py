#!/usr/bin/env python3
"""The session store on PostgreSQL beside SQLite, one run, the shared workload, interleaved.

Both stores receive the same messages (the shared workload, ../shared/bench,
seed 1337) at equal durability: SQLite with ``durable=True`` (synchronous=FULL),
PostgreSQL with ``synchronous_commit=on`` and fsync on. Writes alternate between
the two stores batch by batch (which one goes first alternates too); every search
query runs on both back to back, in alternating order, so machine noise hits
both alike. Reported: write msg/s, size, search p50/p95 per query class with
the per-query ratio's median and spread, and PostgreSQL scale-out with 1, 2, 4
and 8 writer processes (aggregate msg/s, lost and duplicated rows).

    python3 benchmarks/session_store_postgres.py                       # 100k messages
    python3 benchmarks/session_store_postgres.py --messages 5000 --sessions 50 --search-iters 10   # smoke

The PostgreSQL server is a throwaway cluster (hermes_core.testing.postgres).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing as mp
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hermes_core.testing.postgres import running_server  # noqa: E402
from hermes_plugins_builtin.state import SessionStore  # noqa: E402
from hermes_plugins_builtin.state.postgres import open_postgres_store  # noqa: E402


def _shared_bench() -> Path:
    """The shared workload script: ../shared/bench beside the checkout (or beside the main checkout of a worktree)."""
    for base in (REPO.parent, REPO.parent.parent):
        candidate = base / "shared" / "bench" / "bench_sessionstore.py"
        if candidate.exists():
            return candidate
    return REPO.parent / "shared" / "bench" / "bench_sessionstore.py"


def load_shared(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("bench_sessionstore", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["bench_sessionstore"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def _message(msg: dict[str, Any]) -> dict[str, Any]:
    return {k: msg.get(k) for k in ("role", "content", "tool_calls", "tool_name", "tool_call_id", "finish_reason")}


def write_both(wl: Any, sqlite_store: SessionStore, pg_store: Any, batch: int) -> dict[str, float]:
    """Append the workload to both stores, one message per transaction, alternating per batch."""
    for session in wl.sessions:
        sqlite_store.create_session(session["id"], session["source"], model=session["model"])
        pg_store.create_session(session["id"], session["source"], model=session["model"])
    spent = {"sqlite": 0.0, "postgres": 0.0}
    order = wl.order
    for n, start in enumerate(range(0, len(order), batch)):
        chunk = order[start:start + batch]
        sides = [("sqlite", sqlite_store), ("postgres", pg_store)]
        for name, store in (sides if n % 2 == 0 else sides[::-1]):
            t0 = time.perf_counter()
            for index, msg in chunk:
                store.append_messages(wl.sessions[index]["id"], [_message(msg)])
            spent[name] += time.perf_counter() - t0
    return {name: len(order) / seconds for name, seconds in spent.items()}


def server_cpu_s(server: Any) -> float:
    """CPU seconds used so far by the server's processes (the postmaster's children), from /proc.

    Wall times on a shared machine include waiting for a core; CPU time does not. The
    kernel counts it in clock ticks (10 ms), so it is summed over a whole query class.
    """
    tick = os.sysconf("SC_CLK_TCK")
    try:
        postmaster = int((server.data_dir / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        if int(fields[1]) == postmaster:  # ppid; utime and stime follow at 11 and 12
            total += int(fields[11]) + int(fields[12])
    return total / tick


def search_both(shared: Any, sqlite_store: SessionStore, pg_store: Any, iters: int, server: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for category, pool in shared.QUERY_CATEGORIES:
        times: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        cpu: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        ratios: list[float] = []
        server_before = server_cpu_s(server) if server is not None else float("nan")
        for i in range(iters):
            query = pool[i % len(pool)]
            pair = [("sqlite", sqlite_store), ("postgres", pg_store)]
            taken: dict[str, float] = {}
            for name, store in (pair if i % 2 == 0 else pair[::-1]):
                c0, t0 = time.process_time(), time.perf_counter()
                store.search(query, limit=20)
                taken[name] = time.perf_counter() - t0
                cpu[name].append(time.process_time() - c0)
                times[name].append(taken[name])
            ratios.append(taken["postgres"] / max(taken["sqlite"], 1e-9))
        server_spent = (server_cpu_s(server) - server_before) if server is not None else float("nan")
        out[category] = {
            # CPU per search: this process (p95), and the server's processes (mean over the class)
            "sqlite_cpu_p95_ms": pct(cpu["sqlite"], 95) * 1000, "pg_client_cpu_p95_ms": pct(cpu["postgres"], 95) * 1000,
            "pg_server_cpu_mean_ms": server_spent / iters * 1000,
            "sqlite_p50_ms": statistics.median(times["sqlite"]) * 1000, "sqlite_p95_ms": pct(times["sqlite"], 95) * 1000,
            "pg_p50_ms": statistics.median(times["postgres"]) * 1000, "pg_p95_ms": pct(times["postgres"], 95) * 1000,
            "ratio_median": statistics.median(ratios),
            "ratio_p10_p90": (pct(ratios, 10), pct(ratios, 90)),
        }
    return out


def _writer(url: str, worker: int, n: int, results: Any) -> None:
    store = open_postgres_store(url, pool_size=1)
    sid = store.create_session(f"scale-{worker}", "cli")
    t0 = time.perf_counter()
    for i in range(n):
        store.append_messages(sid, [{"role": "user", "content": f"worker {worker} message {i} deploy server"}])
    results.put((worker, time.perf_counter() - t0))
    store.close()


def scale_out(server: Any, per_worker: int) -> list[dict[str, Any]]:
    ctx = mp.get_context("spawn")
    rows = []
    for procs in (1, 2, 4, 8):
        url = server.url(server.create_database(f"scale_{procs}"))
        open_postgres_store(url).close()
        results = ctx.Queue()
        workers = [ctx.Process(target=_writer, args=(url, w, per_worker, results)) for w in range(procs)]
        t0 = time.perf_counter()
        for p in workers:
            p.start()
        for p in workers:
            p.join()
        wall = time.perf_counter() - t0
        with open_postgres_store(url) as store:
            stored = store.message_count()
            distinct = len({(m["content"]) for w in range(procs) for m in store.get_messages(f"scale-{w}")})
        expected = procs * per_worker
        rows.append({"processes": procs, "messages": expected, "msg_per_s": expected / wall,
                     "lost": expected - distinct, "duplicated": stored - distinct})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-script", type=Path, default=_shared_bench())
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--search-iters", type=int, default=100)
    ap.add_argument("--batch", type=int, default=500, help="messages per interleaving step of the write phase")
    ap.add_argument("--scale-msgs", type=int, default=1000, help="messages per writer process in the scale-out")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    shared = load_shared(args.bench_script)
    wl = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=args.sessions, n_messages=args.messages).build()
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                              "load_before": os.getloadavg(), "messages": args.messages, "cpus": os.cpu_count()}
    with running_server() as server, tempfile.TemporaryDirectory() as tmp:
        url = server.url(server.create_database("bench"))
        sqlite_store = SessionStore(Path(tmp) / "state.db", durable=True)
        pg_store = open_postgres_store(url)
        report["write_msg_per_s"] = write_both(wl, sqlite_store, pg_store, args.batch)
        sqlite_store.flush_search_index()
        # statistics and visibility map as autovacuum keeps them on a live server (it vacuums
        # insert-only tables too), and ANALYZE for SQLite: without statistics the planner may walk
        # the primary key for a rare word; without the visibility map the postings' index-only
        # scans visit the table
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        sqlite3.connect(Path(tmp) / "state.db").execute("ANALYZE").connection.close()
        report["size_bytes"] = {"sqlite": sum(os.path.getsize(p) for p in Path(tmp).glob("state.db*")),
                                "postgres": pg_store.stats().db_bytes}
        report["search"] = search_both(shared, sqlite_store, pg_store, args.search_iters, server)
        report["planted_found"] = {
            name: sum(1 for q in shared.PROBE_QUERIES[:10] if store.search(q, limit=5)) for name, store in
            (("sqlite", sqlite_store), ("postgres", pg_store))}
        sqlite_store.close()
        pg_store.close()
        report["scale_out"] = scale_out(server, args.scale_msgs)
    report["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['date']}  {args.messages} messages  {report['cpus']} CPUs  "
          f"load {report['load_before'][0]:.2f} -> {report['load_after'][0]:.2f}")
    w = report["write_msg_per_s"]
    print(f"write (one message per durable commit): sqlite {w['sqlite']:.0f} msg/s, postgres {w['postgres']:.0f} msg/s")
    s = report["size_bytes"]
    print(f"size: sqlite {s['sqlite'] / 1e6:.1f} MB, postgres {s['postgres'] / 1e6:.1f} MB (whole database)")
    print(f"{'query class':<22} {'sqlite p50/p95 ms':>18} {'postgres p50/p95 ms':>20} {'pg/sqlite median [p10-p90]':>28}"
          f"  {'CPU ms: sqlite p95, pg client p95 + server mean':>48}")
    for category, row in report["search"].items():
        lo, hi = row["ratio_p10_p90"]
        print(f"{category:<22} {row['sqlite_p50_ms']:>8.2f}/{row['sqlite_p95_ms']:<8.2f} "
              f"{row['pg_p50_ms']:>9.2f}/{row['pg_p95_ms']:<9.2f} {row['ratio_median']:>8.2f}x [{lo:.2f}-{hi:.2f}]"
              f"  {row['sqlite_cpu_p95_ms']:>18.2f}, {row['pg_client_cpu_p95_ms']:.2f} + {row['pg_server_cpu_mean_ms']:.2f}")
    print(f"probe queries with hits: {report['planted_found']}")
    for row in report["scale_out"]:
        print(f"scale-out {row['processes']} writer(s): {row['msg_per_s']:.0f} msg/s aggregate, "
              f"lost {row['lost']}, duplicated {row['duplicated']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
