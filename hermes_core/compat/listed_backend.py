"""The members Hermes Agent's media backend base classes (text-to-speech, image generation) share.

hermes has no runtime for these backends: a plugin's backend is recorded and listed, never
called. The base classes exist so the plugins that subclass them import and load.
"""

from __future__ import annotations

import abc
from typing import Any


class ListedBackend(abc.ABC):
    """A named backend with a model catalogue and the picker metadata Hermes Agent shows."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The short identifier configuration selects (lowercase, no spaces)."""

    @property
    def display_name(self) -> str:
        return self.name.title()

    def is_available(self) -> bool:
        """Whether the backend can serve calls (keys, SDK); must not raise."""
        return True

    def list_models(self) -> list[dict[str, Any]]:
        """Models as ``{"id", "display"?, ...}``."""
        return []

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.display_name, "badge": "", "tag": "", "env_vars": []}

    def default_model(self) -> str | None:
        models = self.list_models()
        return models[0].get("id") if models else None
