"""``hermes memory``: read and edit the built-in memory, see which provider runs, set one up."""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import TYPE_CHECKING, Any

from hermes_core.cli.output import print_json, terminal_safe
from hermes_core.errors import HermesError

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager
    from hermes_core.memory.manager import MemoryManager

from hermes_core.cli.memory_common import (
    TARGETS,
    builtin_memory,
    memory_live_state,
    plugin_manager,
    provider_available,
    refuse_undecodable_memory_file,
)
from hermes_core.cli.memory_setup import cmd_setup
from hermes_core.cli.memory_status import cmd_status


_STDIN_HELP = "'-' reads it from standard input (one trailing line break is dropped)"
#: More than any memory file holds: the tool refuses what does not fit, with the usage.
MAX_STDIN_BYTES = 1 << 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="memory_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    # 'list' and 'ls' as in 'hermes plugins list' and 'hermes sessions list': what people type first.
    show = commands.add_parser("show", aliases=["list", "ls"], help="print the live entries of MEMORY.md and USER.md")
    show.add_argument("--target", choices=(*TARGETS, "all"), default="all")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_show)

    add = commands.add_parser("add", help="add an entry")
    add.add_argument("content", help=f"the text of the entry; {_STDIN_HELP}")
    add.add_argument("--target", choices=TARGETS, default="memory")
    add.add_argument("--json", action="store_true", help="print the memory tool's JSON answer")
    add.set_defaults(func=cmd_add)

    replace = commands.add_parser("replace", help="replace the entry containing OLD_TEXT (a unique substring)")
    replace.add_argument("old_text", help="a substring of exactly one entry")
    replace.add_argument("content", help=f"the new text of the entry; {_STDIN_HELP}")
    replace.add_argument("--target", choices=TARGETS, default="memory")
    replace.add_argument("--json", action="store_true", help="print the memory tool's JSON answer")
    replace.set_defaults(func=cmd_replace)

    remove = commands.add_parser("remove", help="remove the entry containing OLD_TEXT (a unique substring)")
    remove.add_argument("old_text", help="a substring of exactly one entry")
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
    setup.add_argument("--json", action="store_true", help="print what was set up as JSON (never prompts, like --yes)")
    setup.set_defaults(func=cmd_setup)

    from hermes_core.cli import memory_switch, memory_transfer

    memory_switch.add_arguments(commands)
    memory_transfer.add_arguments(commands)


def _indented(entries: list[str]) -> list[str]:
    return ["    " + terminal_safe(entry).replace("\n", "\n      ") for entry in entries]


def cmd_show(args: argparse.Namespace) -> int:
    provider = builtin_memory(plugin_manager())
    targets = TARGETS if args.target == "all" else (args.target,)
    states = [memory_live_state(provider, target) for target in targets]
    if args.json:
        print_json(states if args.target == "all" else states[0])
        return 0
    for state in states:
        print(f"{state['target'].upper()} [{state['usage']}]")
        for entry in state["entries"] or ["(empty)"]:
            print("  " + terminal_safe(entry).replace("\n", "\n    "))  # deeper: a line of an entry must not read as an entry
        print()
    return 0


def _write_manager(plugins: PluginManager) -> MemoryManager:
    """The MemoryManager the agent would use, so a CLI edit is mirrored and hooked like the agent's own writes."""
    from hermes_core.memory.manager import MemoryManager

    plugins.load_all()
    builtin = plugins.memory_providers.get("builtin")
    if builtin is None:
        raise HermesError("the built-in memory plugin did not load -> run 'hermes plugins list --load' to see why")
    external = plugins.active_memory_provider()
    if external is not None:
        available, reason = provider_available(external)
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
        if not value.strip():  # named as the command line names it, before any plugin loads
            raise HermesError(_blank(name, action))
    from hermes_core.config import ensure_home, get_hermes_home

    ensure_home(get_hermes_home())  # a home that cannot be created is named as such, not as a memory file
    plugins = plugin_manager()
    memory = _write_manager(plugins)
    builtin = plugins.memory_providers["builtin"]
    for target in TARGETS:  # both files are read when the session starts: report a bad one once, plainly
        memory_live_state(builtin, target)
    refuse_undecodable_memory_file(builtin, args.target)
    try:
        memory.initialize_all(f"cli-{uuid.uuid4()}", platform="cli", hermes_home=str(plugins.home))
        answer = memory.handle_tool_call("memory", {"action": action, "target": args.target, **fields}, write_origin="cli")
    finally:
        memory.shutdown_all()  # queued work of the external provider drains before the process ends
    result = json.loads(answer)
    ok = bool(result.get("success"))
    if args.json:
        print_json(result if ok else json_refusal(result, action))
        return 0 if ok else 1
    if not ok:
        details = _failure_details(result, action)
        raise HermesError(f"memory {action} failed: {result.get('error', 'unknown error')}" + ("\n" + details if details else ""))
    print(f"{result.get('message', action + ' done')} [{result.get('usage', '')}]")
    return 0


def json_refusal(result: dict[str, Any], action: str) -> dict[str, Any]:
    """A refused edit with ``--json``: the memory tool's answer, with the fields every ``--json`` error has.

    ``error``, ``cause``, ``fix`` and ``exit_code`` as for any failed command (docs/cli.md), so one reader
    handles every error; ``success: false`` and the tool's own fields (``candidates``, ``blocked_family``...)
    stay beside them.
    """
    from hermes_core.errors import split_cause_and_fix

    error = str(result.get("error") or f"memory {action} failed")
    cause, fix = split_cause_and_fix(error)
    return {**result, "success": False, "error": error, "cause": cause, "fix": fix, "exit_code": 1}


def _blank(name: str, action: str) -> str:
    if name == "old_text":
        return (f"OLD_TEXT is empty (only whitespace) -> give a substring of the entry to {action} "
                "('hermes memory show' lists them); memory was not changed")
    example = "hermes memory replace OLD_TEXT" if action == "replace" else "hermes memory add"
    return f"the text of the entry is empty (only whitespace) -> give the text, e.g. {example} 'Prefers short answers'; memory was not changed"


def _content(text: str) -> str:
    """The entry's text; ``-`` reads it from standard input (``echo note | hermes memory add -``)."""
    if text != "-":
        return text
    from hermes_core.files import read_stdin_text

    piped = read_stdin_text(MAX_STDIN_BYTES, what="entry")
    piped = piped[:-2] if piped.endswith("\r\n") else piped[:-1] if piped.endswith("\n") else piped
    if not piped.strip():
        raise HermesError("'-' reads the entry from standard input, which was empty -> pipe the text in: "
                          "echo 'User prefers dark mode' | hermes memory add -")
    return piped


def cmd_add(args: argparse.Namespace) -> int:
    return _edit(args, "add", content=_content(args.content))


def cmd_replace(args: argparse.Namespace) -> int:
    return _edit(args, "replace", old_text=args.old_text, content=_content(args.content))


def cmd_remove(args: argparse.Namespace) -> int:
    return _edit(args, "remove", old_text=args.old_text)
