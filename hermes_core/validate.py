"""``hermes plugins validate``: the discovery checks, run on a directory, a project or a wheel."""

from __future__ import annotations

import configparser
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from hermes_core._version import __version__
from hermes_core.discovery import ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP, read_directory_plugin
from hermes_core.errors import HermesError
from hermes_core.plugin_candidate import PluginCandidate
from hermes_core.manifest import MANIFEST_FILE_NAMES, ManifestNotUtf8, find_manifest_file, PluginManifest, PluginProblem, decode_manifest, read_manifest_text
from hermes_core.requires_hermes import HERMES, HERMES_AGENT, audience_of, requirement_as_warning

SOURCE_LABEL = "path"
_PROJECT_SKIP = {".git", ".venv", "venv", "build", "dist", "node_modules", "__pycache__", ".tox"}
_REGISTER_PATTERN = re.compile(r"^\s*(async\s+)?def\s+register\s*\(|hookimpl", re.MULTILINE)
#: ``from .impl import register`` (or ``from impl import (X, register)``): a shim re-exporting the package's register
_REGISTER_IMPORT = re.compile(
    r"^\s*from\s+[\w.]+\s+import\s+\(?[\w\s,]*\bregister\b(?!\s+as\b)"
    r"|^\s*register\s*=\s*[A-Za-z_]\w*(\.\w+)+\s*$",  # register = _inner.register, from a module it loaded itself
    re.MULTILINE,
)
#: The provider class a memory plugin without register() is loaded through (see loader._fallback_provider)
_PROVIDER_CLASS = re.compile(r"^class\s+\w+\s*\([^)]*MemoryProvider", re.MULTILINE)


@dataclass
class ValidationReport:
    """The result of validating one plugin found at the given path."""

    name: str
    location: str
    version: str = ""
    kind: str = ""
    problems: list[PluginProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "location": self.location,
            "version": self.version,
            "kind": self.kind,
            "ok": not self.problems,
            "problems": [p.as_dict() for p in self.problems],
            "warnings": list(self.warnings),
        }


def _entry_point_warning(init_text: str, name: str, kind: str = "") -> list[str]:
    if _REGISTER_PATTERN.search(init_text) or _REGISTER_IMPORT.search(init_text):
        return []
    if kind == "exclusive" and _PROVIDER_CLASS.search(init_text):
        return []
    if kind == "model-provider":
        return []  # registers its profile as it imports (register_provider(...)); hermes only lists it
    return [f"plugin '{name}': __init__.py defines neither register(ctx) nor @hookimpl functions, so it would do nothing"]


def _unknown_hook_warnings(manifest: PluginManifest | None) -> list[str]:
    """A declared hook no hermes fires is most often a typo; loading keeps it, so only validate can say so."""
    if manifest is None:
        return []
    import difflib

    from hermes_core.hook_names import HOOK_NAMES, KNOWN_EXTRA_HOOKS

    extra = manifest.raw.get("hooks")
    declared = [*manifest.provides_hooks, *(extra if isinstance(extra, list) else [])]
    # A memory provider's plugin.yaml lists the provider methods it implements (sync_turn,
    # prefetch, on_delegation, ...) under hooks, as Hermes Agent's own providers do: hermes calls those.
    provider_methods = _memory_provider_methods() if manifest.kind == "exclusive" else frozenset()
    warnings = []
    for hook in dict.fromkeys(name for name in declared if isinstance(name, str)):
        if hook in HOOK_NAMES or hook in KNOWN_EXTRA_HOOKS or hook in provider_methods:
            continue
        close = difflib.get_close_matches(hook, HOOK_NAMES, n=1)
        fix = f"did you mean {close[0]!r}?" if close else "see docs/hooks.md for the hook names"
        warnings.append(f"plugin '{manifest.name}': plugin.yaml declares hook {hook!r}, which this version of hermes never calls -> {fix}")
    return warnings


def _memory_provider_methods() -> frozenset[str]:
    from hermes_core.memory.provider import MemoryProvider

    return frozenset(name for name in dir(MemoryProvider) if not name.startswith("_"))


