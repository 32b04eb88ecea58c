"""Usage errors of the `hermes` command line: a mistyped command, a global option in the wrong place, -p spelt another way."""

from __future__ import annotations

import io
import json
import sys

import pytest


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (("plugin", "list"), "plugins"),
        (("sesions", "list"), "sessions"),
        (("plugins", "lst"), "list"),
        (("memory", "shwo"), "show"),
        (("sessions", "serch", "x"), "search"),
    ],
)
def test_a_mistyped_command_names_the_command_meant(run_hermes, argv, meant):
    result = run_hermes(*argv, "--json")
    assert result.exit_code == 2
    answer = result.json()
    assert answer["fix"].startswith(f"did you mean '{meant}'?"), answer
    assert f"did you mean '{meant}'?" in result.stderr


def test_an_unknown_command_with_no_close_match_points_to_the_help(run_hermes):
    result = run_hermes("plugins", "zzzzzz", "--json")
    assert result.exit_code == 2
    assert result.json()["fix"] == "'hermes plugins --help' lists them"


def test_an_invalid_option_choice_names_the_choice_meant(run_hermes):
    result = run_hermes("memory", "show", "--target", "usr", "--json")
    assert result.exit_code == 2
    assert result.json()["fix"].startswith("did you mean 'user'?")


@pytest.mark.parametrize("option", [("--debug",), ("-p", "work"), ("--profile", "work"), ("--profile=work",)])
def test_a_global_option_after_the_command_says_it_goes_before_the_command(run_hermes, option):
    result = run_hermes("config", "path", *option)
    assert result.exit_code == 2
    shown = " ".join(option)
    assert f"{option[0].split('=')[0]} is a global option: it goes before the command: 'hermes {shown} config path'" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "profile",
    [("-pwork",), ("--prof", "work"), ("--profile=work",), ("-p", "other", "-p", "work"), ("--debug", "-p", "work")],
    ids=["attached", "abbreviated", "equals", "given twice: the last wins", "after --debug"],
)
def test_every_spelling_of_the_profile_option_uses_that_profile(run_hermes, hermes_home, profile):
    result = run_hermes(*profile, "config", "set", "memory.provider", "honcho")
    assert result.exit_code == 0, result.stderr
    assert (hermes_home / "profiles" / "work" / "config.yaml").is_file()
    assert not (hermes_home / "config.yaml").exists()
    assert not (hermes_home / "profiles" / "other").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ("plugins", "validate", ""),
        ("sessions", "import", ""),
        ("sessions", "export", "abcdef12", "-o", ""),
        ("memory", "export", ""),
        ("memory", "import", ""),
        ("plugins", "install", "-r", ""),
        ("plugins", "new", "empty_out", "-o", ""),
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_an_empty_path_is_a_usage_error_not_the_current_directory(run_hermes, hermes_home, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)  # '' used to mean '.', here
    result = run_hermes(*argv, "--json")
    assert result.exit_code == 2, result.stderr
    assert "the path is empty" in result.json()["cause"] and result.json()["fix"]
    assert list(tmp_path.iterdir()) == [hermes_home] or list(tmp_path.iterdir()) == []


class _TerminalAtEnd(io.StringIO):
    """A terminal where the user pressed Ctrl-D at the prompt."""

    def isatty(self) -> bool:
        return True


def test_ctrl_d_at_a_confirmation_prompt_is_a_refusal_not_an_internal_error(hermes_home, monkeypatch, capsys):
    from hermes_core.cli.main import main

    monkeypatch.setattr(sys, "stdin", _TerminalAtEnd(""))
    code = main(["sessions", "prune", "--older-than", "30d", "--json"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "internal error" not in err and "EOFError" not in err
    assert "hermes: error: input ended before the question was answered -> " in err
    assert json.loads(out[out.index("{"):])["exit_code"] == 1


def test_a_memory_provider_without_commands_of_its_own_points_to_the_memory_group(run_hermes, hermes_home):
    result = run_hermes("mem0", "status", "--json")
    assert result.exit_code == 2
    answer = result.json()
    assert answer["cause"] == "'mem0' is a memory provider that adds no commands of its own"
    assert "hermes memory setup mem0" in answer["fix"] and "Traceback" not in result.stderr
    assert "hermes memory setup mem0" in run_hermes("mem0", "--help").stderr
    assert run_hermes("honcho", "status", "--json").exit_code == 0  # a provider with its own group keeps it
    (hermes_home / "config.yaml").write_text("plugins:\n  disabled: [mem0]\n", encoding="utf-8")
    disabled = run_hermes("mem0", "status")
    assert disabled.exit_code == 2 and "invalid choice: 'mem0'" in disabled.stderr  # off: as if it were not there


@pytest.mark.parametrize(
    ("argv", "fix"),
    [
        (("sessions", "show"), "give session_id; 'hermes sessions show --help' shows how"),
        (("sessions", "migrate", "x"), "give --to; 'hermes sessions migrate --help' shows how"),
        (("sessions", "list", "--limit"), "put the value right after --limit; 'hermes sessions list --help' describes it"),
        (("sessions", "list", "--limit", "many"), "give --limit a whole number, e.g. --limit 10"),
        (("plugins", "doctor", "--load", "--timeout", "soon"), "give --timeout a number, e.g. --timeout 2.5"),
    ],
)
def test_every_usage_error_names_a_fix(run_hermes, argv, fix):
    result = run_hermes(*argv, "--json")
    assert result.exit_code == 2
    assert result.json()["fix"] == fix and result.stderr.rstrip().endswith(f" -> {fix}")


def test_a_profile_with_no_home_yet_is_named_with_the_profiles_there_are(run_hermes, hermes_home):
    assert run_hermes("-p", "work", "config", "set", "memory.provider", "honcho").exit_code == 0
    result = run_hermes("-p", "wrok", "config", "get", "memory.provider")
    assert result.exit_code == 0
    assert result.stderr.strip() == (f"note: profile 'wrok' does not exist yet ({hermes_home / 'profiles' / 'wrok'}); "
                                     "this command starts it empty (the profiles here: work)")
    again = run_hermes("-p", "work", "config", "get", "memory.provider")
    assert again.exit_code == 0 and again.stdout.strip() == "honcho" and "note:" not in again.stderr


@pytest.mark.parametrize("argv, usage", [
    (("memory", "show", "--bogus"), "usage: hermes memory show "),
    (("memory", "switch", "ledger", "-q"), "usage: hermes memory switch "),
    (("plugins", "list", "--nope"), "usage: hermes plugins list "),
    (("--bogus",), "usage: hermes [-h]"),
])
def test_an_unknown_option_shows_the_usage_of_the_command_it_was_given_to(run_hermes, argv, usage):
    result = run_hermes(*argv)
    assert result.exit_code == 2 and result.stderr.startswith(usage), result.stderr


def test_the_usage_shown_follows_the_command_not_a_profile_of_the_same_name(run_hermes):
    # `-p memory` names a profile: the command is `config get`, whose usage is the one to show
    result = run_hermes("-p", "memory", "config", "get", "x", "--bogus")
    assert result.exit_code == 2 and "usage: hermes config get " in result.stderr, result.stderr
