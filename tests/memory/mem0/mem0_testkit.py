"""Helpers shared by the Mem0 provider tests (imported by name: this directory is on sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

#: Small embeddings keep the stores small and the tests fast.
DIMS = 64


def write_config(home: Path, base_url: str, extra: str = "") -> None:
    (home / "config.yaml").write_text(
        "model:\n  provider: openai\n  name: chat-model\n"
        f"  base_url: {base_url}\n"
        "memory:\n  provider: mem0\n  mem0:\n"
        f"    embedder:\n      model: hashed-bow\n      dims: {DIMS}\n"
        "    timeout: 2\n" + extra
    )


def plugin_module(provider: Any, name: str) -> ModuleType:
    """A submodule of the loaded mem0 plugin package (its import name depends on how the host loaded it)."""
    package = type(provider).__module__.rsplit(".", 1)[0]
    return sys.modules[f"{package}.{name}"]
