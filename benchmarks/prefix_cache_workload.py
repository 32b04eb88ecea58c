"""The workload of benchmarks/prefix_cache.py: a Tidewater engineering session, its home and its script.

What the scripted model answers and the user asks, turn by turn; the HERMES_HOME it runs in (SOUL.md,
MEMORY.md/USER.md, a workspace plugin with a ``read_file`` tool, an optional recall provider) and
its config. Everything here is fixed, so every policy runs on byte-identical requests.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_core.config import write_user_config
from hermes_core.testing_servers import Reply, ToolCall, text_reply, tool_calls_reply

MODEL = "claude-bench"
#: The prompt's clock: fixed, so the frozen prompt is byte-identical from run to run.
SESSION_START = dt.datetime(2026, 11, 22, 9, 30, tzinfo=dt.UTC)
#: Tool calls per turn, cycled: 0-3 (average 1.4) for the standard workload.
STANDARD_PATTERN = (1, 2, 0, 3, 1, 1, 0, 2, 3, 1)
#: Every fifth turn is a long agentic one.
AGENTIC_PATTERN = (1, 12, 0, 3, 2)
#: Turns (1-based) whose first tool call saves a memory instead of reading a file.
MEMORY_WRITE_TURNS = (12, 27, 41)


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
