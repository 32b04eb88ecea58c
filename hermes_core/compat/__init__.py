"""The modules that serve Hermes Agent's names (``agent.*``, ``tools.*``, ``hermes_cli.*``, ...).

The finder that maps those names here lives in :mod:`hermes_core.aliases`, below the manager,
so that loading plugins never imports these modules; its API is re-exported for code that
imports it from this package.
"""

from __future__ import annotations

from hermes_core.aliases import (
    ALIASES,
    HERMES_AGENT_TOP_LEVEL,
    PARENTS,
    AliasFinder,
    apply_setting,
    describe_missing_module,
    disable,
    enable,
    enabled,
)

__all__ = [
    "ALIASES", "HERMES_AGENT_TOP_LEVEL", "PARENTS", "AliasFinder", "apply_setting", "describe_missing_module",
    "disable", "enable", "enabled",
]
