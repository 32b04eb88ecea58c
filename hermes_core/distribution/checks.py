"""The checks an install must pass: plugin names that stay inside the plugins dir, and valid manifests.

Manifests are checked by :func:`hermes_core.validate.validate_path`, the validator of
``hermes plugins validate``, so an install accepts exactly what validation accepts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hermes_core._version import __version__
from hermes_core.discovery import MEMORY_ENTRY_POINT_GROUP, read_directory_plugin
from hermes_core.distribution.distributions import InstalledDist, find_module
from hermes_core.distribution.errors import InstallError
from hermes_core.manifest import PluginProblem, RequiredEnv, find_manifest_file
from hermes_core.validate import ValidationReport, code_warnings, validate_path

_NAME_FIX = "set 'name' in plugin.yaml to a plain name of letters, digits, '_', '.' and '-'"
# As much of __init__.py as the host reads to detect a plugin's kind (see manifest.detect_kind).
_INIT_SCAN_CHARS = 8192


@dataclass
class PluginInfo:
    """One plugin an install provides, as its manifest describes it."""

    key: str
    name: str
    kind: str
    version: str
    requires_env: list[RequiredEnv] = field(default_factory=list)
    optional_env: list[RequiredEnv] = field(default_factory=list)
    #: The plugin's own directory (a directory plugin, or the package of an entry point).
    directory: Path | None = None
    warnings: list[str] = field(default_factory=list)
    #: Its ``__init__.py`` registers a context engine, which ``context.engine`` turns on.
    context_engine: bool = False

    @property
    def selected_by(self) -> str:
        """The config key that turns the plugin on instead of ``plugins.enabled`` (``""`` if none)."""
        if self.kind == "exclusive":
            return "memory.provider"
        return "context.engine" if self.context_engine else ""

    @property
    def turn_on_command(self) -> str:
        from hermes_core.plugin_candidate import command_word

        if self.selected_by == "memory.provider":  # checks the provider's settings and availability, then selects it
            return f"hermes memory setup {command_word(self.name)}"
        if self.selected_by:
            return f"hermes config set {self.selected_by} {command_word(self.name)}"
        return f"hermes plugins enable {command_word(self.key)}"


def registers_context_engine(directory: Path | None) -> bool:
    """Whether the plugin's ``__init__.py`` registers a context engine (read as text, never imported).

    The manifest has no field for it (a context engine is a ``standalone`` plugin), so this
    reads the code the way the host detects memory providers without a ``kind``.
    """
    if directory is None:
        return False
    try:
        with open(directory / "__init__.py", encoding="utf-8", errors="replace") as handle:
            return "register_context_engine" in handle.read(_INIT_SCAN_CHARS)
    except OSError:
        return False


def plugin_name_check(name: str, subject: str) -> None:
    """Refuse a plugin name that is not one plain directory name."""
    if (
        not name
        or name in {".", ".."}
        or any(sep in name for sep in ("/", "\\", "\0"))
        or name.startswith(".")
        or os.path.isabs(name)
    ):
        raise InstallError(subject, f"the plugin name {name!r} is not a plain directory name (no '..', path separators or leading '.')", _NAME_FIX)


def plugin_target(plugins_root: Path, name: str, subject: str) -> Path:
    """``plugins_root/name``, refusing names and links that would land anywhere else."""
    plugin_name_check(name, subject)
    root = plugins_root.resolve()
    target = root / name
    resolved = target.resolve()
    if resolved.parent != root:
        raise InstallError(
            subject,
            f"{target} resolves to {resolved}, outside the plugins directory {root}",
            f"remove the link {target} first ('hermes plugins remove {name}' unlinks it and keeps what it points to)",
        )
    return target


def builtin_plugin_keys() -> frozenset[str]:
    """The keys the builtin plugins hold; a plugin of another source with one of them never loads."""
    from hermes_core.config import get_hermes_home
    from hermes_core.discovery import installed_entry_points
    from hermes_core.plugin_candidate import BUILTIN_PACKAGE, DISTRIBUTION_NAME

    return frozenset(
        # no cache: an install that is then refused must leave $HERMES_HOME exactly as it was
        ref.name for ref in installed_entry_points(get_hermes_home(), use_cache=False)
        if ref.distribution.lower().replace("_", "-") == DISTRIBUTION_NAME and ref.module.split(".")[0] == BUILTIN_PACKAGE
    )


def refuse_builtin_key(key: str, subject: str, rename: str) -> None:
    """Refuse a plugin whose key a builtin plugin holds: installed, it would be ignored on every run."""
    if key in builtin_plugin_keys():
        raise InstallError(
            subject,
            f"its plugin key '{key}' is the key of a builtin plugin, which always keeps it, so the plugin would never load",
            f"{rename} (e.g. '{key}_plus') and build it again",
        )


def raise_for_problems(subject: str, problems: list[PluginProblem], where: Path | str) -> None:
    """One error for every manifest problem found: the first in full, the rest counted."""
    if not problems:
        return
    first = problems[0]
    field_name = f"'{first.field}': " if first.field else ""
    more = f" ({len(problems) - 1} more problem(s): run 'hermes plugins validate {where}' to see all)" if len(problems) > 1 else ""
    raise InstallError(subject, f"plugin '{first.plugin}' is invalid: {field_name}{first.cause}{more}", first.fix)


def validate_source(path: Path, subject: str, *, required: bool) -> list[ValidationReport]:
    """Validate a directory, project or wheel before anything is installed from it.

    :param required: a directory plugin must have a manifest; a package may ship none.
    """
    from hermes_core.errors import HermesError

    try:
        reports = validate_path(path)
    except HermesError as exc:
        # validate_path's only error for an existing path is "no plugin.yaml found".
        if required:
            raise InstallError(subject, str(exc).split(" -> ")[0], "add a plugin.yaml (see 'hermes plugins new')") from exc
        return []
    raise_for_problems(subject, [p for r in reports for p in r.problems], path)
    return reports


def read_directory_info(directory: Path, subject: str) -> PluginInfo:
    """Validate a directory plugin and describe it; its warnings are those ``hermes plugins validate`` prints."""
    validate_source(directory, subject, required=True)
    candidate = read_directory_plugin(directory, source="user", running_version=__version__)
    refuse_builtin_key(candidate.name, subject, f"change 'name:' in {find_manifest_file(directory) or directory / 'plugin.yaml'}")
    manifest = candidate.manifest
    return PluginInfo(
        key=candidate.name,
        name=candidate.name,
        kind=candidate.kind,
        version=candidate.version,
        requires_env=list(manifest.requires_env) if manifest else [],
        optional_env=list(manifest.optional_env) if manifest else [],
        directory=directory,
        warnings=[*candidate.warnings, *code_warnings(directory, candidate)],
        context_engine=candidate.kind == "standalone" and registers_context_engine(directory),
    )


def describe_package(dist: InstalledDist, site: list[Path], subject: str) -> list[PluginInfo]:
    """Validate every hermes entry point of an installed distribution and describe its plugins."""
    if not dist.plugins:
        raise InstallError(
            subject,
            f"the distribution '{dist.name}' declares no hermes plugin (no entry point in 'hermes_agent.plugins' or 'hermes_agent.memory_providers')",
            "install hermes plugins only; if the project is yours, add [project.entry-points.\"hermes_agent.plugins\"] to its pyproject.toml",
        )
    infos: list[PluginInfo] = []
    for ep in dist.plugins:
        refuse_builtin_key(ep.name, subject, f"rename the entry point '{ep.name}' in the '{ep.group}' group of {dist.name} (its pyproject.toml)")
        found = find_module(ep.module, site)
        if found is None:
            raise InstallError(
                subject,
                f"the entry point {ep.name} = {ep.value} of '{dist.name}' names the module '{ep.module}', which was not installed",
                "fix the entry point or include the package in the distribution",
            )
        forced = "exclusive" if ep.group == MEMORY_ENTRY_POINT_GROUP else None
        directory = found.directory
        if directory is None or find_manifest_file(directory) is None:
            warning = f"plugin '{ep.name}': no plugin.yaml in {ep.module}; hooks and tools show only after it loads"
            kind = forced or "standalone"
            engine = kind == "standalone" and registers_context_engine(directory)
            infos.append(PluginInfo(ep.name, ep.name, kind, dist.version, directory=directory, warnings=[warning], context_engine=engine))
            continue
        reports = validate_source(directory, subject, required=True)
        candidate = read_directory_plugin(directory, source="entrypoint", running_version=__version__)
        manifest = candidate.manifest
        infos.append(
            PluginInfo(
                key=ep.name,
                name=candidate.name,
                kind=forced or candidate.kind,
                version=candidate.version or dist.version,
                requires_env=list(manifest.requires_env) if manifest else [],
                optional_env=list(manifest.optional_env) if manifest else [],
                directory=directory,
                warnings=[w for r in reports for w in r.warnings],
                context_engine=(forced or candidate.kind) == "standalone" and registers_context_engine(directory),
            )
        )
    return infos
