"""Wheels, sdists and plugin archives: refuse members that escape the root, then extract safely."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from hermes_core.distribution.errors import InstallError

_FIX = "rebuild the archive from a clean tree, or install from the project directory instead"
#: Unpacked size and member count an archive may have: a plugin is code and a few data files, and a
#: small archive that unpacks to gigabytes (a "zip bomb") must be refused before it fills the disk.
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
MAX_MEMBERS = 20_000


def _check_totals(archive: Path, members: int, unpacked: int) -> None:
    if members > MAX_MEMBERS:
        raise InstallError(
            f"cannot install '{archive}'",
            f"the archive holds {members:,} members, more than the {MAX_MEMBERS:,} a plugin archive may have",
            "check what the archive contains, or install from the project directory instead",
        )
    if unpacked > MAX_UNPACKED_BYTES:
        raise InstallError(
            f"cannot install '{archive}'",
            f"the archive ({archive.stat().st_size:,} bytes) would unpack to {unpacked:,} bytes, "
            f"more than the {MAX_UNPACKED_BYTES:,} a plugin archive may unpack to",
            "check what the archive contains, or install from the project directory instead",
        )


def _escapes(name: str) -> bool:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or (path.parts and ":" in path.parts[0]):
        return True
    depth = 0
    for part in path.parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return True
    return False


def _link_escapes(member_name: str, target: str) -> bool:
    """Whether a link stored at ``member_name`` pointing at ``target`` leaves the archive root."""
    if target.startswith("/") or "\\" in target:
        return True
    parent = PurePosixPath(member_name).parent
    return _escapes(str(parent / target))


def unsafe_members(archive: Path) -> list[str]:
    """Describe every member of ``archive`` that could write or point outside the extraction root."""
    found: list[str] = []
    name = archive.name.lower()
    try:
        if name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as zipped:
                infos = zipped.infolist()
                # zipfile never reads past a member's declared size, so the declared sizes bound the unpacking
                _check_totals(archive, len(infos), sum(info.file_size for info in infos))
                for info in infos:
                    if _escapes(info.filename):
                        found.append(f"'{info.filename}' points outside the archive root")
                    # A zip entry with the symlink file type (0o120000 in the high bits).
                    elif (info.external_attr >> 16) & 0o170000 == 0o120000:
                        target = zipped.read(info).decode("utf-8", "replace")
                        if _link_escapes(info.filename, target):
                            found.append(f"'{info.filename}' is a link to '{target}', outside the archive root")
        else:
            with tarfile.open(archive) as tarred:
                members = []
                unpacked = 0
                for member in tarred:  # counted while reading, so a tar of a million headers stops early
                    members.append(member)
                    unpacked += member.size if member.isfile() else 0
                    _check_totals(archive, len(members), unpacked)
                for member in members:
                    if _escapes(member.name):
                        found.append(f"'{member.name}' points outside the archive root")
                    elif member.issym() and _link_escapes(member.name, member.linkname):
                        found.append(f"'{member.name}' is a symlink to '{member.linkname}', outside the archive root")
                    elif member.islnk() and _escapes(member.linkname):
                        found.append(f"'{member.name}' is a hard link to '{member.linkname}', outside the archive root")
                    elif not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
                        found.append(f"'{member.name}' is a device or special file")
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InstallError(f"cannot install '{archive}'", f"the archive cannot be read ({exc})", "download or build it again") from exc
    return found


def check_archive(archive: Path) -> None:
    """Raise :class:`InstallError` naming the unsafe members of ``archive``, if any."""
    found = unsafe_members(archive)
    if found:
        shown = "; ".join(found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
        raise InstallError(f"cannot install '{archive}'", f"the archive is unsafe: {shown}", _FIX)


def extract_archive(archive: Path, dest: Path) -> Path:
    """Extract a checked archive into ``dest``; return its root (the single top directory, if any)."""
    check_archive(archive)
    dest.mkdir(parents=True, exist_ok=True)
    if archive.name.lower().endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(dest)
    else:
        with tarfile.open(archive) as tarred:
            # The "data" filter refuses what check_archive refused, and also drops
            # set-uid bits and ownership; it is the second line of defence.
            tarred.extractall(dest, filter="data")
    entries = [p for p in dest.iterdir() if not p.name.startswith(".")]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else dest
