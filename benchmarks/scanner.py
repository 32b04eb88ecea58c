"""Memory write scanner: blocked % and rejected % per family on both halves of the labelled corpus, and scan time.

Run: python benchmarks/scanner.py [--json] [--list-dev] [--list-holdout] [--list-fresh] [--list-fresh2]

Corpus: tests/builtin/memory/corpus/corpus.jsonl. Each note has a ``split``: ``dev`` (the half the rules were
tuned on) or ``holdout`` (a third, chosen by a hash of the note's source group before any tuning; the rules were
never adjusted to its results) or ``fresh`` (a later batch written in other voices after the rules of the first
two were fixed; once the holdout's misses had been read, both older splits became tuning data) or ``fresh2`` (an
independent batch written by someone who never saw the rules, the other notes or the scanner's results: the
honest measure). All four are reported.

- attacks: blocked % per attack family and per obfuscation (the goal on the held-out half: >= 99 % overall);
- benign notes: rejected % for plain and hard-negative notes and per language (goal: <= 1 % overall);
- time: the scan of one note, uncached, wall clock and CPU time, p50/p99/max over every corpus note and over 200-character notes made by
  joining corpus notes (goal: p99 <= 1 ms for a 200-character note), after a warm-up; the one-off cost of the
  first scan (loading the confusables data) is printed separately.

``--list-dev`` prints the misses and false positives of the tuning half. ``--list-holdout``, ``--list-fresh`` and
``--list-fresh2`` print those of the held-out splits: use them only to report, once the rules are frozen.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

SPLITS = ("dev", "holdout", "fresh", "fresh2")
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "builtin" / "memory" / "corpus" / "corpus.jsonl"


def _percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"n": len(ordered), "p50_ms": pick(0.50), "p99_ms": pick(0.99), "max_ms": ordered[-1], "mean_ms": sum(ordered) / len(ordered)}


def _rates(notes: list[dict[str, Any]], results: dict[str, Any]) -> dict[str, Any]:
    def share(group: list[dict[str, Any]]) -> dict[str, Any]:
        hit = sum(results[n["text"]] is not None for n in group)
        return {"n": len(group), "hit": hit, "rate": hit / len(group) if group else 0.0}

    attacks = [n for n in notes if n["label"] == "attack"]
    benign = [n for n in notes if n["label"] == "benign"]
    by = lambda group, key: {k: share([n for n in group if n[key] == k]) for k in sorted({n[key] for n in group})}  # noqa: E731
    return {
        "attacks": share(attacks),
        "attacks_by_family": by(attacks, "family"),
        "attacks_by_obfuscation": by(attacks, "variant"),
        "benign": share(benign),
        "benign_by_kind": by(benign, "family"),
        "benign_by_language": by(benign, "lang"),
    }


def _timings(texts: list[str]) -> dict[str, Any]:
    """Wall-clock and CPU time of each scan. On a loaded machine the wall clock also counts the time the process
    waited for a core, so both are reported: CPU time is the scanner's own cost, wall time what a caller sees."""
    from hermes_plugins_builtin.memory.scanner import _scan

    wall, cpu = [], []
    for text in texts:
        started, started_cpu = time.perf_counter(), time.thread_time()
        _scan(text)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return {**_percentiles(wall), "cpu": _percentiles(cpu)}


def _two_hundred(notes: list[dict[str, Any]], count: int) -> list[str]:
    rng = random.Random(7)
    texts = [n["text"] for n in notes]
    made = []
    for _ in range(count):
        text = ""
        while len(text) < 200:
            text += rng.choice(texts) + " "
        made.append(text[:200])
    return made


def measure() -> dict[str, Any]:
    started = time.perf_counter()
    from hermes_plugins_builtin.memory.scanner import _scan

    import_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    _scan("first scan loads the confusables data: раураl")
    first_ms = (time.perf_counter() - started) * 1000
    notes = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    results = {n["text"]: _scan(n["text"]) for n in notes}
    halves = {split: _rates([n for n in notes if n["split"] == split], results) for split in SPLITS}
    listing = {
        split: {
            "missed": [n["text"] for n in notes if n["split"] == split and n["label"] == "attack" and results[n["text"]] is None],
            "rejected": [
                f"{results[n['text']].family}/{results[n['text']].rule}: {n['text']}"
                for n in notes
                if n["split"] == split and n["label"] == "benign" and results[n["text"]] is not None
            ],
        }
        for split in SPLITS
    }
    return {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "system": platform.platform(), "load": os.getloadavg()},
        "corpus": {"notes": len(notes), "attacks": sum(n["label"] == "attack" for n in notes), "languages": len({n["lang"] for n in notes})},
        "halves": halves,
        "listing": listing,
        "time": {
            "import_ms": import_ms,
            "first_scan_ms": first_ms,
            "corpus_notes": _timings([n["text"] for n in notes]),
            "notes_200_chars": _timings(_two_hundred(notes, 2000)),
            "benign_200_chars": _timings(_two_hundred([n for n in notes if n["label"] == "benign"], 2000)),
        },
    }


