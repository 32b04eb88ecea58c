"""Which discovered pieces are one plugin, by Hermes Agent's rules.

* A ``$HERMES_HOME/plugins/<name>/`` directory with an ``__init__.py`` and no plugin.yaml
  is a memory provider named after the directory when its code declares one (the text
  rule Hermes Agent applies: ``register_memory_provider`` or ``MemoryProvider`` in the
  first 8 KB).
* A distribution that declares the same name in ``hermes_agent.plugins`` and
  ``hermes_agent.memory_providers`` is one plugin with two parts: the general part loads
  with ``plugins.enabled``, the provider part with ``memory.provider``.
* Memory packages ship installers that write a copy, or a re-export shim, of themselves
  into ``$HERMES_HOME/plugins/``. That directory and the same distribution's entry point
  are one plugin: the installed package is what loads; the directory is noted as another
  place the plugin was found, with no "overrides" warning.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_core.manifest import build_manifest, detect_kind
from hermes_core.plugin_candidate import MEMORY_ENTRY_POINT_GROUP
from hermes_core.plugin_locations import read_init_text

if TYPE_CHECKING:
    from hermes_core.plugin_candidate import PluginCandidate

_TEXT_RULE_SOURCES = frozenset({"user", "project"})


def yamlless_provider(directory: Path, source: str, init_text: str, key: str):  # noqa: ANN201 - PluginManifest | None
    """The manifest Hermes Agent's text rule gives a directory without plugin.yaml, or ``None``."""
    if source not in _TEXT_RULE_SOURCES or not (directory / "__init__.py").is_file():
        return None
    if detect_kind(init_text) != "exclusive":
        return None
    manifest = build_manifest(
        {"name": directory.name, "kind": "exclusive"}, name=directory.name, source=source, path=str(directory), key=key, init_text=init_text
    )
    manifest.kind_detected = True
    return manifest


def _top_module(candidate: PluginCandidate) -> str:
    return candidate.entry_point.module.split(".")[0] if candidate.entry_point else ""


def _package_init(candidate: PluginCandidate) -> bytes | None:
    path = Path(candidate.path) / "__init__.py"
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


@lru_cache(maxsize=1024)
def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def is_install_of(directory_plugin: PluginCandidate, package_plugin: PluginCandidate) -> bool:
    """Whether a directory plugin is a copy or a re-export shim of an installed package's plugin."""
    directory = directory_plugin.directory
    top = _top_module(package_plugin)
    if directory is None or not top or package_plugin.source != "entrypoint":
        return False
    init_file = directory / "__init__.py"
    # os.path on strings: listing runs this for every directory plugin against every package
    if os.path.isfile(os.path.join(directory, top, "__init__.py")):
        return init_file.is_file()  # the package copied beneath the directory
    names = {_norm(n) for n in (package_plugin.key, package_plugin.name, top, package_plugin.entry_point.distribution if package_plugin.entry_point else "")}
    if not ({_norm(directory.name), _norm(directory_plugin.name)} & names):
        return False  # decided by names alone: reading every directory's code for every package is too slow
    try:
        init_bytes = init_file.read_bytes()
    except OSError:
        return False
    package_init = _package_init(package_plugin)
    if package_init is not None and init_bytes == package_init:
        return True  # a copy of the package
    text = init_bytes[:65536].decode("utf-8", errors="replace")
    return re.search(rf"^\s*(?:from|import)\s+{re.escape(top)}\b", text, re.MULTILINE) is not None


def merge_both_groups(candidates: list[PluginCandidate]) -> list[PluginCandidate]:
    """Fold a distribution's ``hermes_agent.memory_providers`` entry into its general entry of the same name."""
    general = {
        (c.key, c.entry_point.distribution): c
        for c in candidates
        if c.entry_point is not None and c.entry_point.group != MEMORY_ENTRY_POINT_GROUP
    }
    merged: list[PluginCandidate] = []
    for candidate in candidates:
        ref = candidate.entry_point
        partner = general.get((candidate.key, ref.distribution)) if ref is not None and ref.group == MEMORY_ENTRY_POINT_GROUP else None
        if partner is None:
            merged.append(candidate)
            continue
        partner.provider_entry_point = ref
    return merged


def fold_installed_copies(ordered: list[PluginCandidate]) -> list[PluginCandidate]:
    """Drop directory plugins that are installs of an entry-point plugin; the package plugin absorbs them."""
    packages = [c for c in ordered if c.source == "entrypoint"]
    result: list[PluginCandidate] = []
    for candidate in ordered:
        owner = None
        if candidate.directory is not None and candidate.source in _TEXT_RULE_SOURCES:
            owner = next((p for p in packages if is_install_of(candidate, p)), None)
        if owner is None:
            result.append(candidate)
            continue
        owner.also_at.append(candidate.path)
        owner.aliases.update({candidate.key, candidate.name})
        declares_provider = candidate.kind == "exclusive" or detect_kind(read_init_text(candidate.directory)) == "exclusive"
        if declares_provider and owner.kind != "exclusive" and owner.provider_entry_point is None:
            owner.provider_entry_point = owner.entry_point  # the shim exists to make the package a memory provider
    return result
