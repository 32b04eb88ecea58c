"""Memory write scanner: this checkout's scan time against another git revision's, interleaved in one process.

Run: python benchmarks/scanner_compare.py [--ref main] [--rounds 5] [--notes 2000] [--json] [--check]

The other revision's ``hermes_plugins_builtin/memory/scanner`` package is extracted with ``git archive`` into a
temporary directory and imported under another name, so both scanners run in the same process on the same
200-character notes (made by joining corpus notes, as benchmarks/scanner.py does). Each round scans every note
with both, alternating note by note which goes first, and records CPU time per scan; the report gives p50, p99 and mean per
round and the ratio this/other with its spread across rounds. Only the time is compared; decisions are not.

``--check`` compares decisions instead of time, for a change meant to be faster only: both scanners read every
corpus note and the 200-character notes of both timing sets (all notes, benign notes), and the check fails (exit 1)
when any verdict differs: blocked or not, and the family; the rule, span and view are compared and counted too.
A differing note is named by its split and line number, and its text printed only for splits that were tuned on
(an independent batch's notes stay unread).
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
#: The built-in memory package, not the scanner alone: the scanner imports modules beside it (findings, verdicts).
PACKAGE = "hermes_plugins_builtin/memory"


def _other_scanner(ref: str, into: Path) -> Callable[[str], Any]:
    """The ``_scan`` of the scanner at ``ref``, its package imported as ``memory_at_ref``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, PACKAGE], capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"cannot read {PACKAGE} at {ref!r}: {archive.stderr.decode().strip()} (give a branch, tag or commit of this repository)")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    (into / PACKAGE).rename(into / "memory_at_ref")
    sys.path.insert(0, str(into))
    return importlib.import_module("memory_at_ref.scanner")._scan


def _notes(count: int) -> list[str]:
    """200-character notes joined from corpus notes, made as benchmarks/scanner.py makes them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scanner import _two_hundred  # benchmarks/scanner.py

    return _two_hundred([json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()], count)


def _summary(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p50_ms": pick(0.50), "p99_ms": pick(0.99), "mean_ms": sum(ordered) / len(ordered)}


def _finding(found: Any) -> tuple[str, str, str, str] | None:
    return None if found is None else (found.family, found.rule, found.span, found.view)


def check(ref: str) -> dict[str, Any]:
    """Both scanners' verdicts on every corpus note and every 200-character note (see the module docstring)."""
    from hermes_plugins_builtin.memory.scanner import _scan as this

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scanner import KNOWN_SPLITS, _two_hundred  # benchmarks/scanner.py

    notes = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    benign = [n for n in notes if n["label"] == "benign"]
    cases = [(n["split"], number, n["text"]) for number, n in enumerate(notes, 1)]
    cases += [("200-char", number, text) for number, text in enumerate(_two_hundred(notes, 2000), 1)]
    cases += [("200-char benign", number, text) for number, text in enumerate(_two_hundred(benign, 2000), 1)]
    with tempfile.TemporaryDirectory() as directory:
        other = _other_scanner(ref, Path(directory))
        differing = []
        for split, number, text in cases:
            mine, theirs = _finding(this(text)), _finding(other(text))
            if mine != theirs:
                verdict = (mine is None) != (theirs is None) or (mine is not None and theirs is not None and mine[0] != theirs[0])
                shown = text if split in KNOWN_SPLITS else None
                differing.append({"split": split, "number": number, "verdict_differs": verdict, "this": mine if shown else None,
                                  "other": theirs if shown else None, "text": shown})
    return {"ref": ref, "notes": len(cases), "verdicts_differ": sum(d["verdict_differs"] for d in differing),
            "findings_differ": len(differing), "differing": differing}


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
    parser.add_argument("--check", action="store_true", help="compare verdicts on every note instead of time; exit 1 when one differs")
    args = parser.parse_args(argv)
    if args.check:
        outcome = check(args.ref)
        if args.json:
            json.dump(outcome, sys.stdout, indent=2, ensure_ascii=False)
            print()
        else:
            print(f"{outcome['notes']} notes (corpus and 200-character) read by this checkout and by {args.ref}: "
                  f"{outcome['verdicts_differ']} verdicts differ (blocked or family), {outcome['findings_differ']} findings differ (rule, span or view)")
            for item in outcome["differing"]:
                detail = f": {item['other']} -> {item['this']} {item['text']!r}" if item["text"] is not None else " (independent split: not shown)"
                print(f"  {item['split']} #{item['number']}{' VERDICT' if item['verdict_differs'] else ''}{detail}")
        return 1 if outcome["verdicts_differ"] else 0
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
