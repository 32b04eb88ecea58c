"""Server-sent events: turn the lines of a streamed HTTP body into (event, data) pairs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event; ``event`` is ``"message"`` when the server gave no ``event:`` field."""

    event: str
    data: str


def iter_sse_events(lines: Iterable[str]) -> Iterator[SSEEvent]:
    """Yield events from ``lines`` (line breaks already removed), following the SSE framing rules.

    Several ``data:`` lines of one event are joined with a line break; ``:`` comment lines
    (keep-alives) are skipped; an event is dispatched at a blank line or at the end of the body.
    """
    event = ""
    data: list[str] = []
    for line in lines:
        line = line.rstrip("\r")
        if not line:
            if data:
                yield SSEEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        # "id" and "retry" matter only to browsers reconnecting; a model stream is never resumed.
    if data:
        yield SSEEvent(event or "message", "\n".join(data))
