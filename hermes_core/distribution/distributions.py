"""Installed distributions read straight from their ``.dist-info`` directories (no import caches)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hermes_core.discovery import ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP
from hermes_core.distribution.specs import canonical_name

HERMES_GROUPS: tuple[str, ...] = (ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP)


@dataclass(frozen=True)
class PluginEntryPoint:
    group: str
    name: str
    value: str

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()


@dataclass(frozen=True)
class InstalledDist:
    """One installed distribution and the hermes plugins it declares."""

    name: str
    version: str
    dist_info: Path
    plugins: tuple[PluginEntryPoint, ...] = field(default=())
    requires: tuple[str, ...] = field(default=())

    @property
    def key(self) -> str:
        return canonical_name(self.name)


def read_dist_info(path: Path) -> InstalledDist | None:
    """Read a ``*.dist-info`` directory; ``None`` if it is not a readable distribution."""
    from importlib.metadata import Distribution

    dist = Distribution.at(path)
    metadata = dist.metadata
    name = metadata["Name"] if metadata is not None else None
    if not name:
        return None
    plugins = tuple(PluginEntryPoint(ep.group, ep.name, ep.value) for ep in dist.entry_points if ep.group in HERMES_GROUPS)
    return InstalledDist(name, dist.version or "", path, plugins, tuple(dist.requires or ()))


def dist_infos(dirs: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for directory in dirs:
        try:
            found += sorted(p for p in directory.iterdir() if p.name.endswith(".dist-info") and p.is_dir())
        except OSError:
            continue
    return found


def find_installed(name: str, dirs: Iterable[Path]) -> InstalledDist | None:
    """The distribution ``name`` (any spelling) installed in ``dirs``, if any."""
    wanted = canonical_name(name)
    for path in dist_infos(dirs):
        # The directory name starts with the (escaped) name, so most are skipped unread.
        if canonical_name(path.name[: -len(".dist-info")].rsplit("-", 1)[0]) != wanted:
            continue
        dist = read_dist_info(path)
        if dist is not None and dist.key == wanted:
            return dist
    return None


def changed_dists(changed_paths: Iterable[Path]) -> list[InstalledDist]:
    """The distributions whose ``.dist-info`` is among ``changed_paths`` (new, or rewritten)."""
    result = []
    for path in changed_paths:
        if path.name.endswith(".dist-info") and path.is_dir():
            dist = read_dist_info(path)
            if dist is not None:
                result.append(dist)
    return result


def module_location(module: str, dirs: Iterable[Path]) -> Path | None:
    """The package directory of ``module`` (``a.b`` -> ``<site>/a/b``) in ``dirs``; a plain module gives ``None``."""
    parts = module.split(".")
    for directory in dirs:
        candidate = directory.joinpath(*parts)
        if (candidate / "__init__.py").is_file():
            return candidate
    return None


def module_exists(module: str, dirs: Iterable[Path]) -> bool:
    parts = module.split(".")
    for directory in dirs:
        base = directory.joinpath(*parts)
        if (base / "__init__.py").is_file() or base.with_suffix(".py").is_file() or base.is_dir():
            return True
    return False
