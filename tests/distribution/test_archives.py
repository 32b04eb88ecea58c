"""Plugin archives as real zip, wheel and tar files: which members are refused and how the refusal
reads, the size and member limits at their exact boundary, and what extraction gives back."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile

import pytest

from hermes_core.distribution.archives import MAX_UNPACKED_BYTES, check_archive, extract_archive, unsafe_members
from hermes_core.distribution.errors import InstallError

FIX = "rebuild the archive from a clean tree, or install from the project directory instead"


def make_zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    return path


def zip_link(archive: zipfile.ZipFile, name: str, target: bytes) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = 0o120777 << 16  # the symlink file type in the high bits, as Info-ZIP stores it
    archive.writestr(info, target)


def make_tar(path, members, mode="w:gz"):
    """``members``: (name, type, linkname, data or None, mode)."""
    with tarfile.open(path, mode) as archive:
        for name, kind, target, data, file_mode in members:
            info = tarfile.TarInfo(name)
            info.type, info.linkname, info.mode = kind, target, file_mode
            info.size = len(data) if data is not None else 0
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def sparse_tar(path, sizes, *, extra=()):
    """An uncompressed tar of regular members of ``sizes`` bytes of zeros, written sparse (costs no disk)."""
    with open(path, "wb") as file:
        for info in extra:
            file.write(info.tobuf())
        for index, size in enumerate(sizes):
            info = tarfile.TarInfo(f"p/zeros-{index}")
            info.size = size
            file.write(info.tobuf())
            file.seek(file.tell() + -(-size // 512) * 512)  # the data blocks: a hole of zeros
        file.truncate(file.tell() + 1024)  # the two zero blocks that end a tar
    return path


def refused(path) -> str:
    with pytest.raises(InstallError) as raised:
        check_archive(path)
    return str(raised.value)


# -- what is refused -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a/../b", "a/b/../../c", "./a", "a/./b/..", "pkg/sub/../../pkg/x.py", "..a/b", "a..b"])
def test_names_that_climb_but_stay_inside_are_accepted(tmp_path, name):
    assert unsafe_members(make_zip(tmp_path / "ok.zip", [(name, "")])) == []


@pytest.mark.parametrize("name", ["a/../../b", "C:/Windows/x", "c:x", "pkg\\..\\..\\x", "\\\\server\\share\\x", "a/b/../../../c"])
def test_names_that_leave_the_root_or_name_a_drive_are_refused(tmp_path, name):
    assert unsafe_members(make_zip(tmp_path / "bad.zip", [(name, "")])) == [f"'{name}' points outside the archive root"]


def test_tar_members_escaping_by_name_or_symlink_are_named(tmp_path):
    path = make_tar(tmp_path / "t.tar.gz", [
        ("p/a", tarfile.REGTYPE, "", b"x", 0o644),
        ("../evil", tarfile.REGTYPE, "", b"x", 0o644),
        ("p/abs", tarfile.SYMTYPE, "/etc/passwd", None, 0o777),
        ("p/up", tarfile.SYMTYPE, "../../etc", None, 0o777),
        ("p/sub/inner", tarfile.SYMTYPE, "../a", None, 0o777),  # climbs, but stays inside
        ("p/win", tarfile.SYMTYPE, "sub\\inner", None, 0o777),
        ("p/hard", tarfile.LNKTYPE, "p/a", None, 0o644),  # a hard link inside the root is fine
    ])
    assert unsafe_members(path) == [
        "'../evil' points outside the archive root",
        "'p/abs' is a symlink to '/etc/passwd', outside the archive root",
        "'p/up' is a symlink to '../../etc', outside the archive root",
        "'p/win' is a symlink to 'sub\\inner', outside the archive root",
    ]


def test_zip_links_to_absolute_or_backslash_targets_are_refused_and_odd_bytes_are_shown(tmp_path):
    path = tmp_path / "links.zip"
    with zipfile.ZipFile(path, "w") as archive:
        zip_link(archive, "p/abs", b"/etc/shadow")
        zip_link(archive, "p/win", b"a\\b")
        zip_link(archive, "p/ok", b"../p/x")
        zip_link(archive, "p/bytes", b"../../\xff")
    assert unsafe_members(path) == [
        "'p/abs' is a link to '/etc/shadow', outside the archive root",
        "'p/win' is a link to 'a\\b', outside the archive root",
        "'p/bytes' is a link to '../../\ufffd', outside the archive root",
    ]


@pytest.mark.parametrize(("count", "tail"), [(1, ""), (3, ""), (4, "; and 1 more"), (6, "; and 3 more")])
def test_the_refusal_names_the_first_three_unsafe_members_and_counts_the_rest(tmp_path, count, tail):
    path = make_zip(tmp_path / "bad.zip", [("ok/file", "")] + [(f"../m{i}", "") for i in range(count)])
    shown = "; ".join(f"'../m{i}' points outside the archive root" for i in range(min(count, 3)))
    assert refused(path) == f"cannot install '{path}': the archive is unsafe: {shown}{tail} -> {FIX}. Nothing was changed."


def test_an_unreadable_archive_names_the_archive_and_the_fix(tmp_path):
    path = tmp_path / "junk.tar.gz"
    path.write_bytes(b"not an archive")
    message = refused(path)
    assert message.startswith(f"cannot install '{path}': the archive cannot be read (")
    assert message.endswith(") -> download or build it again. Nothing was changed.")


# -- size limits at their boundary -----------------------------------------------------------------


def test_a_tar_unpacking_to_exactly_the_limit_is_accepted_and_one_byte_more_is_refused(tmp_path):
    directory = tarfile.TarInfo("p")
    directory.type = tarfile.DIRTYPE
    at_limit = sparse_tar(tmp_path / "at-limit.tar", [MAX_UNPACKED_BYTES - 1000, 1000], extra=[directory])
    assert unsafe_members(at_limit) == []
    over = sparse_tar(tmp_path / "over.tar", [MAX_UNPACKED_BYTES - 1000, 1001])
    assert refused(over) == (
        f"cannot install '{over}': the archive ({over.stat().st_size:,} bytes) would unpack to 268,435,457 bytes, "
        "more than the 268,435,456 a plugin archive may unpack to -> check what the archive contains, "
        "or install from the project directory instead. Nothing was changed."
    )


def test_the_size_a_link_header_claims_is_not_counted(tmp_path):
    link = tarfile.TarInfo("p/link")
    link.type, link.linkname, link.size = tarfile.SYMTYPE, "zeros-0", MAX_UNPACKED_BYTES  # nothing of that size is unpacked
    assert unsafe_members(sparse_tar(tmp_path / "t.tar", [1000], extra=[link])) == []


def test_too_many_members_are_refused_with_the_count_and_the_fix(tmp_path):
    path = tmp_path / "many.tar"
    with tarfile.open(path, "w") as archive:
        for index in range(20_001):
            archive.addfile(tarfile.TarInfo(f"p/{index}"), io.BytesIO(b""))
    assert refused(path) == (
        f"cannot install '{path}': the archive holds 20,001 members, more than the 20,000 a plugin archive may have "
        "-> check what the archive contains, or install from the project directory instead. Nothing was changed."
    )


# -- extraction ------------------------------------------------------------------------------------


def test_a_tar_plugin_extracts_to_its_top_directory_without_set_uid_bits_or_foreign_owners(tmp_path):
    path = make_tar(tmp_path / "plugin.tar.gz", [
        ("myplug", tarfile.DIRTYPE, "", None, 0o755),
        ("myplug/plugin.yaml", tarfile.REGTYPE, "", b"name: myplug\n", 0o644),
        ("myplug/run.sh", tarfile.REGTYPE, "", b"#!/bin/sh\n", 0o4777),
    ])
    root = extract_archive(path, tmp_path / "out")
    assert root == tmp_path / "out" / "myplug"
    assert (root / "plugin.yaml").read_text() == "name: myplug\n"
    # the "data" filter: no set-uid bit, no group or world write bit
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o755


def test_tar_members_are_not_given_the_owner_recorded_in_the_archive(tmp_path):
    path = tmp_path / "owned.tar"
    with tarfile.open(path, "w") as archive:
        info = tarfile.TarInfo("myplug/plugin.yaml")
        info.size, info.uid, info.gid, info.uname, info.gname = 13, 54321, 54321, "", ""
        archive.addfile(info, io.BytesIO(b"name: myplug\n"))
    root = extract_archive(path, tmp_path / "out")
    owner = (root / "plugin.yaml").stat()
    assert (owner.st_uid, owner.st_gid) == (os.getuid(), os.getgid())


def test_a_wheel_extracts_into_the_destination_with_its_parents_made(tmp_path):
    wheel = make_zip(tmp_path / "memo-1.0-py3-none-any.WHL", [
        ("memo/__init__.py", ""), ("memo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: memo\nVersion: 1.0\n"),
    ])
    dest = tmp_path / "a" / "b" / "out"
    assert extract_archive(wheel, dest) == dest  # two top entries: the destination itself
    assert sorted(p.name for p in dest.iterdir()) == ["memo", "memo-1.0.dist-info"]


@pytest.mark.parametrize(
    ("members", "root"),
    [
        ([("myplug/plugin.yaml", ""), (".hidden", ""), (".git/x", "")], "myplug"),  # dot entries do not count
        ([("plugin.yaml", "name: flat\n")], "."),  # one file: the destination, not the file
        ([("plugin.yaml", ""), ("__init__.py", "")], "."),
        ([("one/plugin.yaml", ""), ("two/plugin.yaml", "")], "."),
    ],
)
def test_the_root_is_the_single_top_directory_or_else_the_destination(tmp_path, members, root):
    dest = tmp_path / "out"
    dest.mkdir()  # an existing destination is fine
    assert extract_archive(make_zip(tmp_path / "p.zip", members), dest) == (dest / root if root != "." else dest)
