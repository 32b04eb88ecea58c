"""The ``hermes`` command: global options, command groups, and error reporting without tracebacks."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from hermes_core._version import __version__

# Each group lives in its own module and is imported only when used, so
# `hermes --help` never pays for YAML, JSON Schema or plugin discovery.
_COMMAND_GROUPS: dict[str, tuple[str, str]] = {
    "plugins": ("hermes_core.cli.plugins", "list, install, update, remove, check and create plugins"),
    "config": ("hermes_core.cli.config", "read and change config.yaml"),
    "memory": ("hermes_core.cli.memory", "show and edit built-in memory; choose and set up a memory provider"),
    "sessions": ("hermes_core.cli.sessions", "list, show, search, export, import, prune, reindex and migrate stored sessions"),
    "chat": ("hermes_core.cli.chat", "talk to the configured model, with memory, tools and plugins"),
}


# Set by main() when the command line asks for --json: errors are then also printed as JSON on
# stdout, so a script reading stdout gets an answer it can parse whichever way the command ends.
_json_errors = False


def _wants_json(argv: Sequence[str]) -> bool:
    """``--json`` among the options (not after ``--``, where it is a query or a file name)."""
    words = list(argv[: argv.index("--")]) if "--" in argv else list(argv)
    return "--json" in words


#: The memory edits answer ``--json`` with the memory tool's ``success`` field: their errors carry it too.
_MEMORY_EDITS = ("add", "replace", "remove")
_json_extra: dict[str, object] = {}


def _error_extra(argv: Sequence[str]) -> dict[str, object]:
    words = [word for word in argv if not word.startswith("-")]
    command = _global_options(argv).command
    rest = words[words.index(command) + 1:] if command in words else []
    return {"success": False} if command == "memory" and rest[:1] and rest[0] in _MEMORY_EDITS else {}


def _report(message: str, exit_code: int, prefix: str = "hermes: error: ") -> int:
    """The error on stderr, and with --json as ``{"error", "fix", "exit_code"}`` on stdout too."""
    print(f"{prefix}{message}", file=sys.stderr)
    if _json_errors:
        from hermes_core.cli.output import print_json
        from hermes_core.errors import split_cause_and_fix

        cause, fix = split_cause_and_fix(message)
        print_json({**_json_extra, "error": message, "cause": cause, "fix": fix, "exit_code": exit_code})
    return exit_code


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        argv = getattr(self, "hermes_argv", None)  # set on the top-level parser, which reports unknown options
        # argparse reports an unknown option of a subcommand from the top: show the usage of the command it was given to
        (self if argv is None else _innermost(self, argv)).print_usage(sys.stderr)
        hint = _misplaced_option_hint(message, argv) if argv is not None else ""
        self.exit(_report(f"{message}{hint or _choice_hint(message, self.prog) or _usage_hint(message, self.prog)}", 2))


def _innermost(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The (sub)command parser the words of ``argv`` lead to: ``hermes memory show --bogus`` -> ``hermes memory show``.

    The walk starts at the command as the global options are read (``-p memory`` is a profile named memory), then
    follows each subcommand's choices. argparse keeps those in its private ``_actions``; it offers no public way to
    find the parser a word selected, and at worst the walk stops early (the usage shown is then an outer one).
    """
    command = _global_options(argv).command
    if command is None or command not in argv:
        return parser
    words = list(argv)[list(argv).index(command) :]
    for word in words:
        choices = next((action.choices for action in parser._actions if isinstance(action, argparse._SubParsersAction)), None)
        if not isinstance(choices, dict) or word not in choices:
            break
        parser = choices[word]
    return parser


def _usage_hint(message: str, prog: str) -> str:
    """The fix for argparse's other usage errors (a missing argument, an option without its value)."""
    if " -> " in message:  # an argument type's own message already names the fix
        return ""
    if message.startswith("the following arguments are required: "):
        return f" -> give {message.split(': ', 1)[1]}; '{prog} --help' shows how"
    if message.endswith("expected one argument"):
        option = message.removeprefix("argument ").split(":", 1)[0].split("/")[-1]
        return f" -> put the value right after {option}; '{prog} --help' describes it"
    number = re.search(r"^argument (?P<option>[^:]+): invalid (?P<kind>int|float) value", message)
    if number:
        option = number.group("option").split("/")[-1]
        return f" -> give {option} a {'whole ' if number.group('kind') == 'int' else ''}number, e.g. {option} {'10' if number.group('kind') == 'int' else '2.5'}"
    return f" -> '{prog} --help' shows the usage"


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<given>.*)' \(choose from (?P<choices>.*)\)$")


