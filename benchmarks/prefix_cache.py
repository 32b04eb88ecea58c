"""Prompt-cache hit share of a 50-turn tool-using session, per breakpoint policy, and the runtime's own cost per turn.

Run: python benchmarks/prefix_cache.py [--turns N] [--repeats R] [--json]

The session is real: AgentSession with the plugins loaded from a temporary HERMES_HOME (SOUL.md,
MEMORY.md/USER.md, a bench plugin with a ``read_file`` tool), the session store and memory manager
those plugins provide, the default context engine, and the Anthropic client that
``client_from_config`` builds with the ``anthropic_request`` middleware. The model is a
CachingAnthropicServer on 127.0.0.1 that follows a fixed script (0-3 tool calls per turn, then an
answer) and accounts for prompt caching by longest-cached-prefix rules with its defaults: entries of
at least 1024 tokens, a 20-block lookback, 4 characters per token, no expiry.

Policies (each in a fresh home, on byte-identical workloads):
- system_and_3: the frozen session prompt, the prompt_caching builtin as it ships;
- naive: the prompt rebuilt before every turn (live memory, the current time), same breakpoints:
  the anti-pattern the frozen snapshot avoids;
- turn_anchored: the frozen prompt, ``prompt_caching.strategy: turn_anchored``;
- final: what the defaults do (no prompt_caching config at all).

Each policy runs on two workloads: "standard" (the brief above) and "agentic+recall" (every fifth
turn makes 12 tool calls, and an external memory provider recalls context into every user turn).

Hit share = cache_read / (cache_read + cache_write + uncached input), from the server's accounting,
cross-checked against the token counts the runtime stored on the session row. "bound" is the share
no placement of breakpoints could beat on the same requests: for each request, the longest prefix it
shares with any earlier request (ignoring the 1024-token minimum and the lookback), over all input.

Runtime overhead per turn = wall time of run_turn minus the time spent inside client.complete
(HTTP, the scripted server and the request middleware are all inside). Each turn counts with the
least time it took in R repeats, because noise on a shared machine only ever adds time; the cache
figures must be identical across repeats, which the script checks.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_core.manager import PluginManager
from hermes_core.memory.manager import MemoryManager
from hermes_core.models.clients import client_from_config
from hermes_core.runtime.session import AgentSession
from hermes_core.runtime.system_prompt import collect_inputs
from hermes_core.testing_servers import CachingAnthropicServer, anthropic_prompt_blocks
from hermes_plugins_builtin.memory.snapshot import render_block
from hermes_plugins_builtin.prompt_caching.policies import DEFAULT_STRATEGY

sys.path.insert(0, str(Path(__file__).resolve().parent))
from prefix_cache_workload import (  # noqa: E402
    AGENTIC_PATTERN,
    MODEL,
    SESSION_START,
    STANDARD_PATTERN,
    SUBAGENT_GOAL,
    SUBAGENT_SCRIPT,
    Workload,
    build_script,
    make_home,
    user_text,
)


# --- measuring ----------------------------------------------------------------------------------------


class TimedClient:
    """Wraps a model client and adds up the time spent inside ``complete``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # provider, model, base_url: what the runtime reads with getattr

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.inner.complete(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started


class RebuildEachTurn(AgentSession):
    """The anti-pattern: a fresh system prompt before every turn, with live memory and the current time."""

    def run_turn(self, user_text: str, **kwargs: Any) -> Any:
        turn = self._turns + 1
        inputs = collect_inputs(home=self.plugins.home, memory=None, cwd=self.cwd, platform=self.platform, now=SESSION_START + dt.timedelta(minutes=3 * turn))
        builtin = self.plugins.memory_providers["builtin"]
        live = tuple(render_block(t, builtin.live_state(t)["entries"], builtin.char_limit(t)) for t in ("memory", "user"))
        self.system_prompt = dataclasses.replace(inputs, memory_blocks=tuple(b for b in live if b)).render()
        return super().run_turn(user_text, **kwargs)


def prefix_bound(bodies: Sequence[dict[str, Any]], chars_per_token: int) -> tuple[int, int]:
    """(tokens any placement could at best read, all input tokens) over ``bodies`` in order."""
    seen: set[str] = set()
    readable = total = 0
    for body in bodies:
        digest = hashlib.sha256(f"model:{body.get('model')}".encode())
        best = running = 0
        keys = []
        for block in anthropic_prompt_blocks(body):
            running += -(-block.chars // chars_per_token)
            digest.update(block.canonical.encode("utf-8"))
            key = digest.copy().hexdigest()
            keys.append(key)
            if key in seen:
                best = running
        readable += best
        total += running
        seen.update(keys)
    return readable, total


@dataclass
class RunResult:
    read: int
    write: int
    uncached: int
    requests: int
    bound_read: int
    bound_total: int
    overhead_ms: list[float] = field(default_factory=list)
    start_ms: float = 0.0
    subagent_read: int = 0
    subagent_total: int = 0
    #: Characters of the system prompt and of the tool definitions in the first request.
    system_chars: int = 0
    tools_chars: int = 0

    @property
    def total(self) -> int:
        return self.read + self.write + self.uncached

    def cache_figures(self) -> tuple[int, ...]:
        return (self.read, self.write, self.uncached, self.requests, self.bound_read, self.subagent_read, self.subagent_total)


#: Variables that change which plugins load; unset during a run so the caller's shell cannot change the workload.
PLUGIN_ENV_FLAGS = ("HERMES_SAFE_MODE", "HERMES_STRICT_PLUGINS", "HERMES_ENABLE_PROJECT_PLUGINS", "HERMES_PLUGINS_DEBUG", "HERMES_BUNDLED_PLUGINS")


@contextmanager
def hermes_home_env(home: Path) -> Iterator[None]:
    """HERMES_HOME set to ``home`` (the memory manager reads it from the environment), plugin flags unset."""
    names = ("HERMES_HOME", *PLUGIN_ENV_FLAGS)
    previous = {name: os.environ.get(name) for name in names}
    for name in PLUGIN_ENV_FLAGS:
        os.environ.pop(name, None)
    os.environ["HERMES_HOME"] = str(home)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass
class Runtime:
    """What an integrator wires together (the way ``hermes chat`` does), over one HERMES_HOME."""

    plugins: PluginManager
    client: TimedClient
    store: Any
    memory: MemoryManager
    engine: Any


def open_runtime(home: Path) -> Runtime:
    plugins = PluginManager(home=home, strict=True)
    plugins.load_all()
    if plugins.session_store_factory is None:
        raise RuntimeError("the state builtin did not load; 'hermes plugins list --load' says why")
    client = TimedClient(client_from_config(plugins.config, request_middleware=plugins.middleware.get("anthropic_request", [])))
    engine = plugins.active_context_engine()
    if engine is not None:
        engine.update_model(MODEL, int(plugins.config.get("model.context_length", 128_000) or 128_000))
    return Runtime(plugins, client, plugins.session_store_factory(home), MemoryManager.from_plugins(plugins), engine)


def drive(session: AgentSession, client: TimedClient, turns: int) -> list[float]:
    """Run the turns; return each turn's time outside ``client.complete``, in ms."""
    overhead: list[float] = []
    for turn in range(1, turns + 1):
        inside_before = client.seconds
        started = time.perf_counter()
        result = session.run_turn(user_text(turn))
        wall = time.perf_counter() - started
        overhead.append((wall - (client.seconds - inside_before)) * 1000)
        if result.compressed_into:
            raise RuntimeError(f"turn {turn} compressed the conversation; the workload must stay under the threshold")
    return overhead


def run_policy(workload: Workload, policy: str) -> RunResult:
    """One session of ``workload`` under ``policy`` in a fresh temporary HERMES_HOME."""
    strategy = {"system_and_3": "system_and_3", "naive": "system_and_3", "turn_anchored": "turn_anchored", "final": None}[policy]
    script = [*build_script(workload), *SUBAGENT_SCRIPT]
    with tempfile.TemporaryDirectory(prefix="hermes-bench-") as tmp, CachingAnthropicServer(script) as server:
        home, workdir = make_home(Path(tmp), workload, strategy, server.base_url)
        with hermes_home_env(home):
            rt = open_runtime(home)
            kind = RebuildEachTurn if policy == "naive" else AgentSession
            session = kind(plugins=rt.plugins, client=rt.client, store=rt.store, memory=rt.memory, context_engine=rt.engine, model=MODEL, cwd=workdir)
            try:
                started = time.perf_counter()
                # The prompt AgentSession would build itself, at a fixed instant (the date line is part of it).
                session.start(system_prompt=collect_inputs(home=home, memory=rt.memory, cwd=workdir, platform="cli", now=SESSION_START).render())
                start_ms = (time.perf_counter() - started) * 1000
                overhead = drive(session, rt.client, workload.turns)
                totals, requests = dict(server.cache.totals), server.cache.requests
                _check_stored_counts(rt.store.get_session(session.session_id) or {}, totals, requests)
                bound_read, bound_total = prefix_bound(server.bodies, server.chars_per_token)
                first_body = server.bodies[0]
                # A sub-agent after the last turn: it inherits the prompt, so it should find the prefix cached.
                before_total, before_read = sum(totals.values()), totals["cache_read_input_tokens"]
                session.spawn_subagent(SUBAGENT_GOAL)
                session.finalize()
            finally:
                rt.memory.shutdown_all()
                rt.store.close()
    return RunResult(
        read=totals["cache_read_input_tokens"], write=totals["cache_creation_input_tokens"], uncached=totals["input_tokens"],
        requests=requests, bound_read=bound_read, bound_total=bound_total, overhead_ms=overhead, start_ms=start_ms,
        subagent_read=server.cache.totals["cache_read_input_tokens"] - before_read,
        subagent_total=sum(server.cache.totals.values()) - before_total,
        system_chars=sum(len(block.get("text", "")) for block in first_body.get("system") or []),
        tools_chars=len(json.dumps(first_body.get("tools") or [])),
    )


def _check_stored_counts(row: dict[str, Any], totals: dict[str, int], requests: int) -> None:
    """What the runtime stored on the session row must be what the server accounted."""
    stored = (row.get("cache_read_tokens"), row.get("cache_write_tokens"), row.get("input_tokens"), row.get("api_call_count"))
    expected = (totals["cache_read_input_tokens"], totals["cache_creation_input_tokens"], totals["input_tokens"], requests)
    if stored != expected:
        raise RuntimeError(f"session row says (read, write, uncached, calls) = {stored}, the server accounted {expected}")


# --- reporting ----------------------------------------------------------------------------------------

POLICIES = ("system_and_3", "naive", "turn_anchored", "final")
LABELS = {
    "system_and_3": "(a) system_and_3, frozen prompt",
    "naive": "(b) naive rebuild each turn",
    "turn_anchored": "    turn_anchored, frozen prompt",
    "final": f"(c) final: defaults ({DEFAULT_STRATEGY})",
}


def measure(workload: Workload, repeats: int) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for policy in POLICIES:
        runs = [run_policy(workload, policy) for _ in range(repeats)]
        if len({run.cache_figures() for run in runs}) != 1:
            raise RuntimeError(f"{workload.name}/{policy}: cache figures differ between repeats; the workload is not deterministic")
        first = runs[0]
        # Per turn, the least time any repeat took: noise on a shared machine only ever adds time.
        best = [min(samples) for samples in zip(*(run.overhead_ms for run in runs), strict=True)]
        ordered = sorted(best)
        rows[policy] = {
            "hit_share": first.read / first.total,
            "bound_share": first.bound_read / first.bound_total,
            "cache_read": first.read,
            "cache_write": first.write,
            "uncached": first.uncached,
            "total_input": first.total,
            "requests": first.requests,
            "subagent_read_share": first.subagent_read / first.subagent_total if first.subagent_total else 0.0,
            "system_prompt_chars": first.system_chars,
            "tools_chars": first.tools_chars,
            "overhead_ms_p50": statistics.median(ordered),
            "overhead_ms_p90": ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))],
            "overhead_ms_mean": statistics.fmean(ordered),
            # The runtime copies the whole conversation for several hooks, so its cost grows with the history.
            "overhead_ms_p50_first10": statistics.median(best[:10]),
            "overhead_ms_p50_last10": statistics.median(best[-10:]),
            "session_start_ms": min(run.start_ms for run in runs),
        }
    return rows