def _is_utf8(source: bytes) -> bool:
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _syntax_problem(source: bytes, name: str, path: str) -> list[PluginProblem]:
    """The module's code compiled, never run: a syntax error fails every import, so validate must not say ok."""
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        if "Non-UTF-8" in str(exc.msg) or not _is_utf8(source):  # the bytes, not the syntax (a bad escape is syntax)
            return [PluginProblem(name, SOURCE_LABEL, path, "", "the code is not UTF-8 text and declares no other encoding",
                                  f"re-save it as UTF-8 in your editor (a Latin-1 file: iconv -f latin1 -t utf-8 {path})")]
        return [PluginProblem(name, SOURCE_LABEL, path, "", f"the code does not compile: SyntaxError: {exc.msg}{where}",
                              "fix the syntax there; the plugin cannot be imported as it is")]
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes; nesting Python's compiler refuses
        return [PluginProblem(name, SOURCE_LABEL, path, "", f"the code does not compile: {type(exc).__name__}: {exc}",
                              "fix the file; the plugin cannot be imported as it is")]
    return []


def validate_directory(directory: Path) -> ValidationReport:
    candidate = read_directory_plugin(directory, source=SOURCE_LABEL, running_version=__version__)
    report = ValidationReport(candidate.name, str(directory), candidate.version, candidate.kind, list(candidate.problems), list(candidate.warnings))
    init_file = directory / "__init__.py"
    if init_file.is_file():
        report.problems += _syntax_problem(init_file.read_bytes(), candidate.name, str(init_file))
    report.warnings += code_warnings(directory, candidate)
    return report


def code_warnings(directory: Path, candidate: PluginCandidate) -> list[str]:
    """What validate adds to discovery's warnings: hooks no hermes fires, an ``__init__.py`` that registers nothing."""
    warnings = _unknown_hook_warnings(candidate.manifest)
    init_file = directory / "__init__.py"
    if init_file.is_file():
        warnings += _entry_point_warning(init_file.read_text(encoding="utf-8", errors="replace"), candidate.name, candidate.kind)
    return warnings


def _unsafe_member(name: str) -> bool:
    path = PurePosixPath(name)
    return path.is_absolute() or ".." in path.parts or name.startswith("\\") or ":" in path.parts[0]


def validate_wheel(wheel: Path) -> list[ValidationReport]:
    """Validate every plugin a wheel declares through the hermes entry-point groups."""
    try:
        archive = zipfile.ZipFile(wheel)
    except (zipfile.BadZipFile, OSError) as exc:
        raise HermesError(f"{wheel}: not a readable wheel ({exc}) -> build it again with 'python -m build'") from exc
    with archive:
        names = set(archive.namelist())
        unsafe = sorted(n for n in names if _unsafe_member(n))
        entry_files = [n for n in names if n.endswith(".dist-info/entry_points.txt") and n.count("/") == 1]
        parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        if entry_files:
            try:
                parser.read_string(archive.read(entry_files[0]).decode("utf-8"))
            except (UnicodeDecodeError, configparser.Error) as exc:
                cause = "is not UTF-8" if isinstance(exc, UnicodeDecodeError) else f"cannot be parsed ({type(exc).__name__}: {str(exc).splitlines()[0]})"
                problem = PluginProblem(
                    wheel.name, SOURCE_LABEL, f"{wheel}!{entry_files[0]}", "entry-points",
                    f"{entry_files[0]} {cause}",
                    "declare entry points in pyproject.toml ([project.entry-points.\"...\"]) and rebuild the wheel with 'python -m build'",
                )
                return [ValidationReport(wheel.name, str(wheel), problems=[problem])]
        reports: list[ValidationReport] = []
        for group in (ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP):
            if not parser.has_section(group):
                continue
            for ep_name, value in parser.items(group):
                reports.append(_validate_wheel_entry_point(archive, names, wheel, group, ep_name, value.strip()))
        if not reports:
            reports.append(
                ValidationReport(
                    wheel.name,
                    str(wheel),
                    problems=[
                        PluginProblem(
                            wheel.name,
                            SOURCE_LABEL,
                            str(wheel),
                            "entry-points",
                            f"the wheel declares no entry point in '{ENTRY_POINT_GROUP}' or '{MEMORY_ENTRY_POINT_GROUP}'",
                            f"add [project.entry-points.\"{ENTRY_POINT_GROUP}\"] <name> = \"<package>\" to pyproject.toml",
                        )
                    ],
                )
            )
        if unsafe:
            reports[0].problems.append(
                PluginProblem(reports[0].name, SOURCE_LABEL, str(wheel), "", f"archive members escape the install root: {', '.join(unsafe[:5])}", "rebuild the wheel from a clean tree")
            )
    return reports


