"""Which turns a Honcho session already holds, so a turn that may have been stored is not stored twice.

Every message hermes writes carries, in its metadata, the turn it belongs to (``hermes_turn``: the
caller's ``source`` for replayed history, otherwise an id made when the turn was handed over) and its
place in that turn (``hermes_part``: chunks and the two peers' messages). A write that may already
have landed (a replayed turn, a journalled write sent again after a crash or a session that ended
mid-request, a retry after a timeout) is checked against the session before it is sent; everything
else is sent without a lookup.

The check lists the session's own messages once, filtered by metadata as the Honcho API allows
(``{"metadata": {"source": "hermes"}}``), and keeps what it found; what this process sends afterwards
is added as it goes. A later check of the same session costs no request.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from .writer import PendingMessage

TURN_KEY = "hermes_turn"
PART_KEY = "hermes_part"
#: Messages written before turns were numbered carry only their source; such a source covers every part.
LEGACY_SOURCE_KEY = "hermes_source"
#: The metadata filter that narrows a session's messages to the ones hermes wrote.
HERMES_FILTER: dict[str, object] = {"metadata": {"source": "hermes"}}
WHOLE_TURN = -1


def new_turn_id() -> str:
    """An id for a live turn (one with no source of its own)."""
    return f"turn:{uuid.uuid4().hex}"


def message_key(metadata: dict[str, Any]) -> tuple[str, int] | None:
    """``(turn, part)`` of a stored or pending message; ``part`` is WHOLE_TURN for legacy messages; None if unmarked."""
    turn = metadata.get(TURN_KEY)
    if isinstance(turn, str) and turn:
        part = metadata.get(PART_KEY)
        return turn, part if isinstance(part, int) and not isinstance(part, bool) else WHOLE_TURN
    legacy = metadata.get(LEGACY_SOURCE_KEY)
    if isinstance(legacy, str) and legacy:
        return legacy, WHOLE_TURN
    return None


class HeldTurns:
    """Per Honcho session: the ``(turn, part)`` keys it holds. ``list_marked(session)`` returns the
    metadata of the session's hermes messages (it may raise HonchoCallError; nothing is cached then)."""

    def __init__(self, list_marked: Callable[[Any], Iterable[dict[str, Any]]]) -> None:
        self._list_marked = list_marked
        self._held: dict[str, set[tuple[str, int]]] = {}
        self._lock = threading.Lock()
        #: How many times a session was listed (status and tests: the lookup stays cheap).
        self.lookups = 0

    def unsent(self, name: str, session: Any, messages: list[PendingMessage]) -> list[PendingMessage]:
        """``messages`` without those the session already holds; looks only when one may have landed."""
        if not any(m.may_be_stored and message_key(m.metadata) for m in messages):
            return messages
        held = self._known(name, session)
        kept = []
        for message in messages:
            key = message_key(message.metadata)
            if message.may_be_stored and key is not None and (key in held or (key[0], WHOLE_TURN) in held):
                continue
            kept.append(message)
        return kept

    def remember(self, name: str, messages: Iterable[PendingMessage]) -> None:
        """Note what was just stored, when the session's holdings are being kept."""
        with self._lock:
            held = self._held.get(name)
            if held is None:
                return  # never listed: a later check lists it and sees these too
            held.update(key for key in (message_key(m.metadata) for m in messages) if key is not None)

    def forget(self) -> None:
        with self._lock:
            self._held.clear()

    def _known(self, name: str, session: Any) -> set[tuple[str, int]]:
        with self._lock:
            if name in self._held:
                return self._held[name]
        found = {key for key in (message_key(dict(meta or {})) for meta in self._list_marked(session)) if key is not None}
        with self._lock:
            self.lookups += 1
            return self._held.setdefault(name, found)
