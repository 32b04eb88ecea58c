"""Every refusal names its fix after ' -> ', so `--json` readers get a non-empty 'fix'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _content_not_text(tmp_path: Path) -> tuple[str, ...]:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": 5}\n', encoding="utf-8")
    return ("sessions", "import", str(bad), "--json")


@pytest.mark.parametrize(
    "argv",
    [
        lambda tmp_path: ("config", "set", "a..b", "x", "--json"),
        lambda tmp_path: ("config", "set", "memory.", "x", "--json"),
        _content_not_text,
    ],
    ids=["empty key part", "trailing dot", "content not text"],
)
def test_the_refusal_names_a_fix(run_hermes, tmp_path, argv):
    result = run_hermes(*argv(tmp_path))
    assert result.exit_code == 1
    answer = json.loads(result.stdout)
    assert answer["fix"], answer
    assert "Traceback" not in result.stderr


def test_memory_setup_without_a_name_and_no_terminal_says_how_to_name_one(run_hermes):
    result = run_hermes("memory", "setup")  # run_hermes's stdin is never a terminal
    assert result.exit_code == 1
    assert "-> name one: 'hermes memory setup NAME'" in result.stderr and "'builtin'" in result.stderr
