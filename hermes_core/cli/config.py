"""``hermes config``: get, set, unset and show values of config.yaml."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from hermes_core.errors import ConfigError, HermesError

_MISSING = object()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="config_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    get = commands.add_parser("get", help="print the effective value of a dotted key")
    get.add_argument("key", help="e.g. plugins.enabled")
    get.add_argument("--json", action="store_true", help="print the value as JSON")
    get.add_argument("--reveal", action="store_true", help="print secrets (API keys, tokens) instead of [REDACTED]")
    get.set_defaults(func=cmd_get)

    setter = commands.add_parser(
        "set",
        help="set a dotted key in config.yaml (VALUE is read by the setting's type; unknown keys read it as YAML); an UPPER_CASE name is stored in .env",
    )
    setter.add_argument("key", help="a dotted key (model.name), or an environment variable name (OPENAI_API_KEY) for .env")
    setter.add_argument("value", help="e.g. 30, true, '[a, b]' or text")
    setter.add_argument("--json", action="store_true", help="print the key, the value stored and the file as JSON")
    setter.set_defaults(func=cmd_set)

    unset = commands.add_parser("unset", help="remove a dotted key from config.yaml (its default applies again); an UPPER_CASE name from .env")
    unset.add_argument("key", help="a dotted key (model.name), or an environment variable name stored in .env")
    unset.add_argument("--json", action="store_true", help="print the key removed and the file as JSON")
    unset.set_defaults(func=cmd_unset)

    show = commands.add_parser("show", help="print the effective configuration (defaults merged; secrets redacted)")
    show.add_argument("--json", action="store_true", help="print JSON instead of YAML")
    show.add_argument("--reveal", action="store_true", help="print secrets (API keys, tokens) instead of [REDACTED]")
    show.set_defaults(func=cmd_show)

    path = commands.add_parser("path", help="print the location of config.yaml")
    path.add_argument("--json", action="store_true", help="print the locations of config.yaml and .env as JSON")
    path.set_defaults(func=cmd_path)


def _print_value(value: Any, as_json: bool) -> None:
    if as_json:
        from hermes_core.cli.output import print_json

        print_json(value)
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
    """Read a command-line value as YAML so numbers, booleans and lists keep their type (bounded: see yaml_limits)."""
    from hermes_core.settings import parse_yaml_value

    return parse_yaml_value(text)


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
#: Settings whose secret already has a variable hermes reads: the advice names that one.
_KNOWN_SECRET_VARIABLES = {"state.url": "HERMES_STATE_URL"}
_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\}")
# Setting names that hold credentials in config files (wider than the API-payload rule:
# ``github_token`` is a secret here, while ``token`` in a model response is a word).
_SECRET_SETTING = re.compile(r".*(?:api[_-]?key|apikey|token|secret|password|passwd|credentials?|private[_-]?key)", re.IGNORECASE)


def _redacted(key: str, value: Any) -> Any:
    """``value`` with secrets replaced: values of credential-named settings, and key-shaped text anywhere."""
    from hermes_core.models.clients.sanitize import REDACTED, sanitize_request

    leaf = key.rsplit(".", 1)[-1] if key else ""
    if isinstance(value, dict):
        return {k: _redacted(str(k), v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(leaf, item) for item in value]
    if isinstance(value, str) and value and _SECRET_SETTING.fullmatch(leaf):
        return REDACTED
    return sanitize_request(value)


def _secret_paths(key: str, value: Any) -> list[str]:
    """Dotted keys under ``key`` whose value is a secret written out (not a ``${VAR}`` reference)."""
    if isinstance(value, dict):
        return [path for k, v in value.items() for path in _secret_paths(f"{key}.{k}", v)]
    if isinstance(value, list):
        return [path for item in value for path in _secret_paths(key, item)]
    if isinstance(value, str) and not _REFERENCE.fullmatch(value.strip()) and _redacted(key, value) != value:
        return [key]
    return []


def _known_keys() -> set[str]:
    """Every dotted key hermes itself reads: the checked settings and the defaults of config.yaml."""
    from hermes_core.config import DEFAULT_CONFIG
    from hermes_core.settings import SETTINGS

    keys = set(SETTINGS)
    stack: list[tuple[str, Any]] = [("", DEFAULT_CONFIG)]
    while stack:
        prefix, mapping = stack.pop()
        for name, value in mapping.items():
            key = f"{prefix}.{name}" if prefix else str(name)
            keys.add(key)
            if isinstance(value, dict):
                stack.append((key, value))
    return keys


def similar_key(key: str) -> str | None:
    """The known key ``key`` is probably a misspelling of (``memory.provder`` -> ``memory.provider``), else None.

    A key whose parent hermes knows is compared with that parent's own keys; one in an unknown
    section with every known key. Plugin settings (``plugins.entries.*``) and a provider's section
    (``memory.mem0.*``) are free-form and never flagged.
    """
    import difflib

    known = _known_keys()
    if key in known:
        return None
    parent, _, leaf = key.rpartition(".")
    if parent and parent not in known:
        if key.split(".", 1)[0] in known:  # below a section hermes knows: a free-form part of it
            return None
        match = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.85)  # a misspelt section
        return match[0] if match else None
    siblings = {k.rpartition(".")[2]: k for k in known if k.rpartition(".")[0] == parent}
    match = difflib.get_close_matches(leaf, list(siblings), n=1, cutoff=0.75)
    return siblings[match[0]] if match else None


def _did_you_mean(key: str) -> str:
    suggestion = similar_key(key)
    return f" (did you mean '{suggestion}'?)" if suggestion else ""


def effective_config() -> dict[str, Any]:
    """What `config get` and `config show` report: config.yaml over every default, those of DEFAULT_CONFIG
    (:func:`~hermes_core.config.load_config`) and those kept by the code that reads a key (the compressor, the model
    client), with config.yaml's sections first."""
    from hermes_core.config import deep_merge, load_config
    from hermes_core.settings import code_defaults

    loaded = load_config().as_dict()
    merged = deep_merge(code_defaults(), _without_empty_sections(loaded, code_defaults()))
    return {**{key: merged[key] for key in loaded}, **merged}


