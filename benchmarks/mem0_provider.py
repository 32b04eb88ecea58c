"""Mem0 provider, local mode: what recall adds to a turn, how well it recalls, and what listing plugins costs.

Run: python benchmarks/mem0_provider.py [--memories 1000] [--facts 50] [--turns 200] [--json]

Setup: the real mem0.Memory with its embedded qdrant store in a temporary HERMES_HOME, the loopback
model server of hermes_core.testing.embedding_server (deterministic hashed bag-of-words embeddings,
256 dimensions), and ``--memories`` stored memories: ``--facts`` planted facts plus generated notes
that share their vocabulary (ports, hosts, owners, versions), so a search has to rank, not just match.

1. Time added to a turn by recall, two paths interleaved turn by turn on the same queries:
   - background: the provider's own path, ``queue_prefetch`` after a turn (the search runs while the
     next turn is being written), then ``prefetch`` at the start of the next turn;
   - in-turn: the same search made synchronously on the turn's path (``mem0_search``).
   Reported: p50/p90 of each and the per-turn ratio in-turn / background (median and quartiles).
   Goal: background p50 <= 5 ms.
2. Recall@5: for each planted fact, a question worded differently ("which port does the billing
   postgres use?" for "billing postgres listens on port 5433"); a hit when the fact is among the 5
   results. Goal >= 0.9.
3. ``hermes plugins list`` with ``memory.provider: mem0`` vs built-in only, in fresh processes,
   interleaved: wall time and whether mem0 was imported. Goal: unchanged, mem0 never imported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DIMS = 256
SERVICES = ["postgres", "redis", "kafka", "nginx", "grafana", "vault", "consul", "minio", "rabbitmq", "etcd", "mysql", "elastic"]
TEAMS = ["billing", "search", "payments", "auth", "reporting", "ingest", "mobile", "checkout", "identity", "ledger", "growth", "support"]
HOSTS = ["staging", "prod", "eu-west", "us-east", "lab", "edge", "backup", "canary"]
PEOPLE = ["alice", "bob", "chen", "dara", "emil", "farah", "goran", "hana", "ivo", "jun", "kemal", "lena"]
FILLER = "deploy rollout config backup cert quota alert dashboard migration index cache queue token ticket runbook oncall".split()


def _planted(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(fact, question) pairs about distinct team/service pairs; the question shares only the key words."""
    pairs = [(t, s) for t in TEAMS for s in SERVICES]
    rng.shuffle(pairs)
    out = []
    for n, (team, service) in enumerate(pairs[:count]):
        kind = n % 3
        if kind == 0:
            port = rng.randint(1024, 65000)
            out.append((f"the {team} {service} listens on port {port}", f"which port does the {team} {service} use?"))
        elif kind == 1:
            owner = rng.choice(PEOPLE)
            out.append((f"{owner} owns the {team} {service} cluster", f"who is responsible for the {team} {service} cluster?"))
        else:
            host = rng.choice(HOSTS)
            out.append((f"the {team} {service} runs on the {host} hosts", f"where is {service} for {team} running?"))
    return out


def _distractors(rng: random.Random, count: int) -> list[str]:
    notes = []
    for _ in range(count):
        words = [rng.choice(TEAMS), rng.choice(SERVICES), rng.choice(FILLER), rng.choice(FILLER), rng.choice(HOSTS + PEOPLE)]
        notes.append(f"note: {words[2]} for {words[0]} {words[1]} needs {words[3]} on {words[4]} ({rng.randint(1, 9999)})")
    return notes


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _open_provider(home: Path, base_url: str) -> Any:
    (home / "config.yaml").write_text(
        f"model:\n  provider: openai\n  name: bench-model\n  base_url: {base_url}\n"
        f"memory:\n  provider: mem0\n  mem0:\n    infer: false\n    top_k: 5\n    embedder:\n      model: hashed-bow\n      dims: {DIMS}\n"
    )
    from hermes_core.manager import PluginManager

    plugins = PluginManager()
    plugins.load_all()
    provider = plugins.active_memory_provider()
    provider.initialize("bench", hermes_home=str(home), platform="cli")
    return provider


def measure_turns(provider: Any, questions: list[str], turns: int) -> dict[str, Any]:
    background, in_turn, ratios = [], [], []
    provider.prefetch(questions[0])  # the first turn's bounded search is not what is measured
    provider.queue_prefetch(questions[0])
    for n in range(turns):
        query = questions[n % len(questions)]
        provider.wait_for_prefetch()  # the model's reply takes longer than the search: the result is ready
        started = time.perf_counter()
        recalled = provider.prefetch(query)
        background_ms = (time.perf_counter() - started) * 1000
        assert recalled, "the background search found nothing"
        provider.queue_prefetch(query)
        started = time.perf_counter()
        json.loads(provider.handle_tool_call("mem0_search", {"query": query, "top_k": 5}))
        in_turn_ms = (time.perf_counter() - started) * 1000
        background.append(background_ms)
        in_turn.append(in_turn_ms)
        ratios.append(in_turn_ms / max(background_ms, 1e-6))
    quartiles = statistics.quantiles(ratios, n=4)
    return {
        "background_p50_ms": statistics.median(background), "background_p90_ms": _percentile(background, 0.9),
        "in_turn_p50_ms": statistics.median(in_turn), "in_turn_p90_ms": _percentile(in_turn, 0.9),
        "ratio_median": statistics.median(ratios), "ratio_q1": quartiles[0], "ratio_q3": quartiles[2], "turns": turns,
    }


