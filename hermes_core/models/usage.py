"""Token usage in one shape (either API family's names), and its cost; served as ``agent.usage_pricing``."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hermes_core.models.pricing import estimate_cost

__all__ = ["CanonicalUsage", "CostResult", "normalize_usage", "estimate_usage_cost", "format_cost_label", "usage_payload"]


def _count(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0


def _get(usage: Any, name: str) -> Any:
    return usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)


@dataclass
class CanonicalUsage:
    """Token counts with cached tokens apart from ``input_tokens``."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    request_count: int = 1
    raw_usage: dict[str, Any] | None = None

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def completion_tokens(self) -> int:
        return self.output_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens

    def __add__(self, other: CanonicalUsage) -> CanonicalUsage:
        if not isinstance(other, CanonicalUsage):
            return NotImplemented
        return CanonicalUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.request_count + other.request_count,
        )


@dataclass(frozen=True)
class CostResult:
    amount_usd: Decimal | None
    status: str
    source: str
    label: str


def normalize_usage(response_usage: Any, *, provider: str | None = None, api_mode: str | None = None) -> CanonicalUsage:
    """Read usage in any of the shapes providers and this host report.

    Anthropic: ``input_tokens`` excludes cached tokens (``cache_read_input_tokens`` /
    ``cache_creation_input_tokens``). OpenAI: ``prompt_tokens`` includes
    ``prompt_tokens_details.cached_tokens``. This host: ``input_tokens``,
    ``cache_read_tokens``, ``cache_write_tokens``.
    """
    if not response_usage:
        return CanonicalUsage()
    raw = dict(response_usage) if isinstance(response_usage, dict) else None
    cache_read = _count(_get(response_usage, "cache_read_tokens")) or _count(_get(response_usage, "cache_read_input_tokens"))
    cache_write = _count(_get(response_usage, "cache_write_tokens")) or _count(_get(response_usage, "cache_creation_input_tokens"))
    output = _count(_get(response_usage, "output_tokens")) or _count(_get(response_usage, "completion_tokens"))
    details = _get(response_usage, "completion_tokens_details") or {}
    reasoning = _count(_get(response_usage, "reasoning_tokens")) or _count(_get(details, "reasoning_tokens"))
    if _get(response_usage, "input_tokens") is not None and (provider or "").lower() != "openai" and api_mode != "codex_responses":
        return CanonicalUsage(_count(_get(response_usage, "input_tokens")), output, cache_read, cache_write, reasoning, raw_usage=raw)
    prompt = _count(_get(response_usage, "prompt_tokens")) or _count(_get(response_usage, "input_tokens"))
    prompt_details = _get(response_usage, "prompt_tokens_details") or _get(response_usage, "input_tokens_details") or {}
    cached = cache_read or _count(_get(prompt_details, "cached_tokens"))
    return CanonicalUsage(max(prompt - cached - cache_write, 0), output, cached, cache_write, reasoning, raw_usage=raw)


def format_cost_label(amount: Decimal | float | None) -> str:
    if amount is None:
        return "n/a"
    value = Decimal(str(amount))
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


def estimate_usage_cost(model_name: str, usage: CanonicalUsage | dict[str, Any], *, provider: str | None = None, pricing: Any = None, **_: Any) -> CostResult:
    """The estimated USD cost of ``usage`` on ``model_name`` (configured or list prices)."""
    canonical = usage if isinstance(usage, CanonicalUsage) else normalize_usage(usage, provider=provider)
    estimate = estimate_cost(
        {"input_tokens": canonical.input_tokens, "output_tokens": canonical.output_tokens,
         "cache_read_tokens": canonical.cache_read_tokens, "cache_write_tokens": canonical.cache_write_tokens},
        model_name,
        pricing,
    )
    amount = None if estimate.usd is None else Decimal(str(estimate.usd))
    return CostResult(amount, estimate.status, estimate.source, format_cost_label(amount))


def usage_payload(usage: dict[str, Any] | None) -> dict[str, Any]:
    """``usage`` with the names plugins read from either API family added beside this host's.

    ``prompt_tokens`` counts every prompt token (cached ones too), ``completion_tokens`` the
    output, ``total_tokens`` both; existing keys are kept as they are.
    """
    payload = dict(usage or {})
    canonical = normalize_usage(payload)
    payload.setdefault("prompt_tokens", canonical.prompt_tokens)
    payload.setdefault("completion_tokens", canonical.completion_tokens)
    payload.setdefault("total_tokens", canonical.total_tokens)
    return payload
