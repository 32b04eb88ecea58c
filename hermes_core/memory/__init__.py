"""Memory contracts: the provider base class (and, with the memory layer, the manager and fencing)."""

from hermes_core.memory.provider import MemoryProvider

__all__ = ["MemoryProvider"]
