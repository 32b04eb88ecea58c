"""Memory write scanner: this checkout's scan time against another git revision's, interleaved in one process.

Run: python benchmarks/scanner_compare.py [--ref main] [--rounds 5] [--notes 2000] [--json]

The other revision's ``hermes_plugins_builtin/memory/scanner`` package is extracted with ``git archive`` into a
temporary directory and imported under another name, so both scanners run in the same process on the same
200-character notes (made by joining corpus notes, as benchmarks/scanner.py does). Each round scans every note
with both, alternating note by note which goes first, and records CPU time per scan; the report gives p50, p99 and mean per
round and the ratio this/other with its spread across rounds. Only the time is compared; decisions are not.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "builtin" / "memory" / "corpus" / "corpus.jsonl"
PACKAGE = "hermes_plugins_builtin/memory/scanner"


def _other_scanner(ref: str, into: Path) -> Callable[[str], Any]:
    """The ``_scan`` of the scanner package at ``ref``, imported as ``scanner_at_ref``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, PACKAGE], capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"cannot read {PACKAGE} at {ref!r}: {archive.stderr.decode().strip()} (give a branch, tag or commit of this repository)")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    (into / PACKAGE).rename(into / "scanner_at_ref")
    sys.path.insert(0, str(into))
    return importlib.import_module("scanner_at_ref")._scan


def _notes(count: int) -> list[str]:
    """200-character notes joined from corpus notes, made as benchmarks/scanner.py makes them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scanner import _two_hundred  # benchmarks/scanner.py

    return _two_hundred([json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()], count)


def _summary(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p50_ms": pick(0.50), "p99_ms": pick(0.99), "mean_ms": sum(ordered) / len(ordered)}


def measure(ref: str, rounds: int, count: int) -> dict[str, Any]:
    from hermes_plugins_builtin.memory.scanner import _scan as this

    with tempfile.TemporaryDirectory() as directory:
        other = _other_scanner(ref, Path(directory))
        notes = _notes(count)
        for text in notes[: count // 5]:  # warm-up: confusables data, compiled patterns, caches
            this(text)
            other(text)
        per_round: dict[str, list[dict[str, float]]] = {"this": [], "other": []}
        for number in range(rounds):
            times: dict[str, list[float]] = {"this": [], "other": []}
            # Which side goes first alternates note by note (and flips each round): the first to read a note pays for
            # what the second then finds warm (its hash, the CPU caches), so a fixed order favours the second.
            for index, text in enumerate(notes):
                order = (("this", this), ("other", other)) if (index + number) % 2 == 0 else (("other", other), ("this", this))
                for name, scan in order:
                    started = time.thread_time()
                    scan(text)
                    times[name].append((time.thread_time() - started) * 1000)
            for name in per_round:
                per_round[name].append(_summary(times[name]))
    ratios = {key: [t[key] / o[key] for t, o in zip(per_round["this"], per_round["other"])] for key in ("p50_ms", "p99_ms", "mean_ms")}
    return {"ref": ref, "rounds": per_round, "ratio_this_over_other": {k: {"median": statistics.median(v), "min": min(v), "max": max(v)} for k, v in ratios.items()},
            "load": os.getloadavg(), "notes": count}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="the git revision to compare against (default: main)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.ref, args.rounds, args.notes)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(f"{args.notes} notes of 200 characters, {args.rounds} rounds, CPU time per scan; load {result['load'][0]:.2f}")
    for name, label in (("this", "this checkout"), ("other", f"at {args.ref}")):
        rows = result["rounds"][name]
        print(f"  {label:<16} p50 " + " ".join(f"{r['p50_ms']:.3f}" for r in rows) + "   p99 " + " ".join(f"{r['p99_ms']:.3f}" for r in rows)
              + "   mean " + " ".join(f"{r['mean_ms']:.3f}" for r in rows))
    for key, spread in result["ratio_this_over_other"].items():
        print(f"  ratio this/{args.ref} {key[:-3]:<5} median {spread['median']:.2f} (min {spread['min']:.2f}, max {spread['max']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
