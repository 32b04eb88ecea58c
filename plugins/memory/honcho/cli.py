"""``hermes honcho``: setup, status, enable/disable, mode, peer, tokens, map, sync.

Registered by the plugin through ``ctx.register_cli_command``. Every command edits the host block
of the active profile in the honcho.json in use (``$HERMES_HOME/honcho.json`` when none exists).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .config import RECALL_MODES, SESSION_STRATEGIES, HonchoConfigError, block_name, default_profile_home, host_key, is_local_url, load_config, sanitize_id, writable_path
from .settings import checked, edit_host_block, read_raw, refuse_bad_ids, write_raw
from .writer import FailureJournal

OBSERVATION_MODES = ("directional", "unified")


def _error(message: str) -> Any:
    from hermes_core.errors import HermesError

    return HermesError(message)


def _home() -> Path:
    from hermes_core.config import get_hermes_home

    return get_hermes_home()


def _read(path: Path) -> dict[str, Any]:
    try:
        return read_raw(path)
    except HonchoConfigError as exc:
        raise _error(str(exc)) from None


def _edit(updates: dict[str, Any], root: dict[str, Any] | None = None, *, home: Path | None = None) -> Path:
    try:
        return edit_host_block(home or _home(), updates, root_keys=root)
    except HonchoConfigError as exc:
        raise _error(str(exc)) from None


def _done(args: argparse.Namespace, path: Path, changed: dict[str, Any], message: str) -> int:
    if getattr(args, "json", False):
        from hermes_core.cli.output import print_json

        print_json({"file": str(path), "host": host_key(_home()), "changed": changed})
    else:
        print(f"{message} ({path}, host {host_key(_home())})")
    return 0


def _filled(example: str) -> Any:
    """An argparse type refusing a blank value (an unset shell variable, a stray space), which would
    otherwise be stored as null or silently dropped; argparse names the option in its message."""

    def value(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"the value is blank -> give one, e.g. {example}, or leave the option out")
        return text

    return value


def register_cli(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="honcho_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    def add(name: str, help: str, func: Any) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("--json", action="store_true", help="print the result as JSON")
        sub.set_defaults(func=func)
        return sub

    setup = add("setup", "set up Honcho (cloud or self-hosted) and select it as memory provider", cmd_setup)
    setup.add_argument("--api-key", help="Honcho API key (stored in $HERMES_HOME/.env as HONCHO_API_KEY)")
    setup.add_argument("--base-url", type=_filled("--base-url http://localhost:8000"), help="self-hosted Honcho URL (omit for Honcho cloud)")
    setup.add_argument("--workspace", type=_filled("--workspace hermes"), help="workspace ID (default: host key)")
    setup.add_argument("--peer-name", type=_filled("--peer-name eri"), help="your peer name")
    setup.add_argument("--ai-peer", type=_filled("--ai-peer hermes"), help="this profile's AI peer name")
    setup.add_argument("--recall-mode", choices=RECALL_MODES)
    setup.add_argument("--session-strategy", choices=SESSION_STRATEGIES)
    setup.add_argument("--no-input", action="store_true", help="never prompt; use the flags and defaults")
    status = add("status", "show the resolved settings of the active profile and where each comes from", cmd_status)
    status.add_argument("--check", action="store_true", help="also connect to Honcho and report whether it answers")
    add("enable", "turn Honcho on for the active profile", cmd_enable)
    add("disable", "turn Honcho off for the active profile", cmd_disable)
    mode = add("mode", "change the recall mode (hybrid, context, tools) or the observation mode (directional, unified)", cmd_mode)
    mode.add_argument("mode", choices=(*RECALL_MODES, *OBSERVATION_MODES))
    peer = add("peer", "change the user or AI peer name", cmd_peer)
    peer.add_argument("--user", help="the user's peer name")
    peer.add_argument("--ai", help="this profile's AI peer name")
    tokens = add("tokens", "change the context token budget or the dialectic size", cmd_tokens)
    tokens.add_argument("--context", type=int, help="contextTokens: token budget of recalled context")
    tokens.add_argument("--dialectic", type=int, help="dialecticMaxChars: max chars of the dialectic answer")
    mapping = add("map", "name the Honcho session of the current directory", cmd_map)
    mapping.add_argument("name", help="session name for this directory")
    mapping.add_argument("--directory", help="another directory instead of the current one")
    add("sync", "create host blocks for every hermes profile", cmd_sync)


# -- setup --


def _ask(label: str, default: str | None, secret: bool = False) -> str | None:
    import getpass

    prompt = f"{label}" + (f" [{default}]" if default else "") + ": "
    answer = (getpass.getpass(prompt) if secret else input(prompt)).strip()
    return answer or default


def cmd_setup(args: argparse.Namespace) -> int:
    values = {
        "baseUrl": args.base_url, "workspace": args.workspace, "peerName": args.peer_name,
        "aiPeer": args.ai_peer, "recallMode": args.recall_mode, "sessionStrategy": args.session_strategy,
    }
    _check_flags(values)
    interactive = not args.no_input and sys.stdin.isatty()
    path, changed = run_setup(_home(), values, args.api_key, interactive=interactive)
    return _done(args, path, changed, "Honcho set up; memory.provider = honcho")


#: honcho.json keys of ``hermes honcho setup``'s flags, for errors that name the flag the user typed.
SETUP_FLAGS = {"baseUrl": "--base-url", "workspace": "--workspace", "peerName": "--peer-name", "aiPeer": "--ai-peer",
               "recallMode": "--recall-mode", "sessionStrategy": "--session-strategy"}


def _check_flags(values: dict[str, Any], flags: dict[str, str] = SETUP_FLAGS, command: str = "setup") -> None:
    """A bad flag is blamed on the flag (not on a honcho.json that may not even exist), before anything is written."""
    for key, value in values.items():
        if value is None:
            continue
        try:
            checked(key, value, flags[key])
        except HonchoConfigError as exc:
            flag = flags[key]
            if key == "baseUrl":
                raise _error(f"{flag} {value!r} is not an http(s) URL -> give the server's address with http:// or https://, e.g. {flag} http://localhost:8000") from None
            detail = str(exc).split(" is not valid", 1)[-1].split(": it must be ", 1)[0]  # e.g. " (at least 1)"
            expected = str(exc).split(": it must be ", 1)[-1].split(" -> ", 1)[0]
            raise _error(f"{flag} {value!r} is not valid{detail}: it must be {expected} -> run 'hermes honcho {command}' again with a corrected {flag}") from None


def run_setup(home: Path, values: dict[str, Any], api_key: str | None, *, interactive: bool) -> tuple[Path, dict[str, Any]]:
    """Ask what is missing (when interactive), check everything, then write honcho.json, .env and
    memory.provider; returns the file written and what changed. Also ``hermes memory setup honcho``."""
    from hermes_core.config import save_env_value, update_user_config

    if interactive:
        cloud = (_ask("Use Honcho cloud or a self-hosted server? (cloud/local)", "cloud") or "cloud").lower()
        if cloud.startswith("l") and not values.get("baseUrl"):
            values["baseUrl"] = _ask("Server URL", "http://localhost:8000")
        if not api_key and not (cloud.startswith("l") and is_local_url(values.get("baseUrl"))):
            api_key = _ask("API key (from app.honcho.dev, or your server's)", None, secret=True)
        values["peerName"] = values.get("peerName") or _ask("Your peer name", os.environ.get("USER") or "user")
        values["recallMode"] = values.get("recallMode") or _ask("Recall mode (hybrid/context/tools)", "hybrid")
    try:  # IDs Honcho accepts, as 'hermes honcho peer' requires (asked answers are checked here too)
        refuse_bad_ids(values, SETUP_FLAGS)
    except HonchoConfigError as exc:
        raise _error(str(exc)) from None
    if api_key is not None and ("\n" in api_key or not api_key.strip()):
        raise _error("the API key is empty or spans lines -> give it on one line (--api-key KEY)")
    if not api_key and not values.get("baseUrl") and not os.environ.get("HONCHO_API_KEY"):
        try:
            current = load_config(home)
        except HonchoConfigError as exc:
            raise _error(str(exc)) from None
        if not current.api_key and not current.baseUrl:
            raise _error("Honcho needs an API key (cloud) or a server URL (self-hosted) -> pass --api-key KEY or --base-url URL")
    updates = {k: v for k, v in values.items() if v}
    updates["enabled"] = True
    path = _edit(updates, home=home)  # checked before anything else is written
    if api_key:
        save_env_value(home, "HONCHO_API_KEY", api_key.strip())
    update_user_config(home, "memory.provider", "honcho")
    changed = dict(updates, apiKey="(stored in .env)" if api_key else None)
    return path, {k: v for k, v in changed.items() if v is not None}


# -- status --


def cmd_status(args: argparse.Namespace) -> int:
    from .sessions import observation_flags, resolve_session_name, user_peer_id

    home = _home()
    try:
        config = load_config(home)
    except HonchoConfigError as exc:
        raise _error(str(exc)) from None
    shown = config.redacted()
    session = resolve_session_name(config, user_peer=user_peer_id(config))
    report = {
        "file": str(config.path) if config.path else None,
        "host": config.host,
        "settings": {key: {"value": shown[key], "source": config.sources[key]} for key in shown},
        "observation": observation_flags(config),
        "session": {"name": session.name, "rule": session.rule},
        "warnings": config.warnings,
        "failed_writes": sum(len(e["messages"]) for e in FailureJournal(home / "honcho" / "failed_writes.jsonl").entries()),
    }
    if args.check:
        report["connection"] = _check_connection(config)
    if args.json:
        from hermes_core.cli.output import print_json

        print_json(report)
        return 0 if report.get("connection", {"ok": True})["ok"] else 1
    print(f"file:    {report['file'] or '(none: defaults and environment only)'}")
    print(f"host:    {config.host}")
    print(f"session: {session.name} ({session.rule})")
    for key, entry in report["settings"].items():
        print(f"  {key:<24} {json.dumps(entry['value']):<28} {entry['source']}")
    for warning in config.warnings:
        print(f"warning: {warning}")
    if report["failed_writes"]:
        print(f"failed writes: {report['failed_writes']} message(s) wait in {home / 'honcho' / 'failed_writes.jsonl'}; sent again at the next session")
    if args.check:
        connection = report["connection"]
        print(f"connection: ok ({connection['ms']} ms)" if connection["ok"] else f"connection: FAILED: {connection['error']}")
        return 0 if connection["ok"] else 1
    return 0


def _check_connection(config: Any) -> dict[str, Any]:
    from .status import check_connection

    return check_connection(config)


# -- small edits --


def cmd_enable(args: argparse.Namespace) -> int:
    return _done(args, _edit({"enabled": True}), {"enabled": True}, "Honcho enabled")


def cmd_disable(args: argparse.Namespace) -> int:
    return _done(args, _edit({"enabled": False}), {"enabled": False}, "Honcho disabled")


def cmd_mode(args: argparse.Namespace) -> int:
    key = "observationMode" if args.mode in OBSERVATION_MODES else "recallMode"
    return _done(args, _edit({key: args.mode}), {key: args.mode}, f"{key} = {args.mode}")


def cmd_peer(args: argparse.Namespace) -> int:
    updates = {k: v for k, v in (("peerName", args.user), ("aiPeer", args.ai)) if v is not None}
    if not updates:
        raise _error("nothing to change: no peer name was given -> give --user NAME and/or --ai NAME")
    for key, value in updates.items():
        if not value.strip() or sanitize_id(value) != value.strip():
            raise _error(f"peer name {value!r} may use only letters, digits, '_' and '-' -> e.g. {sanitize_id(value)!r}")
    return _done(args, _edit(updates), updates, ", ".join(f"{k} = {v}" for k, v in updates.items()))


def cmd_tokens(args: argparse.Namespace) -> int:
    updates = {k: v for k, v in (("contextTokens", args.context), ("dialecticMaxChars", args.dialectic)) if v is not None}
    if not updates:
        raise _error("nothing to change: no size was given -> give --context N and/or --dialectic N")
    _check_flags(updates, {"contextTokens": "--context", "dialecticMaxChars": "--dialectic"}, "tokens")
    return _done(args, _edit(updates), updates, ", ".join(f"{k} = {v}" for k, v in updates.items()))


def cmd_map(args: argparse.Namespace) -> int:
    directory = str(Path(args.directory or os.getcwd()).expanduser().resolve())
    name = args.name.strip()
    if not name:
        raise _error("the session name is empty -> e.g. hermes honcho map myproject-main")
    if not Path(directory).is_dir():  # a mistyped path would map a directory no session ever runs in
        raise _error(f"--directory {args.directory!r} is not a directory ({directory}) -> give an existing directory, or create it first")
    home = _home()
    path = writable_path(home)
    data = _read(path)
    hosts = data.get("hosts") if isinstance(data.get("hosts"), dict) else {}
    block = hosts.get(block_name(hosts, host_key(home))) or {}
    # write where 'sessions' resolves from: a host block with its own map wins over the root's
    if isinstance(block, dict) and isinstance(block.get("sessions"), dict):
        path = _edit({"sessions": {**block["sessions"], directory: name}})
    else:
        root = data.get("sessions") if isinstance(data.get("sessions"), dict) else {}
        path = _edit({}, root={"sessions": {**root, directory: name}})
    return _done(args, path, {"sessions": {directory: name}}, f"{directory} -> session {name}")


def cmd_sync(args: argparse.Namespace) -> int:
    # the blocks go where every profile without a honcho.json of its own reads them: the default
    # profile's file in use, whichever profile runs the command
    base = default_profile_home(_home())
    profiles = sorted(p.name for p in (base / "profiles").iterdir() if p.is_dir()) if (base / "profiles").is_dir() else []
    path = writable_path(base)
    data = _read(path)
    hosts = data.setdefault("hosts", {})
    if not isinstance(hosts, dict):
        raise _error(f"{path}: hosts must be an object -> fix it by hand first")
    created = []
    for host in ["hermes", *(f"hermes.{p}" for p in profiles)]:
        if block_name(hosts, host) not in hosts:
            hosts[host] = {"aiPeer": sanitize_id(host.removeprefix("hermes.")) if host != "hermes" else "hermes"}
            created.append(host)
    if created:
        write_raw(path, data)
    return _done(args, path, {"created": created}, f"host blocks created: {', '.join(created) or 'none (all present)'}")
