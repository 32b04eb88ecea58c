"""Wall time of `hermes plugins list` with 50 generated plugins spread over every source.

Run: python benchmarks/cli_startup.py [--runs N] [--plugins 50]

Builds, in a temporary directory: bundled plugins (HERMES_BUNDLED_PLUGINS), user plugins
($HERMES_HOME/plugins), project plugins (./.hermes/plugins with HERMES_ENABLE_PROJECT_PLUGINS=1),
and entry-point plugins (installed-layout *.dist-info directories on PYTHONPATH). Every
generated plugin touches a marker file if its code is ever imported; the script checks
none was. Reports the median and best wall time of N runs for: `python -c pass`,
`hermes --help`, `hermes plugins list` cold (validation cache off) and warm.
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


def _time(argv: list[str], env: dict[str, str], cwd: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--plugins", type=int, default=50)
    beside_python = Path(sys.executable).parent / "hermes"  # the venv this script runs in
    default_hermes = str(beside_python) if beside_python.exists() else shutil.which("hermes") or "hermes"
    parser.add_argument("--hermes", default=default_hermes, help="the hermes executable to time (default: %(default)s)")
    args = parser.parse_args()
    args.hermes = str(Path(args.hermes).resolve()) if os.sep in args.hermes else args.hermes
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = build_tree(root, args.plugins)
        cwd = root / "project"
        listing = subprocess.run([args.hermes, "plugins", "list", "--json"], env=env, cwd=cwd, check=True, capture_output=True, text=True)
        import json

        found = [e for e in json.loads(listing.stdout) if e["name"].startswith("gen")]
        cold_env = dict(env, HERMES_NO_PARSE_CACHE="1")
        rows = {
            "python -c pass": _time([sys.executable, "-c", "pass"], env, cwd, args.runs),
            "hermes --help": _time([args.hermes, "--help"], env, cwd, args.runs),
            "hermes plugins list (cold: cache off)": _time([args.hermes, "plugins", "list"], cold_env, cwd, args.runs),
            "hermes plugins list (warm)": _time([args.hermes, "plugins", "list"], env, cwd, args.runs),
        }
        imported = sorted(p.name for p in (root / "markers").iterdir())
    print(f"# hermes start-up, {args.runs} runs each; {len(found)} of {args.plugins} generated plugins listed; Python {platform.python_version()}")
    print(f"{'command':<40} {'median ms':>10} {'best ms':>9}")
    for label, times in rows.items():
        print(f"{label:<40} {statistics.median(times):>10.1f} {min(times):>9.1f}")
    print(f"plugin modules imported: {len(imported)}{' ' + ', '.join(imported) if imported else ''}")
    if imported or len(found) != args.plugins:
        sys.exit(1)


if __name__ == "__main__":
    main()
