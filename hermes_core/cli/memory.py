"""``hermes memory``: read and edit the built-in memory, see which provider runs, set one up."""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import sys
import uuid
from typing import TYPE_CHECKING, Any

from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager, PluginRecord
    from hermes_core.memory.manager import MemoryManager
    from hermes_core.memory.provider import MemoryProvider

TARGETS = ("memory", "user")
BUILTIN_ONLY = {"", "builtin", "none", "built-in"}
#: Field ``type`` spellings in get_config_schema() -> the kind the value is coerced to.
FIELD_TYPES = {
    "str": "str",
    "string": "str",
    "int": "int",
    "integer": "int",
    "float": "float",
    "number": "float",
    "bool": "bool",
    "boolean": "bool",
}
_EXPECTED = {"str": "text", "int": "an integer", "float": "a number", "bool": "true or false"}
_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
    add.add_argument("--json", action="store_true", help="print the memory tool's JSON answer")
    add.set_defaults(func=cmd_add)

    replace = commands.add_parser("replace", help="replace the entry containing OLD_TEXT (a unique substring)")
    replace.add_argument("old_text")
    replace.add_argument("content")
    replace.add_argument("--target", choices=TARGETS, default="memory")
    replace.add_argument("--json", action="store_true", help="print the memory tool's JSON answer")
    replace.set_defaults(func=cmd_replace)

    remove = commands.add_parser("remove", help="remove the entry containing OLD_TEXT (a unique substring)")
    remove.add_argument("old_text")
    remove.add_argument("--target", choices=TARGETS, default="memory")
    remove.add_argument("--json", action="store_true", help="print the memory tool's JSON answer")
    remove.set_defaults(func=cmd_remove)

    status = commands.add_parser("status", help="the active provider, its availability, and memory usage")
    status.add_argument("--json", action="store_true")
    status.add_argument("--offline", action="store_true", help="do not contact the provider's service (its connection check is skipped)")
    status.set_defaults(func=cmd_status)

    setup = commands.add_parser("setup", help="choose a memory provider and configure it")
    setup.add_argument("provider", nargs="?", help="plugin or provider name ('builtin' for built-in memory only)")
    setup.add_argument("--set", dest="values", action="append", default=[], metavar="KEY=VALUE", help="a config value (repeatable)")
    setup.add_argument("--yes", action="store_true", help="never prompt; use defaults for values not given")
    setup.set_defaults(func=cmd_setup)

    from hermes_core.cli import memory_switch, memory_transfer

    memory_switch.add_arguments(commands)
    memory_transfer.add_arguments(commands)


# -- shared --


def _plugins() -> PluginManager:
    from hermes_core.manager import PluginManager

    return PluginManager()


def _builtin_memory(manager: PluginManager) -> Any:
    """Load the builtin plugins only (not the user's) and return the built-in memory provider."""
    manager.load_builtins()
    provider = manager.memory_providers.get("builtin")
    if provider is None:
        raise HermesError("the built-in memory plugin did not load -> run 'hermes plugins list --load' to see why")
    return provider


def _live_state(provider: Any, target: str) -> dict[str, Any]:
    """``live_state`` of the built-in provider; an unreadable file raises a HermesError (one line, the fix named)."""
    return provider.live_state(target)


def _indented(entries: list[str]) -> list[str]:
    return ["    " + entry.replace("\n", "\n      ") for entry in entries]


# -- show --


def cmd_show(args: argparse.Namespace) -> int:
    provider = _builtin_memory(_plugins())
    targets = TARGETS if args.target == "all" else (args.target,)
    states = [_live_state(provider, target) for target in targets]
    if args.json:
        print_json(states if args.target == "all" else states[0])
        return 0
    for state in states:
        print(f"{state['target'].upper()} [{state['usage']}]")
        for entry in state["entries"] or ["(empty)"]:
            print("  " + entry.replace("\n", "\n  "))
        print()
    return 0


# -- add / replace / remove --


