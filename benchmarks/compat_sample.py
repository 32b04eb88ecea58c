"""How many real Hermes Agent plugins from PyPI load here with pip install alone.

Installs this project and a sample of published plugins (memory providers, guards,
observability, tools) into a throwaway venv, then, for each plugin, in a fresh
HERMES_HOME with only that plugin enabled (and selected by ``memory.provider`` when it
offers a provider): whether it loaded, what it registered, what its ``pre_tool_call``
hooks answer to ``rm -rf /``, and the Hermes Agent modules it imported that this host
does not serve. With ``--reference`` the same sample is loaded by Hermes Agent 0.19.0
(from PyPI, in a second venv) for comparison.

    python benchmarks/compat_sample.py --markdown docs/compat-table.md --json compat.json

Needs network access to PyPI; not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: (distribution on PyPI, kind of plugin)
SAMPLE: list[tuple[str, str]] = [
    ("memex-hermes", "memory"),
    ("hermes-memoryrouter", "memory"),
    ("hydradb-hermes", "memory"),
    ("plur-hermes", "memory"),
    ("hermes-kiokuko", "memory"),
    ("hermes-scope-recall", "memory"),
    ("hermes-mnemory", "memory"),
    ("hermes-memra", "memory"),
    ("agentic-memory-hermes", "memory"),
    ("mnemopay-hermes", "memory"),
    ("clawhive-hermes-plugin", "memory"),
    ("betterdb-hermes-memory", "memory"),
    ("hermes-plugin-qdrant-memory", "memory"),
    ("agentsfence", "guard"),
    ("acp-hermes", "guard"),
    ("aquaman-hermes", "guard"),
    ("hermes-plugin-guard", "guard"),
    ("vaibot-hermes-circuitbreaker", "guard"),
    ("noisegate-hermes", "guard"),
    ("hermes-intaris", "guard"),
    ("watchline-hermes-plugin", "guard"),
    ("blackwall-hermes-plugin", "guard"),
    ("hermes-tenuo", "guard"),
    ("agentmetrics-hermes", "observability"),
    ("latitude-telemetry-hermes", "observability"),
    ("hermes-chat-recorder", "observability"),
    ("hermes-plugin-otel-tracing", "observability"),
    ("hermes-llm-api-call-logger", "observability"),
    ("hermes-token-consumption-tracker", "observability"),
    ("hermes-yandex-mail", "tools"),
    ("hermes-keenable-web", "tools"),
    ("hermes-ryzome-plugin", "tools"),
    ("hermes-plugin-pushary", "tools"),
    ("hermes-delegate-routing", "tools"),
    ("hermes-loop-plugin", "tools"),
    ("sagtask", "tools"),
    ("zenmux-hermes-plugin", "tools"),
    ("unbrowse-hermes", "tools"),
    ("serpapi-hermes-plugin", "tools"),
    ("hermes-ollama-cloud", "tools"),
    ("hermes-plugin-tinyfish", "tools"),
    ("hermes-tweet", "tools"),
    ("hermes-gemini-web-search", "tools"),
    ("hermes-session-titler", "tools"),
]

# Both probes start alike: what the distribution declares, and a config enabling all of it.
PROBE_PREAMBLE = r"""
import json, re, sys, logging
from importlib import metadata
logging.disable(logging.CRITICAL)
dist_name, home = sys.argv[1], sys.argv[2]
dist = metadata.distribution(dist_name)
eps = [(ep.group, ep.name) for ep in dist.entry_points if ep.group.startswith("hermes_agent.")]
general = sorted({n for g, n in eps if g == "hermes_agent.plugins"})
memory = sorted({n for g, n in eps if g == "hermes_agent.memory_providers"})
config = {"plugins": {"enabled": general}}
if memory:
    config["memory"] = {"provider": memory[0]}