def _choice_hint(message: str, prog: str) -> str:
    """``hermes plugin list``: the command (or option value) that was probably meant, else where the choices are listed."""
    import difflib

    found = _INVALID_CHOICE.search(message)
    if found is None:
        return ""
    choices = [choice.strip().strip("'") for choice in found.group("choices").split(",")]
    close = difflib.get_close_matches(found.group("given"), choices, n=1, cutoff=0.6)
    if close:
        return f" -> did you mean '{close[0]}'?"
    return f" -> '{prog} --help' lists them"


#: Options of ``hermes`` itself, which go before the command.
_GLOBAL_FLAGS = ("--debug",)
_GLOBAL_WITH_VALUE = ("-p", "--profile")


def _misplaced_global_option(words: list[str]) -> list[str]:
    """The first global option (with its value) among ``words``, the words after the command; [] if none."""
    for index, word in enumerate(words):
        if word in _GLOBAL_WITH_VALUE and index + 1 < len(words):
            return words[index : index + 2]
        if word in _GLOBAL_FLAGS or word.startswith("--profile=") or (word.startswith("-p") and not word.startswith("--") and len(word) > 2):
            return [word]
    return []


def _misplaced_option_hint(message: str, argv: list[str]) -> str:
    """An option given on the wrong side of the command: a command's own before it, or a global one after it."""
    prefix = "unrecognized arguments: "
    if not message.startswith(prefix):
        return ""
    command = _global_options(argv).command
    if command is None or command not in argv:
        return ""
    unrecognized = message[len(prefix):].split()
    before, after = argv[: argv.index(command)], argv[argv.index(command) + 1 :]
    moved = _misplaced_global_option(after)
    if moved and moved[0] in unrecognized:
        rest = list(after)
        del rest[rest.index(moved[0]) : rest.index(moved[0]) + len(moved)]
        name = moved[0].split("=", 1)[0] if moved[0].startswith("--") else moved[0][:2]
        return f" -> {name} is a global option: it goes before the command: 'hermes {' '.join([*moved, command, *rest])}'"
    misplaced = [word for word in unrecognized if word.startswith("-") and word in before]
    if not misplaced:
        sub = f" {after[0]}" if after and not after[0].startswith("-") else ""  # the subcommand, when there is one
        return f" -> 'hermes {command}{sub} --help' lists its options"
    rest_text = " ".join(argv[argv.index(command):])
    return f" -> {misplaced[0]} belongs to the command, after it: 'hermes {rest_text} {misplaced[0]}'"


