"""``hermes memory``: read and edit the built-in memory, see which provider runs, set one up."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hermes_core.errors import HermesError

TARGETS = ("memory", "user")
BUILTIN_ONLY = {"", "builtin", "none", "built-in"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="memory_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    show = commands.add_parser("show", help="print the live entries of MEMORY.md and USER.md")
    show.add_argument("--target", choices=(*TARGETS, "all"), default="all")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    add = commands.add_parser("add", help="add an entry")
    add.add_argument("content")
    add.add_argument("--target", choices=TARGETS, default="memory")
    add.set_defaults(func=cmd_add)

    replace = commands.add_parser("replace", help="replace the entry containing OLD_TEXT (a unique substring)")
    replace.add_argument("old_text")
    replace.add_argument("content")
    replace.add_argument("--target", choices=TARGETS, default="memory")
    replace.set_defaults(func=cmd_replace)

    remove = commands.add_parser("remove", help="remove the entry containing OLD_TEXT (a unique substring)")
    remove.add_argument("old_text")
    remove.add_argument("--target", choices=TARGETS, default="memory")
    remove.set_defaults(func=cmd_remove)

    status = commands.add_parser("status", help="the active provider, its availability, and memory usage")
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=cmd_status)

    setup = commands.add_parser("setup", help="choose a memory provider and configure it")
    setup.add_argument("provider", nargs="?", help="provider name ('builtin' for built-in memory only)")
    setup.add_argument("--set", dest="values", action="append", default=[], metavar="KEY=VALUE", help="a config value (repeatable)")
    setup.add_argument("--yes", action="store_true", help="never prompt; use defaults for values not given")
    setup.set_defaults(func=cmd_setup)


def _plugins() -> Any:
    from hermes_core.manager import PluginManager

    return PluginManager()


def _builtin_memory(manager: Any) -> Any:
    """Load the builtin plugins only (not the user's) and return the built-in memory provider."""
    manager.discover()
    for record in manager.plugins:
        if record.candidate.source == "builtin":
            manager.load(record.key)
    provider = manager.memory_providers.get("builtin")
    if provider is None:
        raise HermesError("the built-in memory plugin did not load -> run 'hermes plugins list --load' to see why")
    return provider


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def cmd_show(args: argparse.Namespace) -> int:
    provider = _builtin_memory(_plugins())
    targets = TARGETS if args.target == "all" else (args.target,)
    states = [provider.live_state(target) for target in targets]
    if args.json:
        _print_json(states if args.target == "all" else states[0])
        return 0
    for state in states:
        print(f"{state['target'].upper()} [{state['usage']}]")
        for entry in state["entries"] or ["(empty)"]:
            print("  " + entry.replace("\n", "\n  "))
        print()
    return 0


def _edit(args: argparse.Namespace, action: str, **fields: str) -> int:
    provider = _builtin_memory(_plugins())
    result = json.loads(provider.handle_tool_call("memory", {"action": action, "target": args.target, **fields}, write_origin="cli"))
    if not result.get("success"):
        raise HermesError(f"memory {action} failed: {result.get('error', 'unknown error')}")
    print(f"{result.get('message', action + ' done')} [{result.get('usage', '')}]")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    return _edit(args, "add", content=args.content)


def cmd_replace(args: argparse.Namespace) -> int:
    return _edit(args, "replace", old_text=args.old_text, content=args.content)


def cmd_remove(args: argparse.Namespace) -> int:
    return _edit(args, "remove", old_text=args.old_text)


def _provider_records(manager: Any) -> list[Any]:
    manager.discover()
    return [r for r in manager.plugins if r.candidate.kind == "exclusive" and r.candidate.source != "builtin"]


def _loaded_provider(manager: Any, record: Any) -> Any:
    manager.load(record.key)
    if not record.loaded:
        raise HermesError(f"memory provider '{record.name}' failed to load: {record.error}")
    providers = record.registrations.memory_providers if record.registrations else []
    if not providers:
        raise HermesError(f"plugin '{record.key}' loaded but registered no memory provider -> check its register(ctx)")
    return providers[0]


def cmd_status(args: argparse.Namespace) -> int:
    manager = _plugins()
    selected = manager.config.get("memory.provider", "") or ""
    records = _provider_records(manager)
    status: dict[str, Any] = {
        "provider": selected or "builtin",
        "available": True,
        "reason": "",
        "providers": sorted(r.name for r in records),
    }
    if selected:
        record = next((r for r in records if selected in {r.name, r.key}), None)
        if record is None:
            status.update(available=False, reason=f"no memory provider named {selected!r} was found")
        else:
            try:
                provider = _loaded_provider(manager, record)
                status["available"] = bool(provider.is_available())
                status["reason"] = "" if status["available"] else (provider.unavailable_reason() or "is_available() returned false")
            except HermesError as exc:
                status.update(available=False, reason=str(exc))
    builtin = _builtin_memory(manager)
    status["usage"] = {target: builtin.live_state(target)["usage"] for target in TARGETS}
    if args.json:
        _print_json(status)
        return 0
    state = "available" if status["available"] else f"NOT available: {status['reason']}"
    print(f"provider:   {status['provider']} ({state})")
    print(f"found:      {', '.join(status['providers']) or '(no external providers)'}")
    for target in TARGETS:
        print(f"{target + ':':<12}{status['usage'][target]}")
    return 0 if status["available"] else 1


def _parse_values(pairs: list[str]) -> dict[str, str]:
    values = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise HermesError(f"--set {pair!r} is not KEY=VALUE")
        values[key.strip()] = value
    return values


def _ask(field: dict[str, Any]) -> str:
    import getpass

    label = f"{field['key']}" + (f" ({field['description']})" if field.get("description") else "")
    default = field.get("default")
    if field.get("choices"):
        label += f" [{'/'.join(map(str, field['choices']))}]"
    if default not in (None, ""):
        label += f" [default: {default}]"
    answer = getpass.getpass(label + ": ") if field.get("secret") else input(label + ": ")
    return answer if answer else ("" if default is None else str(default))


def cmd_setup(args: argparse.Namespace) -> int:
    from hermes_core.config import save_env_value, update_user_config

    manager = _plugins()
    records = _provider_records(manager)
    choice = args.provider
    if choice is None:
        names = sorted(r.name for r in records)
        if args.yes or not sys.stdin.isatty():
            raise HermesError(f"name the provider to set up: one of {', '.join(names) or '(none found)'}, or 'builtin'")
        print("Memory providers: 0) built-in only  " + "  ".join(f"{i}) {n}" for i, n in enumerate(names, 1)))
        picked = input("Choose a number: ").strip()
        choice = "builtin" if picked in {"", "0"} else names[int(picked) - 1] if picked.isdigit() and 0 < int(picked) <= len(names) else picked
    if choice.lower() in BUILTIN_ONLY:
        update_user_config(manager.home, "memory.provider", "")
        print("memory.provider cleared: built-in memory only")
        return 0
    record = next((r for r in records if choice in {r.name, r.key}), None)
    if record is None:
        raise HermesError(f"no memory provider named {choice!r}; found: {', '.join(sorted(r.name for r in records)) or 'none'}")
    provider = _loaded_provider(manager, record)
    schema = provider.get_config_schema()
    given = _parse_values(args.values)
    known = {f["key"] for f in schema}
    unknown = sorted(set(given) - known)
    if unknown:
        raise HermesError(f"{record.name} has no setting(s) {', '.join(unknown)}; its settings are: {', '.join(sorted(known)) or 'none'}")
    interactive = not args.yes and sys.stdin.isatty()
    plain: dict[str, Any] = {}
    stored_secrets = []
    for field in schema:
        key = field["key"]
        if key in given:
            value = given[key]
        elif interactive:
            value = _ask(field)
        elif field.get("default") is not None:
            value = str(field["default"])
        elif field.get("required"):
            raise HermesError(f"{record.name} needs '{key}' -> pass --set {key}=VALUE")
        else:
            continue
        if field.get("choices") and value not in map(str, field["choices"]):
            raise HermesError(f"'{key}' must be one of {', '.join(map(str, field['choices']))}; got {value!r}")
        if field.get("secret"):
            save_env_value(manager.home, field["env_var"], value)
            stored_secrets.append(field["env_var"])
        else:
            plain[key] = value
    provider.save_config(plain, str(manager.home))
    update_user_config(manager.home, "memory.provider", record.name)
    print(f"memory.provider = {record.name}")
    if stored_secrets:
        print(f"secrets stored in {manager.home / '.env'}: {', '.join(stored_secrets)}")
    if plain:
        print(f"settings passed to {record.name}: {', '.join(sorted(plain))}")
    return 0
