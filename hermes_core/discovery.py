"""Find plugins in their sources, read their manifests, check their files; never import them.

Sources, in discovery order (a later source overrides an earlier one on the same
key, and the clash is reported; builtins can never be overridden):

1. builtin   entry points of this distribution pointing into ``hermes_plugins_builtin``
2. bundled   ``plugins/<name>/`` and ``plugins/<category>/<name>/`` shipped in the wheel
3. user      ``$HERMES_HOME/plugins/<name>/`` (and one category level)
4. project   ``./.hermes/plugins/<name>/``, only with ``HERMES_ENABLE_PROJECT_PLUGINS=1``
5. entrypoint  groups ``hermes_agent.plugins`` and ``hermes_agent.memory_providers``
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from hermes_core.manifest import ManifestReport, PluginProblem, build_manifest, find_manifest_file, read_manifest_text
from hermes_core.manifest_cache import ManifestCache, default_cache, manifest_digest

# Re-exported: plugins, the CLI and tests import these names from here.
from hermes_core.plugin_candidate import (
    BUILTIN_PACKAGE,
    BUNDLED_PACKAGE,
    DISTRIBUTION_NAME,
    ENTRY_POINT_GROUP,
    MEMORY_ENTRY_POINT_GROUP,
    SOURCES,
    DiscoveryResult,
    EntryPointRef,
    PluginCandidate,
)
from hermes_core.plugin_locations import (
    bundled_plugins_root,
    check_path_safety,
    locate_module_dir,
    project_plugins_root,
    read_init_text,
    user_plugins_root,
)
from hermes_core.requires_hermes import HERMES, HERMES_AGENT, Audience, audience_of, requirement_as_warning
from hermes_core.tracing import debug_enabled, trace

__all__ = [
    "BUILTIN_PACKAGE",
    "BUNDLED_PACKAGE",
    "DISTRIBUTION_NAME",
    "ENTRY_POINT_GROUP",
    "MEMORY_ENTRY_POINT_GROUP",
    "SOURCES",
    "DiscoveryResult",
    "EntryPointRef",
    "PluginCandidate",
    "bundled_plugins_root",
    "check_path_safety",
    "discover_plugins",
    "locate_module_dir",
    "project_plugins_root",
    "read_directory_plugin",
    "read_entry_point_plugin",
    "rename_hint",
    "resolve_clashes",
    "user_plugins_root",
]


# --- scanning ------------------------------------------------------------------


def _iter_plugin_dirs(root: Path) -> Iterator[tuple[Path, str | None]]:
    """(directory, category) of plugin directories, one category deep at most; hidden ones skipped, '_x' kept."""
    try:
        children = sorted(root.iterdir())
    except OSError:
        return
    for child in children:
        if child.name.startswith(".") or not child.is_dir():
            continue
        if find_manifest_file(child) or (child / "__init__.py").is_file():
            yield child, None
            continue
        try:
            grandchildren = sorted(child.iterdir())
        except OSError:
            continue
        for grandchild in grandchildren:
            if grandchild.name.startswith(".") or not grandchild.is_dir():
                continue
            if find_manifest_file(grandchild) or (grandchild / "__init__.py").is_file():
                yield grandchild, child.name


def _read_manifest(
    text: str,
    *,
    default_name: str,
    source: str,
    path: str,
    key: str | None,
    init_text: str,
    running_version: str,
    cache: ManifestCache | None,
    written_for: Audience = "hermes",
) -> ManifestReport:
    """``read_manifest_text`` through the validation cache, when one is given."""
    digest = manifest_digest(text, init_text, default_name, source, path, key or "", running_version, written_for) if cache is not None else ""
    if cache is not None:
        cached = cache.get(digest)
        if cached is not None:
            return cached
    report = read_manifest_text(
        text,
        default_name=default_name,
        source=source,
        path=path,
        key=key,
        init_text=init_text,
        running_version=running_version,
        written_for=written_for,
    )
    if cache is not None:
        cache.put(digest, report)
    return report


def read_directory_plugin(
    directory: Path,
    *,
    source: str,
    running_version: str,
    category: str | None = None,
    cache: ManifestCache | None = None,
) -> PluginCandidate:
    """Read one directory plugin: manifest, ``__init__.py`` presence, path safety."""
    dir_name = directory.name
    manifest_file = find_manifest_file(directory)
    init_text = read_init_text(directory)
    display_path = str(manifest_file or directory)
    if manifest_file is None:
        from hermes_core.plugin_identity import yamlless_provider

        key = dir_name if category is None else f"{category}/{dir_name}"
        provider_manifest = yamlless_provider(directory, source, init_text, key)
        if provider_manifest is not None:
            problems = [
                PluginProblem(dir_name, source, str(directory), "", cause, fix)
                for cause, fix in check_path_safety(directory, check_owner=True)
            ]
            return PluginCandidate(key, dir_name, source, str(directory), provider_manifest, problems, directory=directory)
        problem = PluginProblem(
            dir_name,
            source,
            str(directory),
            "",
            "there is no plugin.yaml in the plugin directory",
            "add a plugin.yaml with at least 'name: " + dir_name + "' (see 'hermes plugins new')",
        )
        return PluginCandidate(dir_name if category is None else f"{category}/{dir_name}", dir_name, source, str(directory), None, [problem], directory=directory)

    from hermes_core.files import UnreadableFileError
    from hermes_core.manifest import ManifestNotUtf8, read_manifest_file

    try:
        text = read_manifest_file(manifest_file)
    except ManifestNotUtf8 as exc:
        problem = PluginProblem(dir_name, source, display_path, "", exc.cause, exc.fix)
        return PluginCandidate(dir_name if category is None else f"{category}/{dir_name}", dir_name, source, str(directory), None, [problem], directory=directory)
    except (OSError, UnreadableFileError) as exc:
        problem = PluginProblem(dir_name, source, display_path, "", f"plugin.yaml cannot be read: {str(exc).split(' -> ', 1)[0]}", "replace plugin.yaml with a small regular file")
        return PluginCandidate(dir_name if category is None else f"{category}/{dir_name}", dir_name, source, str(directory), None, [problem], directory=directory)
    report = _read_manifest(
        text,
        default_name=dir_name,
        source=source,
        path=display_path,
        key=None,
        init_text=init_text,
        running_version=running_version,
        cache=cache,
        written_for=audience_of(source, init_text) if "requires_hermes" in text or "kind" in text else HERMES,
    )
    name = report.manifest.name if report.manifest else dir_name
    key = name if category is None else f"{category}/{dir_name}"
    if report.manifest:
        report.manifest.key = key
        report.manifest.path = str(directory)
    problems = list(report.problems)
    if not (directory / "__init__.py").is_file():
        problems.append(
            PluginProblem(name, source, str(directory), "", "there is no __init__.py", "add an __init__.py that defines register(ctx)")
        )
    for cause, fix in check_path_safety(directory, check_owner=source in {"user", "project"}):
        problems.append(PluginProblem(name, source, str(directory), "", cause, fix))
    return PluginCandidate(key, name, source, str(directory), report.manifest, problems, list(report.warnings), directory=directory)


def _scan_directory_source(root: Path | None, source: str, running_version: str, cache: ManifestCache | None) -> list[PluginCandidate]:
    if root is None or not root.is_dir():
        if debug_enabled():
            trace(f"discover: no {source} plugin directory at {root}")
        return []
    found = [
        read_directory_plugin(directory, source=source, running_version=running_version, category=category, cache=cache)
        for directory, category in _iter_plugin_dirs(root)
    ]
    if debug_enabled():
        trace(f"discover: {len(found)} {source} plugin(s) in {root}")
    return found


def _dist_name_and_version(dist: object) -> tuple[str, str]:
    """Name and version of an installed distribution, as its METADATA spells them."""
    metadata = dist.metadata  # type: ignore[attr-defined]
    return metadata["Name"] or "", metadata["Version"] or ""


def _scan_entry_points() -> Iterator[tuple[EntryPointRef, str | None]]:
    """Every hermes entry point of the installed distributions, with its ``entry_points.txt``."""
    # The standard library's scanner, deferred to here: the importlib-metadata backport
    # parses every installed distribution's METADATA on each scan (~45 ms with a few
    # dozen packages), which `hermes plugins list` cannot afford.
    from importlib import metadata

    seen: set[tuple[str, str, str]] = set()
    for group in (ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP):
        for ep in metadata.entry_points(group=group):
            name, version = _dist_name_and_version(ep.dist) if ep.dist is not None else ("", "")
            # per distribution: two declaring one name both go on, for resolve_clashes to report
            marker = (group, ep.name, _normalize_dist(name))
            if marker in seen:
                continue
            seen.add(marker)
            folder = getattr(ep.dist, "_path", None)
            source = os.path.join(folder, "entry_points.txt") if isinstance(folder, (str, os.PathLike)) else None
            yield EntryPointRef(group, ep.name, ep.value, name, version), source


def installed_entry_points(home: Path, *, use_cache: bool = True) -> list[EntryPointRef]:
    """The hermes entry points of the installed distributions (see :mod:`hermes_core.entry_point_cache`)."""
    from hermes_core.config import parse_cache_enabled
    from hermes_core.entry_point_cache import CACHE_FILE_NAME, cached_entry_points

    cache_path = home / "cache" / CACHE_FILE_NAME if use_cache and parse_cache_enabled() else None
    return cached_entry_points(cache_path, _scan_entry_points)


def _normalize_dist(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def read_entry_point_plugin(ref: EntryPointRef, *, running_version: str, cache: ManifestCache | None = None) -> PluginCandidate:
    """Read an entry-point plugin: its package's plugin.yaml if it ships one, else a synthesized manifest."""
    builtin = _normalize_dist(ref.distribution) == DISTRIBUTION_NAME and ref.module.split(".")[0] == BUILTIN_PACKAGE
    source = "builtin" if builtin else "entrypoint"
    directory = locate_module_dir(ref.module)
    forced_kind = "exclusive" if ref.group == MEMORY_ENTRY_POINT_GROUP else None
    manifest_file = find_manifest_file(directory) if directory else None
    if manifest_file is not None:
        assert directory is not None
        from hermes_core.manifest import ManifestNotUtf8, read_manifest_file

        from hermes_core.files import UnreadableFileError

        try:
            text = read_manifest_file(manifest_file)
        except (ManifestNotUtf8, OSError, UnreadableFileError) as exc:  # that plugin's problem, never a crash
            problem = PluginProblem(ref.name, source, str(manifest_file), "", *(
                (exc.cause, exc.fix) if isinstance(exc, ManifestNotUtf8) else
                (f"plugin.yaml cannot be read: {str(exc).split(' -> ', 1)[0]}", "replace plugin.yaml with a small regular file")))
            return PluginCandidate(key=ref.name, name=ref.name, source=source, path=str(directory), manifest=None,
                                   problems=[problem], warnings=[], directory=None, entry_point=ref)
        if "requires_hermes" in text:
            # pip lays the package and its dist-info side by side; discovery read the name and version from that folder
            metadata_file = directory.parent / f"{ref.distribution}-{ref.version}.dist-info" / "METADATA"
            written_for = audience_of(source, read_init_text(directory), ref.distribution, metadata_file)
        else:
            written_for = HERMES
        report = _read_manifest(
            text,
            default_name=ref.name,
            source=source,
            path=str(manifest_file),
            key=ref.name,
            # An entry point's kind is what its manifest declares or its group says, never a guess from its code.
            init_text="",
            running_version=running_version,
            cache=cache,
            written_for=written_for,
        )
        manifest, problems, warnings = report.manifest, list(report.problems), list(report.warnings)
        if written_for == HERMES_AGENT:
            requirement_as_warning(problems, warnings)
        if manifest is not None:
            manifest.path = str(directory)
            if forced_kind:
                manifest.kind = forced_kind
            if ref.version:
                manifest.version = ref.version
    else:
        data = {"name": ref.name, "version": ref.version}
        if forced_kind:
            data["kind"] = forced_kind
        manifest = build_manifest(
            data, name=ref.name, source=source, path=ref.value, key=ref.name, init_text=""
        )
        problems, warnings = [], []
    return PluginCandidate(
        key=ref.name,
        name=manifest.name if manifest else ref.name,
        source=source,
        path=str(directory) if directory else ref.value,
        manifest=manifest,
        problems=problems,
        warnings=warnings,
        directory=None,
        entry_point=ref,
    )


