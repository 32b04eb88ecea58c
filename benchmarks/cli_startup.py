"""Wall time of hermes commands: `--help`, `plugins list` with 50 plugins, `sessions` on a 100k state.db.

Run: python benchmarks/cli_startup.py [--runs N] [--plugins 50] [--messages 100000] [--wheel] [--against TREE]

With --wheel the script builds hermes' wheel and installs it into a fresh venv in a
temporary directory (what users run), and times that venv's hermes and python;
otherwise the hermes beside this interpreter. Every command is compared with
`python -c pass` of the same venv, run interleaved with the commands (one run of
each in turn), so that load changes hit all rows alike; the load average is printed.

Builds, in a temporary directory: bundled plugins (HERMES_BUNDLED_PLUGINS), user plugins
($HERMES_HOME/plugins), project plugins (./.hermes/plugins with HERMES_ENABLE_PROJECT_PLUGINS=1),
and entry-point plugins (installed-layout *.dist-info directories on PYTHONPATH). Every
generated plugin touches a marker file if its code is ever imported; the script checks
none was. Reports the median and best wall time of N runs for: `python -c pass`,
`hermes --help`, `hermes plugins list` cold (validation cache off) and warm, the sessions commands,
`hermes memory show` and `hermes memory status --offline`.

--against TREE (a checkout of another revision, e.g. `git worktree add /tmp/main main`) also runs
every command as `python -m hermes_core` from TREE and from this checkout (PYTHONPATH, the same
interpreter and home), interleaved, and prints the median of the per-round ratios TREE / this with
their range: before/after on equal terms.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MANIFEST = """name: {name}
version: 1.0.{index}
description: generated plugin {index} for the start-up benchmark
kind: standalone
provides_hooks: [pre_tool_call, post_tool_call]
provides_tools: [{name}_tool]
requires_env: [{upper}_TOKEN]
"""
CODE = """import pathlib
pathlib.Path({marker!r}).touch()

def register(ctx):
    pass
