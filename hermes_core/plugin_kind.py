"""A plugin's kind when its plugin.yaml leaves ``kind`` out: guessed from its code, as Hermes Agent guesses it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_core.manifest import PluginManifest

#: As much of ``__init__.py`` as Hermes Agent reads to guess the kind.
_KIND_SCAN_CHARS = 8192


def detect_kind(init_text: str) -> str | None:
    """Derive ``kind`` from the start of ``__init__.py`` for manifests that omit it.

    Memory providers written for the reference host often leave ``kind`` out and are
    recognised by what their code mentions; declare ``kind: standalone`` to opt out.
    """
    head = init_text[:_KIND_SCAN_CHARS]
    if "register_memory_provider" in head or "MemoryProvider" in head:
        return "exclusive"
    if "register_provider" in head and "ProviderProfile" in head:
        return "model-provider"
    return None


#: What a plugin registers besides a memory provider (an ``exclusive`` plugin's, only while it is selected).
_GENERAL_REGISTRATION = re.compile(r"\.register_(?:tool|hook|command|cli_command|skill|middleware|platform)\s*\(|hookimpl")


def guessed_kind_needs_word(manifest: PluginManifest, init_text: str) -> bool:
    """Whether a guessed kind is worth a warning: not for a plugin that is only a memory provider,
    which is what the guess makes of it (``kind: standalone`` would stop ``memory.provider`` loading it)."""
    return manifest.kind_detected and (manifest.kind != "exclusive" or bool(_GENERAL_REGISTRATION.search(init_text)))
