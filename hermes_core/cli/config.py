"""``hermes config``: get, set, unset and show values of config.yaml."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hermes_core.errors import ConfigError

_MISSING = object()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="config_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    get = commands.add_parser("get", help="print the effective value of a dotted key")
    get.add_argument("key", help="e.g. plugins.enabled")
    get.add_argument("--json", action="store_true")
    get.set_defaults(func=cmd_get)

    setter = commands.add_parser("set", help="set a dotted key in config.yaml (VALUE is read as YAML)")
    setter.add_argument("key")
    setter.add_argument("value", help="e.g. 30, true, '[a, b]' or text")
    setter.set_defaults(func=cmd_set)

    unset = commands.add_parser("unset", help="remove a dotted key from config.yaml (its default applies again)")
    unset.add_argument("key")
    unset.set_defaults(func=cmd_unset)

    show = commands.add_parser("show", help="print the effective configuration (defaults merged)")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    path = commands.add_parser("path", help="print the location of config.yaml")
    path.set_defaults(func=cmd_path)


def _print_value(value: Any, as_json: bool) -> None:
    if as_json:
        json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    if isinstance(value, (dict, list)):
        import yaml

        sys.stdout.write(yaml.safe_dump(value, sort_keys=False, default_flow_style=False, allow_unicode=True))
    elif isinstance(value, bool):
        print("true" if value else "false")
    elif value is None:
        print("null")
    else:
        print(value)


def parse_value(text: str) -> Any:
    """Read a command-line value as YAML so numbers, booleans and lists keep their type."""
    import yaml

    try:
        return yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError:
        return text


def cmd_get(args: argparse.Namespace) -> int:
    from hermes_core.config import load_config

    value = load_config().get(args.key, _MISSING)
    if value is _MISSING:
        raise ConfigError(f"{args.key!r} is not set and has no default -> 'hermes config show' lists what is set")
    _print_value(value, args.json)
    return 0


def cmd_set(args: argparse.Namespace) -> int:
    from hermes_core.config import get_hermes_home, update_user_config

    value = parse_value(args.value)
    path = update_user_config(get_hermes_home(), args.key, value)
    print(f"{args.key} = {json.dumps(value, ensure_ascii=False)}  ({path})")
    return 0


def cmd_unset(args: argparse.Namespace) -> int:
    from hermes_core.config import get_hermes_home, read_user_config, unset_dotted, write_user_config

    home = get_hermes_home()
    data = read_user_config(home)
    if not unset_dotted(data, args.key):
        raise ConfigError(f"{args.key!r} is not set in {home / 'config.yaml'}")
    write_user_config(home, data)
    print(f"removed {args.key}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from hermes_core.config import load_config

    _print_value(load_config().as_dict(), args.json)
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from hermes_core.config import CONFIG_FILE_NAME, get_hermes_home

    print(get_hermes_home() / CONFIG_FILE_NAME)
    return 0