"""

# Runs inside the venv: the distribution loaded the way `hermes` loads it.
PROBE_HERE = PROBE_PREAMBLE + r"""
from hermes_core.config import write_user_config
write_user_config(__import__("pathlib").Path(home), config)
from hermes_core.manager import PluginManager
manager = PluginManager()
manager.load_all()
names = set(general) | set(memory)
records = [r for r in manager.plugins if r.key in names or r.name in names]
described = [manager.describe(r) for r in records]
decision = manager.hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}, task_id="compat-sample")
unmet = sorted({m for d in described for m in re.findall(r"imports '([\w.]+)', a Hermes Agent module", d["error"] or "")})
print(json.dumps({
    "version": dist.version, "entry_points": eps,
    "loaded": bool(records) and all(d["loaded"] for d in described),
    "errors": [d["error"] for d in described if d["error"]],
    "registrations": {k: sorted({x for d in described for x in d[k]}) for k in ("tools", "hooks", "commands", "cli_commands", "memory_providers", "context_engines", "middleware", "skills", "web_search_providers", "other_providers")},
    "rm_rf": decision.message if decision else None,
    "unmet": unmet,
}))
"""

# Runs inside the Hermes Agent 0.19.0 venv: its own loaders, as its CLI would use them.
PROBE_REFERENCE = PROBE_PREAMBLE + r"""
import yaml, pathlib
pathlib.Path(home, "config.yaml").write_text(yaml.safe_dump(config))
result = {"loaded": False, "errors": [], "tools": [], "hooks": [], "memory_providers": [], "rm_rf": None}
ok = []
try:
    from hermes_cli import plugins as hp
    manager = hp.get_plugin_manager()
    manager.discover_and_load()
    for key, loaded in manager._plugins.items():
        if key in general or loaded.manifest.name in general:
            ok.append(bool(loaded.enabled) and not loaded.error)
            if loaded.error:
                result["errors"].append(str(loaded.error))
            result["tools"] += list(loaded.tools_registered)
            result["hooks"] += list(loaded.hooks_registered)
    try:
        result["rm_rf"] = hp.get_pre_tool_call_block_message("terminal", {"command": "rm -rf /"}, task_id="compat-sample")
    except Exception as exc:
        result["errors"].append(f"pre_tool_call: {type(exc).__name__}: {exc}")
except Exception as exc:
    result["errors"].append(f"{type(exc).__name__}: {exc}")
if memory:
    try:
        from plugins.memory import load_memory_provider
        provider = load_memory_provider(memory[0])
        ok.append(provider is not None)
        if provider is not None:
            result["memory_providers"].append(provider.name)
        else:
            result["errors"].append(f"memory provider {memory[0]!r} did not load")
    except Exception as exc:
        ok.append(False)
        result["errors"].append(f"memory: {type(exc).__name__}: {exc}")
