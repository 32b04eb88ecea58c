#!/usr/bin/env python3
"""PostgreSQL search: ranking from postings against ranking the newest matches, CPU per search.

Loads the shared workload (seed 1337) into a throwaway PostgreSQL cluster
(``synchronous_commit`` off: the load is not what is measured), then runs each word
query class twice per round, alternating: once as the store searches now (postings,
impact.py) and once down the index path that ranks the newest ``rank_window``
matches by reading their word vectors (what every word query did before schema 4).
Reported per class and variant: client CPU (this process) and server CPU (the
postmaster's children, from /proc) per search, plus wall p50/p95. CPU time is what a
search costs whatever else runs on the machine; wall time is not.

    python3 benchmarks/session_store_postgres_ranking.py                       # 100k messages
    python3 benchmarks/session_store_postgres_ranking.py --messages 5000 --sessions 50 --iters 20   # smoke
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from session_store_postgres import _message, _shared_bench, load_shared, pct, server_cpu_s  # noqa: E402

from hermes_core.testing.postgres import running_server  # noqa: E402
from hermes_plugins_builtin.state.postgres import open_postgres_store  # noqa: E402
from hermes_plugins_builtin.state.postgres import search as pg_search  # noqa: E402

CLASSES = ("single_common_word", "two_word", "rare_word", "phrase")
VARIANTS = ("postings", "newest_window")


def measure(store: Any, server: Any, pool: tuple[str, ...], iters: int) -> dict[str, dict[str, float]]:
    serve = pg_search.postings_serve
    spent = {v: {"client": 0.0, "server": 0.0, "wall": []} for v in VARIANTS}
    try:
        for i in range(iters):
            query = pool[i % len(pool)]
            for variant in (VARIANTS if i % 2 == 0 else VARIANTS[::-1]):
                # the index path is what every word query took before the postings existed
                pg_search.postings_serve = serve if variant == "postings" else (lambda group: False)
                s0, c0, t0 = server_cpu_s(server), time.process_time(), time.perf_counter()
                store.search(query, limit=20)
                wall, client = time.perf_counter() - t0, time.process_time() - c0
                spent[variant]["server"] += server_cpu_s(server) - s0
                spent[variant]["client"] += client
                spent[variant]["wall"].append(wall)  # type: ignore[union-attr]
    finally:
        pg_search.postings_serve = serve
    return {v: {"client_cpu_ms": row["client"] / iters * 1000, "server_cpu_ms": row["server"] / iters * 1000,
                "wall_p50_ms": statistics.median(row["wall"]) * 1000, "wall_p95_ms": pct(row["wall"], 95) * 1000}
            for v, row in spent.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-script", type=Path, default=_shared_bench())
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--iters", type=int, default=100, help="queries per class and variant")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    shared = load_shared(args.bench_script)
    wl = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=args.sessions, n_messages=args.messages).build()
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                              "load_before": os.getloadavg(), "messages": args.messages}
    import psycopg

    with running_server() as server:
        url = server.url(server.create_database("ranking"))
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ALTER DATABASE ranking SET synchronous_commit = off")
        with open_postgres_store(url) as store:
            for session in wl.sessions:
                store.create_session(session["id"], session["source"], model=session["model"])
            for index, msg in wl.order:
                store.append_messages(wl.sessions[index]["id"], [_message(msg)])
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        with open_postgres_store(url) as store:
            pools = dict(shared.QUERY_CATEGORIES)
            report["classes"] = {name: measure(store, server, pools[name], args.iters) for name in CLASSES}
    report["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['date']}  {args.messages} messages  load {report['load_before'][0]:.2f} -> "
          f"{report['load_after'][0]:.2f}")
    print(f"{'query class':<20} {'variant':<14} {'client CPU ms':>14} {'server CPU ms':>14} {'wall p50/p95 ms':>16}")
    for name, variants in report["classes"].items():
        for variant, row in variants.items():
            print(f"{name:<20} {variant:<14} {row['client_cpu_ms']:>14.2f} {row['server_cpu_ms']:>14.2f} "
                  f"{row['wall_p50_ms']:>8.2f}/{row['wall_p95_ms']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