def _without_empty_sections(loaded: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``loaded`` without the sections left empty (``compression:`` with nothing under it reads as null) where the code
    has defaults: the code reading them applies its defaults there, so they are what is reported."""
    kept: dict[str, Any] = {}
    for key, value in loaded.items():
        default = defaults.get(key)
        if value is None and isinstance(default, dict):
            continue
        kept[key] = _without_empty_sections(value, default) if isinstance(value, dict) and isinstance(default, dict) else value
    return kept


def cmd_get(args: argparse.Namespace) -> int:
    from hermes_core.config import Config

    if _ENV_NAME.fullmatch(args.key):  # what `config set` stored in .env (or the environment has)
        from hermes_core.config import get_hermes_home
        from hermes_core.env_file import get_env_value

        home = get_hermes_home()
        found = get_env_value(args.key, home)
        if found is None:
            raise ConfigError(f"{args.key} is set neither in the environment nor in {home / '.env'} "
                              f"-> hermes config set {args.key} VALUE stores it there")
        _print_value(found if args.reveal else _redacted(args.key, found), args.json)
        return 0
    value = Config(effective_config()).get(args.key, _MISSING)
    if value is _MISSING:
        raise ConfigError(f"{args.key!r} is not set and has no default{_did_you_mean(args.key)} -> 'hermes config show' lists what is set")
    _print_value(value if args.reveal else _redacted(args.key, value), args.json)
    return 0


def checked_value(key: str, value: Any) -> Any:
    """``value`` checked against ``key``'s setting (type and allowed range), or a ConfigError saying what fits.

    A single name given for a list (``plugins.enabled hook_log``) becomes a list of one; values
    under a known mapping are checked key by key; keys nobody declared take any value.
    """
    from hermes_core.settings import SETTINGS, check_tree, check_value

    setting = SETTINGS.get(key)
    if setting is not None:
        value = check_value(setting, value)
    if isinstance(value, dict):
        check_tree(value, prefix=key)
    return value


#: Settings whose values are plugin names; a name no source provides is kept but warned about.
_PLUGIN_NAME_LISTS = ("plugins.enabled", "plugins.disabled")


def _unknown_plugin_names(key: str, value: Any) -> list[dict[str, str | None]]:
    """The names in a plugin list that no discovered plugin answers to, each with the closest known name.

    Discovery imports no plugin code. The names are kept all the same: the plugin may be
    installed later, or live in a project directory this command was not run from.
    """
    if key not in _PLUGIN_NAME_LISTS or not isinstance(value, list) or not value:
        return []
    import difflib

    from hermes_core.manager import PluginManager

    known: set[str] = set()
    try:
        records = PluginManager().discover()
    except (HermesError, OSError) as exc:  # the value is already stored: say the names went unchecked, do not fail
        print(f"warning: the plugin names in {key} could not be checked ({exc}) -> 'hermes plugins list' shows the plugins found",
              file=sys.stderr)
        return []
    for record in records:
        candidate = record.candidate
        known |= {candidate.key, candidate.name, candidate.key.rsplit("/", 1)[-1], *candidate.aliases}
    unknown = []
    for name in value:
        if isinstance(name, str) and name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            unknown.append({"name": name, "did_you_mean": close[0] if close else None})
    return unknown


def _warn_unknown_plugins(key: str, unknown: list[dict[str, str | None]]) -> None:
    for entry in unknown:
        hint = f"did you mean '{entry['did_you_mean']}'? " if entry["did_you_mean"] else ""
        print(f"warning: no plugin named '{entry['name']}' is found (kept in {key}; it applies once such a plugin is installed) -> "
              f"{hint}'hermes plugins list' shows every plugin found", file=sys.stderr)


def cmd_set(args: argparse.Namespace) -> int:
    from hermes_core.config import get_hermes_home, save_env_value, update_user_config
    from hermes_core.files import check_utf8
    from hermes_core.settings import value_from_text

    home = get_hermes_home()
    # checked before anything is parsed or written: config.yaml and .env must stay UTF-8 for every later command
    check_utf8(args.key, f"the key {args.key!r}", "give the key in UTF-8; nothing was changed")
    check_utf8(args.value, f"the value for {args.key}", "give the value as UTF-8 text; nothing was changed")
    if _ENV_NAME.fullmatch(args.key):  # OPENAI_API_KEY and the like: a secret, so .env (0600), never config.yaml
        path = save_env_value(home, args.key, args.value)
        if args.json:
            _print_value({"key": args.key, "file": str(path), "secret": True}, True)
        else:
            print(f"{args.key} stored in {path}")
        return 0
    value = value_from_text(args.key, args.value)
    secrets = _secret_paths(args.key, value)
    if secrets:
        variable = _KNOWN_SECRET_VARIABLES.get(secrets[0]) or re.sub(r"[^A-Za-z0-9]+", "_", secrets[0]).upper()
        raise ConfigError(
            f"{secrets[0]} would put a secret in config.yaml -> keep it in .env and refer to it: "
            f"'hermes config set {variable} <secret>' then \"hermes config set {secrets[0]} '${{{variable}}}'\""
        )
    value = checked_value(args.key, value)
    path = update_user_config(home, args.key, value)
    unknown = _unknown_plugin_names(args.key, value)
    if args.json:
        shown = {"key": args.key, "value": value, "file": str(path), "did_you_mean": similar_key(args.key)}
        if args.key in _PLUGIN_NAME_LISTS:
            shown["unknown_plugins"] = unknown
        _print_value(shown, True)
    else:
        print(f"{args.key} = {json.dumps(value, ensure_ascii=False)}  ({path})")
    _warn_unknown_plugins(args.key, unknown)
    suggestion = similar_key(args.key)
    if suggestion:  # stored all the same: plugins may read keys hermes does not know
        print(f"warning: hermes reads no setting '{args.key}'; did you mean '{suggestion}'? -> "
              f"'hermes config unset {args.key}' and set '{suggestion}' instead", file=sys.stderr)
    return 0


def cmd_unset(args: argparse.Namespace) -> int:
    from hermes_core.config import get_hermes_home, read_user_config, unset_dotted, write_user_config

    home = get_hermes_home()
    if _ENV_NAME.fullmatch(args.key):  # what `config set` stored in .env
        from hermes_core.env_file import ENV_FILE_NAME, remove_env_value

        env_path = remove_env_value(home, args.key)
        if env_path is None:
            raise ConfigError(f"{args.key} is not set in {home / ENV_FILE_NAME}, so there is nothing to remove "
                              f"-> 'hermes config get {args.key}' says where a value comes from (the environment wins over .env)")
        if args.json:
            _print_value({"key": args.key, "removed": True, "file": str(env_path)}, True)
        else:
            print(f"removed {args.key} from {env_path}")
        return 0
    data = read_user_config(home)
    if not unset_dotted(data, args.key):
        raise ConfigError(f"{args.key!r} is not set in {home / 'config.yaml'}{_did_you_mean(args.key)}, so there is nothing to remove "
                          f"-> 'hermes config show' lists what is set")
    path = write_user_config(home, data)
    if args.json:
        _print_value({"key": args.key, "removed": True, "file": str(path)}, True)
    else:
        print(f"removed {args.key}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    settings = effective_config()
    _print_value(settings if args.reveal else _redacted("", settings), args.json)
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from hermes_core.config import CONFIG_FILE_NAME, ENV_FILE_NAME, get_hermes_home

    home = get_hermes_home()
    if args.json:
        _print_value({"home": str(home), "config": str(home / CONFIG_FILE_NAME), "env": str(home / ENV_FILE_NAME)}, True)
    else:
        print(home / CONFIG_FILE_NAME)
    return 0
