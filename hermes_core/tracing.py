"""HERMES_PLUGINS_DEBUG=1: discovery decisions and hook calls, printed to stderr."""

from __future__ import annotations

import os
import sys

DEBUG_ENV_VAR = "HERMES_PLUGINS_DEBUG"


def debug_enabled() -> bool:
    """Whether plugin tracing is on; read at call time so tests can flip it."""
    return os.environ.get(DEBUG_ENV_VAR, "").strip().lower() in {"1", "true", "yes", "on"}


def trace(message: str) -> None:
    """Print one trace line to stderr (callers check :func:`debug_enabled` first)."""
    print(f"hermes[plugins]: {message}", file=sys.stderr, flush=True)
