"""`hermes memory list` is what people type after `hermes plugins list` and `hermes sessions list`."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("alias", ["list", "ls"])
def test_memory_list_shows_the_entries_as_show_does(run_hermes, alias):
    assert run_hermes("memory", "add", "Der Nutzer trinkt gern grünen Tee").exit_code == 0
    listed = run_hermes("memory", alias, "--json")
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout == run_hermes("memory", "show", "--json").stdout
    assert "Der Nutzer trinkt gern grünen Tee" in json.loads(listed.stdout)[0]["entries"]


def test_control_characters_in_an_entry_never_reach_the_terminal(run_hermes, hermes_home):
    # ESC[8m hides text on a terminal, and any ESC sequence repaints it: such an entry is masked like other invisible
    # characters; tabs and line breaks are text.
    memories = hermes_home / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    entries = ["User likes \x1b[31mred\x1b[0m and \x1b[8mhidden\x1b[0m text", "Columns:\tname\tage\nand a second line"]
    (memories / "MEMORY.md").write_text("\n§\n".join(entries), encoding="utf-8")  # written by another tool, or by hand
    shown = run_hermes("memory", "show", "--target", "memory")
    assert shown.exit_code == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "[BLOCKED: invisible_characters U+001B]" in shown.stdout
    assert "Columns:\tname\tage\n    and a second line" in shown.stdout
    assert run_hermes("memory", "show", "--target", "memory", "--json").json()["entries"] == ["[BLOCKED: invisible_characters U+001B]", entries[1]]
    refused = run_hermes("memory", "add", "Prompt colour: \x1b[32mgreen\x1b[0m")
    assert refused.exit_code == 1 and "invisible_characters" in refused.stderr + refused.stdout
