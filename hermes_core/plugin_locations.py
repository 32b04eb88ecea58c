"""Where plugins live on disk, and whether a plugin directory is safe to load from."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from hermes_core.plugin_candidate import BUNDLED_PACKAGE

# Trees a plugin may carry that are not plugin code; walking them would only cost time.
_SKIPPED_DIRS = frozenset({".git", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".mypy_cache"})


# --- locations ---------------------------------------------------------------


def bundled_plugins_root(env: Mapping[str, str] | None = None) -> Path | None:
    """Return the directory of bundled plugins, from the wheel or from a source checkout."""
    env = os.environ if env is None else env
    override = env.get("HERMES_BUNDLED_PLUGINS")
    if override:
        return Path(override).expanduser()
    import importlib.util

    # find_spec on a top-level name locates the package without running its code.
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    checkout = Path(__file__).resolve().parent.parent / "plugins"
    return checkout if checkout.is_dir() else None


def user_plugins_root(home: Path) -> Path:
    return home / "plugins"


def project_plugins_root(cwd: Path) -> Path:
    return cwd / ".hermes" / "plugins"


def locate_module_dir(module: str) -> Path | None:
    """Return the directory of package ``module`` without importing it (``None`` for plain modules).

    Only the top-level name is resolved through the import system, which finds a
    package without executing it; the rest of the dotted path is joined on disk.
    """
    import importlib.util

    top, _, rest = module.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        candidate = Path(base, *rest.split(".")) if rest else Path(base)
        if (candidate / "__init__.py").is_file():
            return candidate
    return None


# --- path safety ---------------------------------------------------------------


def check_path_safety(root: Path, *, check_owner: bool) -> list[tuple[str, str]]:
    """Return (cause, fix) pairs for files escaping ``root`` or an unsafe directory.

    :param check_owner: also refuse a world-writable directory or one owned by another
        user; applies to directories users and projects control, not to the wheel.
    """
    found: list[tuple[str, str]] = []
    try:
        real_root = root.resolve(strict=True)
    except OSError as exc:
        return [(f"the plugin directory cannot be resolved ({exc.strerror})", "remove the broken link or directory")]
    if check_owner:
        info = real_root.stat()
        if info.st_mode & stat.S_IWOTH:
            found.append(
                (
                    f"the directory {real_root} is world-writable, so any user could change the code hermes runs",
                    f"run 'chmod o-w {real_root}'",
                )
            )
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            found.append(
                (
                    f"the directory {real_root} is owned by uid {info.st_uid}, not by the user running hermes (uid {os.geteuid()})",
                    f"run 'chown -R {os.geteuid()} {real_root}' if you trust it, or remove it",
                )
            )
    for dirpath, dirnames, filenames in os.walk(real_root):
        dirnames[:] = [d for d in dirnames if d not in _SKIPPED_DIRS]
        for entry in (*dirnames, *filenames):
            full = Path(dirpath, entry)
            if not full.is_symlink():
                continue
            target = full.resolve()
            if target != real_root and real_root not in target.parents:
                found.append(
                    (
                        f"{full.relative_to(real_root)} is a symlink to {target}, outside the plugin directory",
                        "copy the file into the plugin instead of linking it",
                    )
                )
    return found


def read_init_text(directory: Path | None) -> str:
    """The head of a plugin directory's ``__init__.py`` (enough to tell its kind), or ``""``."""
    if directory is None or not (directory / "__init__.py").is_file():  # a FIFO would block the open below forever
        return ""
    try:
        with open(directory / "__init__.py", encoding="utf-8", errors="replace") as handle:
            return handle.read(8192)
    except OSError:
        return ""
