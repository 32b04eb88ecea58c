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

from hermes_core.config import write_user_config
from hermes_core.manager import PluginManager
from hermes_core.memory.manager import MemoryManager
from hermes_core.models.clients import client_from_config
from hermes_core.runtime.session import AgentSession
from hermes_core.runtime.system_prompt import collect_inputs
from hermes_core.testing_servers import CachingAnthropicServer, Reply, ToolCall, anthropic_prompt_blocks, text_reply, tool_calls_reply
from hermes_plugins_builtin.memory.snapshot import render_block
from hermes_plugins_builtin.prompt_caching.policies import DEFAULT_STRATEGY

MODEL = "claude-bench"
#: The prompt's clock: fixed, so the frozen prompt is byte-identical from run to run.
SESSION_START = dt.datetime(2026, 11, 22, 9, 30, tzinfo=dt.UTC)
#: Tool calls per turn, cycled: 0-3 (average 1.4) for the standard workload.
STANDARD_PATTERN = (1, 2, 0, 3, 1, 1, 0, 2, 3, 1)
#: Every fifth turn is a long agentic one.
AGENTIC_PATTERN = (1, 12, 0, 3, 2)
#: Turns (1-based) whose first tool call saves a memory instead of reading a file.
MEMORY_WRITE_TURNS = (12, 27, 41)

# --- the workload -------------------------------------------------------------------------------------

SOUL = """You are Hermes, the engineering assistant of the Tidewater team. Tidewater is a Python service that
ingests tide-gauge readings from coastal stations, cleans them, and publishes hourly water levels to
harbour operators. You help the team read code, plan changes, review diffs and explain failures.

How you work:
- Read before you answer. When a question is about the code, open the files with read_file and quote
  the lines you rely on; never guess what a function does from its name.
- Say what you are unsure about. A confident wrong answer costs a harbour operator more than a
  question does.
- Keep answers short: lead with the answer, then the evidence, then the next step.
- Use your memory tool for facts that will matter in later sessions (conventions, decisions, the
  user's preferences); do not store what is already in the repository.
- Never run destructive commands and never propose pushing to main without review."""

MEMORY_ENTRIES = (
    "Station ids are five digits with a leading zero (e.g. 04512); they are strings everywhere, never ints.",
    "Readings arrive in UTC; the publisher converts to local harbour time only in the API layer.",
    "The cleaning step drops readings more than 3 m from the 24 h median; spikes from boat wakes are common.",
    "Tests run with `make test`; the slow gauge-replay tests are marked and skipped unless REPLAY=1.",
    "Config lives in tidewater/settings.py, read from TIDEWATER_* environment variables.",
    "The nightly job backfills gaps of up to 6 hours by linear interpolation and flags them.",
    "Alembic migrations are in migrations/; never edit an applied migration, add a new one.",
)
USER_ENTRIES = (
    "Name: Ines. Maintains the ingestion and cleaning stages.",
    "Prefers diffs over prose, and British spelling in user-facing text.",
    "Works from Lisbon (UTC+0/+1); usually online 08:00-17:00.",
    "Wants every change to the cleaning thresholds discussed before it is made.",
)
AGENTS_MD = """# Tidewater - notes for agents

## Layout
- tidewater/ingest/: station clients (HTTP, SFTP), one module per gauge vendor.
- tidewater/clean/: the cleaning pipeline: dedupe, spike filter, gap flagging.
- tidewater/publish/: hourly aggregation and the operator API (FastAPI).
- tidewater/settings.py: configuration from the environment.
- tests/: pytest; fixtures in tests/fixtures/ are real (anonymised) gauge dumps.

## Conventions
- Type hints everywhere; mypy --strict runs in CI.
- Times are timezone-aware datetimes in UTC inside the pipeline.
- A reading is (station_id: str, observed_at: datetime, level_mm: int, quality: Quality).
- Functions that talk to the network take a client object; tests pass a fake one.
- Log with structlog, one event per line, keys in snake_case.

## Workflow
1. Open an issue, branch from main as <initials>/<issue>-<slug>.
2. Run `make lint test` before pushing; CI runs the replay tests nightly.
3. Every change to clean/ needs a note in docs/cleaning.md explaining the effect on published levels.

## Gotchas
- Vendor B reports level in centimetres, not millimetres; the client converts.
- Station 04117 has a known clock drift of about +40 s per day; readings are re-timed on ingest.
- Do not widen the spike threshold to silence alerts; find out why the gauge is spiking.
"""

WORKSPACE_FILES = (
    "tidewater/clean/spikes.py",
    "tidewater/clean/gaps.py",
    "tidewater/ingest/vendor_b.py",
    "tidewater/publish/hourly.py",
    "tidewater/settings.py",
    "tests/test_spikes.py",
    "tests/test_gaps.py",
    "docs/cleaning.md",
)

TOPICS = (
    "the spike filter's threshold", "how gaps are flagged", "vendor B's unit conversion", "the hourly aggregation",
    "the settings loader", "the spike tests", "the gap backfill", "the cleaning notes",
)

TOOLS_PLUGIN = '''
import json


def _content(path):
    """A few hundred characters of code-like text, the same for the same path."""
    seed = sum(path.encode())
    lines = [f"# {path}", "from __future__ import annotations", ""]
    for number in range(3 + seed % 4):
        lines.append(f"def step_{number}(reading, limit={seed % 97 + number}):")
        lines.append(f"    return reading.level_mm - limit * {number + 1}  # stage {seed % 13}")
    return "\\n".join(lines)


def register(ctx):
    schema = {
        "name": "read_file",
        "description": "Read a file of the Tidewater repository and return its text.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "path relative to the repository root"}},
            "required": ["path"],
        },
    }
    ctx.register_tool("read_file", "workspace", schema, lambda args, **kw: json.dumps({"path": args["path"], "content": _content(args["path"])}))
'''

