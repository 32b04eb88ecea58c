"""Hook dispatch cost: ns per hook call for 0/1/5/20 implementations, hermes vs bare pluggy, same run.

Run: python benchmarks/hook_dispatch.py [--calls N] [--repeats R] [--json]

Three hermes figures per size:
- unguarded: a hook outside GUARDED_HOOKS (``on_session_reset``), callbacks run inline;
- guarded, timeout 0: a hot-path hook (``post_tool_call``) with ``plugins.hook_callback_timeout: 0``;
- guarded, timeout 30 s (the default), called from the main thread: callbacks run inline,
  each one's start noted for the watchdog that signals an overrun;
- guarded, timeout 30 s, worker threads (what a call from any other thread gets): callbacks
  run on a worker thread so a hung one can be abandoned (one hand-off per hook call).
Bare pluggy calls the same hookspecs with the same number of no-op implementations.
Both sides run interleaved in blocks of calls (pluggy, then each hermes variant, the
order reversed every other block), so a change in machine load hits them alike; each
block gives a ratio, and the table shows the median ratio with its quartiles and the
median ns per call. The load average is printed.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pluggy

from hermes_core import hookspecs
from hermes_core.hooks import HookDispatcher

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fair import load, ratio_stats  # noqa: E402

SIZES = (0, 1, 5, 20)
UNGUARDED = ("on_session_reset", {"session_id": "s", "platform": "cli"})
GUARDED = (
    "post_tool_call",
    {
        "tool_name": "terminal",
        "args": {"cmd": "ls"},
        "result": "{}",
        "task_id": "t",
        "duration_ms": 1.0,
        "session_id": "s",
        "tool_call_id": "c",
        "turn_id": "u",
        "status": "ok",
    },
)


def _impl_module(hook: str, index: int) -> Any:
    """A plugin object with one no-op @hookimpl named ``hook`` (the spec's own arguments)."""
    import inspect
    import types

    params = ", ".join(inspect.signature(getattr(hookspecs, hook)).parameters)
    namespace: dict[str, Any] = {"hookimpl": hookspecs.hookimpl}
    exec(f"@hookimpl\ndef {hook}({params}):\n    return None\n", namespace)
    module = types.ModuleType(f"bench_plugin_{hook}_{index}")
    setattr(module, hook, namespace[hook])
    return module


def _interleaved(callers: dict[str, tuple[Any, int]], blocks: int) -> dict[str, list[float]]:
    """ns per call of every caller, block by block, in alternating order."""
    ns: dict[str, list[float]] = {label: [] for label in callers}
    labels = list(callers)
    for block in range(blocks):
        for label in labels if block % 2 == 0 else reversed(labels):
            call, calls = callers[label]
            started = time.perf_counter_ns()
            for _ in range(calls):
                call()
            ns[label].append((time.perf_counter_ns() - started) / calls)
    return ns


def bench(size: int, calls: int, blocks: int) -> dict[str, dict[str, float]]:
    """{variant: {ns, ratio, q1, q3}} for one number of implementations."""
    row: dict[str, dict[str, float]] = {}
    for label, (hook, kwargs) in (("unguarded", UNGUARDED), ("guarded", GUARDED)):
        bare = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        bare.add_hookspecs(hookspecs)
        for index in range(size):
            bare.register(_impl_module(hook, index), name=f"p{index}")
        caller = getattr(bare.hook, hook)
        callers: dict[str, tuple[Any, int]] = {"pluggy": ((lambda c=caller: c(**kwargs)), calls)}
        variants = (("", 0.0, True),) if label == "unguarded" else (("_t0", 0.0, True), ("_t30", 30.0, True), ("_t30_threads", 30.0, False))
        for suffix, timeout, inline in variants:
            ours = HookDispatcher(timeout=timeout)
            ours.inline_timeouts = inline
            for index in range(size):
                ours.pm.register(_impl_module(hook, index), name=f"p{index}")
            callers[f"hermes{suffix}"] = ((lambda o=ours: o.notify(hook, **kwargs)), calls if inline else max(calls // 10, 200))
        ns = _interleaved(callers, blocks)
        row[f"pluggy_{label}"] = {"ns": statistics.median(ns["pluggy"])}
        for name in callers:
            if name == "pluggy":
                continue
            stats = ratio_stats([h / p for h, p in zip(ns[name], ns["pluggy"])])
            row[f"hermes_{label}{name[len('hermes'):]}"] = {"ns": statistics.median(ns[name]), "ratio": stats.median,
                                                              "q1": stats.q1, "q3": stats.q3}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2_000, help="calls per block")
    parser.add_argument("--blocks", type=int, default=40, help="blocks per side, interleaved")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = load()
    results = {size: bench(size, args.calls, args.blocks) for size in SIZES}
    if args.json:
        print(json.dumps({"load": [load_before, load()], "results": results}, indent=2))
        return
    print(f"# hook dispatch, ns per call (median of {args.blocks} interleaved blocks of {args.calls} calls); ratio = median of "
          f"per-block hermes/pluggy [quartiles]; Python {platform.python_version()}, pluggy {pluggy.__version__}; "
          f"load {load_before} -> {load()}")
    print(f"{'impls':>5} | {'pluggy':>7} {'unguarded':>9} {'ratio':>18} | {'pluggy':>7} {'t=0':>7} {'ratio':>18} | "
          f"{'t=30s':>7} {'ratio':>18} | {'threads':>7} {'ratio':>18}")

    def cell(entry: dict[str, float]) -> str:
        return f"{entry['ns']:>7.0f} {entry['ratio']:>5.2f} [{entry['q1']:.2f}-{entry['q3']:.2f}]"

    for size, row in results.items():
        print(f"{size:>5} | {row['pluggy_unguarded']['ns']:>7.0f} {cell(row['hermes_unguarded'])} | "
              f"{row['pluggy_guarded']['ns']:>7.0f} {cell(row['hermes_guarded_t0'])} | {cell(row['hermes_guarded_t30'])} | "
              f"{cell(row['hermes_guarded_t30_threads'])}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
