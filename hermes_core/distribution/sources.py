"""Bring a SPEC's files to the machine and say how they install: as a package (pip) or a directory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hermes_core.discovery import check_path_safety
from hermes_core.distribution import git_source
from hermes_core.distribution.archives import check_archive, extract_archive
from hermes_core.distribution.console import Console
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.specs import DIRECTORY_PLUGIN_FILES, PluginSpec, canonical_name, installs_as_package

Layout = Literal["package", "directory"]


@dataclass(frozen=True)
class Fetched:
    """A SPEC made local: what pip installs (a requirement or a path), or the directory to copy."""

    spec: PluginSpec
    layout: Layout
    #: A requirement string, or a local path (wheel, project directory, plugin directory).
    target: str
    #: The distribution name, when it can be known before pip runs.
    distribution: str = ""
    commit: str = ""
    #: The directory is a git work tree whose .git is kept (updates pull into it).
    keeps_git: bool = False


def subject(spec: PluginSpec) -> str:
    return f"cannot install '{spec.text}'"


def _layout_of(directory: Path, spec: PluginSpec) -> Layout:
    if installs_as_package(directory):
        return "package"
    if any((directory / f).is_file() for f in DIRECTORY_PLUGIN_FILES):
        return "directory"
    raise InstallError(
        subject(spec),
        f"{directory} holds neither a Python project (pyproject.toml, setup.py) nor a plugin (plugin.yaml, __init__.py)",
        "point at the plugin's own directory, or add '#subdir' to the SPEC",
    )


def project_name(directory: Path) -> str:
    """The ``[project] name`` of a pyproject.toml, if it declares one statically."""
    import tomllib

    try:
        data = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    name = data.get("project", {}).get("name")
    return canonical_name(name) if isinstance(name, str) else ""


def _refuse_escaping_links(tree: Path, spec: PluginSpec) -> None:
    # Files from elsewhere decide what gets built and copied; a link out of the
    # tree could pull any file of this machine into the plugin.
    found = check_path_safety(tree, check_owner=False)
    if found:
        cause, fix = found[0]
        raise InstallError(subject(spec), f"unsafe source: {cause}", fix)


def fetch(spec: PluginSpec, workdir: Path, console: Console, *, commit: str = "") -> Fetched:
    """Make ``spec`` local under ``workdir`` (a temporary directory the caller removes)."""
    if spec.kind == "requirement":
        return Fetched(spec, "package", spec.location, spec.distribution)
    if spec.kind == "wheel":
        check_archive(Path(spec.location))
        return Fetched(spec, "package", spec.location, spec.distribution)
    if spec.kind == "project":
        return Fetched(spec, "package", spec.location, project_name(Path(spec.location)))
    if spec.kind == "directory":
        return Fetched(spec, "directory", spec.location)
    if spec.kind == "archive":
        console.step(f"unpacking {Path(spec.location).name}")
        root = extract_archive(Path(spec.location), workdir / "unpacked")
        _refuse_escaping_links(root, spec)
        layout = _layout_of(root, spec)
        return Fetched(spec, layout, str(root), project_name(root) if layout == "package" else "")
    console.step(f"cloning {spec.location}" + (f" at {commit[:12]}" if commit else f" ({spec.ref})" if spec.ref else ""))
    clone_dir = workdir / "clone"
    head = git_source.clone(spec.location, clone_dir, console, ref=spec.ref, commit=commit)
    tree = clone_dir / spec.subdir if spec.subdir else clone_dir
    if not tree.is_dir():
        raise InstallError(subject(spec), f"the repository has no directory '{spec.subdir}'", "check the path after '#'")
    _refuse_escaping_links(tree, spec)
    layout = _layout_of(tree, spec)
    distribution = project_name(tree) if layout == "package" else ""
    return Fetched(spec, layout, str(tree), distribution, head, keeps_git=layout == "directory" and not spec.subdir)