def measure_recall(provider: Any, planted: list[tuple[str, str]]) -> dict[str, Any]:
    misses = []
    for fact, question in planted:
        found = json.loads(provider.handle_tool_call("mem0_search", {"query": question, "top_k": 5}))
        if fact not in [r["memory"] for r in found.get("results", [])]:
            misses.append(question)
    return {"recall_at_5": 1 - len(misses) / len(planted), "questions": len(planted), "misses": misses}


def measure_listing(rounds: int) -> dict[str, Any]:
    code = (
        "import sys, time; t = time.perf_counter(); from hermes_core.cli.main import main; main(['plugins', 'list']); "
        "sys.stderr.write('%f %d\\n' % (time.perf_counter() - t, 'mem0' in sys.modules))"
    )
    homes = {}
    for name, provider in (("builtin", ""), ("mem0", "mem0")):
        homes[name] = Path(tempfile.mkdtemp(prefix=f"bench-list-{name}-"))
        (homes[name] / "config.yaml").write_text(f"memory:\n  provider: '{provider}'\n")
    times: dict[str, list[float]] = {"builtin": [], "mem0": []}
    imported = False
    for _ in range(rounds):
        for name in ("builtin", "mem0"):  # interleaved, so load changes hit both sides alike
            env = dict(os.environ, HERMES_HOME=str(homes[name]))
            done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            seconds, was_imported = done.stderr.strip().splitlines()[-1].split()
            times[name].append(float(seconds) * 1000)
            imported = imported or (name == "mem0" and was_imported == "1")
    ratios = [m / b for m, b in zip(times["mem0"], times["builtin"])]
    return {
        "builtin_p50_ms": statistics.median(times["builtin"]), "mem0_selected_p50_ms": statistics.median(times["mem0"]),
        "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
        "mem0_imported": imported, "rounds": rounds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--facts", type=int, default=50)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--list-rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="bench-mem0-"))
    os.environ.update(HERMES_HOME=str(home), MEM0_TELEMETRY="False")
    for name in ("OPENROUTER_API_KEY", "MEM0_API_KEY", "MEM0_BASE_URL"):
        os.environ.pop(name, None)
    from hermes_core.testing import EmbeddingModelServer

    rng = random.Random(14)
    planted = _planted(rng, args.facts)
    notes = [fact for fact, _ in planted] + _distractors(rng, args.memories - len(planted))
    rng.shuffle(notes)
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": f"{platform.machine()} {os.cpu_count()} cpu, Python {platform.python_version()}",
        "load_before": os.getloadavg(), "memories": len(notes),
    }
    with EmbeddingModelServer(dims=DIMS) as server:
        provider = _open_provider(home, server.base_url)
        started = time.perf_counter()
        provider.import_memories([{"text": note, "kind": "memory"} for note in notes])
        report["fill_seconds"] = time.perf_counter() - started
        report["recall"] = measure_recall(provider, planted)
        report["turn"] = measure_turns(provider, [q for _, q in planted], args.turns)
        provider.shutdown()
    report["plugins_list"] = measure_listing(args.list_rounds)
    report["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    turn, recall, listing = report["turn"], report["recall"], report["plugins_list"]
    print(f"{report['date']}  {report['machine']}  load {report['load_before'][0]:.2f} -> {report['load_after'][0]:.2f}")
    print(f"{report['memories']} memories stored in {report['fill_seconds']:.1f} s")
    print(f"recall added to a turn ({turn['turns']} turns): background p50 {turn['background_p50_ms']:.3f} ms, p90 {turn['background_p90_ms']:.3f} ms; "
          f"in-turn search p50 {turn['in_turn_p50_ms']:.2f} ms, p90 {turn['in_turn_p90_ms']:.2f} ms; "
          f"in-turn/background {turn['ratio_median']:.0f}x (quartiles {turn['ratio_q1']:.0f}-{turn['ratio_q3']:.0f}x)")
    print(f"recall@5 {recall['recall_at_5']:.2f} over {recall['questions']} planted facts; misses: {recall['misses'] or 'none'}")
    print(f"hermes plugins list: built-in only p50 {listing['builtin_p50_ms']:.0f} ms, mem0 selected p50 {listing['mem0_selected_p50_ms']:.0f} ms, "
          f"ratio {listing['ratio_median']:.2f} ({listing['ratio_min']:.2f}-{listing['ratio_max']:.2f}); mem0 imported: {listing['mem0_imported']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
