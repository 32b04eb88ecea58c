"""Memory write scanner: blocked % and rejected % per family on every split of the labelled corpus, and scan time.

Run: python benchmarks/scanner.py [--json] [--no-timing] [--corpus PATH] [--list SPLIT ...] [--list-dev] [--list-fresh2] ...

Corpus: tests/builtin/memory/corpus/corpus.jsonl. Each note has a ``split``:

- ``dev`` (the half the rules were tuned on) and ``holdout`` (a third, chosen by a hash of the note's source group
  before any tuning; its misses were read and it became tuning data too);
- ``fresh`` (a later batch written in other voices after the rules of the first two were fixed; no rule was fitted
  to its lines, but its misses were read once, two rounds ago);
- ``fresh2`` (a batch written by someone who never saw the rules, the other notes or the scanner's results; scanned
  once before any rule was adjusted to it, then tuning data);
- ``fresh3``, ``fresh4`` and ``fresh5`` (written like fresh2, scanned as such, then tuning data), ``tune6`` and ``tune7`` (written
  apart and delivered in chunks, each measured once on arrival, then tuning data);
- any other split, such as ``fresh10`` from a ``corpus/fresh10/`` folder when one is present: an independent batch
  nobody has tuned on, the honest measure.

All splits present are reported:

- attacks: blocked % per attack family and per obfuscation (goal on an independent batch: >= 99 % overall);
- benign notes: rejected % for plain and hard-negative notes and per language (goal: <= 1 % overall);
- time: the scan of one note, uncached, wall clock and CPU time, p50/p99/max over every corpus note and over 200-character notes made by
  joining corpus notes (goal: p99 <= 1 ms for a 200-character note), after a warm-up; the one-off cost of the
  first scan (loading the confusables data) is printed separately.

``--list SPLIT`` (or ``--list-dev``, ``--list-fresh2``, ...) prints the misses and false positives of a split. For an
independent split, use it only to report, once the rules are frozen: reading its misses makes it tuning data.
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

#: How each known split was used; any split not named here is an independent batch (see the module docstring).
KNOWN_SPLITS = {"dev": "tuned on", "holdout": "tuned on", "fresh": "read", "fresh2": "tuned on", "fresh3": "tuned on", "tune6": "tuned on", "tune7": "tuned on", "fresh4": "tuned on", "fresh5": "tuned on", "tune8": "tuned on", "fresh6": "tuned on", "fresh7": "tuned on", "fresh8": "tuned on", "tune9": "tuned on", "fresh9": "tuned on", "tune10": "tuned on"}
INDEPENDENT = "independent"
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "builtin" / "memory" / "corpus" / "corpus.jsonl"


def _percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"n": len(ordered), "p50_ms": pick(0.50), "p99_ms": pick(0.99), "max_ms": ordered[-1], "mean_ms": sum(ordered) / len(ordered)}


def splits_of(notes: list[dict[str, Any]]) -> dict[str, str]:
    """The splits present in ``notes``, in report order (known ones first, then later batches by number), each
    with how it was used: "tuned on", "read" or "independent"."""
    present = {n["split"] for n in notes}
    number = lambda name: (int(name[len("fresh"):]) if name[len("fresh"):].isdigit() else 1 << 30, name)  # noqa: E731
    later = sorted(present - KNOWN_SPLITS.keys(), key=number)
    return {**{s: use for s, use in KNOWN_SPLITS.items() if s in present}, **{s: INDEPENDENT for s in later}}


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


def _timings(texts: list[str], with_meaning: bool = False) -> dict[str, Any]:
    """Wall-clock and CPU time of each scan. On a loaded machine the wall clock also counts the time the process
    waited for a core, so both are reported: CPU time is the scanner's own cost, wall time what a caller sees.
    The meaning stage's encoder runs on threads of its own, so with it the CPU time is the whole process's."""
    from hermes_plugins_builtin.memory.scanner import _scan

    clock = time.process_time if with_meaning else time.thread_time
    wall, cpu = [], []
    for text in texts:
        started, started_cpu = time.perf_counter(), clock()
        _scan(text, with_meaning)
        cpu.append((clock() - started_cpu) * 1000)
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


def measure(corpus: Path = CORPUS, timing: bool = True, with_meaning: bool = True, count: int = 2000) -> dict[str, Any]:
    started = time.perf_counter()
    from hermes_plugins_builtin.memory.scanner import _scan

    import_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    _scan("first scan loads the confusables data: раураl")
    first_ms = (time.perf_counter() - started) * 1000
    notes = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    splits = splits_of(notes)
    if with_meaning:  # load the encoder and the network before anything is timed
        _scan("the meaning stage loads its encoder on first use", True)
    results = {n["text"]: _scan(n["text"], with_meaning) for n in notes}
    halves = {split: _rates([n for n in notes if n["split"] == split], results) for split in splits}
    listing = {
        split: {
            "missed": [n["text"] for n in notes if n["split"] == split and n["label"] == "attack" and results[n["text"]] is None],
            "rejected": [
                f"{results[n['text']].family}/{results[n['text']].rule}: {n['text']}"
                for n in notes
                if n["split"] == split and n["label"] == "benign" and results[n["text"]] is not None
            ],
        }
        for split in splits
    }
    times = {
        "import_ms": import_ms,
        "first_scan_ms": first_ms,
        "corpus_notes": _timings([n["text"] for n in random.Random(3).sample(notes, min(count * 8, len(notes)))], with_meaning),
        "notes_200_chars": _timings(_two_hundred(notes, count), with_meaning),
        "benign_200_chars": _timings(_two_hundred([n for n in notes if n["label"] == "benign"], count), with_meaning),
    } if timing else None
    return {
        "meaning_stage": with_meaning,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "system": platform.platform(), "load": os.getloadavg()},
        "corpus": {"notes": len(notes), "attacks": sum(n["label"] == "attack" for n in notes), "languages": len({n["lang"] for n in notes})},
        "splits": splits,
        "halves": halves,
        "listing": listing,
        "time": times,
    }


def _row(name: str, *cells: dict[str, Any] | None) -> str:
    cell = lambda s: f"{s['hit']:>5}/{s['n']:<5} {s['rate']:7.1%}" if s else " " * 19  # noqa: E731
    return f"  {name:<22} " + "   ".join(cell(c) for c in cells)


def _rows(name: str, halves: dict[str, Any], key: str, item: str | None = None) -> str:
    return _row(name, *(halves[s][key] if item is None else halves[s][key].get(item) for s in halves))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus to read (default: the committed corpus.jsonl)")
    parser.add_argument("--no-timing", action="store_true", help="rates only, no scan-time measurement")
    parser.add_argument("--model", choices=("on", "off"), default="on", help="with (default) or without the meaning stage (scanner/meaning.py)")
    parser.add_argument("--timing-count", type=int, default=2000, metavar="N", help="200-character notes timed per set (default 2000; corpus notes: 8 N, at most all)")
    parser.add_argument("--list", action="append", default=[], metavar="SPLIT", help="print the misses and false positives of SPLIT (repeatable)")
    for split, use in (*KNOWN_SPLITS.items(), ("fresh10", INDEPENDENT)):
        note = " (for reporting only: reading them makes it tuning data)" if use == INDEPENDENT else ""
        parser.add_argument(f"--list-{split}", action="append_const", const=split, dest="list", help=f"same as --list {split}{note}")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        parser.error(f"no corpus at {args.corpus}: build it with python tests/builtin/memory/corpus/build.py, or pass --corpus PATH")
    result = measure(args.corpus, timing=not args.no_timing, with_meaning=args.model == "on", count=args.timing_count)
    unknown = sorted(set(args.list) - result["splits"].keys())
    if unknown:
        parser.error(f"no split {', '.join(unknown)} in {args.corpus} (present: {', '.join(result['splits'])})")
    if args.json:
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    machine, corpus, halves = result["machine"], result["corpus"], result["halves"]
    print(f"python {machine['python']}, {machine['cpus']} CPUs, {machine['system']}, load {machine['load'][0]:.2f}")
    print(f"meaning stage: {'on' if result['meaning_stage'] else 'off'}")
    print(f"corpus: {corpus['notes']} notes, {corpus['attacks']} attacks, {corpus['languages']} languages")
    print(f"  {'':<22} " + "   ".join(f"{f'{s} ({use})':<19}" for s, use in result["splits"].items()))
    print(_rows("ATTACKS BLOCKED", halves, "attacks"))
    for family in sorted(set().union(*(h["attacks_by_family"] for h in halves.values()))):
        print(_rows(f"family {family}", halves, "attacks_by_family", family))
    for variant in sorted(set().union(*(h["attacks_by_obfuscation"] for h in halves.values()))):
        print(_rows(f"as {variant}", halves, "attacks_by_obfuscation", variant))
    print(_rows("BENIGN REJECTED", halves, "benign"))
    for kind in ("plain", "hard"):
        print(_rows(f"{kind} notes", halves, "benign_by_kind", kind))
    rejected_languages = sorted(
        lang for lang in set().union(*(h["benign_by_language"] for h in halves.values()))
        if any(h["benign_by_language"].get(lang, {"hit": 0})["hit"] for h in halves.values())
    )
    for lang in rejected_languages:
        print(_rows(f"language {lang}", halves, "benign_by_language", lang))
    timing = result["time"]
    if timing is not None:
        print(f"time: import {timing['import_ms']:.0f} ms, first scan {timing['first_scan_ms']:.0f} ms (loads confusables data)")
        for label, key in (("corpus notes", "corpus_notes"), ("200-char notes", "notes_200_chars"), ("200-char benign", "benign_200_chars")):
            t = timing[key]
            for clock, c in (("wall", t), ("cpu", t["cpu"])):
                print(f"  {label:<16} {clock:<4} n={c['n']:<5} p50 {c['p50_ms']:.3f} ms   p99 {c['p99_ms']:.3f} ms   max {c['max_ms']:.3f} ms   mean {c['mean_ms']:.3f} ms")
        for clock, t in (("wall", timing["notes_200_chars"]), ("cpu", timing["notes_200_chars"]["cpu"])):
            print(f"  goal p99 <= 1 ms for a 200-character note ({clock} clock): {'met' if t['p99_ms'] <= 1.0 else 'MISSED'}")
    for split in dict.fromkeys(args.list):
        for text in result["listing"][split]["missed"]:
            print(f"  [{split}] missed: {text!r}")
        for text in result["listing"][split]["rejected"]:
            print(f"  [{split}] rejected: {text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
