"""Install a package plugin with pip, validate what landed, and keep the means to undo it all."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hermes_core.distribution.checks import PluginInfo, describe_package, validate_source
from hermes_core.distribution.console import Console
from hermes_core.distribution.distributions import InstalledDist, changed_dists, find_installed
from hermes_core.distribution.errors import InstallError
from hermes_core.distribution.pip_runner import PipOptions, PipRunner, explain_failure
from hermes_core.distribution.site_snapshot import SiteSnapshot, site_dirs
from hermes_core.distribution.sources import Fetched


@dataclass
class StagedPackage:
    """A package pip installed and the manifests checked; :meth:`commit` keeps it, :meth:`rollback` undoes it."""

    #: The plugin's distribution (``None`` until pip has run).
    dist: InstalledDist | None
    plugins: list[PluginInfo]
    #: Distributions pip added or replaced.
    changed: list[InstalledDist] = field(default_factory=list)
    snapshot: SiteSnapshot | None = None
    runner: PipRunner | None = None

    @property
    def modified(self) -> bool:
        return bool(self.changed)

    def commit(self) -> None:
        if self.snapshot is not None:
            self.snapshot.discard()

    def rollback(self) -> None:
        """pip-uninstall what was installed, then put every file of site-packages back."""
        if self.changed and self.runner is not None:
            self.runner.console.step("rolling back: uninstalling " + ", ".join(d.name for d in self.changed))
            self.runner.uninstall([d.name for d in self.changed])
        if self.snapshot is not None:
            self.snapshot.restore()


def install_package(fetched: Fetched, console: Console, options: PipOptions, *, upgrade: bool, subject: str) -> StagedPackage:
    """Run pip for ``fetched`` and validate the plugin it installed; undo everything on failure."""
    spec = fetched.spec
    if spec.kind != "requirement":
        console.step("checking the plugin manifest before installing")
        validate_source(Path(fetched.target), subject, required=False)
    site = site_dirs()
    runner = PipRunner(console)
    snapshot = SiteSnapshot.capture()
    staged = StagedPackage(dist=None, plugins=[], snapshot=snapshot, runner=runner)
    try:
        console.step(f"installing {fetched.target if spec.kind == 'requirement' else os.path.basename(fetched.target)} with {'uv' if runner.is_uv else 'pip'}")
        # A local path always reinstalls; upgrading only matters for index requirements.
        result = runner.install([fetched.target], options, upgrade=upgrade or spec.kind != "requirement")
        if not result.ok:
            console.replay_tail()
            cause, fix = explain_failure(result.output, options)
            raise InstallError(subject, cause, fix)
        staged.changed = changed_dists(snapshot.changed())
        dist = _installed_plugin_dist(fetched, staged.changed, site)
        if dist is None:
            names = ", ".join(d.name for d in staged.changed) or "nothing"
            raise InstallError(
                subject,
                f"pip installed {names}, and none of it declares a hermes plugin (an entry point in 'hermes_agent.plugins' or 'hermes_agent.memory_providers')",
                "install hermes plugins only; if the project is yours, add [project.entry-points.\"hermes_agent.plugins\"] to its pyproject.toml",
            )
        staged.dist = dist
        console.step(f"validating {dist.name} {dist.version}")
        staged.plugins = describe_package(dist, site, subject)
    except BaseException:
        staged.rollback()
        raise
    return staged


def _installed_plugin_dist(fetched: Fetched, changed: list[InstalledDist], site: list[Path]) -> InstalledDist | None:
    if fetched.distribution:
        named = find_installed(fetched.distribution, site)
        if named is not None:
            return named
    with_plugins = [d for d in changed if d.plugins]
    if with_plugins:
        return with_plugins[0]
    # Nothing with a plugin changed: report the distribution pip was asked for, if it is known.
    return changed[0] if len(changed) == 1 else None
