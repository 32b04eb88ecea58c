"""A memory file that cannot be read or written: the tool answers a clear error, raises nothing, logs no traceback."""

from __future__ import annotations

import logging
from pathlib import Path

from hermes_plugins_builtin.memory.store import MemoryFileError, file_error


def test_a_directory_in_place_of_user_md_is_answered_not_raised(provider, tool, hermes_home, caplog):
    user_md = hermes_home / "memories" / "USER.md"
    user_md.mkdir(parents=True)
    with caplog.at_level(logging.DEBUG, logger="hermes.memory.builtin"):
        answer = tool(action="add", target="user", content="Name is Ada")
    assert answer["success"] is False and "current_entries" not in answer
    assert answer["error"].startswith(f"{user_md}: cannot read it (Is a directory) -> move the directory aside")
    assert not [r for r in caplog.records if r.exc_info]


def test_a_file_in_place_of_the_memories_directory_names_the_fix(provider, tool, hermes_home):
    (hermes_home / "memories").write_text("not a directory")
    answer = tool(action="add", content="Build with make -j4")
    assert answer["success"] is False and "must be a directory" in answer["error"]


def test_live_state_raises_the_same_clear_error(provider, hermes_home):
    (hermes_home / "memories" / "MEMORY.md").mkdir(parents=True)
    try:
        provider.live_state("memory")
    except MemoryFileError as exc:
        assert "MEMORY.md: cannot read it (Is a directory)" in exc.message
    else:
        raise AssertionError("live_state read a directory")


def test_permission_errors_name_the_file_and_the_chmod_to_run(tmp_path: Path):
    path = tmp_path / "memories" / "USER.md"
    error = file_error(path, PermissionError(13, "Permission denied", str(path)), "read it")
    assert error.message == (
        f"{path}: cannot read it (Permission denied) -> give your user access: chmod u+rw '{path}' and chmod u+rwx '{path.parent}'"
    )
