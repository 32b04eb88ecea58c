"""What the Honcho provider adds to a turn, and whether async writes lose anything.

Run: python benchmarks/honcho_provider.py [--turns 40] [--cold-turns 8] [--session-turns 50] [--delay 0.2]

The real honcho-ai SDK talks to hermes_core.testing.honcho_server.HonchoServer on 127.0.0.1, which
answers every request after ``--delay`` seconds (200 ms: a distant cloud region).

1. Turn overhead: the time spent in the provider's turn-time calls (on_turn_start, prefetch,
   sync_turn with writeFrequency async, queue_prefetch). "warm" turns find the context that the
   previous turn's background fetch prepared (the script waits for that fetch between turns, as a
   model call of that length would); "cold" turns have nothing prepared (a fresh provider per
   turn), so prefetch fetches while the user waits. Warm and cold turns alternate in one run.
2. Loss: a --session-turns session with writeFrequency async, drained at session end; every
   message must be on the server, in order.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hermes_bundled_plugins.memory.honcho.provider import HonchoMemoryProvider  # noqa: E402
from hermes_core.testing.honcho_server import HonchoServer  # noqa: E402


def _provider(home: Path, server: HonchoServer, workspace: str, **host: object) -> HonchoMemoryProvider:
    config = {"baseUrl": server.base_url, "workspace": workspace, "peerName": "eri", "hosts": {"hermes": {"aiPeer": "hermes", **host}}}
    (home / "honcho.json").write_text(json.dumps(config))
    provider = HonchoMemoryProvider()
    provider.initialize(f"bench-{workspace}", hermes_home=str(home), platform="cli", agent_context="primary", cwd=str(home))
    return provider


def _turn(provider: HonchoMemoryProvider, number: int) -> tuple[float, str]:
    text = f"question {number}: how should the deploy of service {number % 7} go?"
    started = time.perf_counter()
    provider.on_turn_start(number, text)
    recalled = provider.prefetch(text)
    provider.sync_turn(text, f"answer {number}")
    provider.queue_prefetch(text)
    return time.perf_counter() - started, recalled


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def overhead(server: HonchoServer, home: Path, turns: int, cold_turns: int) -> dict[str, object]:
    server.add_conclusion("bench", "hermes", "eri", "Eri deploys with canary releases")
    warm_provider = _provider(home, server, "bench")
    warm, cold, empty = [], [], 0
    # the first turn of any session is cold; it is not counted as warm
    _turn(warm_provider, 1)
    for number in range(2, turns + 2):
        assert warm_provider.prefetch_thread is not None
        warm_provider.prefetch_thread.join()  # the model answering this long is what makes the cache ready
        elapsed, recalled = _turn(warm_provider, number)
        warm.append(elapsed)
        empty += not recalled
        if cold_turns and number % max(1, turns // cold_turns) == 0 and len(cold) < cold_turns:
            fresh = _provider(home, server, "bench")
            cold.append(_turn(fresh, 1)[0])
            fresh.shutdown()
    warm_provider.shutdown()
    result: dict[str, object] = {
        "warm_turns": len(warm), "warm_p50_ms": statistics.median(warm) * 1000, "warm_p90_ms": _percentile(warm, 0.9) * 1000,
        "warm_max_ms": max(warm) * 1000, "turns_without_recall": empty,
    }
    if cold:
        result.update({
            "cold_turns": len(cold), "cold_p50_ms": statistics.median(cold) * 1000,
            "cold_over_warm_p50": statistics.median(cold) / statistics.median(warm),
            "cold_over_warm_range": f"{min(cold) / statistics.median(warm):.0f}..{max(cold) / statistics.median(warm):.0f}",
        })
    return result


def loss(server: HonchoServer, home: Path, turns: int) -> dict[str, object]:
    provider = _provider(home, server, "loss", writeFrequency="async")
    sync_times = []
    for number in range(1, turns + 1):
        started = time.perf_counter()
        provider.sync_turn(f"user {number}", f"assistant {number}")
        sync_times.append(time.perf_counter() - started)
    started = time.perf_counter()
    provider.on_session_end([])
    drain = time.perf_counter() - started
    provider.shutdown()
    stored = [m["content"] for m in server.state.messages if m["workspace_id"] == "loss"]
    expected = [text for n in range(1, turns + 1) for text in (f"user {n}", f"assistant {n}")]
    return {
        "turns": turns, "messages_expected": len(expected), "messages_stored": len(stored),
        "lost": len(set(expected) - set(stored)), "in_order": stored == expected,
        "sync_turn_p50_ms": statistics.median(sync_times) * 1000, "drain_s": drain,
        "journalled": len(provider.journal().entries()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--cold-turns", type=int, default=8)
    parser.add_argument("--session-turns", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    print(f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cpus, python {platform.python_version()}")
    print(f"load:    {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    with tempfile.TemporaryDirectory() as tmp, HonchoServer() as server:
        server.delay = args.delay
        home = Path(tmp)
        os.environ["HOME"] = tmp  # no ~/.hermes/honcho.json of the machine's user is read
        first = overhead(server, home, args.turns, args.cold_turns)
        print(f"turn overhead, server delay {args.delay * 1000:.0f} ms per call:")
        for key, value in first.items():
            print(f"  {key:<24} {value:.2f}" if isinstance(value, float) else f"  {key:<24} {value}")
        second = loss(server, home, args.session_turns)
        print(f"async writes, {args.session_turns}-turn session:")
        for key, value in second.items():
            print(f"  {key:<24} {value:.2f}" if isinstance(value, float) else f"  {key:<24} {value}")
    ok = first["warm_p50_ms"] <= 5 and second["lost"] == 0 and second["in_order"]  # type: ignore[operator]
    print("targets (warm p50 <= 5 ms, 0 lost):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
