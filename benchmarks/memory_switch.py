"""Backfill throughput of `hermes memory switch --backfill`: messages per second and peak memory.

Run: python benchmarks/memory_switch.py [--messages 10000] [--runs 5]

Builds a state.db of MESSAGES stored messages (conversations of 20 turns, each turn a user
message, an assistant tool call, its tool result and the final answer, so a quarter of the
messages are user turns) plus a MEMORY.md, and installs a provider plugin that does nothing
(its sync_turn, on_memory_write and flush_writes return at once). Each run copies that home and
runs the real command, `python -m hermes_core memory switch null-memory --backfill --yes --json`,
in a fresh process, so the figures include plugin loading, planning, the replay and one
checkpoint commit per item: the host's own overhead. Reported: messages/s over the backfill
itself (the command's own `seconds`), the same with the planning pass (which reads every
message once to count what is left), the whole command's wall time, and the process's peak RSS;
median and spread over the runs. Goal: >= 5,000 messages/s.

A real provider is another row: `--provider mem0` (bundled or installed) or `--plugin-dir DIR`
(copied into the benchmark's home), with `--config FILE` for its settings (e.g. Mem0 local mode
pointed at a model server); the same command runs against it in the same loop, interleaved with
the do-nothing provider, on equal work.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NULL_PLUGIN = '''
from hermes_core import MemoryProvider

class NullMemory(MemoryProvider):
    name = "null"
    def is_available(self): return True
    def initialize(self, session_id, **kwargs): pass
    def get_tool_schemas(self): return []
    def sync_turn(self, user_content, assistant_content, *, session_id="", timestamp=None, source="", messages=None): pass
    def on_memory_write(self, action, target, content, metadata=None): pass

def register(ctx):
    ctx.register_memory_provider(NullMemory())
'''
TURNS_PER_SESSION = 20


def build_home(home: Path, messages: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from hermes_plugins_builtin.state import SessionStore

    plugin = home / "plugins" / "null_memory"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: null-memory\nversion: '1.0'\nkind: exclusive\n")
    (plugin / "__init__.py").write_text(NULL_PLUGIN)
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("\n§\n".join(f"note {i}: the build uses make target t{i}" for i in range(20)))
    at = 1_700_000_000.0
    with SessionStore(home / "state.db") as store:
        turns = messages // 4
        for first in range(0, turns, TURNS_PER_SESSION):
            sid = f"s{first:06d}"
            store.create_session(sid, "cli", started_at=at)
            batch = []
            for turn in range(first, min(first + TURNS_PER_SESSION, turns)):
                call = [{"id": f"c{turn}", "type": "function", "function": {"name": "terminal", "arguments": '{"command": "ls"}'}}]
                batch += [
                    {"role": "user", "content": f"Turn {turn}: please check the deployment of service {turn % 97} and remember its port {8000 + turn % 500}.", "timestamp": at},
                    {"role": "assistant", "content": "Checking.", "tool_calls": call, "timestamp": at + 1},
                    {"role": "tool", "content": "service up", "tool_call_id": f"c{turn}", "tool_name": "terminal", "timestamp": at + 2},
                    {"role": "assistant", "content": f"Service {turn % 97} is up on port {8000 + turn % 500}.", "timestamp": at + 3},
                ]
                at += 10
            store.append_messages(sid, batch)
            store.end_session(sid, "user", ended_at=at)


def one_run(template: Path, work: Path, plugin: str) -> dict[str, float]:
    home = work / "home"
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(template, home)
    # peak RSS of the child alone: the child measures itself at exit through resource.getrusage
    code = (
        "import resource, sys, runpy;"
        "sys.argv = ['hermes', 'memory', 'switch', %r, '--backfill', '--yes', '--json'];"
        "import hermes_core.cli.main as m;"
        "rc = m.main(sys.argv[1:]);"
        "sys.stderr.write('PEAK_RSS_KB=%%d\\n' %% resource.getrusage(resource.RUSAGE_SELF).ru_maxrss);"
        "sys.exit(rc)"
    ) % plugin
    env = dict(os.environ, HERMES_HOME=str(home))
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"backfill failed ({result.returncode}):\n{result.stderr}")
    summary = json.loads(result.stdout)["backfill"]
    peak = next(int(line.split("=")[1]) for line in result.stderr.splitlines() if line.startswith("PEAK_RSS_KB="))
    return {"seconds": summary["seconds"], "plan": summary["plan_seconds"], "wall": wall, "turns": summary["turns_sent"], "peak_mb": peak / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--plugin-dir", action="append", default=[], type=Path, metavar="DIR",
                        help="a provider plugin directory to measure beside the do-nothing one (repeatable); "
                        "its settings come from the environment, which every run inherits")
    parser.add_argument("--provider", action="append", default=[], metavar="NAME",
                        help="a provider hermes already finds (bundled or installed) to measure beside the do-nothing one")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="a config.yaml for the benchmark's home (the measured providers' settings); memory.provider is left to the command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        template = root / "template"
        build_home(template, args.messages)
        if args.config is not None:
            shutil.copyfile(args.config, template / "config.yaml")
        names = ["null-memory", *args.provider]
        for directory in args.plugin_dir:
            import yaml

            names.append(yaml.safe_load((directory / "plugin.yaml").read_text())["name"])
            shutil.copytree(directory, template / "plugins" / directory.name)
        rows: dict[str, list[dict[str, float]]] = {name: [] for name in names}
        for _ in range(args.runs):
            for name in rows:  # interleaved: every provider once per round
                rows[name].append(one_run(template, root, name))
    print(f"# memory switch --backfill, {args.messages:,} stored messages, {args.runs} runs, python {platform.python_version()}, {platform.machine()}")
    print(f"# load: {os.getloadavg()}")
    for name, runs in rows.items():
        rates = [args.messages / r["seconds"] for r in runs]
        overall = [args.messages / (r["seconds"] + r["plan"]) for r in runs]
        walls = [r["wall"] for r in runs]
        peaks = [r["peak_mb"] for r in runs]
        print(f"{name}: {statistics.median(rates):,.0f} msg/s (min {min(rates):,.0f}, max {max(rates):,.0f}); "
              f"with planning {statistics.median(overall):,.0f} msg/s (min {min(overall):,.0f}); turns {runs[0]['turns']:,}; command wall {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f}); "
              f"peak RSS {statistics.median(peaks):.0f} MB (max {max(peaks):.0f})")


if __name__ == "__main__":
    main()
