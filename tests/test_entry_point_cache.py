"""The entry-point cache answers like a scan of the installed distributions, and only when nothing changed."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import pytest

import hermes_core.config  # noqa: F401  (imported before sys.path is narrowed below)
import hermes_core.files  # noqa: F401
from hermes_core.discovery import _scan_entry_points, installed_entry_points
from hermes_core.entry_point_cache import CACHE_FILE_NAME, cached_entry_points

OLD = 1_600_000_000  # a time well outside the "racy" second


def _age(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (OLD, OLD))


def _install(site: Path, package: str, name: str, group: str = "hermes_agent.plugins") -> Path:
    dist = site / f"{package}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{group}]\n{name} = {package}\n")
    _age(dist / "METADATA", dist / "entry_points.txt", dist)
    return dist


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    return site


class Counting:
    """The real scan, counting how often the cache fell back to it."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self):
        self.calls += 1
        importlib.invalidate_caches()
        return _scan_entry_points()


def _names(refs) -> set[str]:
    return {ref.name for ref in refs if ref.distribution.startswith("epc_")}


def test_a_warm_cache_answers_without_scanning_and_sees_an_install_and_a_removal(site: Path, tmp_path: Path) -> None:
    cache, scan = tmp_path / "cache" / CACHE_FILE_NAME, Counting()
    first = _install(site, "epc_one", "one")
    _age(site)
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"one"} and scan.calls == 1
    assert cache.is_file() and oct(cache.stat().st_mode & 0o777) == "0o600"
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"one"} and scan.calls == 1  # from the file

    _install(site, "epc_two", "two")  # pip adds a dist-info folder: the folder's time moves
    os.utime(site, (OLD + 10, OLD + 10))
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"one", "two"} and scan.calls == 2

    for child in first.iterdir():
        child.unlink()
    first.rmdir()
    os.utime(site, (OLD + 20, OLD + 20))
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"two"} and scan.calls == 3


def test_an_entry_points_file_rewritten_in_place_is_seen(site: Path, tmp_path: Path) -> None:
    cache, scan = tmp_path / "cache" / CACHE_FILE_NAME, Counting()
    dist = _install(site, "epc_edit", "before")
    _age(site)
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"before"}
    (dist / "entry_points.txt").write_text("[hermes_agent.plugins]\nafter = epc_edit\n")  # editable reinstall
    os.utime(dist / "entry_points.txt", (OLD + 5, OLD + 5))
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"after"} and scan.calls == 2


def test_a_change_within_the_last_second_is_never_cached(site: Path, tmp_path: Path) -> None:
    cache, scan = tmp_path / "cache" / CACHE_FILE_NAME, Counting()
    _install(site, "epc_fresh", "fresh")  # the site folder's time is "now"
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"fresh"}
    assert not cache.exists()  # a same-tick change could otherwise hide behind an unchanged time
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"fresh"} and scan.calls == 2


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": 1, "paths": "x"}), json.dumps([1, 2]),
                                     json.dumps({"format": 1, "paths": None, "files": [[1]], "refs": 3})])
def test_a_damaged_cache_file_means_a_scan_and_a_new_file(site: Path, tmp_path: Path, content: str) -> None:
    cache, scan = tmp_path / "cache" / CACHE_FILE_NAME, Counting()
    _install(site, "epc_damaged", "damaged")
    _age(site)
    cache.parent.mkdir()
    cache.write_text(content)
    assert _names(cached_entry_points(cache, scan, paths=[str(site)])) == {"damaged"} and scan.calls == 1
    assert json.loads(cache.read_text())["format"] == 1


def test_discovery_uses_the_cache_under_home_unless_parse_caching_is_off(site: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setattr(sys, "path", [str(site)])  # only aged folders: a fresh one is never cached
    _install(site, "epc_home", "homeplug")
    _age(site)
    monkeypatch.setenv("HERMES_NO_PARSE_CACHE", "1")
    assert "homeplug" in {ref.name for ref in installed_entry_points(home)}
    assert not (home / "cache" / CACHE_FILE_NAME).exists()
    monkeypatch.delenv("HERMES_NO_PARSE_CACHE")
    importlib.invalidate_caches()
    assert "homeplug" in {ref.name for ref in installed_entry_points(home)}
    cached = json.loads((home / "cache" / CACHE_FILE_NAME).read_text())
    assert ["hermes_agent.plugins", "homeplug", "epc_home", "epc_home", "1.0"] in cached["refs"]