"""


def _write_plugin(directory: Path, name: str, index: int, marker: Path) -> None:
    directory.mkdir(parents=True)
    (directory / "plugin.yaml").write_text(MANIFEST.format(name=name, index=index, upper=name.upper()))
    (directory / "__init__.py").write_text(CODE.format(marker=str(marker / f"imported_{name}")))


def build_tree(root: Path, count: int) -> dict[str, str]:
    """Create the plugins; return the environment that makes hermes see them."""
    markers = root / "markers"
    markers.mkdir()
    home, bundled, project, site = root / "home", root / "bundled", root / "project", root / "site"
    for index in range(count):
        name = f"gen{index:02d}"
        slot = index % 5
        if slot == 0:
            _write_plugin(bundled / name, name, index, markers)
        elif slot == 1:
            _write_plugin(bundled / "category" / name, name, index, markers)
        elif slot == 2:
            _write_plugin(home / "plugins" / name, name, index, markers)
        elif slot == 3:
            _write_plugin(project / ".hermes" / "plugins" / name, name, index, markers)
        else:
            package = f"hermes_gen_{name}"
            _write_plugin(site / package, name, index, markers)
            dist = site / f"{package}-1.0.{index}.dist-info"
            dist.mkdir()
            (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0.{index}\n")
            (dist / "entry_points.txt").write_text(f"[hermes_agent.plugins]\n{name} = {package}\n")
    home.mkdir(exist_ok=True)
    (home / "config.yaml").write_text("plugins:\n  enabled: [gen02, gen07]\n  disabled: [gen03]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON"))}
    env.update(
        HERMES_HOME=str(home),
        HERMES_BUNDLED_PLUGINS=str(bundled),
        HERMES_ENABLE_PROJECT_PLUGINS="1",
        PYTHONPATH=str(site),
    )
    return env


def _time_interleaved(commands: dict[str, tuple[list[str], dict[str, str]]], cwd: Path,
                      runs: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and CPU (user + system) ms of every command, one run of each in turn, *runs* times
    (order reversed every other round). CPU time barely depends on what else the machine runs."""
    import resource

    times: dict[str, list[float]] = {label: [] for label in commands}
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    labels = list(commands)
    for round_ in range(runs):
        for label in labels if round_ % 2 == 0 else reversed(labels):
            argv, env = commands[label]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
            times[label].append((time.perf_counter() - started) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return times, cpu


def build_state_db(home: Path, messages: int) -> str:
    """A state.db of *messages* messages from the shared workload (synthetic text if it is absent)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from hermes_plugins_builtin.state import SessionStore

    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from session_store_reference import shared

        wl = shared.Workload(seed=shared.DEFAULT_SEED, n_sessions=max(1, messages // 100), n_messages=messages).build()
        sessions = [(s["id"], s["source"]) for s in wl.sessions]
        by_session: dict[str, list] = {}
        for si, m in wl.order:
            by_session.setdefault(wl.sessions[si]["id"], []).append(m)
    except SystemExit:  # no shared workload here: plain synthetic sessions
        import random

        rng = random.Random(1)
        words = "deploy server error file cache timeout config database migration test user session".split()
        sessions = [(f"s{i:05d}", "cli") for i in range(max(1, messages // 100))]
        by_session = {sid: [{"role": "user", "content": " ".join(rng.choices(words, k=40))} for _ in range(100)]
                      for sid, _ in sessions}
    with SessionStore(home / "state.db") as store:
        for sid, source in sessions:
            store.create_session(sid, source)
            store.append_messages(sid, [{k: m.get(k) for k in ("role", "content", "tool_calls", "tool_name",
                                                               "tool_call_id", "finish_reason")} for m in by_session.get(sid, [])])
        store.flush_search_index()
    return sessions[len(sessions) // 2][0]


def wheel_venv(root: Path) -> tuple[str, str]:
    """Build hermes' wheel and install it into a fresh venv under *root*; (python, hermes) of that venv."""
    repo = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(root / "wheel"), str(repo)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    wheel = next((root / "wheel").glob("*.whl"))
    subprocess.run([str(root / "venv" / "bin" / "pip"), "install", "-q", str(wheel)], check=True)
    return str(root / "venv" / "bin" / "python"), str(root / "venv" / "bin" / "hermes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--plugins", type=int, default=50)
    beside_python = Path(sys.executable).parent / "hermes"  # the venv this script runs in
    default_hermes = str(beside_python) if beside_python.exists() else shutil.which("hermes") or "hermes"
    parser.add_argument("--hermes", default=default_hermes, help="the hermes executable to time (default: %(default)s)")
    parser.add_argument("--messages", type=int, default=100_000, help="messages in the state.db the sessions commands read")
    parser.add_argument("--wheel", action="store_true", help="time a wheel install in a fresh venv")
    parser.add_argument("--against", type=Path, help="another checkout: each command from it and from this one, interleaved")
    args = parser.parse_args()
    args.hermes = str(Path(args.hermes).resolve()) if os.sep in args.hermes else args.hermes
    python = sys.executable
    load_before = "%.2f %.2f %.2f" % os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.wheel:
            python, args.hermes = wheel_venv(root)
        env = build_tree(root, args.plugins)
        session_id = build_state_db(root / "home", args.messages)
        cwd = root / "project"
        listing = subprocess.run([args.hermes, "plugins", "list", "--json"], env=env, cwd=cwd, check=True, capture_output=True, text=True)
        import json

        found = [e for e in json.loads(listing.stdout) if e["name"].startswith("gen")]
        cold_env = dict(env, HERMES_NO_PARSE_CACHE="1")
        subprocess.run([args.hermes, "sessions", "list"], env=env, cwd=cwd, check=True, capture_output=True)  # warm the caches
        # one entry for the memory commands to show (an edit loads every enabled plugin: its markers are not counted)
        subprocess.run([args.hermes, "memory", "add", "Prefers short answers"], env=env, cwd=cwd, check=True, capture_output=True)
        for marker in (root / "markers").iterdir():
            marker.unlink()
        h = args.hermes
        commands = {
            "hermes --help": (["--help"], env),
            "hermes plugins list (cold: cache off)": (["plugins", "list"], cold_env),
            "hermes plugins list (warm)": (["plugins", "list"], env),
            "hermes sessions list": (["sessions", "list"], env),
            "hermes sessions show <id>": (["sessions", "show", session_id], env),
            "hermes sessions search error": (["sessions", "search", "error"], env),
            "hermes sessions search deploy*": (["sessions", "search", "deploy*"], env),
            "hermes memory show": (["memory", "show"], env),
            "hermes memory status --offline": (["memory", "status", "--offline"], env),
        }
        timed = {"python -c pass": ([python, "-c", "pass"], env)}
        timed.update({label: ([h, *argv], command_env) for label, (argv, command_env) in commands.items()})
        if args.against:
            repo = str(Path(__file__).resolve().parent.parent)
            # each side its own copy of the home: the two trees would otherwise invalidate each other's caches
            homes = {"this": root / "home-this", "against": root / "home-against"}
            for home in homes.values():
                shutil.copytree(root / "home", home, symlinks=True)
            for label, (argv, command_env) in commands.items():
                for side, tree in (("this", repo), ("against", str(args.against.resolve()))):
                    side_env = dict(command_env, HERMES_HOME=str(homes[side]), PYTHONPATH=f"{tree}{os.pathsep}{command_env['PYTHONPATH']}")
                    subprocess.run([python, "-m", "hermes_core", *argv], env=side_env, cwd=cwd, check=True, capture_output=True)  # warm
                    timed[f"{side}: {label}"] = ([python, "-m", "hermes_core", *argv], side_env)
        rows, cpu = _time_interleaved(timed, cwd, args.runs)
        imported = sorted(p.name for p in (root / "markers").iterdir())
    load_after = "%.2f %.2f %.2f" % os.getloadavg()
    print(f"# hermes start-up, {args.runs} runs each, interleaved; {len(found)} of {args.plugins} generated plugins listed; "
          f"state.db of {args.messages:,} messages; Python {platform.python_version()}; "
          f"{'wheel in a fresh venv' if args.wheel else h}; load {load_before} -> {load_after}")
    base = statistics.median(rows["python -c pass"])
    print(f"{'command':<40} {'median ms':>10} {'best ms':>9} {'p90 ms':>8} {'over python -c pass':>20} {'CPU ms median':>14}")
    for label, times in rows.items():
        if label.startswith(("this: ", "against: ")):
            continue
        p90 = sorted(times)[int(0.9 * (len(times) - 1))]
        print(f"{label:<40} {statistics.median(times):>10.1f} {min(times):>9.1f} {p90:>8.1f} "
              f"{statistics.median(times) - base:>+19.1f} {statistics.median(cpu[label]):>14.1f}")
    if args.against:
        print(f"# before/after: python -m hermes_core from {args.against} against this checkout, per-round ratio of wall times")
        print(f"{'command':<40} {'against ms':>10} {'this ms':>8} {'ratio median':>13} {'range':>14}")
        for label in commands:
            against, this = rows[f"against: {label}"], rows[f"this: {label}"]
            ratios = sorted(a / t for a, t in zip(against, this))
            print(f"{label:<40} {statistics.median(against):>10.1f} {statistics.median(this):>8.1f} "
                  f"{statistics.median(ratios):>12.2f}x {ratios[0]:>6.2f}-{ratios[-1]:.2f}x")
    print(f"plugin modules imported: {len(imported)}{' ' + ', '.join(imported) if imported else ''}")
    if imported or len(found) != args.plugins:
        sys.exit(1)


if __name__ == "__main__":
    main()
