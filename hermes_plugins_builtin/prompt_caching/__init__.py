"""prompt_caching: cache breakpoints on Anthropic requests, configured by ``prompt_caching.*``.

``strategy`` picks where the markers go (see :mod:`.policies`): ``system_and_3`` (default) or
``turn_anchored``.
"""

from __future__ import annotations

from typing import Any

from .breakpoints import apply_system_and_3, cache_marker
from .policies import DEFAULT_STRATEGY, STRATEGIES, apply_turn_anchored, get_strategy

__all__ = ["STRATEGIES", "apply_system_and_3", "apply_turn_anchored", "cache_marker", "get_strategy", "register"]

#: The middleware kind Anthropic clients run on each request body before sending it.
MIDDLEWARE_KIND = "anthropic_request"


def register(ctx: Any) -> None:
    enabled = ctx.config.get("prompt_caching.enabled", True)
    ttl = str(ctx.config.get("prompt_caching.cache_ttl", "5m"))
    cache_marker(ttl)  # refuse a bad ttl at load time, with the config key in the message
    place = get_strategy(str(ctx.config.get("prompt_caching.strategy", DEFAULT_STRATEGY) or DEFAULT_STRATEGY))  # same for a bad name

    def add_breakpoints(body: dict[str, Any]) -> dict[str, Any]:
        if not enabled:
            return body
        system, messages = place(body.get("system"), list(body.get("messages") or []), ttl)
        updated = dict(body)
        updated["messages"] = messages
        if system is not None:
            updated["system"] = system
        return updated

    ctx.register_middleware(MIDDLEWARE_KIND, add_breakpoints)