RECALL_PLUGIN = '''
from hermes_core import MemoryProvider


class Recall(MemoryProvider):
    """Recalls a few notes about whatever the user asked, as an external memory provider does."""

    name = "bench_recall"

    def is_available(self):
        return True

    def initialize(self, session_id, **kwargs):
        pass

    def get_tool_schemas(self):
        return []

    def prefetch(self, query, *, session_id=""):
        words = [w.strip(".,?'") for w in query.split() if len(w) > 5][:6]
        notes = [f"- Earlier discussion touched on '{w}'; the team agreed to keep the behaviour documented." for w in words]
        return "## Recalled notes\\n" + "\\n".join(notes)


def register(ctx):
    ctx.register_memory_provider(Recall())
'''


@dataclass(frozen=True)
class Workload:
    name: str
    turns: int
    pattern: tuple[int, ...]
    recall: bool

    def calls_in(self, turn: int) -> int:
        return self.pattern[(turn - 1) % len(self.pattern)]


def user_text(turn: int) -> str:
    topic = TOPICS[turn % len(TOPICS)]
    asks = (
        f"Can you check {topic} and tell me whether it still matches what docs/cleaning.md says?",
        f"Station 0{4100 + turn} looked odd overnight. Walk me through {topic} and where a reading could get lost.",
        f"I want to change {topic}. What would break, and which tests cover it today?",
        f"Quick one: is {topic} covered by the replay tests, or only by unit tests?",
    )
    return asks[turn % len(asks)]


def answer_text(turn: int) -> str:
    topic = TOPICS[turn % len(TOPICS)]
    body = (
        f"Short answer: {topic} behaves as documented, with one caveat. The code applies the limit per station "
        f"before the hourly aggregation, so a burst of rejected readings shows up as a gap rather than a spike. "
        f"The tests cover the normal path and the vendor B conversion, but not the case where two stations share "
        f"a clock drift correction. Next step: add a fixture for station 0{4100 + turn} and assert the flagged gap."
    )
    return body[: 260 + (turn * 37) % 220]


def build_script(workload: Workload) -> list[Reply]:
    """The scripted model's replies, in order: per turn, its tool calls one reply at a time, then the answer."""
    replies: list[Reply] = []
    for turn in range(1, workload.turns + 1):
        for index in range(workload.calls_in(turn)):
            call_id = f"toolu_{turn:03d}_{index:02d}"
            if index == 0 and turn in MEMORY_WRITE_TURNS:
                fact = f"Decision in turn {turn}: {TOPICS[turn % len(TOPICS)]} changes need a replay run first."
                call = ToolCall("memory", {"action": "add", "target": "memory", "content": fact}, call_id)
            else:
                call = ToolCall("read_file", {"path": WORKSPACE_FILES[(turn * 3 + index) % len(WORKSPACE_FILES)]}, call_id)
            preface = f"Let me open {call.arguments['path']}." if index == 0 and "path" in call.arguments else ""
            replies.append(tool_calls_reply(call, text=preface))
        replies.append(text_reply(answer_text(turn)))
    return replies


SUBAGENT_GOAL = "Read tidewater/clean/gaps.py and list the functions that touch the backfill."
SUBAGENT_SCRIPT = (tool_calls_reply(ToolCall("read_file", {"path": "tidewater/clean/gaps.py"}, "toolu_sub_00")), text_reply("step_0 to step_7; none of them backfill."))


def make_home(root: Path, workload: Workload, strategy: str | None, base_url: str) -> tuple[Path, Path]:
    """A HERMES_HOME with identity, memory, the bench plugins and config; and a workdir with AGENTS.md."""
    home, workdir = root / "home", root / "work"
    (home / "memories").mkdir(parents=True)
    workdir.mkdir()
    (home / "SOUL.md").write_text(SOUL, encoding="utf-8")
    (home / "memories" / "MEMORY.md").write_text("\n§\n".join(MEMORY_ENTRIES), encoding="utf-8")
    (home / "memories" / "USER.md").write_text("\n§\n".join(USER_ENTRIES), encoding="utf-8")
    (workdir / "AGENTS.md").write_text(AGENTS_MD, encoding="utf-8")
    plugins = {"bench_workspace": (TOOLS_PLUGIN, "standalone")}
    if workload.recall:
        plugins["bench_recall"] = (RECALL_PLUGIN, "exclusive")
    for name, (code, kind) in plugins.items():
        directory = home / "plugins" / name
        directory.mkdir(parents=True)
        (directory / "plugin.yaml").write_text(f"name: {name}\nversion: 0.1.0\nkind: {kind}\n", encoding="utf-8")
        (directory / "__init__.py").write_text(code, encoding="utf-8")
    config: dict[str, Any] = {
        "model": {"provider": "anthropic", "name": MODEL, "base_url": base_url, "max_retries": 0},
        "plugins": {"enabled": ["bench_workspace"]},
    }
    if workload.recall:
        config["memory"] = {"provider": "bench_recall"}
    if strategy is not None:
        config["prompt_caching"] = {"strategy": strategy}
    write_user_config(home, config)
    return home, workdir


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
