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
# The name is checked by check_env_value, so a bad one gets its precise message.
_ENV_ASSIGNMENT = re.compile(r"^([^=]+)=(.*)$", re.DOTALL)


def parse_env_assignments(values: Iterable[str]) -> dict[str, str]:
    """``["KEY=value", ...]`` from ``--env`` options; raises HermesError for malformed ones.

    Every name and value is checked with the rules of ``.env`` here, before anything is
    installed: a value that could not be stored must not fail the install after its commit.
    """
    from hermes_core.config import check_env_value

    parsed: dict[str, str] = {}
    for value in values:
        match = _ENV_ASSIGNMENT.match(value)
        if not match:
            raise HermesError(f"--env {value!r} is not KEY=VALUE -> write e.g. --env WEATHER_API_KEY=abc123")
        name, text = match.group(1), match.group(2)
        try:
            check_env_value(name, text)
        except HermesError as exc:  # the value itself is never echoed: it may be a secret
            raise HermesError(f"--env {name!r}: {exc}") from exc
        parsed[name] = text
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


def _declared_env(plugins: list[PluginInfo]) -> list[str]:
    names = [r.name for p in plugins for r in [*p.requires_env, *p.optional_env]]
    return list(dict.fromkeys(names))


def collect_env(
    plugins: list[PluginInfo],
    given: Mapping[str, str],
    home: Path,
    console: Console,
    *,
    interactive: bool,
    stdin: TextIO | None = None,
) -> dict[str, str]:
    """The values to store in ``.env``: ``--env`` ones the plugins declare, then answers for required variables still unset."""
    from hermes_core.config import check_env_value, read_env_file

    stdin = sys.stdin if stdin is None else stdin
    stored = read_env_file(home)
    declared = _declared_env(plugins)
    # .env is shared by every plugin and hermes itself: only what this plugin asks for goes in.
    ignored = [name for name in given if name not in declared]
    if ignored:
        keys = ", ".join(f"'{p.key}'" for p in plugins)
        asks = f"it asks for {', '.join(declared)}" if declared else "it declares no variables"
        console.warn(f"--env {', '.join(ignored)} not stored: {keys} does not ask for {'it' if len(ignored) == 1 else 'them'} ({asks})")
    values = {name: value for name, value in given.items() if name in declared}
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
                check_env_value(name, answer)  # before the commit, so a bad answer undoes the install
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

#: The sections ``enable_plugins`` writes into; each must be a mapping when present.
_EDITED_SECTIONS: tuple[str, ...] = ("plugins", "memory", "context")


def _parse_config(path: Path) -> dict[str, Any]:
    """config.yaml as written, parsed without the parse cache (which would write into $HERMES_HOME)."""
    from hermes_core.config import read_yaml_mapping

    return read_yaml_mapping(path, use_cache=False)


def _check_editable(data: dict[str, Any], path: Path) -> None:
    for name in _EDITED_SECTIONS:
        node = data.get(name)
        if node is not None and not isinstance(node, dict):
            raise HermesError(f"{path}: '{name}' must be a mapping of keys, not {type(node).__name__} ({node!r:.40}) -> fix that key in the file, or move the file aside")
    plugins = data.get("plugins") or {}
    for name in ("enabled", "disabled"):
        value = plugins.get(name)
        if value is not None and not isinstance(value, (list, str)):
            raise HermesError(f"{path}: 'plugins.{name}' must be a list of plugin names, not {type(value).__name__} ({value!r:.40}) -> fix that key in the file")


def check_config_editable(home: Path) -> None:
    """Raise HermesError unless ``enable_plugins`` can edit config.yaml; writes nothing.

    Run before an install with --enable, so a broken config.yaml stops it before anything changed.
    """
    path = home / "config.yaml"
    _check_editable(_parse_config(path), path)


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    if data.get(name) is None:  # absent, or written as an empty key
        data[name] = {}
    return data[name]


def _names(value: Any) -> list[str]:
    from hermes_core.policy import name_list

    return name_list(value) or []  # _check_editable has refused anything that is not names


def enable_plugins(home: Path, plugins: list[PluginInfo], console: Console) -> None:
    """Turn the installed plugins on: ``plugins.enabled``, or the selection (memory.provider, context.engine) that runs them."""
    from hermes_core.config import read_user_config, write_user_config

    data = read_user_config(home)
    _check_editable(data, home / "config.yaml")
    section = _section(data, "plugins")
    for plugin in plugins:
        # plugins.disabled wins over every way of turning a plugin on (see policy.decide).
        disabled = _names(section.get("disabled"))
        if plugin.key in disabled or plugin.name in disabled:
            section["disabled"] = [n for n in disabled if n not in {plugin.key, plugin.name}]
        if plugin.selected_by:
            group, _, leaf = plugin.selected_by.partition(".")
            _section(data, group)[leaf] = plugin.name
            what = "memory provider" if group == "memory" else "context engine"
            console.info(f"{what} '{plugin.name}' selected ({plugin.selected_by})")
            continue
        enabled = _names(section.get("enabled"))
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
    from hermes_core.plugin_candidate import normal_name

    names = {normal_name(key) for key in keys}  # config may spell a name decomposed (NFD): the same name
    data = read_user_config(home)
    changed: list[str] = []
    section = data.get("plugins")
    if isinstance(section, dict):
        for list_key in ("enabled", "disabled"):
            current = section.get(list_key)
            if isinstance(current, list) and names & {normal_name(str(n)) for n in current}:
                section[list_key] = [n for n in current if normal_name(str(n)) not in names]
                changed.append(f"plugins.{list_key}")
        entries = section.get("entries")
        if isinstance(entries, dict):
            for key in [k for k in entries if normal_name(str(k)) in names]:
                del entries[key]
                changed.append(f"plugins.entries.{key}")
    for selection in ("memory.provider", "context.engine"):
        group, _, leaf = selection.partition(".")
        node = data.get(group)
        if isinstance(node, dict) and isinstance(node.get(leaf), str) and normal_name(node[leaf]) in names:
            del node[leaf]
            changed.append(selection)
    if changed:
        write_user_config(home, data)
    return changed


def check_loads(home: Path, plugins: list[PluginInfo], console: Console) -> None:
    """Import the plugins just enabled (in a child process, as ``doctor --load`` does) and say which fail.

    Installing never runs plugin code; a plugin whose import or ``register(ctx)`` fails would
    otherwise be found out only when it is skipped at the next start. It stays installed and
    enabled: the failure is often the user's to fix (a variable, a server to start).
    """
    from hermes_core.distribution.load_probe import probe
    from hermes_core.manager import PluginManager

    keys = {plugin.key for plugin in plugins}
    others = frozenset(record.key for record in PluginManager(home, strict=False).discover() if record.key not in keys)
    try:
        results = probe(home, skip=others)
    except HermesError as exc:
        console.warn(f"could not check that {', '.join(sorted(keys))} load: {exc}")
        return
    for plugin in plugins:
        result = results.get(plugin.key)
        if result is not None and result.error:
            warning = f"plugin '{plugin.key}' is installed and enabled, but it fails to load: {result.error} -> {result.fix}"
            plugin.warnings.append(warning)
            console.warn(warning)
