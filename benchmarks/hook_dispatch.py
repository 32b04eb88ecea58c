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
The best of R repeats is reported, because noise on a shared machine only ever adds time.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from typing import Any

import pluggy

from hermes_core import hookspecs
from hermes_core.hooks import HookDispatcher

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


def _time(call, calls: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter_ns()
        for _ in range(calls):
            call()
        best = min(best, (time.perf_counter_ns() - started) / calls)
    return best


def bench(size: int, calls: int, repeats: int) -> dict[str, float]:
    row: dict[str, float] = {}
    for label, (hook, kwargs) in (("unguarded", UNGUARDED), ("guarded", GUARDED)):
        bare = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        bare.add_hookspecs(hookspecs)
        for index in range(size):
            bare.register(_impl_module(hook, index), name=f"p{index}")
        caller = getattr(bare.hook, hook)
        row[f"pluggy_{label}"] = _time(lambda: caller(**kwargs), calls, repeats)
        variants = (("", 0.0, True),) if label == "unguarded" else (("_t0", 0.0, True), ("_t30", 30.0, True), ("_t30_threads", 30.0, False))
        for suffix, timeout, inline in variants:
            ours = HookDispatcher(timeout=timeout)
            ours.inline_timeouts = inline
            for index in range(size):
                ours.pm.register(_impl_module(hook, index), name=f"p{index}")
            row[f"hermes_{label}{suffix}"] = _time(lambda: ours.notify(hook, **kwargs), calls if inline else max(calls // 10, 1000), repeats)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {size: bench(size, args.calls, args.repeats) for size in SIZES}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"# hook dispatch, ns per call (best of {args.repeats}); Python {platform.python_version()}, pluggy {pluggy.__version__}, {platform.machine()}")
    header = (f"{'impls':>5} | {'pluggy':>8} {'hermes':>8} {'ratio':>6} | {'pluggy':>8} {'t=0':>8} {'ratio':>6} | "
              f"{'t=30s':>8} {'ratio':>6} | {'threads':>8} {'ratio':>6}")
    print(f"{'':>5} | {'unguarded hook (on_session_reset)':^24} | {'guarded hook (post_tool_call); t=30s: main thread, threads: worker':^62}")
    print(header)
    for size, row in results.items():
        pu, hu = row["pluggy_unguarded"], row["hermes_unguarded"]
        pg, h0, h30 = row["pluggy_guarded"], row["hermes_guarded_t0"], row["hermes_guarded_t30"]
        ht = row["hermes_guarded_t30_threads"]
        print(f"{size:>5} | {pu:>8.0f} {hu:>8.0f} {hu / pu:>6.2f} | {pg:>8.0f} {h0:>8.0f} {h0 / pg:>6.2f} | "
              f"{h30:>8.0f} {h30 / pg:>6.2f} | {ht:>8.0f} {ht / pg:>6.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
