"""Named HERMES_HOMEs: the default root and which profile a home is.

A profile ``work`` lives in ``<default home>/profiles/work`` (``hermes -p work``). The plugin
context (``ctx.profile_name``) and the ``hermes_cli.profiles`` / ``hermes_constants`` aliases
all answer from here, so the context never reaches up into the compatibility modules.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT_PROFILE", "get_default_hermes_root", "profile_name_of"]

DEFAULT_PROFILE = "default"


def get_default_hermes_root() -> Path:
    """The home of the default profile: ``$HERMES_HOME`` as launched, else ``~/.hermes``."""
    value = os.environ.get("HERMES_HOME", "").strip()
    return Path(value).expanduser() if value else Path.home() / ".hermes"


def profile_name_of(active_home: Path, default_root: Path | None = None, cwd: Path | None = None) -> str:
    """``default``, the profile name, or ``custom`` for a HERMES_HOME outside the profiles folder."""
    root = (default_root or get_default_hermes_root()).expanduser().resolve()
    home = Path(active_home).expanduser().resolve()
    if home == root:
        return DEFAULT_PROFILE
    try:
        relative = home.relative_to(root / "profiles")
    except ValueError:
        return "custom"
    return relative.parts[0] if len(relative.parts) == 1 else "custom"
