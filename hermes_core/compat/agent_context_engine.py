"""``agent.context_engine`` for plugins written for Hermes Agent."""

from hermes_core.context_engine import ContextEngine

__all__ = ["ContextEngine", "sanitize_memory_context", "MEMORY_CONTEXT_MAX_CHARS"]

MEMORY_CONTEXT_MAX_CHARS = 6000


def sanitize_memory_context(text: str) -> str:
    """Strip memory fences and cap the text at 6,000 chars (head 4,000 + tail 1,500)."""
    from hermes_core.memory.fence import sanitize_context

    text = sanitize_context(text or "")
    if len(text) <= MEMORY_CONTEXT_MAX_CHARS:
        return text
    return text[:4000] + "\n[...]\n" + text[-1500:]