def discover_plugins(
    home: Path,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    running_version: str,
    use_cache: bool = True,
) -> DiscoveryResult:
    """Find every plugin in every source; return the winners in discovery order.

    :param use_cache: reuse validation results of unchanged manifests (see ``manifest_cache``).
    """
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    cache = default_cache(home) if use_cache else None
    entry_point_candidates = [read_entry_point_plugin(ref, running_version=running_version, cache=cache) for ref in installed_entry_points(home, use_cache=use_cache)]
    builtins = [c for c in entry_point_candidates if c.source == "builtin"]
    from hermes_core.plugin_identity import fold_installed_copies, merge_both_groups

    externals = merge_both_groups([c for c in entry_point_candidates if c.source != "builtin"])

    ordered: list[PluginCandidate] = list(builtins)
    ordered += _scan_directory_source(bundled_plugins_root(env), "bundled", running_version, cache)
    ordered += _scan_directory_source(user_plugins_root(home), "user", running_version, cache)
    project_enabled = env.get("HERMES_ENABLE_PROJECT_PLUGINS", "").strip().lower() in {"1", "true", "yes", "on"}
    if project_enabled:
        ordered += _scan_directory_source(project_plugins_root(cwd), "project", running_version, cache)
    elif debug_enabled():
        trace("discover: project plugins skipped (set HERMES_ENABLE_PROJECT_PLUGINS=1 to scan ./.hermes/plugins)")
    ordered += externals
    if cache is not None:
        cache.save()
    return resolve_clashes(fold_installed_copies(ordered))


