"""A memory file that cannot be read or written: the tool answers a clear error, raises nothing, logs no traceback."""

from __future__ import annotations

import locale
import logging
import os
import resource
import signal
import stat
from pathlib import Path

import pytest

from hermes_plugins_builtin.memory.store import MemoryFile, MemoryFileError, file_error


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
        assert str(exc) == exc.message  # what `hermes memory show` prints as its one line
    else:
        raise AssertionError("live_state read a directory")


def test_permission_errors_name_the_file_and_the_chmod_to_run(tmp_path: Path):
    path = tmp_path / "memories" / "USER.md"
    error = file_error(path, PermissionError(13, "Permission denied", str(path)), "read it")
    assert error.message == (
        f"{path}: cannot read it (Permission denied) -> give your user access: chmod u+rw '{path}' and chmod u+rwx '{path.parent}'"
    )


def test_an_error_without_an_os_message_names_the_exception_type(tmp_path: Path):
    path = tmp_path / "MEMORY.md"
    assert file_error(path, OSError(), "read it").message == (
        f"{path}: cannot read it (OSError) -> check the file and its disk (free space, mount), then try again"
    )


def test_a_directory_in_place_of_the_lock_file_is_named(tool, hermes_home):
    lock = hermes_home / "memories" / "MEMORY.md.lock"
    lock.mkdir(parents=True)
    answer = tool(action="add", content="Build with make -j4")
    assert answer["error"] == (
        f"{lock}: cannot create this lock file (Is a directory) -> move the directory aside (mv '{lock}' '{lock}.bak'); "
        "the file is created again by the next write"
    )
    assert answer["current_entries"] == [] and not (hermes_home / "memories" / "MEMORY.md").exists()


def test_a_dangling_link_in_place_of_the_memories_directory_names_the_fix(tool, hermes_home, tmp_path):
    memories = hermes_home / "memories"
    memories.symlink_to(tmp_path / "unmounted" / "memories")  # e.g. a synced folder that is not there today
    answer = tool(action="add", content="Build with make -j4")
    assert answer["error"] == (
        f"{memories / 'MEMORY.md'}: cannot create its directory (File exists) -> '{memories}' must be a directory: "
        "move the file of that name aside"
    )
    assert not (tmp_path / "unmounted").exists()


def test_a_leftover_that_cannot_be_removed_is_named_itself(tool, hermes_home):
    tool(action="add", content="kept fact")
    leftover = hermes_home / "memories" / ".MEMORY.md.k1ll3d.tmp"
    leftover.mkdir()  # a directory where a killed writer's temp file would be
    answer = tool(action="add", content="new fact")
    assert answer["error"] == (
        f"{leftover}: cannot remove this leftover of an interrupted write (Is a directory) -> move the directory aside "
        f"(mv '{leftover}' '{leftover}.bak'); the file is created again by the next write"
    )
    assert answer["current_entries"] == ["kept fact"]


def test_a_full_disk_mid_write_keeps_the_old_file_and_says_so(tool, hermes_home):
    tool(action="add", content="kept fact")
    memory_md = hermes_home / "memories" / "MEMORY.md"
    # RLIMIT_FSIZE makes the kernel refuse writes past a size (EFBIG), as a full disk refuses them
    # (ENOSPC): a real failed write(2) half-way through the temp file, for this process only.
    old_limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel's signal ends the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, old_limits[1]))
    try:
        answer = tool(action="add", content="x" * 500)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limits)
        signal.signal(signal.SIGXFSZ, old_handler)
    assert answer["error"] == (
        f"{memory_md}: cannot write it (File too large) -> check the file and its disk (free space, mount), then try again"
    )
    assert memory_md.read_text(encoding="utf-8") == "kept fact"
    assert sorted(p.name for p in memory_md.parent.iterdir()) == ["MEMORY.md", "MEMORY.md.lock"]


def test_the_lock_file_is_private_whatever_the_umask(tool, hermes_home):
    old_umask = os.umask(0o022)
    try:
        tool(action="add", content="fact")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((hermes_home / "memories" / "MEMORY.md.lock").stat().st_mode) == 0o600


def test_a_damaged_byte_reads_as_a_replacement_character_not_an_error(tmp_path: Path):
    path = tmp_path / "MEMORY.md"
    path.write_bytes("caf\u00e9 \u2615\n\u00a7\nbad \xff byte".encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    assert MemoryFile(path).read() == ["caf\u00e9 \u2615", "bad \ufffd byte"]


def test_an_edit_of_a_file_that_is_not_utf8_is_refused_and_the_file_kept(tool, hermes_home):
    # the agent's own writes, not only the CLI's: rewriting would turn the bad bytes into U+FFFD for good
    path = hermes_home / "memories" / "MEMORY.md"
    path.parent.mkdir(parents=True)
    original = "Caf\u00e9 opens at 8".encode("latin-1") + b"\n\xa7\nBuild with make -j4"
    path.write_bytes(original)
    answer = tool(action="add", content="Deploys on Fridays are frozen")
    assert answer["success"] is False
    assert answer["error"].startswith(f"{path}: cannot edit it (not UTF-8 text: byte 0xe9 at offset 3;")
    assert "convert it to UTF-8" in answer["error"]
    assert path.read_bytes() == original


@pytest.mark.skipif(os.name != "posix", reason="the C locale is a POSIX notion")
def test_notes_read_as_utf8_under_a_c_locale(tmp_path: Path):
    path = tmp_path / "USER.md"
    path.write_text("Name is Zo\u00eb \u2014 likes \u2615", encoding="utf-8")
    # a server or a container often runs with LANG=C; the files are UTF-8 whatever the locale says
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        entries = MemoryFile(path).read()
    finally:
        locale.setlocale(locale.LC_CTYPE, old)
    assert entries == ["Name is Zo\u00eb \u2014 likes \u2615"]