def _wheel_requires_hermes_host(archive: zipfile.ZipFile, names: set[str]) -> bool:
    """Whether the wheel's METADATA declares a requirement on this host's distribution."""
    metadata = next((n for n in names if n.endswith(".dist-info/METADATA") and n.count("/") == 1), None)
    if metadata is None:
        return False
    text = archive.read(metadata).decode("utf-8", "replace")
    return any(
        re.match(r"Requires-Dist:\s*hermes[-_.]host\b", line, re.IGNORECASE) for line in text.splitlines()
    )


def entry_point_module(value: str) -> str:
    """The module of an entry point's value, ``module:attr [extra, ...]`` (the attribute and extras optional)."""
    return value.partition("[")[0].partition(":")[0].strip()


def _validate_wheel_entry_point(archive: zipfile.ZipFile, names: set[str], wheel: Path, group: str, ep_name: str, value: str) -> ValidationReport:
    def read(name: str) -> bytes | None:
        return archive.read(name) if name in names else None

    return _validate_entry_point(read, f"{wheel.name}!", "the wheel does not contain", "fix the entry point or include the package in the wheel",
                                 group, ep_name, value, requires_host=_wheel_requires_hermes_host(archive, names))


def _validate_entry_point(read: Callable[[str], bytes | None], where: str, missing: str, missing_fix: str,
                          group: str, ep_name: str, value: str, *, requires_host: bool) -> ValidationReport:
    """One declared entry point, its files read through *read* (paths relative to the package root)."""
    module = entry_point_module(value)
    package_dir = module.replace(".", "/")
    location = f"{where}{package_dir}"
    init_name = f"{package_dir}/__init__.py"
    init_bytes = read(init_name)
    if init_bytes is None:
        init_name = f"{package_dir}.py"
        init_bytes = read(init_name)
    if init_bytes is None:
        problem = PluginProblem(ep_name, SOURCE_LABEL, location, "entry-points", f"entry point {ep_name} = {value} names module {module!r}, which {missing}", missing_fix)
        return ValidationReport(ep_name, location, problems=[problem])
    init_text = init_bytes.decode("utf-8", "replace")
    manifest_name, manifest_bytes = next(((f"{package_dir}/{m}", data) for m in MANIFEST_FILE_NAMES
                                          if (data := read(f"{package_dir}/{m}")) is not None), ("", None))
    if manifest_bytes is None:
        report = ValidationReport(ep_name, location, kind="exclusive" if group == MEMORY_ENTRY_POINT_GROUP else "standalone")
        report.warnings.append(f"plugin '{ep_name}': no plugin.yaml next to {module}; name and version come from the package metadata (ship plugin.yaml as package data to declare hooks, tools and requirements)")
    else:
        written_for = audience_of(SOURCE_LABEL, init_text)
        if written_for == HERMES_AGENT and requires_host:
            written_for = HERMES
        try:
            manifest_text = decode_manifest(manifest_bytes)
        except ManifestNotUtf8 as exc:
            problem = PluginProblem(ep_name, SOURCE_LABEL, f"{where}{manifest_name}", "", exc.cause, exc.fix)
            return ValidationReport(ep_name, location, problems=[problem])
        manifest_report = read_manifest_text(
            manifest_text,
            default_name=ep_name,
            source=SOURCE_LABEL,
            path=f"{where}{manifest_name}",
            key=ep_name,
            init_text=init_text,
            running_version=__version__,
            written_for=written_for,
        )
        manifest = manifest_report.manifest
        report = ValidationReport(
            manifest.name if manifest else ep_name,
            location,
            manifest.version if manifest else "",
            manifest.kind if manifest else "",
            list(manifest_report.problems),
            list(manifest_report.warnings),
        )
        report.warnings += _unknown_hook_warnings(manifest)
        if written_for == HERMES_AGENT:  # installed, it loads as it would in Hermes Agent: see discovery
            requirement_as_warning(report.problems, report.warnings)
    report.problems += _syntax_problem(init_bytes, report.name, f"{where}{init_name}")
    if group == ENTRY_POINT_GROUP and ":" not in value:
        report.warnings += _entry_point_warning(init_text, report.name, report.kind)
    return report


def _find_manifests(root: Path, depth: int = 4) -> list[Path]:
    found: list[Path] = []
    if depth < 0:
        return found
    try:
        children = sorted(root.iterdir())
    except OSError:
        return found
    if find_manifest_file(root) is not None:
        return [root]
    for child in children:
        if child.is_dir() and child.name not in _PROJECT_SKIP and not child.name.startswith("."):
            found += _find_manifests(child, depth - 1)
    return found


