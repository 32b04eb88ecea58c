"""MEMORY.md or USER.md that is no regular file to read (a FIFO, a link to a device) or is far too large:
refused at once with the fix, where reading it used to block forever or never end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_plugins_builtin.memory.store import MAX_FILE_BYTES


def _hermes(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    # a process of its own with a bound: the failure this guards against is a read that never returns
    env = {**os.environ, "HERMES_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "hermes_core", *argv], capture_output=True, text=True, env=env, timeout=120, check=False)


@pytest.mark.parametrize(("make", "what"), [
    (lambda path: os.mkfifo(path), "a FIFO, not a regular file"),
    (lambda path: path.symlink_to("/dev/zero"), "a device or socket, not a regular file"),
])
@pytest.mark.parametrize("argv", [("memory", "show", "--json"), ("memory", "status", "--json"), ("memory", "add", "--json", "Likes tea")])
def test_a_memory_file_that_cannot_be_read_through_is_refused_naming_it(hermes_home, make, what, argv):
    memory_file = hermes_home / "memories" / "MEMORY.md"
    memory_file.parent.mkdir()
    make(memory_file)
    result = _hermes(hermes_home, *argv)
    assert result.returncode == 1
    answer = json.loads(result.stdout)
    assert answer["cause"] == f"{memory_file}: cannot read it ({what})"
    assert answer["fix"].startswith(f"move it aside (mv '{memory_file}' '{memory_file}.bak')")
    assert "Traceback" not in result.stderr


def test_a_file_far_larger_than_any_memory_file_is_refused_and_kept(run_hermes, hermes_home):
    user_file = hermes_home / "memories" / "USER.md"
    user_file.parent.mkdir()
    with open(user_file, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk space used
    result = run_hermes("memory", "add", "--target", "user", "Likes tea")
    assert result.exit_code == 1
    assert f"{user_file}: cannot read it ({MAX_FILE_BYTES + 1:,} bytes, where a memory file holds a few thousand characters)" in result.stderr
    assert user_file.stat().st_size == MAX_FILE_BYTES + 1


def test_a_file_over_its_limit_but_of_a_plausible_size_is_still_read(run_hermes, hermes_home):
    memory_file = hermes_home / "memories" / "MEMORY.md"
    memory_file.parent.mkdir()
    memory_file.write_text("Builds with make -j4\n§\n" + "x" * 5000, encoding="utf-8")
    shown = {block["target"]: block for block in run_hermes("memory", "show", "--json").json()}
    assert shown["memory"]["entries"][0] == "Builds with make -j4"
