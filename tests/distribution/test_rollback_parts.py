"""The parts rollback rests on: site snapshots, archive checks, plugin names, staged directories."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile

import pytest

from distribution_support import tree_state
from hermes_core.distribution.archives import check_archive, extract_archive, unsafe_members
from hermes_core.distribution.checks import plugin_target
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.site_snapshot import SiteSnapshot


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site-packages"
    (root / "old_pkg").mkdir(parents=True)
    (root / "old_pkg" / "__init__.py").write_text("VERSION = 1\n")
    (root / "old_pkg-1.0.dist-info").mkdir()
    (root / "old_pkg-1.0.dist-info" / "RECORD").write_text("old_pkg/__init__.py,,\n")
    (root / "keep.pth").write_text("/somewhere\n")
    os.symlink("old_pkg", root / "alias")
    return root


def _replace_like_pip(path, text):
    # pip removes a file before writing its replacement; it never writes into it.
    path.unlink()
    path.write_text(text)


def test_restore_undoes_added_replaced_and_removed_files_exactly(site):
    before = tree_state(site)
    snapshot = SiteSnapshot.capture([site])
    _replace_like_pip(site / "old_pkg" / "__init__.py", "VERSION = 2\n")
    os.rename(site / "old_pkg-1.0.dist-info", site / "old_pkg-2.0.dist-info")
    (site / "new_pkg").mkdir()
    (site / "new_pkg" / "__init__.py").write_text("")
    (site / "keep.pth").unlink()
    (site / "alias").unlink()
    os.symlink("new_pkg", site / "alias")
    assert {p.name for p in snapshot.changed()} == {"old_pkg", "old_pkg-1.0.dist-info", "old_pkg-2.0.dist-info", "new_pkg", "keep.pth", "alias"}
    snapshot.restore()
    assert tree_state(site) == before
    assert not [p for p in site.parent.iterdir() if p.name.startswith(".hermes-rollback-")]


def test_discard_keeps_the_new_state_and_removes_the_stash(site):
    snapshot = SiteSnapshot.capture([site])
    (site / "new.py").write_text("")
    after = tree_state(site)
    snapshot.discard()
    assert tree_state(site) == after
    assert not [p for p in site.parent.iterdir() if p.name.startswith(".hermes-rollback-")]


def _zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    return path


def test_zip_members_escaping_the_root_are_named(tmp_path):
    bad = _zip(tmp_path / "bad-1.0-py3-none-any.whl", [("pkg/__init__.py", ""), ("../outside.py", ""), ("/abs.py", ""), ("pkg/../../x", "")])
    assert unsafe_members(bad) == [
        "'../outside.py' points outside the archive root",
        "'/abs.py' points outside the archive root",
        "'pkg/../../x' points outside the archive root",
    ]
    with pytest.raises(InstallError, match="the archive is unsafe: '../outside.py' points outside"):
        check_archive(bad)


def test_a_zip_symlink_escaping_the_root_is_refused(tmp_path):
    path = tmp_path / "link.zip"
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("pkg/secret")
        info.external_attr = 0o120777 << 16
        archive.writestr(info, "../../etc/shadow")
    assert unsafe_members(path) == ["'pkg/secret' is a link to '../../etc/shadow', outside the archive root"]


def test_a_tar_hard_link_and_device_are_refused_but_inner_links_are_fine(tmp_path):
    path = tmp_path / "t.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, kind, target in [("p/a", tarfile.REGTYPE, ""), ("p/b", tarfile.SYMTYPE, "a"), ("p/c", tarfile.LNKTYPE, "../x"), ("p/d", tarfile.CHRTYPE, "")]:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, target
            archive.addfile(info, io.BytesIO(b"") if kind == tarfile.REGTYPE else None)
    assert unsafe_members(path) == ["'p/c' is a hard link to '../x', outside the archive root", "'p/d' is a device or special file"]


def test_a_safe_archive_extracts_to_its_single_top_directory(tmp_path):
    path = _zip(tmp_path / "plugin.zip", [("myplug/plugin.yaml", "name: myplug\n"), ("myplug/__init__.py", "")])
    root = extract_archive(path, tmp_path / "out")
    assert root == tmp_path / "out" / "myplug" and (root / "plugin.yaml").read_text() == "name: myplug\n"


def test_an_unreadable_archive_is_reported(tmp_path):
    path = tmp_path / "junk.tar.gz"
    path.write_bytes(b"not an archive")
    with pytest.raises(InstallError, match="the archive cannot be read"):
        check_archive(path)


@pytest.mark.parametrize("name", ["", ".", "..", "../x", "a/b", "a\\b", ".hidden", "/etc"])
def test_plugin_names_that_are_not_plain_directory_names_are_refused(tmp_path, name):
    with pytest.raises(InstallError, match="is not a plain directory name"):
        plugin_target(tmp_path / "plugins", name, "cannot install 'x'")


def test_a_plain_name_stays_inside_the_plugins_directory(tmp_path):
    assert plugin_target(tmp_path / "plugins", "ok.name-1", "s") == (tmp_path / "plugins").resolve() / "ok.name-1"


def test_a_root_pip_creates_is_removed_again(tmp_path):
    user_site = tmp_path / "user" / "site-packages"
    snapshot = SiteSnapshot.capture([user_site])
    (user_site / "pkg").mkdir(parents=True)
    (user_site / "pkg" / "__init__.py").write_text("")
    assert snapshot.changed() == [user_site / "pkg"]
    snapshot.restore()
    assert not user_site.exists()


def test_a_zip_bomb_is_refused_with_the_figures_before_anything_is_unpacked(tmp_path, run_hermes, hermes_home):
    # 300 MB of zeros compresses to about 300 KB
    path = tmp_path / "bomb.zip"
    chunk = b"\0" * (1 << 20)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb/plugin.yaml", "name: bomb\n")
        with archive.open("bomb/zeros.bin", "w", force_zip64=True) as member:
            for _ in range(300):
                member.write(chunk)
    assert path.stat().st_size < 1 << 20
    with pytest.raises(InstallError, match=r"would unpack to 314,572,8\d\d bytes, more than the 268,435,456"):
        check_archive(path)
    result = run_hermes("plugins", "install", str(path), "--no-input")
    assert result.exit_code == 1 and "would unpack to 314,572," in result.stderr
    assert not (hermes_home / "plugins" / "bomb").exists()


def test_an_archive_of_too_many_members_is_refused_with_the_count(tmp_path):
    path = tmp_path / "many.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for index in range(20_001):
            archive.addfile(tarfile.TarInfo(f"p/{index}"), io.BytesIO(b""))
    with pytest.raises(InstallError, match="holds 20,001 members, more than the 20,000"):
        check_archive(path)
