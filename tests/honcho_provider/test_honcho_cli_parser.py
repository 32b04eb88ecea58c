"""The ``hermes honcho`` parser alone: every subcommand, option, choice and help text, and the function each runs.

``register_cli`` is called on a bare ``argparse`` parser, the way the host calls it, without loading the plugin:
the commands' output is asserted in ``test_honcho_cli_commands.py``.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from hermes_bundled_plugins.memory.honcho import cli

#: Each subcommand's help page at a width of 200 columns, word for word.
HELP = {
    "setup": """\
usage: hermes honcho setup [-h] [--json] [--api-key API_KEY] [--base-url BASE_URL] [--workspace WORKSPACE] [--peer-name PEER_NAME] [--ai-peer AI_PEER] [--recall-mode {hybrid,context,tools}]
                           [--session-strategy {per-directory,per-session,per-repo,global}] [--no-input]

set up Honcho (cloud or self-hosted) and select it as memory provider

options:
  -h, --help            show this help message and exit
  --json                print the result as JSON
  --api-key API_KEY     Honcho API key (stored in $HERMES_HOME/.env as HONCHO_API_KEY)
  --base-url BASE_URL   self-hosted Honcho URL (omit for Honcho cloud)
  --workspace WORKSPACE
                        workspace ID (default: host key)
  --peer-name PEER_NAME
                        your peer name
  --ai-peer AI_PEER     this profile's AI peer name
  --recall-mode {hybrid,context,tools}
  --session-strategy {per-directory,per-session,per-repo,global}
  --no-input            never prompt; use the flags and defaults
""",
    "status": """\
usage: hermes honcho status [-h] [--json] [--check]

show the resolved settings of the active profile and where each comes from

options:
  -h, --help  show this help message and exit
  --json      print the result as JSON
  --check     also connect to Honcho and report whether it answers
""",
    "enable": """\
usage: hermes honcho enable [-h] [--json]

turn Honcho on for the active profile

options:
  -h, --help  show this help message and exit
  --json      print the result as JSON
""",
    "disable": """\
usage: hermes honcho disable [-h] [--json]

turn Honcho off for the active profile

options:
  -h, --help  show this help message and exit
  --json      print the result as JSON
""",
    "mode": """\
usage: hermes honcho mode [-h] [--json] {hybrid,context,tools,directional,unified}

change the recall mode (hybrid, context, tools) or the observation mode (directional, unified)

positional arguments:
  {hybrid,context,tools,directional,unified}

options:
  -h, --help            show this help message and exit
  --json                print the result as JSON
""",
    "peer": """\
usage: hermes honcho peer [-h] [--json] [--user USER] [--ai AI]

change the user or AI peer name

options:
  -h, --help   show this help message and exit
  --json       print the result as JSON
  --user USER  the user's peer name
  --ai AI      this profile's AI peer name
""",
    "tokens": """\
usage: hermes honcho tokens [-h] [--json] [--context CONTEXT] [--dialectic DIALECTIC]

change the context token budget or the dialectic size

options:
  -h, --help            show this help message and exit
  --json                print the result as JSON
  --context CONTEXT     contextTokens: token budget of recalled context
  --dialectic DIALECTIC
                        dialecticMaxChars: max chars of the dialectic answer
""",
    "map": """\
usage: hermes honcho map [-h] [--json] [--directory DIRECTORY] name

name the Honcho session of the current directory

positional arguments:
  name                  session name for this directory

options:
  -h, --help            show this help message and exit
  --json                print the result as JSON
  --directory DIRECTORY
                        another directory instead of the current one
""",
    "sync": """\
usage: hermes honcho sync [-h] [--json]

create host blocks for every hermes profile

options:
  -h, --help  show this help message and exit
  --json      print the result as JSON
""",
}

TOP_HELP = """\
usage: hermes honcho [-h] SUBCOMMAND ...

positional arguments:
  SUBCOMMAND
    setup     set up Honcho (cloud or self-hosted) and select it as memory provider
    status    show the resolved settings of the active profile and where each comes from
    enable    turn Honcho on for the active profile
    disable   turn Honcho off for the active profile
    mode      change the recall mode (hybrid, context, tools) or the observation mode (directional, unified)
    peer      change the user or AI peer name
    tokens    change the context token budget or the dialectic size
    map       name the Honcho session of the current directory
    sync      create host blocks for every hermes profile

options:
  -h, --help  show this help message and exit
