"""memory: the built-in MEMORY.md / USER.md memory provider, always on; limits from ``memory.*_char_limit``."""

from __future__ import annotations

import logging
from typing import Any

from .entries import ENTRY_DELIMITER
from .provider import DEFAULT_MEMORY_CHAR_LIMIT, DEFAULT_USER_CHAR_LIMIT, BuiltinMemoryProvider
from .verdicts import scan

__all__ = ["ENTRY_DELIMITER", "BuiltinMemoryProvider", "register", "scan"]


def _limit(config: Any, key: str, default: int, log: logging.Logger) -> int:
    """A positive int from config; a bad value falls back to the default with a warning, since memory must load."""
    value = config.get(key, default)
    if value is None or value == "":
        return default
    try:
        number = int(value) if not isinstance(value, bool) else 0
    except (TypeError, ValueError):
        number = 0
    if number <= 0:
        log.warning("%s must be a positive number of characters, got %r; using %d", key, value, default)
        return default
    return number


def register(ctx: Any) -> None:
    memory_limit = _limit(ctx.config, "memory.memory_char_limit", DEFAULT_MEMORY_CHAR_LIMIT, ctx.logger)
    user_limit = _limit(ctx.config, "memory.user_char_limit", DEFAULT_USER_CHAR_LIMIT, ctx.logger)
    ctx.register_memory_provider(BuiltinMemoryProvider(ctx.hermes_home, memory_limit, user_limit))
