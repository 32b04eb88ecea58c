"""prompt_caching: cache breakpoints on Anthropic requests (system_and_3), configured by ``prompt_caching.*``."""

from __future__ import annotations

from typing import Any

from .breakpoints import apply_system_and_3, cache_marker

__all__ = ["apply_system_and_3", "cache_marker", "register"]

#: The middleware kind Anthropic clients run on each request body before sending it.
MIDDLEWARE_KIND = "anthropic_request"


def register(ctx: Any) -> None:
    enabled = ctx.config.get("prompt_caching.enabled", True)
    ttl = str(ctx.config.get("prompt_caching.cache_ttl", "5m"))
    cache_marker(ttl)  # refuse a bad ttl at load time, with the config key in the message

    def add_breakpoints(body: dict[str, Any]) -> dict[str, Any]:
        if not enabled:
            return body
        system, messages = apply_system_and_3(body.get("system"), list(body.get("messages") or []), ttl)
        updated = dict(body)
        updated["messages"] = messages
        if system is not None:
            updated["system"] = system
        return updated

    ctx.register_middleware(MIDDLEWARE_KIND, add_breakpoints)