def validate_path(path: Path) -> list[ValidationReport]:
    """Validate whatever ``path`` is: a plugin directory, a project holding plugins, or a wheel."""
    path = path.expanduser()
    if not path.exists():
        raise HermesError(f"{path} does not exist -> give a plugin directory, a project directory or a .whl file")
    if path.is_file():
        if path.suffix == ".whl":
            return validate_wheel(path)
        if path.name in MANIFEST_FILE_NAMES:
            return [validate_directory(path.parent)]
        raise HermesError(f"{path} is neither a plugin directory nor a wheel -> give the directory that holds plugin.yaml")
    pyproject = _read_pyproject(path)
    declared = _project_entry_points(path, pyproject)
    if declared:  # a source project: its plugins are what an install of it would find
        return _validate_project(path, pyproject, declared)
    directories = _find_manifests(path)
    if not directories:
        if (path / "dashboard" / "manifest.json").is_file() and not (path / "__init__.py").is_file():
            raise HermesError(
                f"{path} holds only a dashboard extension (dashboard/manifest.json), which Hermes Agent's web dashboard "
                "loads; it has no plugin.yaml or __init__.py for the agent -> hermes has no web dashboard, so there is "
                "nothing here for it to load"
            )
        raise HermesError(f"no plugin.yaml found in {path} (searched 4 levels deep), and no pyproject.toml there declares an entry "
                          f"point in '{ENTRY_POINT_GROUP}' or '{MEMORY_ENTRY_POINT_GROUP}' -> run 'hermes plugins new' to start one")
    return [validate_directory(directory) for directory in directories]


def _read_pyproject(root: Path) -> dict[str, Any]:
    """*root*/pyproject.toml as data; ``{}`` when there is none."""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    import tomllib

    try:
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HermesError(f"{pyproject} cannot be read ({exc}) -> fix it so its entry points can be checked") from exc


def _project_entry_points(root: Path, data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(group, name, value) of every hermes entry point the project's pyproject.toml (*data*) declares
    (PEP 621 or Poetry)."""
    pyproject = root / "pyproject.toml"
    project, tool = data.get("project"), data.get("tool")
    tables = [project.get("entry-points") if isinstance(project, dict) else None,
              tool.get("poetry", {}).get("plugins") if isinstance(tool, dict) and isinstance(tool.get("poetry"), dict) else None]
    found = []
    for table in tables:
        for group in (ENTRY_POINT_GROUP, MEMORY_ENTRY_POINT_GROUP):
            entries = table.get(group) if isinstance(table, dict) else None
            if isinstance(entries, dict):
                for name, value in entries.items():
                    if not isinstance(value, str) or not re.fullmatch(r"\s*[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\s*(:.*)?(\[.*\])?\s*", value):
                        raise HermesError(f"{pyproject}: entry point {name} = {value!r} in '{group}' is not 'package.module' "
                                          "or 'package.module:attribute' -> write the module's dotted name as a string")
                    found.append((group, str(name), value))
    return found


def _validate_project(root: Path, data: dict[str, Any], declared: list[tuple[str, str, str]]) -> list[ValidationReport]:
    """A source project whose plugins are found through pyproject.toml's entry points (*data* is the file's
    content), as an install would."""
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    dependencies = [str(d) for d in project.get("dependencies") or [] if isinstance(project.get("dependencies"), list)]
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    if isinstance(poetry.get("dependencies"), dict):
        dependencies += [str(name) for name in poetry["dependencies"]]  # Poetry: {name: version}
    requires_host = any(re.match(r"\s*hermes[-_.]host\b", d, re.IGNORECASE) for d in dependencies)
    reports = []
    for group, name, value in declared:
        module = entry_point_module(value).replace(".", "/")
        # the src layout or the flat one, wherever the module is
        base = next((b for b in (root / "src", root) if (b / module).is_dir() or (b / f"{module}.py").is_file()), root)

        def read(relative: str, base: Path = base) -> bytes | None:
            target = base / relative
            return target.read_bytes() if target.is_file() else None

        report = _validate_entry_point(read, f"{base}/", f"is not in {root} (nor in its src/)",
                                       "fix the entry point in pyproject.toml or move the package there",
                                       group, name, value, requires_host=requires_host)
        # without a plugin.yaml the version is the package's, which pyproject.toml declares
        report.version = report.version or str(project.get("version") or poetry.get("version") or "")
        reports.append(report)
    return reports
