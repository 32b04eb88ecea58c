"""``auxiliary.session_search.*`` from config, checked, with a default for every bad value."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

PREFIX = "auxiliary.session_search"
DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_CONCURRENCY = 3
MAX_CONCURRENCY = 5
#: Characters of one conversation given to the summary model (about 25k tokens).
DEFAULT_MAX_CHARS = 100_000
#: Below this a window holds too little conversation to summarise anything.
MIN_MAX_CHARS = 1_000


@dataclass(frozen=True)
class SearchSettings:
    """The summary model and how hard the tool may use it; the defaults are the documented ones."""

    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    max_concurrency: int = DEFAULT_CONCURRENCY
    max_chars: int = DEFAULT_MAX_CHARS

    @property
    def summaries_enabled(self) -> bool:
        """True when an auxiliary model is configured (both an endpoint and a model name)."""
        return bool(self.base_url and self.model)

    @classmethod
    def from_config(cls, config: Any, log: logging.Logger | None = None) -> SearchSettings:
        """Read the settings from a config with dotted ``get``. A bad value is logged and replaced
        by its default: the tool must keep answering even when a setting is mistyped."""
        log = log or logging.getLogger("hermes.plugins.session_search")

        def raw(name: str) -> Any:
            value = config.get(f"{PREFIX}.{name}", None) if config is not None else None
            return None if value == "" else value

        def text(name: str) -> str:
            value = raw(name)
            return "" if value is None else str(value).strip()

        def number(name: str, default: float, kind: type, expected: str, low: float, high: float | None = None) -> Any:
            value = raw(name)
            if value is None:
                return default
            try:
                parsed = kind(value) if not isinstance(value, bool) else None
            except (TypeError, ValueError):
                parsed = None
            if parsed is None or parsed < low:
                log.warning("%s.%s must be %s, got %r; using %r", PREFIX, name, expected, value, default)
                return default
            if high is not None and parsed > high:
                log.warning("%s.%s is at most %s, got %r; using %s", PREFIX, name, high, value, high)
                return kind(high)
            return parsed

        return cls(
            base_url=text("base_url"),
            model=text("model"),
            api_key=text("api_key"),
            timeout=number("timeout", DEFAULT_TIMEOUT_SECONDS, float, "a positive number of seconds", 0.001),
            max_concurrency=number("max_concurrency", DEFAULT_CONCURRENCY, int, "a whole number from 1", 1, MAX_CONCURRENCY),
            max_chars=number("max_chars", DEFAULT_MAX_CHARS, int, f"a whole number from {MIN_MAX_CHARS}", MIN_MAX_CHARS),
        )