def _available(provider: MemoryProvider) -> tuple[bool, str]:
    """``(is_available(), reason)``; a provider that raises counts as unavailable."""
    try:
        if provider.is_available():
            return True, ""
        return False, provider.unavailable_reason() or "is_available() returned false"
    except Exception as exc:  # provider code: its failure is a status to report, not a crash
        return False, f"is_available() raised {type(exc).__name__}: {exc}"


def _write_manager(plugins: PluginManager) -> MemoryManager:
    """The MemoryManager the agent would use, so a CLI edit is mirrored and hooked like the agent's own writes."""
    from hermes_core.memory.manager import MemoryManager

    plugins.load_all()
    builtin = plugins.memory_providers.get("builtin")
    if builtin is None:
        raise HermesError("the built-in memory plugin did not load -> run 'hermes plugins list --load' to see why")
    external = plugins.active_memory_provider()
    if external is not None:
        available, reason = _available(external)
        if not available:
            # Mirroring into a provider that cannot work only adds a logged failure; the edit itself still counts.
            print(f"note: memory provider '{external.name}' is not available ({reason}); this edit is not mirrored to it", file=sys.stderr)
            memory = MemoryManager(hooks=plugins.hooks)
            memory.add_provider(builtin)
            return memory
    return MemoryManager.from_plugins(plugins)


def _failure_details(result: dict[str, Any], action: str) -> str:
    """What the tool answered beside its error, so the user can pick the next step as the model would."""
    lines: list[str] = []
    if result.get("candidates"):
        lines.append("  entries that match:")
        lines += _indented([str(c) for c in result["candidates"]])
    elif "current_entries" in result and "blocked" not in result and ("needed" in result or action != "add"):
        lines.append(f"  current entries of '{result.get('target', '')}' [{result.get('usage', '')}]:")
        lines += _indented([str(e) for e in result["current_entries"]] or ["(empty)"])
    return "\n".join(lines)


def _edit(args: argparse.Namespace, action: str, **fields: str) -> int:
    from hermes_core.files import check_utf8

    for name, value in list(fields.items()):  # before any plugin loads: a clear refusal, no traceback in a log line
        if isinstance(value, list):  # argparse gives a list for a second '--' ('memory replace -- old --')
            value = fields[name] = " ".join(value)
        check_utf8(value, f"the {name.replace('_', ' ')}", "give the text as UTF-8; memory was not changed")
    from hermes_core.config import ensure_home, get_hermes_home

    ensure_home(get_hermes_home())  # a home that cannot be created is named as such, not as a memory file
    plugins = _plugins()
    memory = _write_manager(plugins)
    builtin = plugins.memory_providers["builtin"]
    for target in TARGETS:  # both files are read when the session starts: report a bad one once, plainly
        _live_state(builtin, target)
    try:
        memory.initialize_all(f"cli-{uuid.uuid4()}", platform="cli", hermes_home=str(plugins.home))
        answer = memory.handle_tool_call("memory", {"action": action, "target": args.target, **fields}, write_origin="cli")
    finally:
        memory.shutdown_all()  # queued work of the external provider drains before the process ends
    result = json.loads(answer)
    ok = bool(result.get("success"))
    if args.json:
        print_json(result)
        return 0 if ok else 1
    if not ok:
        details = _failure_details(result, action)
        raise HermesError(f"memory {action} failed: {result.get('error', 'unknown error')}" + ("\n" + details if details else ""))
    print(f"{result.get('message', action + ' done')} [{result.get('usage', '')}]")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    return _edit(args, "add", content=args.content)


def cmd_replace(args: argparse.Namespace) -> int:
    return _edit(args, "replace", old_text=args.old_text, content=args.content)


def cmd_remove(args: argparse.Namespace) -> int:
    return _edit(args, "remove", old_text=args.old_text)


# -- which provider --


def _provider_records(manager: PluginManager) -> list[PluginRecord]:
    manager.discover()
    return [r for r in manager.plugins if r.candidate.provides_memory and r.candidate.source != "builtin"]


