"""``compression.*`` and ``auxiliary.compression.*`` from config, checked, with a default for every bad value."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from .summary_model import DEFAULT_TIMEOUT_SECONDS

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class CompressionSettings:
    """How the compressor behaves; the defaults are the documented ones."""

    enabled: bool = True
    #: Share of the model's context length at which compression triggers.
    threshold: float = 0.75
    protect_first_n: int = 3
    protect_last_n: int = 6
    #: Share of the threshold the protected tail may cost, and of the middle the summary should cost.
    target_ratio: float = 0.20
    summary_base_url: str = ""
    summary_model: str = ""
    summary_api_key: str = field(default="", repr=False)
    summary_timeout: float = DEFAULT_TIMEOUT_SECONDS

    @property
    def has_summary_model(self) -> bool:
        return bool(self.summary_base_url and self.summary_model)

    @classmethod
    def from_config(cls, config: Any, log: logging.Logger | None = None) -> CompressionSettings:
        """Read the settings from a config with dotted ``get``. A bad value is logged and replaced by
        its default: compression must keep working even when a setting is mistyped."""
        reader = _Reader(config, log or logging.getLogger("hermes.plugins.compressor"))
        return cls(
            enabled=reader.flag("compression.enabled", cls.enabled),
            threshold=reader.fraction("compression.threshold", cls.threshold, allow_one=True),
            protect_first_n=reader.count("compression.protect_first_n", cls.protect_first_n),
            protect_last_n=reader.count("compression.protect_last_n", cls.protect_last_n),
            target_ratio=reader.fraction("compression.target_ratio", cls.target_ratio, allow_one=False),
            summary_base_url=reader.text("auxiliary.compression.base_url"),
            summary_model=reader.text("auxiliary.compression.model"),
            summary_api_key=reader.text("auxiliary.compression.api_key"),
            summary_timeout=reader.seconds("auxiliary.compression.timeout", DEFAULT_TIMEOUT_SECONDS),
        )


class _Reader:
    def __init__(self, config: Any, log: logging.Logger) -> None:
        self.config = config
        self.log = log

    def _raw(self, key: str) -> Any:
        value = self.config.get(key, None) if self.config is not None else None
        return None if value == "" else value

    def _bad(self, key: str, value: Any, expected: str, default: Any) -> Any:
        self.log.warning("%s must be %s, got %r; using %r", key, expected, value, default)
        return default

    def flag(self, key: str, default: bool) -> bool:
        value = self._raw(key)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if str(value).strip().lower() in _TRUE:
            return True
        if str(value).strip().lower() in _FALSE:
            return False
        return self._bad(key, value, "true or false", default)

    def fraction(self, key: str, default: float, *, allow_one: bool) -> float:
        value = self._raw(key)
        if value is None:
            return default
        try:
            number = float(value) if not isinstance(value, bool) else -1.0
        except (TypeError, ValueError):
            number = -1.0
        if 0.0 < number < 1.0 or (allow_one and number == 1.0):
            return number
        return self._bad(key, value, "a fraction between 0 and 1 (e.g. 0.75)", default)

    def count(self, key: str, default: int) -> int:
        value = self._raw(key)
        if value is None:
            return default
        try:
            number = int(value) if not isinstance(value, bool) else -1
        except (TypeError, ValueError):
            number = -1
        if number >= 0:
            return number
        return self._bad(key, value, "a whole number of messages, 0 or more", default)

    def seconds(self, key: str, default: float) -> float:
        value = self._raw(key)
        if value is None:
            return default
        try:
            number = float(value) if not isinstance(value, bool) else 0.0
        except (TypeError, ValueError):
            number = 0.0
        if number > 0:
            return number
        return self._bad(key, value, "a positive number of seconds", default)

    def text(self, key: str) -> str:
        value = self._raw(key)
        return "" if value is None else str(value).strip()
