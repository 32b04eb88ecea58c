"""``agent.memory_manager`` for plugins written for Hermes Agent."""

from hermes_core.memory.fence import StreamingContextScrubber, build_memory_context_block, sanitize_context
from hermes_core.memory.manager import MemoryManager

__all__ = ["MemoryManager", "StreamingContextScrubber", "build_memory_context_block", "sanitize_context"]
