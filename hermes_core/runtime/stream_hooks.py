"""Hook payloads plugins written for Hermes Agent read: stream observers and usage names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hermes_core.models.usage import usage_payload

__all__ = ["StreamHooks", "usage_payload"]


class StreamHooks:
    """Fires ``on_stream_start`` / ``on_stream_delta`` / ``on_stream_end`` around one streamed model call.

    Observers only: they cannot change the text. Nothing is built when no plugin listens.
    """

    def __init__(self, hooks: Any, identity: dict[str, Any], on_text: Callable[[str], Any] | None) -> None:
        self._hooks = hooks
        self._forward = on_text
        self._listening = any(hooks.has_listeners(name) for name in ("on_stream_start", "on_stream_delta", "on_stream_end"))
        self._base = {
            "session_id": identity.get("session_id", ""),
            "turn_id": identity.get("turn_id", ""),
            "iteration": identity.get("api_call_count", 0),
            "model": identity.get("model", ""),
            "provider": identity.get("provider", ""),
            "surface": identity.get("platform", "cli"),
        }
        self._text: list[str] = []
        self._started = False

    def on_text(self, delta: str) -> Any:
        if self._listening:
            if not self._started:
                self._started = True
                self._hooks.notify("on_stream_start", **self._base)
            self._text.append(delta)
            self._hooks.notify("on_stream_delta", **self._base, delta=delta, kind="text")
        return self._forward(delta) if self._forward is not None else None

    def end(self, *, finished: bool, error: str | None) -> None:
        if self._listening and self._started:
            self._hooks.notify("on_stream_end", **self._base, final_text="".join(self._text), finished=finished, error=error)
