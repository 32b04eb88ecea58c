"""A command that hermes tells the user to run works when pasted, also for a plugin whose name has a space."""

from __future__ import annotations

import re
import shlex

from hermes_core.plugin_candidate import command_word


def _commands(text: str) -> list[list[str]]:
    """Every 'hermes ...' command quoted in single quotes in ``text``, split as a shell splits it."""
    return [shlex.split(found)[1:] for found in re.findall(r"'(hermes [^']*(?:'[^']*')*[^']*)'", text)]


def test_the_turn_on_and_off_hints_run_as_printed(make_plugin, run_hermes, tmp_path):
    source = make_plugin("bad_name", "def register(ctx): pass\n", manifest={"name": "bad name", "version": "0.1.0"}, where=tmp_path / "src")
    installed = run_hermes("plugins", "install", str(source), "--no-input")
    assert installed.exit_code == 0, installed.stderr
    (enable,) = [c for c in _commands(installed.stdout + installed.stderr) if c[:2] == ["plugins", "enable"]]
    assert enable == ["plugins", "enable", "bad name"]
    assert run_hermes(*enable).exit_code == 0
    assert run_hermes("plugins", "disable", "bad name").exit_code == 0
    (entry,) = [e for e in run_hermes("plugins", "list", "--json").json() if e["name"] == "bad name"]
    assert _commands(entry["reason"]) == [["plugins", "enable", "bad name"]]


def test_a_plain_name_is_not_quoted():
    assert command_word("observability/hook_log") == "observability/hook_log" and command_word("café") == "café"
    import subprocess

    for name in ('a "b" $c `d` \\e', "bad name"):  # as a shell reads it
        assert subprocess.run(["bash", "-c", f"printf %s {command_word(name)}"], capture_output=True, text=True, check=True).stdout == name
