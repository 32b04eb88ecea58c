"""``hermes plugins doctor``: every plugin's health, checked without importing any, each problem with its fix."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_core.discovery import check_path_safety
from hermes_core.manifest import PluginProblem

#: The checks, in the order they are reported.
CHECKS: tuple[str, ...] = ("manifest", "requires_hermes", "dependencies", "requires_env", "path_safety", "load", "hooks", "lock")


@dataclass(frozen=True)
class Finding:
    check: str
    cause: str
    fix: str

    def as_dict(self) -> dict[str, str]:
        return {"check": self.check, "cause": self.cause, "fix": self.fix}


@dataclass
class PluginHealth:
    key: str
    source: str
    path: str
    enabled: bool
    findings: list[Finding] = field(default_factory=list)
    #: "ok" or "failed" after ``doctor --load`` imported the plugin; "not checked" otherwise.
    load: str = "not checked"

    @property
    def ok(self) -> bool:
        return not self.findings

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "source": self.source,
            "path": self.path,
            "enabled": self.enabled,
            "ok": self.ok,
            "load": self.load,
            "problems": [f.as_dict() for f in self.findings],
        }


def _top_level_modules(distribution_name: str) -> set[str]:
    """The top-level modules and packages an installed distribution ships (from its RECORD); empty when unknown."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        files = distribution(distribution_name).files or []
    except PackageNotFoundError:
        return set()
    found = set()
    for file in files:
        first = file.parts[0] if file.parts else ""
        if first.startswith("__editable__"):  # an editable install: its modules live elsewhere, so nothing is known
            return set()
        if first.endswith((".dist-info", ".egg-info", ".data")) or first in ("..", "__pycache__") or first.endswith(".pth"):
            continue
        if len(file.parts) == 1 and first.endswith((".py", ".so", ".pyd")):  # a module file, extension modules included
            first = first.split(".", 1)[0]
        found.add(first)
    return found


