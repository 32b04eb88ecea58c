"""PluginRecord: one discovered plugin and what the host decided and did about it."""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_core.context import Registrations
    from hermes_core.discovery import PluginCandidate
    from hermes_core.hooks import CallbackHolder
    from hermes_core.tools import ToolEntry

__all__ = ["PluginRecord"]


@dataclass
class PluginRecord:
    """A discovered plugin and everything the host decided and did about it."""

    candidate: PluginCandidate
    enabled: bool
    reason: str
    loaded: bool = False
    error: str | None = None
    #: What the plugin registered; ``None`` until it has loaded.
    registrations: Registrations | None = None
    module: types.ModuleType | None = None
    #: Tools this plugin's registrations replaced, to put back when it unloads.
    replaced_tools: dict[str, ToolEntry] = field(default_factory=dict)
    holders: list[CallbackHolder] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.candidate.key

    @property
    def name(self) -> str:
        return self.candidate.name

    @property
    def warnings(self) -> list[str]:
        return self.candidate.warnings
