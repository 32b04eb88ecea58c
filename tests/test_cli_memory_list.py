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