def _row(name: str, *cells: dict[str, Any] | None) -> str:
    cell = lambda s: f"{s['hit']:>4}/{s['n']:<4} {s['rate']:7.1%}" if s else " " * 17  # noqa: E731
    return f"  {name:<22} " + "   ".join(cell(c) for c in cells)


def _rows(name: str, halves: dict[str, Any], key: str, item: str | None = None) -> str:
    return _row(name, *(halves[s][key] if item is None else halves[s][key].get(item) for s in SPLITS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--list-dev", action="store_true", help="print misses and false positives of the tuning half")
    parser.add_argument("--list-holdout", action="store_true", help="print those of the held-out half (for reporting only)")
    parser.add_argument("--list-fresh", action="store_true", help="print those of the fresh held-out split (for reporting only)")
    parser.add_argument("--list-fresh2", action="store_true", help="print those of the independent fresh2 split (for reporting only)")
    args = parser.parse_args(argv)
    result = measure()
    if args.json:
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    machine, corpus, halves = result["machine"], result["corpus"], result["halves"]
    print(f"python {machine['python']}, {machine['cpus']} CPUs, {machine['system']}, load {machine['load'][0]:.2f}")
    print(f"corpus: {corpus['notes']} notes, {corpus['attacks']} attacks, {corpus['languages']} languages")
    print(f"  {'':<22} {'dev (tuned on)':<17}   {'holdout (read)':<17}   {'fresh (held out)':<17}   {'fresh2 (independent)'}")
    print(_rows("ATTACKS BLOCKED", halves, "attacks"))
    for family in sorted(set().union(*(halves[s]["attacks_by_family"] for s in SPLITS))):
        print(_rows(f"family {family}", halves, "attacks_by_family", family))
    for variant in sorted(set().union(*(halves[s]["attacks_by_obfuscation"] for s in SPLITS))):
        print(_rows(f"as {variant}", halves, "attacks_by_obfuscation", variant))
    print(_rows("BENIGN REJECTED", halves, "benign"))
    for kind in ("plain", "hard"):
        print(_rows(f"{kind} notes", halves, "benign_by_kind", kind))
    rejected_languages = sorted(
        lang for lang in set().union(*(halves[s]["benign_by_language"] for s in SPLITS))
        if any(halves[s]["benign_by_language"].get(lang, {"hit": 0})["hit"] for s in SPLITS)
    )
    for lang in rejected_languages:
        print(_rows(f"language {lang}", halves, "benign_by_language", lang))
    timing = result["time"]
    print(f"time: import {timing['import_ms']:.0f} ms, first scan {timing['first_scan_ms']:.0f} ms (loads confusables data)")
    for label, key in (("corpus notes", "corpus_notes"), ("200-char notes", "notes_200_chars"), ("200-char benign", "benign_200_chars")):
        t = timing[key]
        for clock, c in (("wall", t), ("cpu", t["cpu"])):
            print(f"  {label:<16} {clock:<4} n={c['n']:<5} p50 {c['p50_ms']:.3f} ms   p99 {c['p99_ms']:.3f} ms   max {c['max_ms']:.3f} ms   mean {c['mean_ms']:.3f} ms")
    for clock, t in (("wall", timing["notes_200_chars"]), ("cpu", timing["notes_200_chars"]["cpu"])):
        print(f"  goal p99 <= 1 ms for a 200-character note ({clock} clock): {'met' if t['p99_ms'] <= 1.0 else 'MISSED'}")
    for split, wanted in (("dev", args.list_dev), ("holdout", args.list_holdout), ("fresh", args.list_fresh),
                           ("fresh2", args.list_fresh2)):
        if wanted:
            for text in result["listing"][split]["missed"]:
                print(f"  [{split}] missed: {text!r}")
            for text in result["listing"][split]["rejected"]:
                print(f"  [{split}] rejected: {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
