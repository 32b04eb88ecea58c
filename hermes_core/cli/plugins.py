"""``hermes plugins``: list, info, enable, disable, validate. Only ``list --load`` imports plugin code."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hermes_core.cli.arguments import path_argument
from hermes_core.cli.output import one_line, print_json
from hermes_core.errors import HermesError
from hermes_core.plugin_candidate import command_word


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="plugins_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    listing = commands.add_parser("list", aliases=["ls"], help="list discovered plugins (imports nothing unless --load)")
    listing.add_argument("--json", action="store_true", help="print a JSON array sorted by name")
    listing.add_argument("--load", action="store_true", help="load enabled plugins and show what they registered")
    listing.set_defaults(func=cmd_list)

    info = commands.add_parser("info", help="show everything known about one plugin")
    info.add_argument("name", help="plugin key or name")
    info.add_argument("--json", action="store_true")
    info.set_defaults(func=cmd_info)

    enable = commands.add_parser("enable", help="add a plugin to plugins.enabled in config.yaml")
    enable.add_argument("name", help="plugin key or name")
    enable.add_argument("--json", action="store_true", help="print the outcome as JSON")
    enable.set_defaults(func=cmd_enable)

    disable = commands.add_parser("disable", help="add a plugin to plugins.disabled in config.yaml")
    disable.add_argument("name", help="plugin key or name")
    disable.add_argument("--json", action="store_true", help="print the outcome as JSON")
    disable.set_defaults(func=cmd_disable)

    validate = commands.add_parser("validate", help="check a plugin directory, project or wheel without importing it")
    validate.add_argument("path", type=path_argument, help="a plugin directory, a plugin project, or a .whl file")
    validate.add_argument("--json", action="store_true")
    validate.set_defaults(func=cmd_validate)

    from hermes_core.cli.plugins_distribution import add_distribution_commands

    add_distribution_commands(commands)


def _manager() -> Any:
    from hermes_core.manager import PluginManager

    return PluginManager()


def _status(entry: dict[str, Any]) -> str:
    if entry["error"]:
        return "error"
    if entry["loaded"]:
        return "loaded"
    return "enabled" if entry["enabled"] else "off"


def _print_table(rows: list[list[str]], headers: list[str]) -> None:
    from .output import display_width, pad

    widths = [max(display_width(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    for row in [headers, *rows]:
        print("  ".join(pad(str(cell), width) for cell, width in zip(row, widths)).rstrip())


def cmd_list(args: argparse.Namespace) -> int:
    manager = _manager()
    if args.load:
        manager.load_all()
    entries = manager.list_plugins()
    installs = _install_records(manager)
    for entry in entries:
        entry["install"] = installs.get(entry["key"])
        entry["status"] = _status(entry)  # the table's STATUS column, so JSON readers need not derive it
    if args.json:
        print_json(entries)
        return 0
    if not entries:
        print("no plugins found")
        return 0
    rows = [[e["name"], e["key"], e["source"], e["kind"], e["version"] or "-", _status(e), _installed_from(e["install"])] for e in entries]
    _print_table(rows, ["NAME", "KEY", "SOURCE", "KIND", "VERSION", "STATUS", "INSTALLED FROM"])
    notes = []
    for entry in entries:
        if entry["error"]:
            notes.append(f"{entry['key']}: {entry['error']}")
        elif args.load and entry["loaded"]:
            from hermes_core.listing import registration_summary

            notes.append(f"{entry['key']}: " + registration_summary(entry))
    if notes:
        print()
        for note in notes:
            print(note)
    # clashes, then manifest warnings (unknown keys, guessed kinds, newer manifest versions);
    # a clash is also among the winner's warnings, so each line is printed once
    for warning in dict.fromkeys([*manager.clashes, *(w for record in manager.plugins for w in record.warnings)]):
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _install_records(manager: Any) -> dict[str, Any]:
    """``{key: install info}`` from plugins.lock, for plugins ``hermes plugins install`` put there."""
    if not (manager.home / "plugins.lock").is_file():  # only then is the lock reader worth importing
        return {}
    from hermes_core.distribution.lockfile import install_info

    return install_info(manager.home)


def _install_record(manager: Any, key: str) -> Any:
    return _install_records(manager).get(key)


def _installed_from(install: dict[str, str] | None) -> str:
    """``index ==0.3.1``, ``git @1a2b3c4``: how ``hermes plugins install`` got it, from plugins.lock."""
    if not install:
        return "-"
    return f"{install['source']} {install['pinned']}".strip()


def _find_record(manager: Any, name: str) -> Any:
    from hermes_core.plugin_candidate import normal_name

    name = normal_name(name)  # typed composed, stored decomposed (or the other way): the same name
    record = manager.get(name)
    if record is not None:
        return record
    same_name = sorted(r.key for r in manager.plugins if r.name == name)
    if len(same_name) > 1:
        raise HermesError(f"{len(same_name)} plugins are named {name!r} -> name one by its key: {', '.join(same_name)}")
    in_directory = sorted(r.key for r in manager.plugins if r.candidate.directory is not None and normal_name(r.candidate.directory.name) == name)
    if len(in_directory) == 1:  # a directory plugin is known by the name in its plugin.yaml, not by its directory
        raise HermesError(f"no plugin named {name!r}: the plugin in the directory {name!r} is named {in_directory[0]!r} by its plugin.yaml "
                          f"-> use {in_directory[0]!r}, or change 'name:' in its plugin.yaml")
    import difflib

    keys = list(dict.fromkeys([r.key for r in manager.plugins] + [r.name for r in manager.plugins]))
    close = difflib.get_close_matches(name, keys, n=3)
    hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
    raise HermesError(f"no plugin named {name!r}{hint} -> 'hermes plugins list' shows every plugin found")


def cmd_info(args: argparse.Namespace) -> int:
    import os

    manager = _manager()
    record = _find_record(manager, args.name)
    entry = manager.describe(record)
    manifest = record.candidate.manifest
    env_status = []
    if manifest:
        from hermes_core.config import read_env_file

        stored = read_env_file(manager.home)
        for required in manifest.requires_env:
            present = required.name in os.environ or required.name in stored
            env_status.append({"name": required.name, "present": present, "secret": required.secret, "description": required.description})
    entry["requires_env"] = env_status
    entry["author"] = manifest.author if manifest else ""
    entry["requires_hermes"] = manifest.requires_hermes if manifest else ""
    entry["problems"] = [p.as_dict() for p in record.candidate.problems]
    entry["install"] = _install_record(manager, record.key)
    if args.json:
        print_json(entry)
        return 0
    width = 16
    entry["parts"] = ["general", "memory provider"] if record.candidate.provider_entry_point is not None and record.candidate.kind != "exclusive" else []
    for label in ("name", "key", "version", "description", "author", "source", "distribution", "kind", "path", "enabled", "reason", "requires_hermes"):
        value = entry[label]
        if value in ("", None):
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        print(f"{label + ':':<{width - 1}} {one_line(str(value))}")  # at least one space: 'requires_hermes:' fills the width
    print(f"{'hooks:':<{width}}{', '.join(entry['hooks']) or '-'}  (declared)")
    print(f"{'tools:':<{width}}{', '.join(entry['tools']) or '-'}  (declared)")
    if entry["parts"]:
        print(f"{'parts:':<{width}}general (plugins.enabled), memory provider (memory.provider)")
    for place in entry["also_at"]:
        print(f"{'also at:':<{width}}{place}  (an installer's copy; the installed package loads)")
    if entry["install"]:
        print(f"{'installed from:':<{width}}{_installed_from(entry['install'])}")
    for item in env_status:
        state = "set" if item["present"] else "MISSING"
        print(f"{'requires env:':<{width}}{item['name']} ({state})")
    for problem in record.candidate.problems:
        print(f"problem: {problem}")
    for warning in record.warnings:
        print(f"warning: {warning}")
    return 0


def _name_list(plugins: dict[str, Any], key: str, manager: Any) -> list[str]:
    """``plugins.<key>`` as a list; a single name written as a string counts as a list of one."""
    from hermes_core.policy import name_list

    value = plugins.get(key)
    names = name_list(value)
    if names is not None:
        return names
    raise HermesError(f"{manager.home / 'config.yaml'}: 'plugins.{key}' must be a list of plugin names, not {type(value).__name__} -> fix the file")


def _edit_plugin_lists(manager: Any, *, add_to: str, remove_from: str, record: Any) -> list[str]:
    from hermes_core.config import read_user_config, write_user_config

    data = read_user_config(manager.home)
    plugins = data.setdefault("plugins", {})
    if not isinstance(plugins, dict):
        raise HermesError(f"{manager.home / 'config.yaml'}: 'plugins' must be a mapping -> fix the file")
    names = {record.key, record.name}
    if any(r.key == record.name and r is not record for r in manager.plugins):
        names.discard(record.name)  # that entry is another plugin's key (a user 'hook_log' beside the bundled one): not ours to drop
    plugins[remove_from] = [n for n in _name_list(plugins, remove_from, manager) if n not in names]
    target = _name_list(plugins, add_to, manager)
    if record.key not in target:
        target.append(record.key)
    plugins[add_to] = target
    write_user_config(manager.home, data)
    return target


def _warn_also_named(manager: Any, record: Any, listed_in: str, state: str) -> None:
    """A list entry matches plugins by key or bare name: say which others the key just written turns on or off too."""
    from hermes_core.policy import matches

    others = [r for r in manager.plugins if r.key != record.key and r.candidate.source != "builtin"
              and r.candidate.kind != "exclusive" and matches(r.candidate, {record.key})]
    for other in others:
        fix = (f"to keep it off, 'hermes plugins disable {command_word(other.key)}'" if state == "on" else
               f"to turn off only one of them, change 'name:' in the plugin.yaml of one so the names differ")
        print(f"warning: '{record.key}' in plugins.{listed_in} also names the {other.candidate.source} plugin "
              f"'{other.key}' (its bare name), which is turned {state} too -> {fix}", file=sys.stderr)


def _switch_outcome(manager: Any, record: Any, state: str) -> dict[str, Any]:
    """What ``enable``/``disable --json`` print."""
    return {"key": record.key, "name": record.name, "source": record.candidate.source, "path": str(record.candidate.path),
            "state": state, "config": str(manager.home / "config.yaml"), "problems": [str(p) for p in record.candidate.problems]}


def cmd_enable(args: argparse.Namespace) -> int:
    manager = _manager()
    record = _find_record(manager, args.name)
    if record.candidate.source == "builtin":
        if args.json:
            print_json(_switch_outcome(manager, record, "builtin"))
        else:
            print(f"'{record.key}' is a builtin plugin; it is always on")
        return 0
    if record.candidate.kind == "exclusive":  # a provider is turned on by selecting it: memory.provider
        from hermes_core.cli.plugins_provider import enable_provider

        return enable_provider(manager, record, args, _switch_outcome(manager, record, "selected"))
    _edit_plugin_lists(manager, add_to="enabled", remove_from="disabled", record=record)
    _warn_also_named(manager, record, "enabled", "on")
    if args.json:
        print_json(_switch_outcome(manager, record, "enabled"))
        return 0
    print(f"enabled '{record.key}' ({record.candidate.source}, {record.candidate.path})")
    if record.candidate.problems:
        print(f"warning: it will not load until its problems are fixed; see 'hermes plugins info {command_word(record.key)}'", file=sys.stderr)
    return 0


def cmd_disable(args: argparse.Namespace) -> int:
    manager = _manager()
    record = _find_record(manager, args.name)
    if record.candidate.source == "builtin":
        raise HermesError(f"'{record.key}' is a builtin plugin: builtins are always on and cannot be disabled -> nothing to do; "
                          "'hermes plugins list' shows the plugins you can turn off (source user, bundled or entrypoint)")
    _edit_plugin_lists(manager, add_to="disabled", remove_from="enabled", record=record)
    _warn_also_named(manager, record, "disabled", "off")
    from hermes_core.cli.plugins_provider import warn_if_selected

    warn_if_selected(manager, record)
    if args.json:
        print_json(_switch_outcome(manager, record, "disabled"))
        return 0
    print(f"disabled '{record.key}'")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from hermes_core.validate import validate_path

    reports = validate_path(args.path)
    failed = any(r.problems for r in reports)
    if args.json:
        print_json([r.as_dict() for r in reports])
        return 1 if failed else 0
    for report in reports:
        if report.problems:
            print(f"FAIL {report.name} ({report.location})")
            for problem in report.problems:
                print(f"  - {problem}")
        else:
            version = f" {report.version}" if report.version else ""
            print(f"ok   {report.name}{version} ({report.kind}) {report.location}")
        for warning in report.warnings:
            print(f"  warning: {warning}")
    return 1 if failed else 0
