"""Visible model text: echoed <memory-context> fences removed, streamed or whole."""

from __future__ import annotations

from hermes_core.memory.fence import StreamingContextScrubber
from hermes_core.models.clients.protocol import TextCallback


class VisibleTextStream:
    """Pass text deltas through the fence scrubber, forward what may be shown, and keep the whole."""

    def __init__(self, on_text: TextCallback | None = None) -> None:
        self._scrubber = StreamingContextScrubber()
        self._on_text = on_text
        self._shown: list[str] = []

    def feed(self, delta: str) -> None:
        self._emit(self._scrubber.feed(delta))

    def finish(self) -> str:
        """End of stream: release held-back text and return all visible text."""
        self._emit(self._scrubber.flush())
        return "".join(self._shown)

    def _emit(self, text: str) -> None:
        if text:
            self._shown.append(text)
            if self._on_text is not None:
                self._on_text(text)


def visible_text(text: str) -> str:
    """The whole-text equivalent of streaming ``text`` through :class:`VisibleTextStream`.

    Using the streaming rules for non-streamed replies too means a reply looks the same
    whether or not it was streamed.
    """
    if not text or "memory-context" not in text.lower():
        return text
    stream = VisibleTextStream()
    stream.feed(text)
    return stream.finish()
