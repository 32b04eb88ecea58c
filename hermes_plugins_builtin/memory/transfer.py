"""MEMORY.md / USER.md as provider-agnostic memory records, and records back into them.

MEMORY.md holds the agent's own notes (kind ``note``, peer ``assistant``); USER.md holds what it
knows about the user (kind ``profile``, peer ``user``). The files keep no dates, so exported
records have no ``created_at``; ``source`` is derived from the text, so it is the same in every
export of the same entry.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.memory.records import MemoryRecord

from .entries import char_count, usage_text
from .operations import EditError, apply, parse_request
from .verdicts import scan

if TYPE_CHECKING:
    from .provider import BuiltinMemoryProvider

#: target -> (kind, peer) of its exported records.
TARGET_SHAPE = {"memory": ("note", "assistant"), "user": ("profile", "user")}
#: Record kinds that describe the user whoever the peer is.
USER_KINDS = frozenset({"profile", "preference"})
#: Peers that mean the agent itself.
AGENT_PEERS = frozenset({"assistant", "ai", "agent", "hermes"})


def entry_source(target: str, text: str) -> str:
    return f"builtin:{target}:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}"


def export_records(provider: BuiltinMemoryProvider) -> Iterator[MemoryRecord]:
    """Every live entry of both files; entries the scanner blocks (injected instructions) stay behind."""
    for target, (kind, peer) in TARGET_SHAPE.items():
        for entry in provider._file(target).read():
            if scan(entry) is None:
                yield MemoryRecord(entry, kind=kind, peer=peer, source=entry_source(target, entry))


def target_of(record: MemoryRecord) -> str:
    """USER.md for what describes the user, MEMORY.md for the agent's own notes and facts about the work."""
    if record.kind in USER_KINDS:
        return "user"
    if record.kind == "note" or record.peer.lower() in AGENT_PEERS:
        return "memory"
    return "user"


class RecordRefused(EditError):
    """One record the built-in memory will not store (``record`` names it); nothing of the import was written."""

    def __init__(self, record: MemoryRecord, reason: EditError) -> None:
        super().__init__(f"record {record.source or record.text[:40]!r} refused: {reason.message}", **reason.details)
        self.record = record


def _requests(records: Sequence[MemoryRecord]) -> dict[str, list[Any]]:
    """Each record checked like a ``memory`` tool add (separator lines, injected instructions), by target file."""
    by_target: dict[str, list[Any]] = {"memory": [], "user": []}
    for record in records:
        target = target_of(record)
        try:
            by_target[target].append(parse_request({"action": "add", "target": target, "content": record.text}))
        except EditError as exc:
            raise RecordRefused(record, exc) from None
    return by_target


def _merged(provider: BuiltinMemoryProvider, target: str, current: list[str], requests: list[Any]) -> tuple[list[str], int]:
    """``current`` with the requests' entries added and how many were new; :class:`EditError` if they do not fit."""
    entries, new = list(current), 0
    limit = provider.char_limit(target)
    for request in requests:
        try:
            edit = apply(request, entries, limit)
        except EditError as exc:
            if "needed" not in exc.details:  # not a matter of room (adds refuse nothing else today)
                raise
            # the whole set is what does not fit: say how much it needs beside what the file holds now
            everything = char_count(list(dict.fromkeys([*current, *(r.content for r in requests)])))
            raise EditError(
                f"the imported records do not fit {provider.path(target).name}: with them it would hold {everything}/{limit} chars "
                f"(it holds {usage_text(char_count(current), limit)}) -> raise memory.{target}_char_limit "
                f"(hermes config set memory.{target}_char_limit N) or import fewer records; nothing was imported",
                needed=everything - limit,
            ) from None
        new += edit.changed
        entries = edit.entries
    return entries, new


def check_records(provider: BuiltinMemoryProvider, records: Sequence[MemoryRecord]) -> int:
    """What :func:`import_records` would do, without writing: how many entries would be new, or its error."""
    new = 0
    for target, requests in _requests(records).items():
        if requests:  # the file as it is now, as import_records' update would read it under its lock
            new += _merged(provider, target, provider._file(target).read(), requests)[1]
    return new


def import_records(provider: BuiltinMemoryProvider, records: Sequence[MemoryRecord]) -> int:
    """Add every record as an entry, all or nothing per file; return how many entries were new.

    Each text is checked like a ``memory`` tool add (separator lines, injected instructions) and
    the whole batch must fit the file's character limit, so a refused record writes nothing.
    """
    added = 0
    for target, requests in _requests(records).items():
        if not requests:
            continue

        def change(current: list[str], requests: list[Any] = requests, target: str = target) -> tuple[list[str] | None, int]:
            entries, new = _merged(provider, target, current, requests)
            return (entries if new else None), new

        added += provider._file(target).update(change)
    return added
