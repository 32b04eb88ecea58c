"""After the files are in place: required environment, ``*.example`` files, after-install notes, config."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from hermes_core.distribution.checks import PluginInfo
from hermes_core.distribution.console import Console
from hermes_core.errors import HermesError
from hermes_core.manifest import RequiredEnv

AFTER_INSTALL_FILE = "after-install.md"
_ENV_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)


def parse_env_assignments(values: Iterable[str]) -> dict[str, str]:
    """``["KEY=value", ...]`` from ``--env`` options; raises HermesError for malformed ones."""
    parsed: dict[str, str] = {}
    for value in values:
        match = _ENV_ASSIGNMENT.match(value)
        if not match:
            raise HermesError(f"--env {value!r} is not KEY=VALUE -> write e.g. --env WEATHER_API_KEY=abc123")
        parsed[match.group(1)] = match.group(2)
    return parsed


def _ask(required: RequiredEnv, stdin: TextIO, console: Console) -> str | None:
    label = required.name + (f" ({required.description})" if required.description else "")
    if required.url:
        console.info(f"  get it at {required.url}")
    if stdin.isatty():
        import getpass

        prompt = f"  {label}: "
        try:
            return getpass.getpass(prompt) if required.secret else input(prompt)
        except (EOFError, OSError):
            return None
    # Not a terminal: the value is read as one line of standard input (never echoed, so
    # secrets may be piped in); end of input means "not given".
    console.info(f"  {label}: (reading a line from standard input)")
    try:
        line = stdin.readline()
    except OSError:  # standard input is closed or not readable
        return None
    return line.rstrip("\r\n") if line else None


def collect_env(
    plugins: list[PluginInfo],
    given: Mapping[str, str],
    home: Path,
    console: Console,
    *,
    interactive: bool,
    stdin: TextIO | None = None,
) -> dict[str, str]:
    """The values to store in ``.env``: ``--env`` ones, then answers for required variables still unset."""
    from hermes_core.config import read_env_file

    stdin = sys.stdin if stdin is None else stdin
    stored = read_env_file(home)
    values = dict(given)
    missing: list[str] = []
    asked_header = False
    for plugin in plugins:
        for required in plugin.requires_env:
            name = required.name
            if name in values or name in os.environ or name in stored:
                continue
            answer = None
            if interactive:
                if not asked_header:
                    console.info(f"'{plugin.key}' needs these environment variables (stored in {home / '.env'}, mode 0600):")
                    asked_header = True
                answer = _ask(required, stdin, console)
            if answer:
                values[name] = answer
            else:
                missing.append(name)
    for name in missing:
        console.warn(f"{name} is not set; the plugin may not work until it is (hermes plugins install ... --env {name}=VALUE, or add it to {home / '.env'})")
    return values


def save_env(home: Path, values: Mapping[str, str]) -> None:
    from hermes_core.config import save_env_value

    for name, value in values.items():
        save_env_value(home, name, value)


def copy_examples(directory: Path) -> list[str]:
    """Copy every ``X.example`` in a directory plugin to ``X`` where ``X`` does not exist yet."""
    created: list[str] = []
    for example in sorted(directory.rglob("*.example")):
        if ".git" in example.relative_to(directory).parts:
            continue
        real = example.with_suffix("")
        if not real.exists():
            shutil.copy2(example, real)
            created.append(str(real.relative_to(directory)))
    return created


def show_after_install(plugins: list[PluginInfo], console: Console) -> None:
    for plugin in plugins:
        if plugin.directory is None:
            continue
        note = plugin.directory / AFTER_INSTALL_FILE
        if note.is_file():
            console.info("")
            console.info(note.read_text(encoding="utf-8", errors="replace").rstrip())


# --- config.yaml -------------------------------------------------------------


def _plugins_section(data: dict[str, Any], home: Path) -> dict[str, Any]:
    section = data.setdefault("plugins", {})
    if not isinstance(section, dict):
        raise HermesError(f"{home / 'config.yaml'}: 'plugins' must be a mapping -> fix the file")
    return section


def enable_plugins(home: Path, plugins: list[PluginInfo], console: Console) -> None:
    """Turn the installed plugins on: ``plugins.enabled``, or ``memory.provider`` for a memory provider."""
    from hermes_core.config import read_user_config, write_user_config

    data = read_user_config(home)
    section = _plugins_section(data, home)
    for plugin in plugins:
        if plugin.kind == "exclusive":
            memory = data.setdefault("memory", {})
            if isinstance(memory, dict):
                memory["provider"] = plugin.name
                console.info(f"memory provider '{plugin.name}' selected (memory.provider)")
            continue
        section["disabled"] = [n for n in section.get("disabled") or [] if n not in {plugin.key, plugin.name}]
        enabled = list(section.get("enabled") or [])
        if plugin.key not in enabled:
            enabled.append(plugin.key)
        section["enabled"] = enabled
        console.info(f"enabled '{plugin.key}'")
    write_user_config(home, data)


def forget_plugins(home: Path, keys: Iterable[str]) -> list[str]:
    """Remove every config mention of ``keys``: enable/disable lists, entries, selections."""
    from hermes_core.config import read_user_config, write_user_config

    if not (home / "config.yaml").exists():
        return []
    names = set(keys)
    data = read_user_config(home)
    changed: list[str] = []
    section = data.get("plugins")
    if isinstance(section, dict):
        for list_key in ("enabled", "disabled"):
            current = section.get(list_key)
            if isinstance(current, list) and names & set(map(str, current)):
                section[list_key] = [n for n in current if str(n) not in names]
                changed.append(f"plugins.{list_key}")
        entries = section.get("entries")
        if isinstance(entries, dict):
            for key in names & set(entries):
                del entries[key]
                changed.append(f"plugins.entries.{key}")
    for selection in ("memory.provider", "context.engine"):
        group, _, leaf = selection.partition(".")
        node = data.get(group)
        if isinstance(node, dict) and node.get(leaf) in names:
            del node[leaf]
            changed.append(selection)
    if changed:
        write_user_config(home, data)
    return changed
