"""``agent.usage_pricing`` for plugins written for Hermes Agent: usage in one shape, and its cost.

The runtime computes these too (stream hook payloads), so they live in :mod:`hermes_core.models.usage`.
"""

from __future__ import annotations

from hermes_core.models.usage import (
    CanonicalUsage,
    CostResult,
    estimate_usage_cost,
    format_cost_label,
    normalize_usage,
    usage_payload,
)

__all__ = ["CanonicalUsage", "CostResult", "normalize_usage", "estimate_usage_cost", "format_cost_label", "usage_payload"]