def build_parser(plugin_commands: Sequence[object] = (), groups: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser; plugin CLI commands (already registered) are added after the core groups.

    *groups* names the core groups whose arguments are built (their modules imported);
    the others are listed with their help line only. None builds every group.
    """
    import importlib

    parser = _Parser(
        prog="hermes",
        description="A plugin host for an AI agent's memory and lifecycle.",
        epilog="Plugins can add commands of their own; 'hermes plugins list --load' shows which.",
    )
    parser.add_argument("--version", action="version", version=f"hermes {__version__}")
    parser.add_argument("-p", "--profile", metavar="NAME", help="use the profile NAME (its own HERMES_HOME)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and plugin tracing")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    wanted = set(_COMMAND_GROUPS) if groups is None else set(groups)
    for name, (module_name, help_text) in _COMMAND_GROUPS.items():
        group = subparsers.add_parser(name, help=help_text, description=help_text)
        if name in wanted:  # a command imports only its own group (`hermes --help` none)
            importlib.import_module(module_name).add_arguments(group)
    for command in plugin_commands:
        sub = subparsers.add_parser(command.name, help=command.help, description=command.description or command.help)  # type: ignore[attr-defined]
        command.setup_fn(sub)  # type: ignore[attr-defined]
        if command.handler_fn is not None:  # type: ignore[attr-defined]
            sub.set_defaults(func=command.handler_fn)  # type: ignore[attr-defined]
    return parser


class _GlobalOptions(NamedTuple):
    profile: str | None
    debug: bool
    command: str | None


class _Unparsable(Exception):
    pass


class _QuietParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Unparsable(message)  # the full parser reports it, with the usage


def _global_options(argv: Sequence[str]) -> _GlobalOptions:
    """``-p``, ``--debug`` and the command, read exactly as the full parser reads them.

    They are needed before that parser is built (the profile decides HERMES_HOME, the command
    which groups to import), so argparse itself reads them: ``-pwork``, ``--prof work`` and
    ``--profile=work`` all mean the profile ``work``, and the last ``-p`` wins. Only the options
    before the command count: a plugin command may have a ``-p`` of its own.
    """
    parser = _QuietParser(prog="hermes", add_help=False)
    parser.add_argument("-h", "--help", action="store_true")  # the same options, so abbreviations resolve alike
    parser.add_argument("--version", action="store_true")
    parser.add_argument("-p", "--profile")
    parser.add_argument("--debug", action="store_true")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        options, _ = parser.parse_known_args(list(argv))
    except _Unparsable:  # e.g. '-p' without a name: no profile; the full parser says what is wrong
        return _GlobalOptions(None, False, None)
    words = [word for word in options.rest if word != "--"]
    return _GlobalOptions(options.profile, options.debug, words[0] if words else None)


def _apply_profile(profile: str | None) -> None:
    """``-p NAME`` must take effect before anything reads HERMES_HOME, so it is applied first.

    A profile comes into being with the first command that writes to it; a name with no home yet is said on
    stderr with the profiles there are, so a mistyped name ('-p wrok') is not taken silently for a new, empty one.
    """
    from hermes_core.config import profile_home

    if profile is None:
        return
    home = profile_home(profile)
    os.environ["HERMES_HOME"] = str(home)
    if not home.exists():
        try:
            others = sorted(p.name for p in home.parent.iterdir() if p.is_dir())
        except OSError:
            others = []
        known = f"the profiles here: {', '.join(others)}" if others else "there are no profiles yet"
        print(f"note: profile '{profile}' does not exist yet ({home}); this command starts it empty ({known})",
              file=sys.stderr)


def _plugin_cli_commands(command: str | None = None) -> tuple[list[object], str | None]:
    """The plugins' command groups, and the memory provider named ``command`` when it adds none."""
    from hermes_core.manager import PluginManager
    from hermes_core.policy import matches, name_list

    manager = PluginManager()
    manager.load_all()
    provider = None
    if command is not None and command not in manager.cli_commands:
        # A memory provider's own command group (e.g. 'hermes honcho setup') must work before
        # memory.provider selects it: that is how it gets selected. Only a provider plugin named
        # like the command is loaded, and never one the user disabled.
        disabled = set(name_list(manager.config.get("plugins.disabled", [])) or [])
        for record in manager.plugins:
            if record.candidate.kind == "exclusive" and command in {record.name, record.key} and not matches(record.candidate, disabled):
                if not record.loaded:
                    manager.load(record.key, for_command=True)
                provider = None if command in manager.cli_commands else record.name
                break
    return list(manager.cli_commands.values()), provider


def _check_home() -> None:
    """A HERMES_HOME that is a file, or under one, is reported as such before any command trips over it."""
    from hermes_core.config import describe_home_problem, get_hermes_home
    from hermes_core.errors import ConfigError

    problem = describe_home_problem(get_hermes_home())
    if problem:
        raise ConfigError(problem)


def describe_os_error(exc: OSError) -> str:
    """A user-facing message for a file-system error no command anticipated: the path, the cause, a fix."""
    from hermes_core.config import get_hermes_home

    home = get_hermes_home()
    cause = exc.strerror or str(exc) or type(exc).__name__
    if not home.is_dir():
        return (
            f"HERMES_HOME ({home}) does not exist and cannot be created ({cause}) -> "
            "point HERMES_HOME at a directory you can write, e.g. export HERMES_HOME=~/.hermes"
        )
    if not exc.filename:  # the error names no path: blaming HERMES_HOME would send the user to the wrong place
        return f"{cause} -> check that the paths the command was given exist and that you may read and write them"
    return f"{exc.filename}: {cause} -> check that the path exists and that you may read and write it"


def run(argv: Sequence[str]) -> int:
    """Parse ``argv`` and run the command; return the exit code. Errors propagate."""
    options = _global_options(argv)
    _apply_profile(options.profile)
    if options.debug:
        os.environ["HERMES_PLUGINS_DEBUG"] = "1"
    command = options.command
    plugin_commands: list[object] = []
    if command is not None and command not in _COMMAND_GROUPS:
        plugin_commands, bare_provider = _plugin_cli_commands(command)
        if bare_provider is not None:
            # 'hermes mem0 ...': the provider is there but brings no commands; the memory group serves it
            return _report(
                f"'{command}' is a memory provider that adds no commands of its own -> 'hermes memory setup {bare_provider}' "
                f"sets it up and selects it; 'hermes memory status' and 'hermes memory switch {bare_provider}' work with it",
                2,
            )
    parser = build_parser(plugin_commands, groups=[command] if command in _COMMAND_GROUPS else [])
    parser.hermes_argv = list(argv)  # type: ignore[attr-defined]
    args = parser.parse_args(list(argv))
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0 if command is None else 2
    _check_home()
    result = func(args)
    return int(result or 0)


def _document_stdout(command: str | None) -> contextlib.AbstractContextManager[None]:
    """With ``--json``, stdout is kept for the JSON document (see :func:`hermes_core.cli.output.json_stdout`).

    Only for hermes's own command groups: a command a plugin adds prints its own ``--json`` answer, with ``print``."""
    if not _json_errors or command not in _COMMAND_GROUPS:
        return contextlib.nullcontext()
    from hermes_core.cli.output import json_stdout

    return json_stdout()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hermes`` console script."""
    global _json_errors, _json_extra
    argv = list(sys.argv[1:] if argv is None else argv)
    options = _global_options(argv)
    debug = options.debug
    _json_errors = _wants_json(argv)
    _json_extra = _error_extra(argv) if _json_errors else {}
    from hermes_core.interrupts import watch

    try:
        with watch(), _document_stdout(options.command):  # a KeyboardInterrupt with no Ctrl-C behind it is a plugin's, isolated like its other failures
            return run(argv)
    except KeyboardInterrupt:
        return _report("interrupted", 130, prefix="hermes: ")
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away; nothing left to report.
        return 0
    except Exception as exc:
        from hermes_core.errors import HermesError

        if debug:
            import traceback

            traceback.print_exc()
        if isinstance(exc, HermesError):
            return _report(str(exc), 1)
        if isinstance(exc, EOFError) and str(exc) in ("", "EOF when reading a line"):  # input()'s; a truncated archive's says more
            print(file=sys.stderr)  # the prompt left the cursor at the end of its line
            return _report(
                "input ended before the question was answered -> run the command again and answer it, "
                "or give the answer as an option ('--help' lists them, e.g. --yes)",
                1,
            )
        if isinstance(exc, UnicodeDecodeError):  # a file that should be UTF-8 text is not
            return _report(
                f"a file hermes read is not UTF-8 text ({exc.reason} at byte {exc.start}) "
                "-> run the same command with --debug to see which file, then fix or move it aside",
                1,
            )
        if isinstance(exc, UnicodeEncodeError):  # text that is not UTF-8 (a non-UTF-8 byte in an argument) met a file or database
            return _report(
                f"text that is not valid UTF-8 was given ({exc.reason}: {exc.object[exc.start:exc.end]!r}) "
                "-> give arguments and file contents as UTF-8; nothing was changed",
                1,
            )
        if isinstance(exc, OSError):  # the environment (a path, a permission, a full disk), not a bug
            return _report(describe_os_error(exc), 1)
        return _report(
            f"{type(exc).__name__}: {exc}\n"
            "  (run the same command with --debug to see the traceback, and report it)",
            2,
            prefix="hermes: internal error: ",
        )
    finally:
        _json_errors, _json_extra = False, {}


if __name__ == "__main__":
    sys.exit(main())
