"""``hermes_constants`` for plugins written for Hermes Agent: where HERMES_HOME is, per task."""

from __future__ import annotations

import os
from contextvars import ContextVar, Token
from pathlib import Path

from hermes_core.config import CONFIG_FILE_NAME, ENV_FILE_NAME
from hermes_core.profiles import get_default_hermes_root

__all__ = [
    "get_hermes_home", "get_default_hermes_root", "get_hermes_dir", "display_hermes_home",
    "set_hermes_home_override", "reset_hermes_home_override", "get_hermes_home_override",
    "get_process_hermes_home", "get_config_path", "get_env_path", "get_skills_dir", "OPENROUTER_BASE_URL",
]

OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
OPENROUTER_MODELS_URL = f"{OPENROUTER_BASE_URL}/models"
FINISH_REASON_LENGTH = "length"

# A per-task home (a gateway serving several profiles) without touching os.environ,
# which every thread shares.
_override: ContextVar[str | None] = ContextVar("hermes_home_override", default=None)


def set_hermes_home_override(path: str | os.PathLike[str] | None) -> Token[str | None]:
    """Use ``path`` as HERMES_HOME in the current context; returns the token to reset it."""
    return _override.set(None if path is None else str(path))


def reset_hermes_home_override(token: Token[str | None]) -> None:
    _override.reset(token)


def get_hermes_home_override() -> str | None:
    return _override.get() or None


def get_process_hermes_home() -> Path:
    """HERMES_HOME of the process, ignoring any per-task override."""
    return get_default_hermes_root()


def get_hermes_home() -> Path:
    """HERMES_HOME: the per-task override, else ``$HERMES_HOME``, else ``~/.hermes``."""
    override = get_hermes_home_override()
    return Path(override) if override else get_default_hermes_root()


def get_hermes_dir(*parts: str) -> Path:
    """A directory under HERMES_HOME (not created)."""
    return get_hermes_home().joinpath(*parts)


def get_config_path() -> Path:
    return get_hermes_home() / CONFIG_FILE_NAME


def get_env_path() -> Path:
    return get_hermes_home() / ENV_FILE_NAME


def get_skills_dir() -> Path:
    return get_hermes_home() / "skills"


def display_hermes_home() -> str:
    """HERMES_HOME for messages, with the home directory shown as ``~``."""
    home = get_hermes_home()
    try:
        return "~/" + str(home.relative_to(Path.home()))
    except ValueError:
        return str(home)
