#!/usr/bin/env python3
"""Where an append's CPU goes: our store at synchronous=FULL on tmpfs, by component.

The session-store benchmark times appends against the reference; this script says
what one append of ours spends its CPU on, so that a change to the write path can be
judged by the work it removes rather than by wall time on a shared machine. Each run
appends the shared workload (seed 1337) to a fresh store, or to a copy of --db (say a
100k database, whose impact lists are grown), one message per commit, and reads the
appending thread's CPU time around:

  index batch      indexing.index_pending / apply_prepared: a batch of waiting rows, under the lock
    impact lists   impact_upkeep.update_lists, inside it (as indexing calls it)
      list builds  impact_upkeep._build_list: a word reaching 1,000 messages gets its list
      word counts  impact_upkeep._document_frequency: is this word there yet?
    merging        indexing.merge_step: a slice of FTS5 segment merging
  tokenizing       indexing.prepare: the rows' words and grams (outside the lock on the
                   indexer thread; inside index_pending when an appender indexes)
  store the row    the appending thread's CPU less any index batch it ran itself:
                   transaction, counters, INSERT, file lock, encoding

plus the process's CPU per message (every thread: the indexer thread, which does the
index batches since the index upkeep left the append, and the checkpoint thread), the
appending thread's alone, and the most CPU any one append took. The run ends when the
indexer has caught up (``wait_for_index``), so its work is all counted. With --against SRC the same runs alternate with a second source
tree (another checkout's directory, e.g. ``git worktree add /tmp/main main``) in
separate processes, A-B then B-A, and the report gives the per-pair ratios.

    python3 benchmarks/append_cpu.py                                 # 5,000 messages, 3 runs
    python3 benchmarks/append_cpu.py --db .bench/s100k/base100k.db   # on a grown store
    python3 benchmarks/append_cpu.py --against /tmp/main --repeat 4  # before/after
    python3 benchmarks/append_cpu.py --against /tmp/main --typographic  # with em dashes in English text
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# (name, module, function); the upkeep lived in ranking.py before impact_upkeep.py, and an older
# tree given to --against is timed wherever it has the function
COMPONENTS = (("index batch", "indexing", "index_pending"), ("index batch", "indexing", "apply_prepared"),
              ("tokenizing", "indexing", "prepare"), ("impact lists", "indexing", "update_lists"),
              ("list builds", "impact_upkeep", "_build_list"), ("list builds", "ranking", "_build_list"),
              ("word counts", "impact_upkeep", "_document_frequency"),
              ("word counts", "ranking", "_document_frequency"), ("merging", "indexing", "merge_step"))


def worker(messages: int, directory: str, base: str | None, typographic: bool = False,
           inline: bool = True) -> dict[str, Any]:
    """One run, in this process, of whichever hermes_plugins_builtin is first on sys.path."""
    import importlib

    sys.path.insert(0, str(HERE))
    from session_store_reference import shared  # the shared workload (stdlib only)

    from hermes_plugins_builtin.state import SessionStore

    import threading

    spent: dict[str, float] = {name: 0.0 for name, _, _ in COMPONENTS}
    appender = threading.get_ident()
    in_appender = {"index batch": 0.0}  # index work the appending thread did itself
    depth = threading.local()  # index_pending calls prepare: count the inner call once

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            outer = not getattr(depth, name, False)
            setattr(depth, name, True)
            started = time.thread_time()
            try:
                return func(*args, **kwargs)
            finally:
                if outer:
                    setattr(depth, name, False)
                    took = time.thread_time() - started
                    spent[name] += took
                    if name == "index batch" and threading.get_ident() == appender:
                        in_appender[name] += took
        return wrapper

    for name, module, function in COMPONENTS:  # looked up at call time by their callers
        try:
            mod = importlib.import_module(f"hermes_plugins_builtin.state.{module}")
        except ModuleNotFoundError:
            continue
        if hasattr(mod, function):
            setattr(mod, function, timed(name, getattr(mod, function)))
    path = Path(directory) / "state.db"
    if base:
        shutil.copy(base, path)
    wl = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=max(2, messages // 100), n_messages=messages).build()
    if typographic:
        _typographic(wl)
    # (an older tree given to --against has neither the option nor the indexer thread)
    store = SessionStore(path, durable=True, **({} if inline else {"background_index": True}))
    ids = [store.create_session(f"cpu-{s['id']}", s["source"], model=s["model"]) for s in wl.sessions]
    worst, thread, process = 0.0, time.thread_time(), time.process_time()
    for si, m in wl.order:
        started = time.thread_time()
        store.append_message(ids[si], m["role"], m.get("content"), tool_calls=m.get("tool_calls"),
                             tool_name=m.get("tool_name"), tool_call_id=m.get("tool_call_id"),
                             finish_reason=m.get("finish_reason"))
        worst = max(worst, time.thread_time() - started)
    if hasattr(store, "wait_for_index"):
        store.wait_for_index()  # the indexer's work belongs to these appends
    thread, process = time.thread_time() - thread, time.process_time() - process
    store.close()
    per = {name: round(value / messages * 1e6, 1) for name, value in spent.items()}
    per["store the row"] = round((thread - in_appender["index batch"]) / messages * 1e6, 1)
    import hermes_plugins_builtin

    return {"source": str(Path(hermes_plugins_builtin.__file__).parent.parent), "messages": messages,
            "process_cpu_per_msg_us": round(process / messages * 1e6, 1),
            "thread_cpu_per_msg_us": round(thread / messages * 1e6, 1),
            "components_us_per_msg": per, "append_cpu_max_ms": round(worst * 1e3, 2)}


def _typographic(wl: Any) -> None:
    """Every fourth English message gets an em dash where its first sentence ends, as model
    output often has: mostly-ASCII text with a few non-ASCII characters, which the shared
    workload (pure ASCII English, and whole CJK messages) does not have."""
    for n, (_, m) in enumerate(wl.order):
        content = m.get("content")
        if n % 4 == 0 and isinstance(content, str) and content.isascii() and ". " in content:
            m["content"] = content.replace(". ", " \u2014 ", 1)


def run_one(source: Path, messages: int, tmpfs: Path, base: Path | None, typographic: bool = False,
            inline: bool = True) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=tmpfs) as directory:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")]))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--messages", str(messages),
               "--tmpfs", directory] + (["--db", str(base)] if base else []) + (["--typographic"] if typographic else [])
        if not inline:
            cmd.append("--indexer-thread")
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(f"the run on {source} failed:\n{done.stderr}")
        return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--db", type=Path, default=None, help="append to a copy of this state.db instead of a new one")
    ap.add_argument("--tmpfs", type=Path, default=Path("/dev/shm"), help="a RAM-backed directory (fsync is free)")
    ap.add_argument("--against", type=Path, default=None, help="a second source tree to alternate with")
    ap.add_argument("--typographic", action="store_true",
                    help="put an em dash in every fourth English message (mostly-ASCII text, as model output often is)")
    ap.add_argument("--indexer-thread", dest="inline", action="store_false",
                    help="SessionStore(background_index=True): an indexer thread instead of the appending thread")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.messages, str(args.tmpfs), str(args.db) if args.db else None, args.typographic,
                                args.inline)))
        return 0
    for given in (args.db, args.against):
        if given is not None and not given.exists():
            raise SystemExit(f"{given} does not exist -> give an existing path")
    sides = {"this tree": REPO} | ({"against": args.against.resolve()} if args.against else {})
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for rep in range(args.repeat):
        for side in (list(sides) if rep % 2 == 0 else list(sides)[::-1]):
            runs[side].append(run_one(sides[side], args.messages, args.tmpfs, args.db, args.typographic, args.inline))
            print(f"run {rep + 1} {side}: {runs[side][-1]['process_cpu_per_msg_us']} us/msg", file=sys.stderr)
    report: dict[str, Any] = {"load": "%.2f %.2f %.2f" % os.getloadavg(), "messages": args.messages,
                              "base": str(args.db) if args.db else None, "typographic": args.typographic, "runs": runs}
    for side, results in runs.items():
        report[side] = {
            "source": results[0]["source"],
            "process_cpu_per_msg_us_median": statistics.median(r["process_cpu_per_msg_us"] for r in results),
            "components_us_per_msg_median": {name: statistics.median(r["components_us_per_msg"][name] for r in results)
                                             for name in results[0]["components_us_per_msg"]},
            "append_cpu_max_ms": max(r["append_cpu_max_ms"] for r in results)}
    if args.against:
        ratios = [b["process_cpu_per_msg_us"] / a["process_cpu_per_msg_us"]
                  for a, b in zip(runs["this tree"], runs["against"])]
        report["cpu_ratio_against_over_this"] = {"median": round(statistics.median(ratios), 3),
                                                 "each": [round(r, 3) for r in ratios]}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