def _requirement_problem(requirement_text: str, owner: str) -> Finding | None:
    """Whether one requirement (``name>=1; marker``) is installed in a matching version."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(requirement_text)
    except InvalidRequirement:
        return Finding("dependencies", f"{owner} declares the invalid requirement {requirement_text!r}", "correct it in the plugin's metadata")
    if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
        return None
    try:
        installed = version(requirement.name)
    except PackageNotFoundError:
        return Finding("dependencies", f"{owner} needs '{requirement}', which is not installed", f"run 'pip install \"{requirement}\"' in hermes' environment, or 'hermes plugins update'")
    if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
        return Finding("dependencies", f"{owner} needs '{requirement}', but {requirement.name} {installed} is installed", f"run 'pip install \"{requirement}\"' in hermes' environment")
    return None


def _dependency_findings(candidate: Any) -> list[Finding]:
    import importlib.util

    findings: list[Finding] = []
    manifest = candidate.manifest
    declared: list[str] = []
    if manifest is not None:
        for key in ("python_dependencies", "pip_dependencies"):
            value = manifest.raw.get(key)
            if isinstance(value, list):
                declared += [str(v) for v in value if isinstance(v, str)]
    ref = candidate.entry_point
    if ref is not None and candidate.source != "builtin":
        top = ref.module.split(".")[0]
        if importlib.util.find_spec(top) is None:
            shipped = _top_level_modules(ref.distribution)
            if shipped and top not in shipped:  # the name in the entry point is wrong: reinstalling changes nothing
                findings.append(Finding(
                    "dependencies",
                    f"entry point {ref.name} = {ref.value} names module '{top}', which distribution {ref.distribution} does not contain "
                    f"(its modules: {', '.join(sorted(shipped))})",
                    f"correct the entry point in {ref.distribution}'s pyproject.toml, then reinstall it"))
            else:
                findings.append(Finding("dependencies", f"the module '{ref.module}' of entry point {ref.name} = {ref.value} cannot be found", f"reinstall it: 'hermes plugins install --force {ref.distribution}'"))
        from importlib.metadata import PackageNotFoundError, distribution

        try:
            declared += list(distribution(ref.distribution).requires or [])
        except PackageNotFoundError:
            pass
    for requirement in declared:
        finding = _requirement_problem(requirement, f"'{candidate.key}'")
        if finding is not None:
            findings.append(finding)
    return findings


def _env_findings(candidate: Any, stored: dict[str, str], home: Path) -> list[Finding]:
    manifest = candidate.manifest
    findings = []
    for required in manifest.requires_env if manifest else []:
        if required.name not in os.environ and required.name not in stored:
            where = f" ({required.url})" if required.url else ""
            findings.append(Finding("requires_env", f"{required.name} is not set{where}", f"add {required.name}=... to {home / '.env'}, or export it"))
    return findings


def _split_problems(candidate: Any, safety: list[tuple[str, str]]) -> list[Finding]:
    safety_causes = {cause for cause, _ in safety}
    findings = []
    for problem in candidate.problems:
        assert isinstance(problem, PluginProblem)
        if problem.cause in safety_causes:
            continue  # reported once, under path_safety
        check = "requires_hermes" if problem.field == "requires_hermes" else "manifest"
        where = f"'{problem.field}': " if problem.field else ""
        findings.append(Finding(check, f"{where}{problem.cause}", problem.fix))
    return findings


def examine(home: Path, *, load: bool = False, load_timeout: float | None = None) -> tuple[list[PluginHealth], list[str]]:
    """Check every discovered plugin and every lock entry; return their health and discovery clashes.

    With ``load``, the enabled plugins are also imported, in a separate process (see load_probe).
    """
    from hermes_core.config import read_env_file
    from hermes_core.distribution.lockfile import lock_path, read_lock
    from hermes_core.manager import PluginManager

    manager = PluginManager(home)
    records = manager.discover()
    stored = read_env_file(home)
    results: list[PluginHealth] = []
    for record in records:
        candidate = record.candidate
        health = PluginHealth(candidate.key, candidate.source, candidate.path, record.enabled)
        safety = check_path_safety(candidate.directory, check_owner=candidate.source in {"user", "project"}) if candidate.directory else []
        health.findings += _split_problems(candidate, safety)
        health.findings += _dependency_findings(candidate)
        if record.enabled:
            health.findings += _env_findings(candidate, stored, home)
        health.findings += [Finding("path_safety", cause, fix) for cause, fix in safety]
        results.append(health)
    if load:
        from hermes_core.distribution.load_probe import DEFAULT_LOAD_TIMEOUT, probe

        loaded = probe(home, DEFAULT_LOAD_TIMEOUT if load_timeout is None else load_timeout)
        for health in results:
            outcome = loaded.get(health.key)
            if outcome is not None:
                health.load = "failed" if outcome.error else "ok"
                if outcome.error:
                    health.findings.append(Finding("load", outcome.error, outcome.fix))
                health.findings += [Finding("hooks", cause, fix) for cause, fix in outcome.dead_hooks]
    found = {r.key for r in results}
    lock_file = lock_path(home)
    for entry in read_lock(lock_file).values():
        for key in entry.plugins or [entry.key]:
            if key in found:
                continue
            results.append(
                PluginHealth(
                    key,
                    entry.source,
                    entry.location or entry.spec,
                    False,
                    [
                        Finding(
                            "lock",
                            f"{lock_file.name} records '{key}' ({entry.spec} {entry.pinned()}) but it is not installed; hermes or its environment was probably reinstalled",
                            f"run 'hermes plugins install -r {lock_file}' to restore every recorded plugin",
                        )
                    ],
                )
            )
    order = {check: index for index, check in enumerate(CHECKS)}
    for health in results:
        health.findings.sort(key=lambda f: order[f.check])
    return sorted(results, key=lambda h: h.key), manager.clashes
