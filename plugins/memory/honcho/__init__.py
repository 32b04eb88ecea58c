"""Honcho memory provider (bundled): select it with ``memory.provider: honcho``.

The honcho-ai SDK is imported only when the provider talks to Honcho; registering the provider
and the ``hermes honcho`` commands costs nothing more than reading these modules.
"""

from __future__ import annotations

from typing import Any

from .provider import HonchoMemoryProvider

__all__ = ["HonchoMemoryProvider", "register"]


def register(ctx: Any) -> None:
    from .cli import register_cli

    ctx.register_memory_provider(HonchoMemoryProvider())
    ctx.register_cli_command(
        "honcho",
        help="set up and inspect the Honcho memory provider",
        setup_fn=register_cli,
        description="Set up Honcho memory and change its settings in honcho.json (host block of the active profile).",
    )
