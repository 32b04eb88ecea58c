"""Estimated cost of a model call: ``model.pricing`` from config, else a table of list prices.

Prices are USD per million tokens. The table holds the public list prices of common Anthropic
and OpenAI models as of :data:`PRICING_VERSION`; prices change, so a configured
``model.pricing`` always wins, and a model the table does not know gets no estimate (its
``cost_status`` says ``unknown``) rather than a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

PRICING_VERSION = "list-prices-2025-08"

#: model name prefix -> (input, output, cache_read, cache_write) in USD per million tokens.
#: OpenAI charges no premium for writing its cache: written tokens cost as much as input.
#: A name matches an entry followed only by a release suffix; the longest such entry wins.
LIST_PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4": (15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-4": (3.0, 15.0, 0.30, 3.75),
    "claude-3-7-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-3-5-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": (0.80, 4.0, 0.08, 1.0),
    "claude-3-haiku": (0.25, 1.25, 0.03, 0.30),
    "gpt-5-nano": (0.05, 0.40, 0.005, 0.05),
    "gpt-5-mini": (0.25, 2.0, 0.025, 0.25),
    "gpt-5": (1.25, 10.0, 0.125, 1.25),
    "gpt-4.1-nano": (0.10, 0.40, 0.025, 0.10),
    "gpt-4.1-mini": (0.40, 1.60, 0.10, 0.40),
    "gpt-4.1": (2.0, 8.0, 0.50, 2.0),
    "gpt-4o-mini": (0.15, 0.60, 0.075, 0.15),
    "gpt-4o": (2.50, 10.0, 1.25, 2.50),
    "o4-mini": (1.10, 4.40, 0.275, 1.10),
    "o3": (2.0, 8.0, 0.50, 2.0),
}

_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


@dataclass(frozen=True)
class CostEstimate:
    """What the session row records about the cost of one call."""

    usd: float | None
    #: estimated | unknown
    status: str
    #: config | list prices | ""
    source: str
    pricing_version: str | None


def _rates_from_config(pricing: dict[str, Any]) -> tuple[float, float, float, float]:
    def rate(key: str) -> float:
        value = pricing.get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0

    return rate("input"), rate("output"), rate("cache_read"), rate("cache_write")


# What may follow a table name and still be the same model: dated or numbered releases
# ("-20241022", "-2024-08-06", "-4-1") and "-latest". "o3-pro" or "gpt-5-pro" are other
# models with other prices, so they get no estimate rather than a wrong one.
_RELEASE_SUFFIX = re.compile(r"(?:-\d+)*(?:-latest)?")


def list_price(model: str) -> tuple[float, float, float, float] | None:
    """The table's rates for ``model`` (provider prefixes such as ``anthropic/`` ignored)."""
    name = model.rsplit("/", 1)[-1].lower()
    matches = [prefix for prefix in LIST_PRICES if name.startswith(prefix) and _RELEASE_SUFFIX.fullmatch(name[len(prefix):])]
    return LIST_PRICES[max(matches, key=len)] if matches else None


def estimate_cost(usage: dict[str, Any], model: str, pricing: Any = None) -> CostEstimate:
    """The cost of one call from its normalised usage (``input_tokens`` excludes cached tokens)."""
    if isinstance(pricing, dict) and pricing:
        rates, source, version = _rates_from_config(pricing), "config", None
    else:
        found = list_price(model)
        if found is None:
            return CostEstimate(None, "unknown", "", None)
        rates, source, version = found, "list prices", PRICING_VERSION
    tokens = [usage.get(key) if isinstance(usage.get(key), int) else 0 for key in _USAGE_KEYS]
    usd = sum(count * price for count, price in zip(tokens, rates)) / 1_000_000
    return CostEstimate(round(usd, 8), "estimated", source, version)