def _disabled_names(manager: PluginManager) -> list[str]:
    from hermes_core.policy import name_list

    return name_list(manager.config.get("plugins.disabled", [])) or []


def _is_disabled(manager: PluginManager, record: PluginRecord) -> bool:
    return bool({record.key, record.name} & set(_disabled_names(manager)))


def _disabled_error(manager: PluginManager, record: PluginRecord) -> str:
    """Why a disabled provider plugin will not run, and the command that turns it back on.

    'hermes plugins enable' refuses memory providers, so the fix edits plugins.disabled itself.
    """
    remaining = [n for n in _disabled_names(manager) if n not in {record.key, record.name}]
    command = f"hermes config set plugins.disabled {shlex.quote(json.dumps(remaining))}"
    return f"memory provider plugin '{record.key}' is disabled in plugins.disabled ({manager.home / 'config.yaml'}) -> remove it from that list: {command}"


def _loadable(manager: PluginManager, record: PluginRecord) -> bool:
    return record.error is None and not _is_disabled(manager, record)


def _first_provider(record: PluginRecord) -> MemoryProvider | None:
    providers = record.registrations.memory_providers if record.loaded and record.registrations else []
    return providers[0] if providers else None


def _owner_of_provider(manager: PluginManager, records: list[PluginRecord], name: str) -> tuple[PluginRecord, MemoryProvider] | None:
    """The plugin that registers a provider called ``name``: each candidate is loaded, kept if it matches.

    Disabled and refused plugins are not loaded. Only one external provider may be registered at
    a time, so a plugin that does not match is unloaded before the next is tried.
    """
    for record in records:
        if not _loadable(manager, record):
            continue
        manager.load(record.key)
        provider = _first_provider(record)
        if provider is not None and provider.name == name:
            return record, provider
        manager.unload(record.key)
    return None


def _config_schema(provider: MemoryProvider) -> list[dict[str, Any]]:
    try:
        schema = provider.get_config_schema()
    except Exception as exc:  # provider code
        raise HermesError(f"memory provider '{provider.name}': get_config_schema() raised {type(exc).__name__}: {exc} -> report it to the provider's author") from exc
    if not isinstance(schema, list) or not all(isinstance(f, dict) and isinstance(f.get("key"), str) and f["key"] for f in schema):
        raise HermesError(
            f"memory provider '{provider.name}': get_config_schema() must return a list of fields with a 'key' -> "
            "the provider's author must fix get_config_schema()"
        )
    return schema


def _missing_env(manager: PluginManager, provider: MemoryProvider, *, available: bool = False) -> list[str]:
    """Secret fields whose env_var is set neither in the environment nor in $HERMES_HOME/.env.

    A secret marked ``required: False`` (a key only one mode needs) counts only while the provider
    is unavailable: a provider that works without it is not missing anything.
    """
    from hermes_core.config import get_env_value

    try:
        schema = _config_schema(provider)
    except HermesError:
        return []
    names = [
        f["env_var"] for f in schema
        if f.get("secret") and not (available and f.get("required") is False) and isinstance(f.get("env_var"), str) and f["env_var"]
    ]
    return [name for name in names if not get_env_value(name, manager.home, manager.env)]


def _connection_problem(provider: MemoryProvider) -> str:
    """The provider's own connection check (``check_connection()``, when it offers one): ``""`` when it answers."""
    check = getattr(provider, "check_connection", None)
    if not callable(check):
        return ""
    try:
        found = check()
    except Exception as exc:  # provider code: a check that crashes did not show the service answers
        return f"check_connection() raised {type(exc).__name__}: {exc}"
    return str(found) if found else ""


def _problems(provider: MemoryProvider) -> list[str]:
    """What the provider says needs the user's attention (e.g. writes that failed for good)."""
    try:
        found = provider.problems() if callable(getattr(provider, "problems", None)) else []
    except Exception as exc:  # provider code: its failure is itself worth reporting
        return [f"problems() raised {type(exc).__name__}: {exc}"]
    return [str(p) for p in found] if isinstance(found, list) else []


