"""``hermes memory setup``: choose a memory provider, check and store its settings, run its post-setup step."""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import TYPE_CHECKING, Any

from hermes_core.errors import HermesError, split_cause_and_fix
from hermes_core.cli.output import print_json

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager, PluginRecord

from hermes_core.cli.memory_common import (
    BUILTIN_ONLY,
    find_setup_target,
    plugin_manager,
    provider_config_schema,
    provider_records,
    selection_for,
)

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
    """Every value the setup will store, as ``(field, text, value)``; raises before anything is written, naming every
    value that is wrong (a user who fixes one should not meet the next on the following run)."""
    collected = []
    problems: list[str] = []
    for field in schema:
        try:
            found = _one_value(provider_name, field, given, interactive)
        except HermesError as exc:
            problems.append(str(exc))
            continue
        if found is not None:
            collected.append(found)
    if len(problems) == 1:
        raise HermesError(problems[0])
    if problems:
        raise HermesError(f"{len(problems)} settings of {provider_name} need fixing; nothing was written:\n" + "\n".join(f"  - {p}" for p in problems))
    return collected


def _one_value(provider_name: str, field: dict[str, Any], given: dict[str, str], interactive: bool) -> tuple[dict[str, Any], str, Any] | None:
    """``(field, text, value)`` for one setting, ``None`` when it is left unset; :class:`HermesError` when it is wrong."""
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
        return None
    if not raw.strip():
        if field.get("required"):
            raise HermesError(f"{provider_name} needs '{key}' and it may not be empty -> pass --set {key}=VALUE")
        return None  # an optional setting left empty is not stored
    kind = _field_kind(provider_name, field)
    value = _coerce(field, raw, kind)
    choices = field.get("choices")
    if choices and raw not in map(str, choices) and value not in choices:
        raise HermesError(f"setting '{key}' must be one of {', '.join(map(str, choices))}; got {raw!r} -> pass --set {key}=<one of them>")
    if field.get("secret") and ("\n" in raw or "\r" in raw):
        raise HermesError(f"setting '{key}' contains a line break, which .env cannot hold -> give it on one line")
    return field, raw, value


def _pick(records: list[PluginRecord], args: argparse.Namespace) -> str:
    names = sorted(r.name for r in records)
    if args.yes or not sys.stdin.isatty():
        raise HermesError(f"no provider named, and none can be picked without a terminal -> name one: 'hermes memory setup NAME' with NAME one of {', '.join(names) or '(none found)'}, or 'builtin'")
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
        update_user_config(manager.home, "memory.provider", selection_for(records, record))
    print(f"memory.provider = {read_user_config(manager.home)['memory']['provider']}")


def _closest_settings(unknown: list[str], known: set[str]) -> str:
    """`` (did you mean baseUrl?)`` for ``base_url``: spelling and case conventions differ between providers."""
    import difflib

    def plain(key: str) -> str:
        return re.sub(r"[^a-z0-9.]", "", key.lower())

    by_plain = {plain(key): key for key in known}
    guesses = []
    for key in unknown:
        match = difflib.get_close_matches(plain(key), list(by_plain), n=1, cutoff=0.8)
        if match:
            guesses.append(f"{by_plain[match[0]]} for {key}")
    return f" (did you mean {', '.join(guesses)}?)" if guesses else ""


def cmd_setup(args: argparse.Namespace) -> int:
    from hermes_core.config import save_env_value, update_user_config

    as_json = bool(getattr(args, "json", False))
    if as_json:
        args.yes = True  # a script reading JSON cannot answer questions
    manager = plugin_manager()
    records = provider_records(manager)
    choice = args.provider if args.provider is not None else _pick(records, args)
    if choice.lower() in BUILTIN_ONLY:
        update_user_config(manager.home, "memory.provider", "")
        if as_json:
            print_json({"provider": "builtin", "memory.provider": "", "secrets": [], "settings": [], "available": True, "reason": ""})
        else:
            print("memory.provider cleared: built-in memory only")
        return 0
    record, provider = find_setup_target(manager, records, choice)
    given = _parse_values(args.values)
    interactive = not args.yes and sys.stdin.isatty()
    if interactive and not given and callable(getattr(provider, "post_setup", None)):
        _run_post_setup(manager, records, record, provider)
        return 0
    schema = provider_config_schema(provider)
    _check_schema(provider.name, schema)
    known = {f["key"] for f in schema}
    unknown = sorted(set(given) - known)
    if unknown:
        if not known:
            raise HermesError(f"{provider.name} has no settings to set, so --set {unknown[0]}=... is not used -> run "
                              f"'hermes memory setup {choice} --yes' without --set (its own documentation says where it is configured)")
        raise HermesError(f"{provider.name} has no setting(s) {', '.join(unknown)}{_closest_settings(unknown, known)}; "
                          f"its settings are: {', '.join(sorted(known))} -> set those with --set KEY=VALUE")
    values = _collect(provider.name, schema, given, interactive)
    # Everything is checked; only now is anything written.
    secrets = {field["env_var"]: raw for field, raw, _ in values if field.get("secret")}
    plain = {field["key"]: value for field, _, value in values if not field.get("secret")}
    try:  # the provider's file first: a value it refuses must leave .env as it was too
        provider.save_config(plain, str(manager.home))
    except ValueError as exc:  # the provider's own check of a value given (a ValueError by convention)
        cause, fix = split_cause_and_fix(str(exc))
        raise HermesError(
            f"memory provider '{provider.name}' refused the settings: {cause} -> {fix or 'correct the --set value'}; "
            "memory.provider was not changed"
        ) from None
    except Exception as exc:  # provider code
        raise HermesError(
            f"memory provider '{provider.name}': save_config() raised {type(exc).__name__}: {exc} -> "
            "memory.provider was not changed; report it to the provider's author"
        ) from exc
    for env_var, raw in secrets.items():
        save_env_value(manager.home, env_var, raw)
    # A standalone plugin's provider is selected by its own name (the runtime matches it so; status looks it up so)
    selection = selection_for(records, record) if record.candidate.provides_memory else provider.name
    update_user_config(manager.home, "memory.provider", selection)
    if as_json:
        status = _status_after_setup(selection)
        print_json({"provider": provider.name, "memory.provider": selection, "secrets": sorted(secrets), "settings": sorted(plain),
                    "env_file": str(manager.home / ".env") if secrets else None, "available": status["available"], "reason": status["reason"]})
        return 0
    print(f"memory.provider = {selection}")
    if secrets:
        print(f"secrets stored in {manager.home / '.env'}: {', '.join(secrets)}")
    if plain:
        print(f"settings passed to {provider.name}: {', '.join(sorted(plain))}")
    _warn_if_unavailable(provider.name, selection)
    return 0


def _status_after_setup(selection: str) -> dict[str, Any]:
    """Read afresh, as the next command will: the provider object above predates the settings saved.
    No network: the connection is for 'hermes memory status' to check."""
    from hermes_core.cli.memory_status import _provider_status

    return _provider_status(plugin_manager(), selection)


def _warn_if_unavailable(name: str, selection: str) -> None:
    """Say so when what was just set up still cannot run (``--yes`` with nothing given, a missing key)."""
    status = _status_after_setup(selection)
    if not status["available"]:
        print(f"warning: {name} is selected but not available yet: {status['reason']}", file=sys.stderr)
