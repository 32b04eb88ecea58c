#!/usr/bin/env python3
"""Ranking that loses nothing: our top 20 against BM25 over every match, and planted facts.

Builds a store from the shared workload (seed 1337) with planted facts mixed in:
short messages that repeat three common words, each in its own session, at
random points of the history (most of them far older than the newest few
hundred matches of those words). Then, on the same file:

* overlap: for 300 queries (the workload's query classes, single common words,
  word pairs, prefixes and the planted-fact queries), |ours ∩ exhaustive| /
  |exhaustive| over the top 20, where "exhaustive" is the same store opened with
  ``rank_window=None`` (FTS5's bm25() over every match of the same expression);
* planted: the share of planted-fact queries whose fact's session is among the
  sessions of our top 3 hits.

Both are scored per pass over the queries on one open store (--passes, default 2):
the first pass is each query's first search in the process; later passes find
the postings that searches build and keep (a gateway's steady state).

    python3 benchmarks/search_relevance.py                  # 100k messages (~2 min to build)
    python3 benchmarks/search_relevance.py --messages 5000 --sessions 50 --facts 20   # smoke
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from fair import machine  # noqa: E402
from session_store_reference import shared  # noqa: E402

from hermes_plugins_builtin.state import SessionStore  # noqa: E402

FACT_WORDS = ("deploy", "cluster", "timeout", "database", "migration", "cache", "server", "config", "token",
              "queue", "worker", "release", "branch", "backup", "restore", "proxy", "latency", "thread")


def build(path: Path, wl: shared.Workload, facts: int, rng: random.Random) -> list[tuple[str, str]]:
    """Write the workload with *facts* planted messages; returns (query, session id) per fact."""
    for suffix in ("", "-wal", "-shm", "-lock"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    planted: dict[int, tuple[str, str, str]] = {}
    answers = []
    for k in range(facts):
        a, b, c = rng.sample(FACT_WORDS, 3)
        sid = f"fact-{k:04d}"
        at = int(len(wl.order) * rng.random() ** 2)  # skewed towards the oldest part of the history
        while at in planted:
            at += 1
        planted[at] = (sid, f"{a} {b} {c}: {a} {b} {c} settled as {a} {b} {c}.", f"{a} {b} {c}")
        answers.append((f"{a} {b} {c}", sid))
    with SessionStore(path) as store:
        for s in wl.sessions:
            store.create_session(s["id"], s["source"], model=s["model"])
        for sid, _, _ in planted.values():
            store.create_session(sid, "cli")
        for i, (si, m) in enumerate(wl.order):
            if i in planted:
                sid, text, _ = planted[i]
                store.append_message(sid, "user", text)
            store.append_message(wl.sessions[si]["id"], m["role"], m.get("content"), tool_calls=m.get("tool_calls"),
                                 tool_name=m.get("tool_name"), tool_call_id=m.get("tool_call_id"),
                                 finish_reason=m.get("finish_reason"))
        store.flush_search_index()
    return answers


def queries(wl: shared.Workload, facts: list[tuple[str, str]], total: int, rng: random.Random) -> list[tuple[str, str]]:
    """(class, query): every workload query, then common words, pairs and prefixes up to *total*."""
    out = [(cat, q) for cat, pool in shared.QUERY_CATEGORIES for q in pool]
    out += [("planted_fact", q) for q, _ in facts]
    words = list(shared.COMMON_WORDS)
    while len(out) < total:
        kind = rng.random()
        if kind < 0.4:
            out.append(("common_word", rng.choice(words)))
        elif kind < 0.8:
            out.append(("word_pair", " ".join(rng.sample(words, 2))))
        else:
            out.append(("prefix", rng.choice(words)[:4] + "*"))
    return out[:total]


def score_pass(ours: SessionStore, todo: list[tuple[str, str]], truths: dict[str, list[int]],
               answers: dict[str, str]) -> dict[str, object]:
    """One pass over every query: overlap with the exhaustive top 20, planted facts in the top 3."""
    per_class: dict[str, list[float]] = {}
    worst: list[tuple[float, str]] = []
    found_top3 = 0
    for cat, q in todo:
        mine = [h.message_id for h in ours.search(q, limit=20)]
        truth = truths[q]
        if truth:
            share = len(set(mine) & set(truth)) / len(truth)
            per_class.setdefault(cat, []).append(share)
            worst.append((share, q))
        if cat == "planted_fact":
            top3 = {h.session_id for h in ours.search(q, limit=3)}
            found_top3 += answers[q] in top3
    overlaps = [v for values in per_class.values() for v in values]
    facts = sum(1 for cat, _ in todo if cat == "planted_fact")
    return {
        "queries_with_matches": len(overlaps),
        "overlap_mean": round(statistics.fmean(overlaps), 4), "overlap_min": round(min(overlaps), 3),
        "queries_with_full_overlap": sum(1 for v in overlaps if v == 1.0),
        "planted_in_top3": f"{found_top3}/{facts}", "planted_share": round(found_top3 / max(1, facts), 4),
        "worst": [f"{q!r}: {share:.2f}" for share, q in sorted(worst)[:10]],
        "per_class": {cat: {"n": len(v), "mean": round(statistics.fmean(v), 4), "min": round(min(v), 3)}
                      for cat, v in sorted(per_class.items())},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--facts", type=int, default=100)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--db", type=Path, default=HERE.parent / ".bench" / "relevance" / "state.db")
    ap.add_argument("--reuse", action="store_true", help="use the database of an earlier run as it is")
    ap.add_argument("--passes", type=int, default=2,
                    help="run the queries this many times on the same open store: the first pass is each "
                         "query's first search in the process, later ones find what searches cache built")
    ap.add_argument("--window-only", action="store_true",
                    help="rank as before the impact lists: FTS5 over every match up to the rank window, "
                         "else over the newest rank_window matches (for comparison)")
    args = ap.parse_args(argv)
    if args.window_only:
        import hermes_plugins_builtin.state.search as search_module

        def window_only(conn, group, filters, window, limit, tables, indexed_upto):  # type: ignore[no-untyped-def]
            """The rule before impact lists: FTS5 ranks every match up to the window, else the newest window."""
            if window:
                sql, params = search_module._group_query(group, filters, window, limit, tables, probe=True)
                if conn.execute(sql, params).fetchone()[0] <= window:
                    window = None
            sql, params = search_module._group_query(group, filters, window, limit, tables)
            return conn.execute(sql, params).fetchall()

        search_module._group_hits = window_only  # type: ignore[assignment]
    rng = random.Random(20261124)
    wl = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=args.sessions, n_messages=args.messages).build()
    args.db.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if args.reuse and args.db.exists():
        facts = json.loads((args.db.parent / "facts.json").read_text())
    else:
        facts = build(args.db, wl, args.facts, rng)
        (args.db.parent / "facts.json").write_text(json.dumps(facts))
    build_s = time.perf_counter() - started
    todo = queries(wl, [tuple(f) for f in facts], args.queries, random.Random(7))
    answers = dict((q, sid) for q, sid in facts)
    passes = []
    with SessionStore(args.db) as ours, SessionStore(args.db, rank_window=None) as exhaustive:
        truths = {q: [h.message_id for h in exhaustive.search(q, limit=20)] for _, q in todo}
        for _ in range(max(1, args.passes)):
            passes.append(score_pass(ours, todo, truths, answers))
    report = {
        "machine": machine(), "ranking": "window only" if args.window_only else "impact lists and postings",
        "messages": args.messages, "facts": len(facts), "queries": len(todo), "build_s": round(build_s, 1),
        "passes": passes,
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