def _provider_status(manager: PluginManager, selection: str) -> dict[str, Any]:
    """What the runtime will run for ``memory.provider``: the load policy's verdict, then the plugin itself."""
    from hermes_core.policy import selected_by

    status: dict[str, Any] = {"plugin": "", "available": False, "reason": "", "missing_env": []}
    records = _provider_records(manager)
    running = [r for r in records if r.enabled]  # the policy enables at most one: the selected, unshadowed one
    if not running:
        named = [r for r in records if selected_by(r.candidate, selection)]
        if named:
            record = named[-1]
            status["plugin"] = record.key
            status["reason"] = _disabled_error(manager, record) if _is_disabled(manager, record) else (record.error or record.reason)
            return status
        owner = _owner_of_provider(manager, records, selection)
        if owner is not None:
            record = owner[0]
            status["reason"] = (
                f"{selection!r} is the provider of plugin '{record.key}', but plugins are selected by their own key or name, "
                f"so it is not loaded -> run 'hermes config set memory.provider {record.name}'"
            )
        else:
            found = ", ".join(sorted(r.name for r in records)) or "none"
            status["reason"] = f"no memory provider plugin named {selection!r} was found (found: {found}) -> run 'hermes memory setup' to choose one"
        return status
    record = running[0]
    status["plugin"] = record.key
    # Also selected, not disabled, not refused, yet not enabled: the policy shadowed them by this one.
    status["shadowed"] = [r.key for r in records if r is not record and selected_by(r.candidate, selection) and not r.enabled and _loadable(manager, r)]
    if record.error is not None:  # refused before import; the runtime skips it too
        status["reason"] = f"plugin '{record.key}' is not loaded: {record.error}"
        return status
    manager.load(record.key)
    if not record.loaded:
        status["reason"] = f"plugin '{record.key}' failed to load: {record.error}"
        return status
    provider = manager.active_memory_provider()
    if provider is None:
        status["reason"] = f"plugin '{record.key}' loaded but registered no memory provider -> check its register(ctx)"
        return status
    status["available"], status["reason"] = _available(provider)
    status["missing_env"] = _missing_env(manager, provider, available=status["available"])
    status["problems"] = _problems(provider)
    return status


def _provider_details(manager: PluginManager) -> dict[str, Any]:
    """The active provider's own status lines (``status_details()``); the provider reads what it needs itself.

    No session is started for them: a provider whose lines need its backend opens it in
    ``status_details()`` (and closes it in ``shutdown()``), one whose lines come from its files
    imports nothing.
    """
    from hermes_core.memory.provider import MemoryProvider

    provider = manager.active_memory_provider()
    if provider is None or type(provider).status_details is MemoryProvider.status_details:
        return {}
    try:
        details = provider.status_details()
    except Exception as exc:  # provider code: its failure is part of the status, not a crash
        return {"error": f"status_details() raised {type(exc).__name__}: {exc}"}
    finally:
        try:
            provider.shutdown()
        except Exception:
            pass
    return details if isinstance(details, dict) else {"error": f"status_details() returned {type(details).__name__}, not a mapping"}


