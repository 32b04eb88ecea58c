"""A MEMORY.md that is not UTF-8 is refused by the CLI's edits instead of being rewritten with U+FFFD."""

from __future__ import annotations

import json

import pytest

LATIN1 = "Benutzer mag Käse\n".encode("latin-1")  # 0xe4 for ä: not UTF-8


@pytest.mark.parametrize(
    "argv",
    [
        ("memory", "add", "User likes tea"),
        ("memory", "remove", "Benutzer"),
        ("memory", "replace", "Benutzer", "User likes cheese"),
    ],
)
def test_an_edit_of_a_file_that_is_not_utf8_is_refused_and_the_bytes_are_kept(run_hermes, hermes_home, argv):
    memory_file = hermes_home / "memories" / "MEMORY.md"
    memory_file.parent.mkdir(parents=True)
    memory_file.write_bytes(LATIN1)
    result = run_hermes(*argv)
    assert result.exit_code == 1
    assert str(memory_file) in result.stderr and "0xe4" in result.stderr and "iconv" in result.stderr
    assert "Traceback" not in result.stderr
    assert memory_file.read_bytes() == LATIN1


def test_the_refusal_is_json_with_json(run_hermes, hermes_home):
    memory_file = hermes_home / "memories" / "MEMORY.md"
    memory_file.parent.mkdir(parents=True)
    memory_file.write_bytes(LATIN1)
    answer = json.loads(run_hermes("memory", "add", "--json", "User likes tea").stdout)
    assert "not UTF-8" in answer["cause"] and "iconv" in answer["fix"]


def test_the_other_file_may_be_edited(run_hermes, hermes_home):
    user_file = hermes_home / "memories" / "USER.md"
    user_file.parent.mkdir(parents=True)
    user_file.write_bytes(LATIN1)
    assert run_hermes("memory", "add", "User likes tea").exit_code == 0
    assert user_file.read_bytes() == LATIN1


def test_a_content_of_dash_is_read_from_standard_input(run_hermes, hermes_home):
    note = "Deploys go out on Thursdays.\nNever on Fridays."
    added = run_hermes("memory", "add", "-", "--json", input=note + "\n")
    assert added.exit_code == 0, added.stderr
    assert added.json()["entries"] == [note]
    replaced = run_hermes("memory", "replace", "Thursdays", "-", input="Deploys go out on Tuesdays.\n")
    assert replaced.exit_code == 0, replaced.stderr
    assert run_hermes("memory", "show", "--target", "memory", "--json").json()["entries"] == ["Deploys go out on Tuesdays."]
    empty = run_hermes("memory", "add", "-", input="")
    assert empty.exit_code == 1 and "standard input" in empty.stderr and " -> " in empty.stderr


def test_a_file_saved_with_a_byte_order_mark_and_crlf_reads_as_its_entries(run_hermes, hermes_home):
    # Notepad's "UTF-8 with BOM": the mark is the encoding's, not the first entry's (kept, the scanner blocked that entry)
    user_file = hermes_home / "memories" / "USER.md"
    user_file.parent.mkdir(parents=True)
    user_file.write_bytes("\ufeffName is Ada\r\n§\r\nPrefers tabs\r\n".encode("utf-8"))

    shown = {block["target"]: block for block in run_hermes("memory", "show", "--json").json()}
    assert shown["user"]["entries"] == ["Name is Ada", "Prefers tabs"]

    assert run_hermes("memory", "add", "--target", "user", "Lives in Lisbon").exit_code == 0
    assert user_file.read_bytes() == "Name is Ada\n§\nPrefers tabs\n§\nLives in Lisbon".encode("utf-8")
