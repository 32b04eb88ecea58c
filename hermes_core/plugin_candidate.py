"""What discovery hands on: the entry-point groups it reads and the candidates it finds.

Kept below ``discovery`` and ``plugin_identity`` so both can name these types without
importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hermes_core.manifest import PluginManifest, PluginProblem

ENTRY_POINT_GROUP = "hermes_agent.plugins"
MEMORY_ENTRY_POINT_GROUP = "hermes_agent.memory_providers"
DISTRIBUTION_NAME = "hermes-host"
BUILTIN_PACKAGE = "hermes_plugins_builtin"
BUNDLED_PACKAGE = "hermes_bundled_plugins"
SOURCES: tuple[str, ...] = ("builtin", "bundled", "user", "project", "entrypoint")


@dataclass(frozen=True)
class EntryPointRef:
    """Where an entry-point plugin comes from, without loading it."""

    group: str
    name: str
    value: str
    distribution: str
    version: str

    @property
    def module(self) -> str:
        return self.value.partition(":")[0].strip()

    @property
    def attr(self) -> str:
        return self.value.partition(":")[2].strip()


def normal_name(name: str) -> str:
    """A plugin name or key in one Unicode form (NFC), so that one typed composed matches one stored decomposed.

    A file system may hand a directory name back decomposed (NFD, as macOS does), an editor may save
    plugin.yaml either way, and a terminal sends what the keyboard composes: all are compared in NFC.
    """
    import unicodedata

    return name if name.isascii() else unicodedata.normalize("NFC", name)


def command_word(name: str) -> str:
    """``name`` as one word of a command line a message tells the user to run: ``"bad name"`` for a name with a space.

    Messages put whole commands in single quotes, so a name that needs quoting gets double quotes.
    """
    import re

    if re.fullmatch(r"[\w./@+:=,-]+", name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`") + '"'


@dataclass
class PluginCandidate:
    """One plugin as discovery found it: its manifest, its problems, where it lives."""

    key: str
    name: str
    source: str
    #: The plugin directory, or ``module[:attr]`` for a package without a directory manifest.
    path: str
    manifest: PluginManifest | None
    problems: list[PluginProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Set for directory plugins.
    directory: Path | None = None
    #: Set for entry-point (and builtin) plugins.
    entry_point: EntryPointRef | None = None
    #: The memory-provider part of a plugin that also has a general part (see ``plugin_identity``).
    provider_entry_point: EntryPointRef | None = None
    #: Other places the same plugin was found (an installer's copy in ``$HERMES_HOME/plugins``).
    also_at: list[str] = field(default_factory=list)
    #: Other names config may use for this plugin (the directory name of such a copy).
    aliases: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.key, self.name = normal_name(self.key), normal_name(self.name)

    @property
    def kind(self) -> str:
        return self.manifest.kind if self.manifest else "standalone"

    @property
    def provides_memory(self) -> bool:
        """Whether ``memory.provider`` can select this plugin (a provider, or a plugin with a provider part)."""
        return self.kind == "exclusive" or self.provider_entry_point is not None

    @property
    def version(self) -> str:
        if self.entry_point and self.entry_point.version:
            return self.entry_point.version  # the installed distribution says which release is running
        return self.manifest.version if self.manifest else ""


@dataclass
class DiscoveryResult:
    """The winning candidates in discovery order, and every clash between them."""

    candidates: list[PluginCandidate]
    clashes: list[str] = field(default_factory=list)