result["loaded"] = bool(ok) and all(ok)
print(json.dumps(result))
"""


def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    return path / "bin" / "python"


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args], capture_output=True, text=True)


def _install(python: Path, base: list[str], names: list[str]) -> dict[str, str]:
    """Install ``base`` then each sample package (with its dependencies); the failures by name."""
    failed: dict[str, str] = {}
    if base:
        done = _pip(python, *base)
        if done.returncode:
            raise SystemExit(f"cannot install {base}: {done.stderr[-2000:]}")
        if Path(base[0]).is_dir():  # a rerun in the same --work directory gets the checkout as it is now
            _pip(python, "--force-reinstall", "--no-deps", *base)
    for index, name in enumerate(names, 1):
        print(f"  [{index}/{len(names)}] pip install {name}", file=sys.stderr, flush=True)
        done = _pip(python, name)
        if done.returncode:
            failed[name] = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "pip failed"
    return failed


def _probe(python: Path, script: str, dist: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="compat-home-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON", "NPM_CONFIG_", "npm_config_", "XDG_"))}
        env["HERMES_HOME"] = home
        # A user home of its own: plugins that write under ~ (skills, caches) or run tools that read
        # ~/.npmrc and the like see a fresh user, not the machine's.
        env["HOME"] = str(Path(home) / "user")
        Path(env["HOME"]).mkdir()
        done = subprocess.run([str(python), "-c", script, dist, home], capture_output=True, text=True, env=env, cwd=home, timeout=180)
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"loaded": False, "errors": [f"probe failed: {tail}"], "unmet": [], "registrations": {}, "rm_rf": None}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _registrations(result: dict) -> str:
    regs = result.get("registrations") or {}
    parts = [f"{len(regs[k])} {label}" for k, label in (("tools", "tools"), ("hooks", "hooks"), ("commands", "commands"), ("cli_commands", "CLI"), ("memory_providers", "provider"), ("context_engines", "engine"), ("middleware", "middleware"), ("skills", "skills"), ("web_search_providers", "web search"), ("other_providers", "listed providers")) if regs.get(k)]
    return ", ".join(parts) or "-"


def _same(here: dict, ref: dict) -> str:
    """Whether both hosts registered the same tools and hooks and gave the same kind of answer."""
    regs = here.get("registrations") or {}
    differences = []
    if sorted(regs.get("tools", [])) != sorted(set(ref.get("tools", []))):
        differences.append("tools")
    if sorted(regs.get("hooks", [])) != sorted(set(ref.get("hooks", []))):
        differences.append("hooks")
    if bool(here.get("rm_rf")) != bool(ref.get("rm_rf")):
        differences.append("answer")
    return "yes" if not differences else "differs: " + ", ".join(differences)


def _markdown(rows: list[dict], reference: bool, machine: str) -> str:
    loaded = sum(1 for r in rows if r["here"]["loaded"])
    lines = [
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {machine}.",
        "",
        f"**{loaded} of {len(rows)} plugins load with pip install alone ({100 * loaded / len(rows):.0f} %).**",
    ]
    if reference:
        ref_loaded = sum(1 for r in rows if r["reference"]["loaded"])
        both = sum(1 for r in rows if r["reference"]["loaded"] and r["here"]["loaded"])
        lines.append(f"Hermes Agent 0.19.0 loads {ref_loaded} of {len(rows)} ({100 * ref_loaded / len(rows):.0f} %); {both} of those {ref_loaded} load here too.")
    header = "| plugin | kind | version | loads here | registrations | `rm -rf /` answer | unmet imports |"
    rule = "|---|---|---|---|---|---|---|"
    if reference:
        header += " 0.19.0 loads | same tools, hooks, answer |"
        rule += "---|---|"
    lines += ["", header, rule]
    for row in rows:
        here = row["here"]
        answer = (here.get("rm_rf") or "allowed").replace("|", "\\|")[:70]
        cells = [row["name"], row["kind"], here.get("version", "-"), "yes" if here["loaded"] else "no", _registrations(here), answer, ", ".join(here.get("unmet") or []) or "-"]
        if reference:
            ref = row["reference"]
            cells.append("yes" if ref["loaded"] else "no")
            cells.append(_same(here, ref) if ref["loaded"] and here["loaded"] else "-")
        lines.append("| " + " | ".join(cells) + " |")
    failures = [(r["name"], e) for r in rows for e in r["here"].get("errors", [])]
    if failures:
        lines += ["", "Why the others did not load here:", ""]
        lines += [f"- {name}: {' '.join(error.split())[:400]}" for name, error in failures]  # one line each: npm output has newlines
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, help="directory for the venvs (default: a temporary one)")
    parser.add_argument("--reference", action="store_true", help="also load the sample with Hermes Agent 0.19.0")
    parser.add_argument("--reference-python", type=Path, help="the python of a venv that already has hermes-agent==0.19.0")
    parser.add_argument("--only", nargs="*", help="a subset of the sample, by distribution name")
    parser.add_argument("--json", type=Path, help="write the raw results here")
    parser.add_argument("--markdown", type=Path, help="write the table here")
    args = parser.parse_args()
    sample = [(n, k) for n, k in SAMPLE if not args.only or n in args.only]
    work = args.work or Path(tempfile.mkdtemp(prefix="compat-sample-"))
    names = [n for n, _ in sample]
    print(f"venv for this host in {work / 'here'}", file=sys.stderr)
    here_python = _venv(work / "here")
    install_failed = _install(here_python, [str(REPO)], names)
    reference_python = None
    if args.reference or args.reference_python:
        if args.reference_python:
            reference_python = args.reference_python
            _install(reference_python, [], names)
        else:
            print(f"venv for Hermes Agent 0.19.0 in {work / 'reference'}", file=sys.stderr)
            reference_python = _venv(work / "reference")
            _install(reference_python, ["hermes-agent==0.19.0"], names)
    rows = []
    for name, kind in sample:
        if name in install_failed:
            here = {"loaded": False, "errors": [f"pip install failed: {install_failed[name]}"], "unmet": [], "registrations": {}, "rm_rf": None}
        else:
            here = _probe(here_python, PROBE_HERE, name)
        row = {"name": name, "kind": kind, "here": here}
        if reference_python is not None:
            row["reference"] = _probe(reference_python, PROBE_REFERENCE, name)
        print(f"{name:34s} here={'yes' if here['loaded'] else 'NO '}" + (f" 0.19.0={'yes' if row['reference']['loaded'] else 'NO '}" if reference_python else ""), file=sys.stderr)
        rows.append(row)
    machine = f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    table = _markdown(rows, reference_python is not None, machine)
    if args.markdown:
        args.markdown.write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