def cmd_status(args: argparse.Namespace) -> int:
    manager = _plugins()
    selection = manager.config.get("memory.provider", "") or ""
    if not isinstance(selection, str):
        raise HermesError(f"{manager.home / 'config.yaml'}: memory.provider must be a name, not {type(selection).__name__} -> run 'hermes memory setup'")
    status: dict[str, Any] = {"provider": selection or "builtin", "plugin": "", "available": True, "reason": "", "missing_env": [], "shadowed": [], "problems": []}
    if selection not in ("", "builtin"):  # what the runtime treats as built-in only; anything else must resolve
        status.update(_provider_status(manager, selection))
    if status["available"] and status["plugin"]:
        provider = manager.active_memory_provider()
        if provider is not None and not args.offline:
            problem = _connection_problem(provider)
            status["connection"] = "failed" if problem else "ok"
            if problem:  # configured, but its service does not answer: nothing it does would work
                status["available"], status["reason"] = False, problem
        status["details"] = _provider_details(manager)
    status["providers"] = sorted(r.name for r in _provider_records(manager))
    builtin = _builtin_memory(manager)
    status["usage"] = {target: _live_state(builtin, target)["usage"] for target in TARGETS}
    code = 0 if status["available"] else 1
    if args.json:
        print_json(status)
        return code
    state = "available" if status["available"] else f"NOT available: {status['reason']}"
    plugin = f" [plugin {status['plugin']}]" if status["plugin"] and status["plugin"] != status["provider"] else ""
    print(f"provider:   {status['provider']}{plugin} ({state})")
    for problem in status["problems"]:
        print(f"problem:    {problem}")
    if status["missing_env"]:
        print(f"missing:    {', '.join(status['missing_env'])} (set neither in the environment nor in {manager.home / '.env'}) -> run 'hermes memory setup {status['provider']}'")
    if status.get("shadowed"):
        print(f"shadowed:   {', '.join(status['shadowed'])} (also named by memory.provider; only '{status['plugin']}' runs)")
    for key, value in (status.get("details") or {}).items():
        shown = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else "-" if value is None else str(value)
        label = key.replace("_", " ") + ":"
        print(f"{label:<12}{shown}" if len(label) < 12 else f"{label} {shown}")
    print(f"found:      {', '.join(status['providers']) or '(no external providers)'}")
    for target in TARGETS:
        print(f"{target + ':':<12}{status['usage'][target]}")
    return code


# -- setup: values --


def _parse_values(pairs: list[str]) -> dict[str, str]:
    values = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise HermesError(f"--set {pair!r} is not KEY=VALUE -> e.g. --set region=eu")
        values[key.strip()] = value
    return values


def _field_kind(provider_name: str, field: dict[str, Any]) -> str:
    """``str``/``int``/``float``/``bool``: the field's ``type``, or else the type of its ``default``."""
    declared = field.get("type")
    if declared is None:
        default = field.get("default")
        if isinstance(default, bool):  # before int: bool is an int subclass
            return "bool"
        return "int" if isinstance(default, int) else "float" if isinstance(default, float) else "str"
    name = declared.__name__ if isinstance(declared, type) else str(declared)
    kind = FIELD_TYPES.get(name.lower())
    if kind is None:
        raise HermesError(
            f"memory provider '{provider_name}' gives setting '{field['key']}' the unknown type {declared!r} -> "
            f"the provider's author must use one of {', '.join(FIELD_TYPES)} in get_config_schema()"
        )
    return kind


def _check_schema(provider_name: str, schema: list[dict[str, Any]]) -> None:
    """Faults of the provider's schema, reported to its author before anything is asked or written."""
    for field in schema:
        key = field["key"]
        if field.get("secret"):
            env_var = field.get("env_var")
            if not isinstance(env_var, str) or not _ENV_NAME.fullmatch(env_var):
                raise HermesError(
                    f"memory provider '{provider_name}' marks setting '{key}' secret but gives it no valid env_var "
                    f"(got {env_var!r}), so it cannot be stored in .env -> the provider's author must add "
                    f"'env_var': 'SOME_NAME' to that field of get_config_schema(); nothing was written"
                )
        _field_kind(provider_name, field)
        for bound in ("minimum", "maximum"):
            value = field.get(bound)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise HermesError(
                    f"memory provider '{provider_name}' gives setting '{key}' a {bound} of {value!r}, not a number -> "
                    "the provider's author must fix get_config_schema()"
                )


