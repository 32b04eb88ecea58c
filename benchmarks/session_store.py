#!/usr/bin/env python3
"""Session-store benchmark: our SessionStore beside the reference, interleaved, at equal durability.

Uses the shared workload (../shared/bench/bench_sessionstore.py, seed 1337). Both
stores live in this one process and take turns at the finest grain: the same
batch of appends (``--batch`` messages) for writes, the same query for searches,
one round of writer processes for concurrency, in A-B / B-A order. Each step
gives a ratio; the report is the median of those ratios with its quartiles.

Phases:
  write      both stores at synchronous=FULL on disk and on tmpfs (--full-messages),
             and at synchronous=NORMAL (--messages, whose databases the search uses);
             (write_full: the FULL runs only)
             the disk's fsync time is measured between batches of the same run and
             the fsync-bound maximum (one durable commit per append) printed beside.
  search     every query class, per query, on the NORMAL databases.
  writers    --conc-procs processes per store appending at once, rounds alternating.
  load       our store only: every query class while --conc-procs processes append.
  scale      our store only (--phases scale): write --messages, then every query class, quiet
             (for the 1M-message figures; the reference would take hours at that size).

    python3 benchmarks/session_store.py                       # everything (~15 min here)
    python3 benchmarks/session_store.py --messages 3000 --sessions 30 --full-messages 600 \\
        --search-iters 10 --conc-msgs 100 --load-iters 5      # smoke run, ~1 min
    python3 benchmarks/session_store.py --backend postgres    # PostgreSQL beside SQLite, 100k messages
    python3 benchmarks/session_store.py --backend postgres --messages 5000 --sessions 50 --search-iters 10
The reference is built on first use by the shared setup script into .bench/ref (never committed).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))
from fair import (alternate, bytes_written, filesystem, fsync_bound, fsync_probe, machine, percentile,  # noqa: E402
                  ratio_stats)
from session_store_reference import ReferenceAdapter, shared  # noqa: E402

OURS = "session_store_adapter:SessionStoreAdapter"
REF = "session_store_reference:ReferenceAdapter"
PLANTED = ("C++ (pointer", "error: file not found", "path/to/file.py:42", "user's config*", "-verbose",
           "{json: true}", "NEAR(deploy server)", "100%_done")


def log(*parts: object) -> None:
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def make(spec: str, synchronous: str) -> Any:
    module, _, cls = spec.partition(":")
    return getattr(__import__(module), cls)(synchronous=synchronous, ref_path=os.environ["HERMES_REF_PATH"])


def open_pair(directory: Path, synchronous: str, wl: shared.Workload) -> dict[str, Any]:
    stores = {}
    for side, spec in (("ours", OURS), ("ref", REF)):
        path = directory / f"{side}_{synchronous}.db"
        for suffix in ("", "-wal", "-shm", "-lock"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        adapter = make(spec, synchronous)
        adapter.open(str(path))
        for s in wl.sessions:
            adapter.create_session(s["id"], s["source"], s["model"])
        stores[side] = adapter
    return stores


def phase_write(directory: Path, synchronous: str, wl: shared.Workload, batch: int, probe_every: int) -> dict[str, Any]:
    """Both stores append the same batches, alternating; fsync is probed every few batches."""
    stores = open_pair(directory, synchronous, wl)
    lat: dict[str, list[float]] = {"ours": [], "ref": []}
    cpu: dict[str, list[float]] = {"ours": [], "ref": []}  # the appending thread's CPU time, per append
    spent = {"ours": 0.0, "ref": 0.0}
    process_cpu = {"ours": 0.0, "ref": 0.0}  # every thread of the process (ours checkpoints on one)
    written = {"ours": 0, "ref": 0}  # bytes given to write(): WAL frames, checkpoints, journals
    ratios, fsyncs, sized_fsyncs = [], [], []
    # ours indexes on a thread: a turn ends when that has caught up (settle), and the time
    # spent waiting for it, the rows left waiting when the appends returned, are reported
    settling = {"ours": 0.0, "ref": 0.0}
    lag_at_turn_end: dict[str, list[int]] = {"ours": [], "ref": []}
    # ours flushes the WAL itself (walsync.py): how long its own flushes took, per append
    own_flushes = {"ours": [0, 0.0], "ref": [0, 0.0]}

    def run(side: str, chunk: list) -> Callable[[], float]:
        def go() -> float:
            adapter, started, cpu_started = stores[side], time.perf_counter(), time.process_time()
            bytes_started = bytes_written()
            flushed = adapter.flush_stats() if hasattr(adapter, "flush_stats") else (0, 0.0)
            for si, m in chunk:
                a, c = time.perf_counter(), time.thread_time()
                adapter.append_message(wl.sessions[si]["id"], m)
                cpu[side].append(time.thread_time() - c)
                lat[side].append(time.perf_counter() - a)
            if hasattr(adapter, "settle"):
                lag_at_turn_end[side].append(adapter.index_status()["waiting"])
                settle_started = time.perf_counter()
                adapter.settle()
                settling[side] += time.perf_counter() - settle_started
            process_cpu[side] += time.process_time() - cpu_started
            written[side] += bytes_written() - bytes_started
            if hasattr(adapter, "flush_stats"):
                done = adapter.flush_stats()
                own_flushes[side][0] += done[0] - flushed[0]
                own_flushes[side][1] += done[1] - flushed[1]
            return time.perf_counter() - started
        return go

    for step, start in enumerate(range(0, len(wl.order), batch)):
        chunk = wl.order[start:start + batch]
        ours, ref = alternate(step, run("ours", chunk), run("ref", chunk))
        spent["ours"] += ours
        spent["ref"] += ref
        ratios.append(ref / ours)
        if step % probe_every == 0:
            fsyncs.append(fsync_probe(str(directory), 10)["p50_ms"])
            if written["ours"]:  # the same, writing as many bytes as one of our appends does
                size = -(-written["ours"] // len(lat["ours"]) // 4096) * 4096
                sized_fsyncs.append(fsync_probe(str(directory), 10, size)["p50_ms"])
        if step % 50 == 0:
            log(f"  write {synchronous} {start + len(chunk)}/{len(wl.order)} ratio {ratios[-1]:.2f}")
    sizes = {}
    for side, adapter in stores.items():
        adapter.close()
        path = directory / f"{side}_{synchronous}.db"
        sizes[side] = sum(os.path.getsize(str(path) + s) for s in ("", "-wal") if os.path.exists(str(path) + s))
    n = len(wl.order)
    fsync_ms = percentile(fsyncs, 0.5)
    bound = fsync_bound(fsync_ms)
    sized_ms = percentile(sized_fsyncs, 0.5)
    sized_bound = fsync_bound(sized_ms) if sized_fsyncs else None
    out = {"synchronous": synchronous, "filesystem": filesystem(str(directory)), "messages": n,
           "fsync_p50_ms": round(fsync_ms, 4), "fsync_bound_msgs_per_s": round(bound, 1) if bound else None,
           # a commit writes several pages: the bound again, with fsyncs of our own append's size
           "fsync_p50_ms_at_our_append_size": round(sized_ms, 4) if sized_fsyncs else None,
           "bound_at_our_append_size_msgs_per_s": round(sized_bound, 1) if sized_bound else None,
           "ratio_ref_time_over_ours": ratio_stats(ratios).as_dict(), "bytes_after_close": sizes, "load": machine()["load"]}
    for side in stores:
        rate = n / spent[side]
        slowest = sorted(range(n), key=lat[side].__getitem__)[-5:][::-1]
        out[side] = {"msgs_per_s": round(rate, 1), "append_p50_ms": round(percentile(lat[side], 0.5) * 1e3, 3),
                     "append_p99_ms": round(percentile(lat[side], 0.99) * 1e3, 3),
                     "append_max_ms": round(max(lat[side]) * 1e3, 2),
                     "share_of_fsync_bound": round(rate / bound, 3) if bound and synchronous == "full" else None,
                     # CPU is what load cannot inflate much: the work per message, whatever waited
                     "cpu_per_msg_us": round(process_cpu[side] / n * 1e6, 1),
                     "bytes_written_per_msg": round(written[side] / n),
                     "append_cpu_p50_ms": round(percentile(cpu[side], 0.5) * 1e3, 3),
                     "append_cpu_p99_ms": round(percentile(cpu[side], 0.99) * 1e3, 3),
                     "append_cpu_max_ms": round(max(cpu[side]) * 1e3, 2),
                     # appends alone (the time the callers waited) beside the rate above, which
                     # includes waiting at each turn's end until the index had caught up
                     "appends_only_msgs_per_s": round(n / sum(lat[side]), 1),
                     "index_catch_up_ms_per_turn": round(settling[side] / max(1, len(ratios)) * 1e3, 2),
                     "rows_waiting_at_turn_end_max": max(lag_at_turn_end[side], default=0),
                     # the disk as this store met it: its own flushes of the WAL (none for the
                     # reference, whose fsync is inside SQLite), and the most appends a second
                     # those flushes would allow; the probe above samples the disk between batches
                     "own_flush_ms_mean": round(own_flushes[side][1] / own_flushes[side][0] * 1e3, 4)
                     if own_flushes[side][0] else None,
                     "share_of_own_flush_bound": round(rate * own_flushes[side][1] / own_flushes[side][0], 3)
                     if own_flushes[side][0] else None,
                     # the slowest appends, wall against the CPU they used: the rest was waiting
                     # (for a core, for the disk, for a lock)
                     "slowest_wall_vs_cpu_ms": [(round(lat[side][i] * 1e3, 2), round(cpu[side][i] * 1e3, 2))
                                                for i in slowest]}
    out["cpu_ratio_ref_over_ours"] = round(out["ref"]["cpu_per_msg_us"] / out["ours"]["cpu_per_msg_us"], 2)
    return out


def phase_search(directory: Path, iters: int) -> dict[str, Any]:
    """Each query on both stores, in alternating order; ratios per query."""
    stores = {}
    for side, spec in (("ours", OURS), ("ref", REF)):
        adapter = make(spec, "normal")
        adapter.open(str(directory / f"{side}_normal.db"))
        stores[side] = adapter
    for _, pool in shared.QUERY_CATEGORIES:  # warm-up, untimed
        for q in pool:
            for adapter in stores.values():
                adapter.search(q, limit=20)
    out: dict[str, Any] = {}
    step = 0
    for cat, pool in shared.QUERY_CATEGORIES:
        times: dict[str, list[float]] = {"ours": [], "ref": []}
        ratios = []
        for i in range(iters):
            q = pool[i % len(pool)]

            def timed(side: str) -> Callable[[], float]:
                def go() -> float:
                    a = time.perf_counter()
                    stores[side].search(q, limit=20)
                    return time.perf_counter() - a
                return go
            ours, ref = alternate(step, timed("ours"), timed("ref"))
            step += 1
            times["ours"].append(ours)
            times["ref"].append(ref)
            ratios.append(ref / ours)
        out[cat] = {side: {"p50_ms": round(percentile(t, 0.5) * 1e3, 3), "p95_ms": round(percentile(t, 0.95) * 1e3, 3)}
                    for side, t in times.items()}
        out[cat]["ratio_ref_over_ours"] = ratio_stats(ratios).as_dict()
    out["planted_found"] = {side: sum(1 for q in PLANTED if adapter.search(q, limit=20)) for side, adapter in stores.items()}
    out["load"] = machine()["load"]
    for adapter in stores.values():
        adapter.close()
    return out


def _writer(spec: str, synchronous: str, ref_path: str, db: str, wid: int, tag: str, n: int, seed: int,
            start: Any, stop: Any, q: Any) -> None:
    os.environ["HERMES_REF_PATH"] = ref_path
    wl = shared.Workload(seed=seed + wid, n_sessions=max(2, n // 50), n_messages=n, active_sessions=4, plant=False).build()
    adapter = make(spec, synchronous)
    adapter.open(db)
    ids = [f"w{wid}-{tag}-{s['id']}" for s in wl.sessions]
    for s, sid in zip(wl.sessions, ids):
        adapter.create_session(sid, s["source"], s["model"])
    start.wait(timeout=600)  # a writer that died before it raises BrokenBarrierError here
    lat, cpu, ok, failed, i = [], [], 0, 0, 0
    t0 = time.perf_counter()
    lag_max, probe = 0, hasattr(adapter, "index_status")
    while i < len(wl.order) and not (stop is not None and stop.is_set()):
        if probe and i % 25 == 0:  # how far the index lags behind, sampled (one count query)
            lag_max = max(lag_max, adapter.index_status()["waiting"])
        si, m = wl.order[i % len(wl.order)]
        a, c = time.perf_counter(), time.thread_time()
        try:
            adapter.append_message(ids[si], m)
            ok += 1
        except Exception:  # counted, never hidden
            failed += 1
        cpu.append(time.thread_time() - c)
        lat.append(time.perf_counter() - a)
        i += 1
        if stop is not None and i == len(wl.order):
            i = 0
            ids = [f"{sid}+" for sid in ids]
            for s, sid in zip(wl.sessions, ids):
                adapter.create_session(sid, s["source"], s["model"])
    elapsed = time.perf_counter() - t0
    status = {}
    if probe:  # until the index has caught up with what this writer appended
        lag_max = max(lag_max, adapter.index_status()["waiting"])
        adapter.settle()
        status = adapter.index_status()
    elapsed_indexed = time.perf_counter() - t0
    adapter.close()
    slowest = max(range(len(lat)), key=lat.__getitem__) if lat else None
    q.put({"ok": ok, "failed": failed, "elapsed": elapsed, "elapsed_indexed": elapsed_indexed, "lag_max": lag_max,
           "indexer_cpu_s": status.get("indexer_cpu_s", 0.0), "indexer_rows": status.get("indexer_rows", 0),
           "max_ms": max(lat) * 1e3 if lat else 0.0,
           "p99_ms": percentile(lat, 0.99) * 1e3 if lat else 0.0,
           "slowest_cpu_ms": cpu[slowest] * 1e3 if slowest is not None else 0.0,
           "cpu_max_ms": max(cpu) * 1e3 if cpu else 0.0})


def run_writers(spec: str, synchronous: str, db: Path, procs: int, n: int, tag: str, stop: Any = None) -> tuple[list, Any]:
    ctx = mp.get_context("spawn")
    start, q = ctx.Barrier(procs + (1 if stop is not None else 0)), ctx.Queue()
    ps = [ctx.Process(target=_writer, args=(spec, synchronous, os.environ["HERMES_REF_PATH"], str(db), w, tag, n,
                                            1337 + 1000, start, stop, q)) for w in range(procs)]
    for p in ps:
        p.start()
    return ps, (start, q)


def phase_writers(directory: Path, synchronous: str, procs: int, n: int, rounds: int) -> dict[str, Any]:
    """Rounds of *procs* processes x *n* appends per store, alternating; ratio per round."""
    rates: dict[str, list[float]] = {"ours": [], "ref": []}
    worst: dict[str, float] = {"ours": 0.0, "ref": 0.0}
    worst_cpu: dict[str, float] = {"ours": 0.0, "ref": 0.0}  # CPU of that slowest append
    cpu_max: dict[str, float] = {"ours": 0.0, "ref": 0.0}
    expected, failures, ratios, fsyncs = {"ours": 0, "ref": 0}, {"ours": 0, "ref": 0}, [], []
    indexed_rates: dict[str, list[float]] = {"ours": [], "ref": []}
    lag = {"ours": 0, "ref": 0}
    indexer = {"ours": [0.0, 0], "ref": [0.0, 0]}  # CPU seconds, rows of the writers' indexer threads
    catch_up: dict[str, list[float]] = {"ours": [], "ref": []}
    dbs = {side: directory / f"conc_{side}_{synchronous}.db" for side in ("ours", "ref")}
    for db in dbs.values():
        for suffix in ("", "-wal", "-shm", "-lock"):
            Path(str(db) + suffix).unlink(missing_ok=True)

    def one(side: str, spec: str, r: int) -> Callable[[], float]:
        def go() -> float:
            ps, (start, q) = run_writers(spec, synchronous, dbs[side], procs, n, f"r{r}")
            results = [q.get(timeout=3600) for _ in ps]
            for p in ps:
                p.join()
            wall = max(x["elapsed"] for x in results)
            ok = sum(x["ok"] for x in results)
            wall_indexed = max(x["elapsed_indexed"] for x in results)
            indexed_rates[side].append(ok / wall_indexed)
            catch_up[side].append(wall_indexed - wall)
            lag[side] = max(lag[side], *(x["lag_max"] for x in results))
            indexer[side][0] += sum(x["indexer_cpu_s"] for x in results)
            indexer[side][1] += sum(x["indexer_rows"] for x in results)
            expected[side] += ok
            failures[side] += sum(x["failed"] for x in results)
            for x in results:
                if x["max_ms"] > worst[side]:
                    worst[side], worst_cpu[side] = x["max_ms"], x["slowest_cpu_ms"]
                cpu_max[side] = max(cpu_max[side], x["cpu_max_ms"])
            rates[side].append(ok / wall)
            return wall
        return go

    for r in range(rounds):
        fsyncs.append(fsync_probe(str(directory), 20)["p50_ms"])
        ours, ref = alternate(r, one("ours", OURS, r), one("ref", REF, r))
        ratios.append(ref / ours)
        log(f"  writers {synchronous} round {r}: ours {rates['ours'][-1]:.0f} ref {rates['ref'][-1]:.0f} msg/s")
    lost = {}
    for side, spec in (("ours", OURS), ("ref", REF)):
        adapter = make(spec, synchronous)
        adapter.open(str(dbs[side]))
        lost[side] = expected[side] - adapter.count_messages()
        adapter.close()
    fsync_ms = percentile(fsyncs, 0.5)
    bound = fsync_bound(fsync_ms)
    return {"synchronous": synchronous, "procs": procs, "per_proc": n, "rounds": rounds,
            "fsync_p50_ms": round(fsync_ms, 4), "fsync_bound_msgs_per_s": round(bound, 1) if bound else None,
            "ratio_ours_rate_over_ref": ratio_stats(ratios).as_dict(), "load": machine()["load"],
            **{side: {"msgs_per_s": round(percentile(rates[side], 0.5), 1), "lost_rows": lost[side],
                      "failed_appends": failures[side], "append_max_ms": round(worst[side], 1),
                      "cpu_of_slowest_append_ms": round(worst_cpu[side], 2),
                      "append_cpu_max_ms": round(cpu_max[side], 2),
                      # until every writer saw fewer than a batch of rows waiting for the indexes
                      "msgs_per_s_until_indexed": round(percentile(indexed_rates[side], 0.5), 1),
                      "share_of_fsync_bound_until_indexed": round(percentile(indexed_rates[side], 0.5) / bound, 3)
                      if bound and synchronous == "full" else None,
                      "index_catch_up_after_last_append_ms_p50": round(percentile(catch_up[side], 0.5) * 1e3, 1),
                      "rows_waiting_max": lag[side],
                      "indexer_cpu_us_per_msg": round(indexer[side][0] / max(1, expected[side]) * 1e6, 1),
                      "rows_indexed_by_indexer_threads": indexer[side][1],
                      "share_of_fsync_bound": round(percentile(rates[side], 0.5) / bound, 3)
                      if bound and synchronous == "full" else None} for side in rates}}


def phase_load(directory: Path, procs: int, iters: int) -> dict[str, Any]:
    """Our store only: every query class while *procs* processes keep appending to the 100k database.

    Each search's wall time is split into its CPU time, its wait for a CPU and the rest
    (see search_under_load.py, which also runs this on its own).
    """
    from search_under_load import run as run_under_load

    return run_under_load(directory / "ours_normal.db", writers=procs, rate=0.0, iters=iters, pace_ms=0.0,
                          warmup_s=1.0)


def phase_scale(directory: Path, wl: shared.Workload, iters: int, batch: int = 1) -> dict[str, Any]:
    """Our store alone: append the workload (rate per 10% of it; with *batch* > 1 in turns of
    that many messages of one session), then time every query class."""
    db = directory / "scale_ours.db"
    for suffix in ("", "-wal", "-shm", "-lock"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    adapter = make(OURS, "normal")
    adapter.open(str(db))
    for s in wl.sessions:
        adapter.create_session(s["id"], s["source"], s["model"])
    step = max(1, len(wl.order) // 10)
    rates, lat, started = [], [], time.perf_counter()
    window = started
    pending: dict[str, list] = {}
    for i, (si, m) in enumerate(wl.order, 1):
        a = time.perf_counter()
        if batch <= 1:
            adapter.append_message(wl.sessions[si]["id"], m)
        else:  # a session's messages gathered into turns of *batch* (one transaction each)
            turn = pending.setdefault(wl.sessions[si]["id"], [])
            turn.append(m)
            if len(turn) >= batch or i == len(wl.order):
                for sid, msgs in list(pending.items()) if i == len(wl.order) else [(wl.sessions[si]["id"], turn)]:
                    b = time.perf_counter()
                    adapter.append_turn(sid, msgs)
                    pending.pop(sid, None)
                    if i == len(wl.order):  # the final flush: one latency per turn, not one for all
                        lat.append(time.perf_counter() - b)
        if batch <= 1 or i < len(wl.order):
            lat.append(time.perf_counter() - a)
        if i % step == 0:
            now = time.perf_counter()
            rates.append(round(step / (now - window), 1))
            window = now
            log(f"  scale {i}/{len(wl.order)} {rates[-1]} msg/s")
    elapsed = time.perf_counter() - started
    adapter.close()
    size = sum(os.path.getsize(str(db) + s) for s in ("", "-wal") if os.path.exists(str(db) + s))
    adapter = make(OURS, "normal")
    adapter.open(str(db))
    load_before = machine()["load"]
    for _, pool in shared.QUERY_CATEGORIES:
        for q in pool:
            adapter.search(q, limit=20)
    classes = {}
    for cat, pool in shared.QUERY_CATEGORIES:
        times = []
        for i in range(iters):
            a = time.perf_counter()
            adapter.search(pool[i % len(pool)], limit=20)
            times.append(time.perf_counter() - a)
        classes[cat] = {"p50_ms": round(percentile(times, 0.5) * 1e3, 3), "p95_ms": round(percentile(times, 0.95) * 1e3, 3)}
    adapter.close()
    return {"messages": len(wl.order), "appended_per_transaction": batch,
            "msgs_per_s": round(len(wl.order) / elapsed, 1), "rate_per_tenth": rates,
            "append_p99_ms": round(percentile(lat, 0.99) * 1e3, 3), "append_max_ms": round(max(lat) * 1e3, 2),
            "bytes_after_close": size, "load_during_search": [load_before, machine()["load"]], "classes": classes}


def _backend_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    return parser


def main(argv: list[str] | None = None) -> int:
    backend, rest = _backend_parser().parse_known_args(argv)
    if backend.backend == "postgres":  # PostgreSQL beside SQLite: its own script, its own options
        sys.path.insert(0, str(HERE))
        from session_store_postgres import main as postgres_main

        return postgres_main(rest)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref-dir", type=Path, default=REPO / ".bench" / "ref")
    ap.add_argument("--workdir", type=Path, default=REPO / ".bench" / "session_store")
    ap.add_argument("--tmpfs", type=Path, default=Path("/dev/shm"), help="a RAM-backed directory for the fast-fsync run")
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--full-messages", type=int, default=5000, help="messages per synchronous=FULL write run")
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--search-iters", type=int, default=100)
    ap.add_argument("--conc-procs", type=int, default=4)
    ap.add_argument("--conc-msgs", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--load-iters", type=int, default=60)
    ap.add_argument("--phases", default="write,search,writers,load")
    ap.add_argument("--scale-batch", type=int, default=1, help="scale phase: messages of one session per transaction")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite",
                    help="postgres: the PostgreSQL store beside SQLite (session_store_postgres.py; "
                         "its options follow, see --backend postgres --help)")
    args = ap.parse_args(argv)
    if not (args.ref_dir / "hermes_state.py").exists():
        log(f"building the reference into {args.ref_dir}")
        subprocess.run(["bash", str(shared.__file__).replace("bench_sessionstore.py", "setup_reference.sh"),
                        str(args.ref_dir)], check=True)
    os.environ["HERMES_REF_PATH"] = str(args.ref_dir)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), os.environ.get("PYTHONPATH", "")])
    args.workdir.mkdir(parents=True, exist_ok=True)
    phases = set(args.phases.split(","))
    report: dict[str, Any] = {"machine": machine(), "args": {k: str(v) for k, v in vars(args).items()}}
    if "write" in phases or "write_full" in phases:
        small = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=max(2, args.full_messages // 100),
                                n_messages=args.full_messages).build()
        report["write_full_disk"] = phase_write(args.workdir, "full", small, args.batch, 5)
        if args.tmpfs.is_dir():
            with tempfile.TemporaryDirectory(dir=args.tmpfs) as fast:
                report["write_full_tmpfs"] = phase_write(Path(fast), "full", small, args.batch, 5)
    if "write" in phases:
        big = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=args.sessions, n_messages=args.messages).build()
        report["workload_digest"] = big.digest()[:16]
        report["write_normal_disk"] = phase_write(args.workdir, "normal", big, args.batch, 25)
    if "search" in phases:
        report["search"] = phase_search(args.workdir, args.search_iters)
    if "writers" in phases:
        for mode in ("full", "normal"):
            report[f"writers_{mode}"] = phase_writers(args.workdir, mode, args.conc_procs, args.conc_msgs, args.rounds)
    if "load" in phases:
        report["search_under_load"] = phase_load(args.workdir, args.conc_procs, args.load_iters)
    if "scale" in phases:
        big = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=args.sessions, n_messages=args.messages).build()
        report["workload_digest"] = big.digest()[:16]
        report["scale"] = phase_scale(args.workdir, big, args.search_iters, args.scale_batch)
    report["machine_end"] = machine()
    out = args.out or args.workdir / "fair.json"
    out.write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    log(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