def machine_note(repeats: int) -> str:
    return (
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs; "
        f"each turn's time is its best of {repeats} repeats, still noisy on a shared machine; cache figures are deterministic "
        "(identical in every repeat, checked)"
    )


def print_table(workload: Workload, rows: dict[str, dict[str, Any]]) -> None:
    calls = sum(workload.calls_in(t) for t in range(1, workload.turns + 1))
    print(f"\n## {workload.name}: {workload.turns} turns, {calls} tool calls" + (", recall context on every user turn" if workload.recall else ""))
    print(f"{'policy':<34} {'hit share':>9} {'bound':>7} {'read':>10} {'write':>9} {'uncached':>8} {'total in':>10} {'reqs':>5} {'sub-agent':>9} {'ovh p50':>8}")
    for policy, row in rows.items():
        print(
            f"{LABELS[policy]:<34} {row['hit_share']:>9.1%} {row['bound_share']:>7.1%} {row['cache_read']:>10,} {row['cache_write']:>9,} "
            f"{row['uncached']:>8,} {row['total_input']:>10,} {row['requests']:>5} {row['subagent_read_share']:>9.1%} "
            f"{row['overhead_ms_p50']:>6.2f}ms"
        )
    final = rows["final"]
    print(
        f"runtime overhead per turn, final policy (outside client.complete): p50 {final['overhead_ms_p50']:.2f} ms, "
        f"p90 {final['overhead_ms_p90']:.2f} ms, mean {final['overhead_ms_mean']:.2f} ms; "
        f"p50 of turns 1-10 {final['overhead_ms_p50_first10']:.2f} ms, of the last 10 {final['overhead_ms_p50_last10']:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    workloads = (
        Workload("standard", args.turns, STANDARD_PATTERN, recall=False),
        Workload("agentic+recall", args.turns, AGENTIC_PATTERN, recall=True),
    )
    results = {workload.name: measure(workload, args.repeats) for workload in workloads}
    if args.json:
        print(json.dumps({"machine": machine_note(args.repeats), "results": results}, indent=2))
        return
    print("# prompt-cache hit share per breakpoint policy (CachingAnthropicServer defaults: 1024-token minimum, 20-block lookback, 4 chars/token)")
    print("# hit share = cache_read / (cache_read + cache_write + uncached); bound = best any placement could do on the same requests")
    print("# sub-agent = share of a sub-agent's input (it inherits the prompt) read from cache, after the last turn")
    print("# ovh = runtime overhead per turn: run_turn wall time minus the time inside client.complete")
    for workload in workloads:
        print_table(workload, results[workload.name])
    first = results[workloads[0].name]["final"]
    start = min(row["session_start_ms"] for rows in results.values() for row in rows.values())
    print(
        f"\nprompt: system {first['system_prompt_chars']:,} chars, tool definitions {first['tools_chars']:,} chars; "
        f"session start (prompt build + store row): {start:.2f} ms"
    )
    print(f"machine: {machine_note(args.repeats)}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
