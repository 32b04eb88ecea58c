"""The meaning stage's switch, readable without loading the scanner (the verdict cache keys on it)."""

from __future__ import annotations

import os

#: Environment switch: ``off`` (or ``0``, ``false``, ``no``) leaves the meaning stage out of every scan.
SWITCH = "HERMES_SCANNER_MODEL"
OFF = frozenset({"off", "0", "false", "no"})
ON = frozenset({"", "on", "1", "true", "yes"})


def meaning_enabled() -> bool:
    """Whether scans include the meaning stage (read on every scan, so a test or a user can flip it)."""
    return os.environ.get(SWITCH, "on").strip().lower() not in OFF
