"""Calling provider methods in the form each provider accepts (providers written for older hosts take fewer arguments)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.memory.provider import MemoryProvider


def accepts(function: Callable[..., Any], name: str) -> bool:
    """Whether ``function`` takes a keyword ``name`` (declared, or through ``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def positional_count(function: Callable[..., Any]) -> int:
    """How many positional arguments ``function`` takes (99 for ``*args``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 0
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return 99
    return sum(1 for p in parameters if p.kind in kinds)


def call_on_memory_write(provider: MemoryProvider, action: str, target: str, content: str, metadata: dict[str, Any]) -> None:
    """``provider.on_memory_write`` in the form it accepts; errors propagate.

    Providers written for older hosts take metadata by keyword, by position, or not at all.
    """
    method = provider.on_memory_write
    if accepts(method, "metadata"):
        method(action, target, content, metadata=metadata)
    elif positional_count(method) >= 4:
        method(action, target, content, metadata)
    else:
        method(action, target, content)

