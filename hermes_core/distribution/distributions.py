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


@dataclass(frozen=True)
class FoundModule:
    """Where an installed module is: its package directory, or ``None`` for a plain module."""

    directory: Path | None


# Run by the target interpreter, so .pth files and the finders of editable installs
# (pip install -e) are active, as they are when hermes starts. Only the top-level name
# goes through find_spec (which imports nothing for it); submodules are looked up in
# their parent's search path without importing the parent, so no plugin code runs.
_FIND_MODULE = """
import importlib.machinery, importlib.util, json, sys
sys.path[:] = [p for p in sys.path if p]  # '-c' put the working directory ('') first; only installed modules count
parts = sys.argv[1].split(".")
try:
    spec = importlib.util.find_spec(parts[0])
    for depth in range(2, len(parts) + 1):
        if spec is None or spec.submodule_search_locations is None:
            spec = None
            break
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:depth]), list(spec.submodule_search_locations))
except (ImportError, ValueError):
    spec = None
if spec is None:
    print("null")
else:
    print(json.dumps({"origin": spec.origin, "package": spec.submodule_search_locations is not None}))
"""


def find_module(module: str, dirs: Iterable[Path], *, python: str | None = None) -> FoundModule | None:
    """Where ``module`` is installed for ``python`` (default: this interpreter), or ``None``.

    Files in ``dirs`` (site-packages) answer most cases without a subprocess; editable
    installs keep their code elsewhere and are found by asking the interpreter itself.
    """
    import json
    import subprocess
    import sys

    dirs = list(dirs)
    if module_exists(module, dirs):
        return FoundModule(module_location(module, dirs))
    result = subprocess.run(
        [python or sys.executable, "-c", _FIND_MODULE, module],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        found = json.loads(result.stdout) if result.returncode == 0 else None
    except ValueError:
        found = None
    if not isinstance(found, dict):
        return None
    origin = found.get("origin")
    if found.get("package") and isinstance(origin, str) and Path(origin).name == "__init__.py":
        return FoundModule(Path(origin).parent)
    return FoundModule(None)
