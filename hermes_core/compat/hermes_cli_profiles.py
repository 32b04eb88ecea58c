"""``hermes_cli.profiles`` for plugins written for Hermes Agent: named HERMES_HOMEs.

A profile ``work`` lives in ``<default home>/profiles/work`` (``hermes -p work``).
"""

from __future__ import annotations

import re
from pathlib import Path

from hermes_core.compat.hermes_constants import get_default_hermes_root, get_hermes_home
from hermes_core.config import profile_home
from hermes_core.profiles import DEFAULT_PROFILE, profile_name_of as _profile_name_from_context

__all__ = [
    "get_active_profile_name", "list_profiles", "get_profile_dir", "profile_exists",
    "normalize_profile_name", "validate_profile_name", "DEFAULT_PROFILE",
]

_PROFILE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def normalize_profile_name(name: str) -> str:
    return str(name or "").strip().lower()


def validate_profile_name(name: str) -> None:
    """:raises ValueError: ``name`` cannot be a profile (letters, digits, '-', '_'; 64 at most)."""
    if not _PROFILE_ID.match(normalize_profile_name(name)):
        raise ValueError(f"invalid profile name {name!r}: use lowercase letters, digits, '-' or '_' (at most 64)")


def _profiles_root() -> Path:
    return get_default_hermes_root() / "profiles"


def get_profile_dir(name: str) -> Path:
    if normalize_profile_name(name) == DEFAULT_PROFILE:
        return get_default_hermes_root()
    return profile_home(normalize_profile_name(name))


def profile_exists(name: str) -> bool:
    return get_profile_dir(name).is_dir()


def get_active_profile_name() -> str:
    return _profile_name_from_context(get_hermes_home())


def list_profiles() -> list[str]:
    """``default`` and every profile folder, sorted."""
    root = _profiles_root()
    names = sorted(p.name for p in root.iterdir() if p.is_dir() and _PROFILE_ID.match(p.name)) if root.is_dir() else []
    return [DEFAULT_PROFILE, *names]


def get_active_profile() -> str:
    return get_active_profile_name()
