"""Mem0 memory provider: the mem0ai library, embedded (local mode) or the hosted platform.

Importing this package never imports mem0: the library is loaded when a session starts
with this provider selected (``memory.provider: mem0``).
"""

from __future__ import annotations

from .provider import Mem0MemoryProvider


def register(ctx) -> None:
    ctx.register_memory_provider(Mem0MemoryProvider())