"""


@pytest.fixture
def parser(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    monkeypatch.setenv("COLUMNS", "200")  # argparse wraps help at the terminal's width
    parser = argparse.ArgumentParser(prog="hermes honcho")
    cli.register_cli(parser)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    [action] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def parsed(parser: argparse.ArgumentParser, *argv: str) -> dict[str, Any]:
    values = vars(parser.parse_args(argv))
    values.pop("honcho_command", None)  # argparse's record of the subcommand; nothing reads it (each runs its func)
    return values


def test_the_help_lists_each_subcommand_with_what_it_does(parser: argparse.ArgumentParser) -> None:
    assert parser.format_help() == TOP_HELP
    assert list(subcommands(parser)) == list(HELP)


@pytest.mark.parametrize("command", list(HELP))
def test_each_subcommands_help_names_every_option_word_for_word(parser: argparse.ArgumentParser, command: str) -> None:
    assert subcommands(parser)[command].format_help() == HELP[command]


def test_without_a_subcommand_the_help_is_printed_and_it_succeeds(parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]) -> None:
    args = parser.parse_args([])
    assert args.func(args) == 0
    assert capsys.readouterr().out == TOP_HELP


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("setup",), {"func": cli.cmd_setup, "json": False, "api_key": None, "base_url": None, "workspace": None, "peer_name": None,
                      "ai_peer": None, "recall_mode": None, "session_strategy": None, "no_input": False}),
        (("setup", "--json", "--api-key", "hk", "--base-url", "http://h:1", "--workspace", "w", "--peer-name", "p", "--ai-peer", "a",
          "--recall-mode", "tools", "--session-strategy", "global", "--no-input"),
         {"func": cli.cmd_setup, "json": True, "api_key": "hk", "base_url": "http://h:1", "workspace": "w", "peer_name": "p",
          "ai_peer": "a", "recall_mode": "tools", "session_strategy": "global", "no_input": True}),
        (("status",), {"func": cli.cmd_status, "json": False, "check": False}),
        (("status", "--check", "--json"), {"func": cli.cmd_status, "json": True, "check": True}),
        (("enable",), {"func": cli.cmd_enable, "json": False}),
        (("disable", "--json"), {"func": cli.cmd_disable, "json": True}),
        (("mode", "unified"), {"func": cli.cmd_mode, "json": False, "mode": "unified"}),
        (("mode", "context"), {"func": cli.cmd_mode, "json": False, "mode": "context"}),
        (("peer",), {"func": cli.cmd_peer, "json": False, "user": None, "ai": None}),
        (("peer", "--user", "eri", "--ai", "coder"), {"func": cli.cmd_peer, "json": False, "user": "eri", "ai": "coder"}),
        (("tokens", "--context", "900", "--dialectic", "40"), {"func": cli.cmd_tokens, "json": False, "context": 900, "dialectic": 40}),
        (("tokens",), {"func": cli.cmd_tokens, "json": False, "context": None, "dialectic": None}),
        (("map", "proj"), {"func": cli.cmd_map, "json": False, "name": "proj", "directory": None}),
        (("map", "proj", "--directory", "/src"), {"func": cli.cmd_map, "json": False, "name": "proj", "directory": "/src"}),
        (("sync", "--json"), {"func": cli.cmd_sync, "json": True}),
    ],
)
def test_each_command_line_gives_its_values_and_its_function(parser: argparse.ArgumentParser, argv: tuple[str, ...], expected: dict[str, Any]) -> None:
    values = parsed(parser, *argv)
    assert values == expected
    assert all(type(values[key]) is type(value) for key, value in expected.items())  # 900 is an int, not "900"


@pytest.mark.parametrize(
    "argv",
    [("mode", "auto"), ("mode",), ("setup", "--recall-mode", "auto"), ("setup", "--session-strategy", "per-user"),
     ("tokens", "--context", "many"), ("map",), ("flush",)],
)
def test_a_value_outside_the_choices_is_refused(parser: argparse.ArgumentParser, argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(argv)
    assert stopped.value.code == 2 and "error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "example"),
    [("--base-url", "--base-url http://localhost:8000"), ("--workspace", "--workspace hermes"),
     ("--peer-name", "--peer-name eri"), ("--ai-peer", "--ai-peer hermes")],
)
@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_setup_value_is_refused_naming_the_option_and_an_example(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str], flag: str, example: str, blank: str
) -> None:
    # an unset shell variable ("--peer-name $USER") must not store null or an empty ID
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(["setup", flag, blank])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"hermes honcho setup: error: argument {flag}: the value is blank -> give one, e.g. {example}, or leave the option out")