def _coerce(field: dict[str, Any], raw: str, kind: str) -> Any:
    """``raw`` as the field's kind, within its minimum/maximum; errors name key, value and expected type."""
    key = field["key"]
    text = raw.strip()
    value: Any = raw
    try:
        if kind == "int":
            value = int(text, 10)
        elif kind == "float":
            value = float(text)
            if not math.isfinite(value):
                raise ValueError(text)
        elif kind == "bool":
            if text.lower() not in _TRUE | _FALSE:
                raise ValueError(text)
            value = text.lower() in _TRUE
    except ValueError:
        raise HermesError(f"setting '{key}' must be {_EXPECTED[kind]}; got {raw!r} -> pass --set {key}=<{_EXPECTED[kind]}>") from None
    if kind in ("int", "float"):
        if field.get("minimum") is not None and value < field["minimum"]:
            raise HermesError(f"setting '{key}' must be at least {field['minimum']}; got {raw!r} -> pass a larger value")
        if field.get("maximum") is not None and value > field["maximum"]:
            raise HermesError(f"setting '{key}' must be at most {field['maximum']}; got {raw!r} -> pass a smaller value")
    return value


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


def _collect(provider_name: str, schema: list[dict[str, Any]], given: dict[str, str], interactive: bool) -> list[tuple[dict[str, Any], str, Any]]:
    """Every value the setup will store, as ``(field, text, value)``; raises before anything is written."""
    collected = []
    for field in schema:
        key = field["key"]
        if key in given:
            raw = given[key]
        elif interactive:
            raw = _ask(field)
        elif field.get("default") is not None:
            raw = str(field["default"])
        elif field.get("required"):
            raise HermesError(f"{provider_name} needs '{key}' -> pass --set {key}=VALUE")
        else:
            continue
        if not raw.strip():
            if field.get("required"):
                raise HermesError(f"{provider_name} needs '{key}' and it may not be empty -> pass --set {key}=VALUE")
            continue  # an optional setting left empty is not stored
        kind = _field_kind(provider_name, field)
        value = _coerce(field, raw, kind)
        choices = field.get("choices")
        if choices and raw not in map(str, choices) and value not in choices:
            raise HermesError(f"setting '{key}' must be one of {', '.join(map(str, choices))}; got {raw!r}")
        if field.get("secret") and ("\n" in raw or "\r" in raw):
            raise HermesError(f"setting '{key}' contains a line break, which .env cannot hold -> give it on one line")
        collected.append((field, raw, value))
    return collected


# -- setup: the command --


def _selection_for(records: list[PluginRecord], record: PluginRecord) -> str:
    """The value of memory.provider that makes the load policy pick ``record``: its name, or its key if the name is shared."""
    from hermes_core.policy import selected_by

    others = [r for r in records if r is not record]
    if not any(selected_by(r.candidate, record.name) for r in others):
        return record.name
    return record.key


def _find_setup_target(manager: PluginManager, records: list[PluginRecord], choice: str,
                       unknown_fix: str = "name one of them, or 'builtin'") -> tuple[PluginRecord, MemoryProvider]:
    """The provider plugin ``choice`` names (plugin key or name first, else a provider name), loaded.

    ``unknown_fix`` ends the error for a name nothing provides (it differs when the name came from config).
    """
    from hermes_core.policy import selected_by

    named = [r for r in records if selected_by(r.candidate, choice)]
    if named:
        record = next((r for r in named if r.key == choice), named[-1])  # as the policy does: an exact key, else the last source
        if _is_disabled(manager, record):
            raise HermesError(_disabled_error(manager, record))
        if record.error is not None:
            raise HermesError(f"memory provider plugin '{record.key}' cannot load: {record.error} -> fix it, then run this again")
        manager.load(record.key)
        if not record.loaded:
            raise HermesError(f"memory provider plugin '{record.key}' failed to load: {record.error}")
        provider = _first_provider(record)
        if provider is None:
            raise HermesError(f"plugin '{record.key}' loaded but registered no memory provider -> check its register(ctx)")
        return record, provider
    owner = _owner_of_provider(manager, records, choice)
    if owner is not None:
        return owner
    found = ", ".join(sorted(r.name + (" (disabled)" if _is_disabled(manager, r) else "") for r in records)) or "none"
    raise HermesError(f"no memory provider named {choice!r}; found: {found} -> {unknown_fix}")


