"""``agent.web_search_provider`` for plugins written for Hermes Agent.

A web search backend a plugin offers with ``ctx.register_web_search_provider``;
``web.search_backend`` in config.yaml selects one by name.
"""

from __future__ import annotations

import abc
from typing import Any

from hermes_core.compat.hermes_cli_config import get_env_value

__all__ = ["WebSearchProvider", "get_provider_env"]


def get_provider_env(name: str) -> str:
    """A credential from the environment or ``$HERMES_HOME/.env``, stripped; ``""`` when unset."""
    return (get_env_value(name) or "").strip()


class WebSearchProvider(abc.ABC):
    """A web search/extract backend: implement ``name``, :meth:`is_available`, and search or extract.

    Results: search ``{"success": True, "data": {"web": [{"title", "url", "description", "position"}]}}``,
    extract ``{"success": True, "data": [{"url", "title", "content", ...}]}``, failure
    ``{"success": False, "error": str}``.
    """

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The identifier ``web.search_backend`` selects."""

    @property
    def display_name(self) -> str:
        return self.name

    @abc.abstractmethod
    def is_available(self) -> bool:
        """Whether credentials and dependencies are present; must not touch the network."""

    def is_keyless_available(self) -> bool:
        return False

    def supports_search(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return False

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        raise NotImplementedError(f"{self.name} does not support search")

    def extract(self, urls: list[str], **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.name} does not support extract")
