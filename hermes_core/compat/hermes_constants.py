"""``hermes_constants`` for plugins written for Hermes Agent."""

from pathlib import Path

from hermes_core.config import get_hermes_home

__all__ = ["get_hermes_home", "display_hermes_home"]


def display_hermes_home() -> str:
    """HERMES_HOME for messages, with the home directory shown as ``~``."""
    home = get_hermes_home()
    try:
        return "~/" + str(home.relative_to(Path.home()))
    except ValueError:
        return str(home)