def rename_hint(candidate: PluginCandidate) -> str:
    """How to give ``candidate`` another key: where its key comes from depends on its source."""
    if candidate.entry_point is not None:
        ref = candidate.entry_point
        return (
            f"rename the entry point '{ref.name}' in the '{ref.group}' group of the distribution "
            f"{ref.distribution} (its pyproject.toml) and reinstall it"
        )
    if candidate.directory is not None and "/" in candidate.key:
        return f"rename its directory {candidate.directory} (the key is category/directory)"
    if candidate.directory is not None:
        manifest_file = find_manifest_file(candidate.directory) or candidate.directory / "plugin.yaml"
        return f"change 'name:' in {manifest_file} (the key is the manifest's name)"
    return "rename it"


def resolve_clashes(ordered: list[PluginCandidate]) -> DiscoveryResult:
    """Keep one candidate per key: a later source wins, except over a builtin. Report each clash."""
    winners: dict[str, PluginCandidate] = {}
    clashes: list[str] = []
    for candidate in ordered:
        previous = winners.get(candidate.key)
        if previous is None:
            winners[candidate.key] = candidate
            continue
        if previous.source == "builtin":
            message = (
                f"plugin '{candidate.key}' ({candidate.source}, {candidate.path}) is ignored: the key is taken by "
                f"the builtin plugin -> {rename_hint(candidate)}"
            )
            previous.warnings.append(message)
        else:
            message = (
                f"plugin '{candidate.key}' ({candidate.source}, {candidate.path}) overrides the {previous.source} "
                f"plugin of the same key at {previous.path}, which is not loaded -> to keep both, "
                f"{rename_hint(candidate)} (or rename the other one); to keep only the {previous.source} one, "
                f"remove this one; 'hermes plugins disable {candidate.key}' turns off whichever wins"
            )
            candidate.warnings.append(message)
            del winners[candidate.key]  # the winner takes its own place in discovery order
            winners[candidate.key] = candidate
        clashes.append(message)
        if debug_enabled():
            trace(f"discover: clash: {message}")
    return DiscoveryResult(list(winners.values()), clashes)