def _pick(records: list[PluginRecord], args: argparse.Namespace) -> str:
    names = sorted(r.name for r in records)
    if args.yes or not sys.stdin.isatty():
        raise HermesError(f"name the provider to set up: one of {', '.join(names) or '(none found)'}, or 'builtin'")
    print("Memory providers: 0) built-in only  " + "  ".join(f"{i}) {n}" for i, n in enumerate(names, 1)))
    picked = input("Choose a number: ").strip()
    if picked in {"", "0"}:
        return "builtin"
    return names[int(picked) - 1] if picked.isdigit() and 0 < int(picked) <= len(names) else picked


def _run_post_setup(manager: PluginManager, records: list[PluginRecord], record: PluginRecord, provider: Any) -> None:
    """Hermes Agent's contract: ``post_setup(hermes_home, config)`` runs the provider's own wizard."""
    from hermes_core.config import read_user_config, update_user_config
    from hermes_core.policy import selected_by

    config = read_user_config(manager.home)
    if not isinstance(config.get("memory"), dict):
        config["memory"] = {}
    try:
        provider.post_setup(str(manager.home), config)
    except Exception as exc:  # provider code
        raise HermesError(
            f"memory provider '{provider.name}': post_setup() raised {type(exc).__name__}: {exc} -> "
            f"memory.provider was not changed; fix the cause and run 'hermes memory setup {record.name}' again"
        ) from exc
    # The wizard may have saved config.yaml itself, possibly naming the provider rather than the plugin.
    current = (read_user_config(manager.home).get("memory") or {}).get("provider")
    if not (isinstance(current, str) and selected_by(record.candidate, current)):
        update_user_config(manager.home, "memory.provider", _selection_for(records, record))
    print(f"memory.provider = {read_user_config(manager.home)['memory']['provider']}")


def cmd_setup(args: argparse.Namespace) -> int:
    from hermes_core.config import save_env_value, update_user_config

    manager = _plugins()
    records = _provider_records(manager)
    choice = args.provider if args.provider is not None else _pick(records, args)
    if choice.lower() in BUILTIN_ONLY:
        update_user_config(manager.home, "memory.provider", "")
        print("memory.provider cleared: built-in memory only")
        return 0
    record, provider = _find_setup_target(manager, records, choice)
    given = _parse_values(args.values)
    interactive = not args.yes and sys.stdin.isatty()
    if interactive and not given and callable(getattr(provider, "post_setup", None)):
        _run_post_setup(manager, records, record, provider)
        return 0
    schema = _config_schema(provider)
    _check_schema(provider.name, schema)
    known = {f["key"] for f in schema}
    unknown = sorted(set(given) - known)
    if unknown:
        raise HermesError(f"{provider.name} has no setting(s) {', '.join(unknown)}; its settings are: {', '.join(sorted(known)) or 'none'}")
    values = _collect(provider.name, schema, given, interactive)
    # Everything is checked; only now is anything written.
    secrets = {field["env_var"]: raw for field, raw, _ in values if field.get("secret")}
    plain = {field["key"]: value for field, _, value in values if not field.get("secret")}
    for env_var, raw in secrets.items():
        save_env_value(manager.home, env_var, raw)
    try:
        provider.save_config(plain, str(manager.home))
    except Exception as exc:  # provider code
        raise HermesError(
            f"memory provider '{provider.name}': save_config() raised {type(exc).__name__}: {exc} -> "
            "memory.provider was not changed; report it to the provider's author"
        ) from exc
    selection = _selection_for(records, record)
    update_user_config(manager.home, "memory.provider", selection)
    print(f"memory.provider = {selection}")
    if secrets:
        print(f"secrets stored in {manager.home / '.env'}: {', '.join(secrets)}")
    if plain:
        print(f"settings passed to {provider.name}: {', '.join(sorted(plain))}")
    return 0
