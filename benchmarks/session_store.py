#!/usr/bin/env python3
"""Session-store benchmark: our SessionStore and the reference, same workload, same run, ratios.

Runs the shared workload script (../shared/bench/bench_sessionstore.py, seed 1337)
once per repetition for each store, alternating ours / reference so that machine
noise hits both alike, then prints medians and ratios. The reference is
hermes-agent 0.19.0's hermes_state.py, built into an ignored scratch folder
(.bench/ref) by the shared setup script on first use; it is never committed.

    python3 benchmarks/session_store.py --reps 1                 # 100k messages, both stores
    python3 benchmarks/session_store.py --messages 3000 --sessions 30 --search-iters 20 \
        --conc-msgs 200 --reps 1                                  # smoke run, ~20 s
    python3 benchmarks/session_store.py --skip-reference --messages 1000000 --sessions 10000
    python3 benchmarks/session_store.py --report-only --markdown  # table of the last run
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Optional

REPO = Path(__file__).resolve().parent.parent
OURS = "session_store_adapter:SessionStoreAdapter"
REFERENCE = "hermes_ref"
# the probe queries that look for the 8 planted special-character strings
PLANTED_PROBES = ("C++ (pointer", "error: file not found", "path/to/file.py:42", "user's config*",
                  "-verbose", "{json: true}", "NEAR(deploy server)", "100%_done")


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-script", type=Path, default=REPO.parent / "shared" / "bench" / "bench_sessionstore.py")
    ap.add_argument("--setup-script", type=Path, default=REPO.parent / "shared" / "bench" / "setup_reference.sh")
    ap.add_argument("--ref-dir", type=Path, default=REPO / ".bench" / "ref")
    ap.add_argument("--workdir", type=Path, default=REPO / ".bench" / "session_store")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--search-iters", type=int, default=200)
    ap.add_argument("--conc-procs", type=int, default=4)
    ap.add_argument("--conc-msgs", type=int, default=2000)
    ap.add_argument("--skip-reference", action="store_true", help="run only our store")
    ap.add_argument("--skip-preloaded-conc", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="combined JSON (default: <workdir>/combined.json)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--report-only", action="store_true",
                    help="do not run anything: print the table from an earlier run's combined JSON")
    return ap.parse_args(argv)


def ensure_reference(args: argparse.Namespace) -> None:
    if (args.ref_dir / "hermes_state.py").exists():
        return
    print(f"building the reference into {args.ref_dir} ...", file=sys.stderr, flush=True)
    subprocess.run(["bash", str(args.setup_script), str(args.ref_dir)], check=True)


def run_one(args: argparse.Namespace, adapter: str, label: str, rep: int) -> dict[str, Any]:
    """One repetition of the shared script for one store, in its own interpreter."""
    out = args.workdir / f"{label}_rep{rep}.json"
    cmd = [sys.executable, str(args.bench_script), "--adapter", adapter,
           "--workdir", str(args.workdir / label), "--out", str(out), "--reps", "1",
           "--messages", str(args.messages), "--sessions", str(args.sessions),
           "--search-iters", str(args.search_iters), "--conc-procs", str(args.conc_procs),
           "--conc-msgs", str(args.conc_msgs)]
    if adapter == REFERENCE:
        cmd += ["--ref-path", str(args.ref_dir)]
    if args.skip_preloaded_conc:
        cmd.append("--skip-preloaded-conc")
    env = dict(os.environ)
    # spawned concurrency workers import the adapter (and through it the store) by name
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "benchmarks"), str(REPO),
                                                    env.get("PYTHONPATH", "")) if p)
    print(f"--- {label} rep {rep}", file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def median(results: list[dict[str, Any]], get: Callable[[dict[str, Any]], Any]) -> Optional[float]:
    values = []
    for r in results:
        try:
            v = get(r)
        except (KeyError, IndexError, TypeError):
            continue
        if v is not None:
            values.append(v)
    return statistics.median(values) if values else None


def planted_found(result: dict[str, Any]) -> int:
    probes = {p["query"]: p for p in result.get("probe", [])}
    return sum(1 for q in PLANTED_PROBES if probes.get(q, {}).get("hits") and not probes[q].get("error"))


def figures(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over repetitions of the figures the goals are stated in."""
    def rep0(get):
        return lambda r: get(r["reps"][0])
    f: dict[str, Any] = {
        "write_msgs_per_s": median(results, rep0(lambda r: r["write"]["msgs_per_s"])),
        "write_first_10k_msgs_per_s": median(results, rep0(lambda r: r["write"]["windows"][0]["msgs_per_s"])),
        "write_last_10k_msgs_per_s": median(results, rep0(lambda r: r["write"]["windows"][-1]["msgs_per_s"])),
        "append_p50_ms": median(results, rep0(lambda r: r["write"]["append_latency"]["median_ms"])),
        "append_p99_ms": median(results, rep0(lambda r: r["write"]["append_latency"]["p99_ms"])),
        "append_max_ms": median(results, rep0(lambda r: r["write"]["append_latency"]["max_ms"])),
        "write_errors": median(results, rep0(lambda r: sum(r["write"]["errors"].values()))),
        "db_bytes_after_close": median(results, rep0(lambda r: sum(r["write"]["sizes_after_close"].values()))),
        "db_bytes_vacuumed": median(results, rep0(lambda r: r["vacuumed_bytes"])),
        "io_write_bytes": median(results, rep0(lambda r: r["write"]["io_write_bytes"])),
        "get_messages_median_ms": median(results, rep0(lambda r: r["search"]["get_messages"]["median_ms"])),
        "planted_found": median(results, planted_found),
        "search": {},
        "search_errors": median(results, rep0(lambda r: sum(c["errors"] for c in r["search"]["categories"].values()))),
    }
    categories = results[0]["reps"][0]["search"]["categories"]
    for cat in categories:
        f["search"][cat] = {
            "median_ms": median(results, rep0(lambda r, c=cat: r["search"]["categories"][c]["median_ms"])),
            "p95_ms": median(results, rep0(lambda r, c=cat: r["search"]["categories"][c]["p95_ms"])),
        }
    for variant in ("conc_fresh", "conc_preloaded"):
        if variant in results[0]["reps"][0]:
            f[variant] = {
                "msgs_per_s": median(results, rep0(lambda r, v=variant: r[v]["msgs_per_s"])),
                "lost_rows": max(r["reps"][0][variant]["lost_rows"] for r in results),
                "failed_appends": max(r["reps"][0][variant]["appends_failed"] for r in results),
            }
    return f


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.2f}" if abs(v) < 100 else f"{v:,.0f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _ratio(a: Any, b: Any) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def report(ours: dict[str, Any], ref: Optional[dict[str, Any]], markdown: bool = False) -> str:
    """A table: metric, ours, reference, ratio (ours/ref, or ref/ours for latencies)."""
    r = ref or {}
    rows = [
        ("write msg/s (ours/ref)", ours["write_msgs_per_s"], r.get("write_msgs_per_s"), "up"),
        ("write msg/s, first 10k", ours["write_first_10k_msgs_per_s"], r.get("write_first_10k_msgs_per_s"), "up"),
        ("write msg/s, last 10k", ours["write_last_10k_msgs_per_s"], r.get("write_last_10k_msgs_per_s"), "up"),
        ("append p99 ms (ref/ours)", ours["append_p99_ms"], r.get("append_p99_ms"), "down"),
        ("append max ms (ref/ours)", ours["append_max_ms"], r.get("append_max_ms"), "down"),
        ("DB bytes after close (ours/ref)", ours["db_bytes_after_close"], r.get("db_bytes_after_close"), "size"),
        ("bytes written during appends", ours["io_write_bytes"], r.get("io_write_bytes"), "size"),
    ]
    for cat, v in ours["search"].items():
        rv = r.get("search", {}).get(cat, {})
        rows.append((f"search p95 ms {cat} (ref/ours)", v["p95_ms"], rv.get("p95_ms"), "down"))
        rows.append((f"search p50 ms {cat}", v["median_ms"], rv.get("median_ms"), "down"))
    rows.append(("get_messages p50 ms", ours["get_messages_median_ms"], r.get("get_messages_median_ms"), "down"))
    rows.append(("planted special strings found /8", ours["planted_found"], r.get("planted_found"), "none"))
    for variant in ("conc_fresh", "conc_preloaded"):
        if variant in ours:
            rv = r.get(variant, {})
            rows.append((f"{variant} 4 procs msg/s (ours/ref)", ours[variant]["msgs_per_s"], rv.get("msgs_per_s"), "up"))
            rows.append((f"{variant} lost rows / failed appends",
                         f"{ours[variant]['lost_rows']} / {ours[variant]['failed_appends']}",
                         f"{rv.get('lost_rows', '-')} / {rv.get('failed_appends', '-')}", "none"))
    width = max(len(name) for name, *_ in rows)
    if markdown:
        lines = ["| metric | ours | reference | ratio |", "| --- | ---: | ---: | ---: |"]
    else:
        lines = [f"{'metric':<{width}}  {'ours':>14}  {'reference':>14}  ratio"]
    for name, a, b, kind in rows:
        ratio = {"up": lambda: _ratio(a, b), "size": lambda: _ratio(a, b),
                 "down": lambda: _ratio(b, a)}.get(kind, lambda: "")()
        if markdown:
            lines.append(f"| {name} | {_fmt(a)} | {_fmt(b)} | {ratio} |")
        else:
            lines.append(f"{name:<{width}}  {_fmt(a):>14}  {_fmt(b):>14}  {ratio}")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if not args.bench_script.exists():
        print(f"benchmark script not found: {args.bench_script} (use --bench-script)", file=sys.stderr)
        return 2
    out = args.out or args.workdir / "combined.json"
    if args.report_only:
        combined = json.loads(out.read_text())
        print(report(combined["ours"], combined["reference"], args.markdown))
        return 0
    args.workdir.mkdir(parents=True, exist_ok=True)
    if not args.skip_reference:
        ensure_reference(args)
    ours_runs, ref_runs = [], []
    for rep in range(1, args.reps + 1):
        ours_runs.append(run_one(args, OURS, "ours", rep))
        if not args.skip_reference:
            ref_runs.append(run_one(args, REFERENCE, "reference", rep))
    ours = figures(ours_runs)
    ref = figures(ref_runs) if ref_runs else None
    env = ours_runs[0]["environment"]
    combined = {"environment": env, "workload": ours_runs[0]["workload"], "args": {k: str(v) for k, v in
                vars(args).items()}, "ours": ours, "reference": ref,
                "per_rep": {"ours": [r["summary"] for r in ours_runs], "reference": [r["summary"] for r in ref_runs]}}
    out.write_text(json.dumps(combined, indent=1, ensure_ascii=False))
    print(f"python {env['python']}, SQLite {env['sqlite_version']}, {env.get('nproc')} CPUs, "
          f"workload digest {ours_runs[0]['workload']['digest_sha256'][:16]}, reps {args.reps}")
    print(report(ours, ref, args.markdown))
    print(f"(full figures: {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
