"""Mem0 memories as provider-neutral records (``export_memories``) and records as memories (``import_memories``).

A record: ``text``, ``kind``, ``peer`` (``user``, ``assistant`` or another id), ``created_at``,
``source`` (``mem0:<id>``, stable from one export to the next) and ``metadata``. Imports are verbatim
(no extraction) and skip a record whose ``source`` this store already holds, so importing the same
file twice, or an export back into its own store, adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .backend import Backend
from .tools import ORIGIN_CONCLUDE, ORIGIN_IMPORT, ORIGIN_MIRROR, ORIGIN_TURN

#: Metadata the provider keeps for itself; an export shows the rest.
_INTERNAL = frozenset({"origin", "kind", "peer", "import_source", "turn"})


def _kind(memory: Mapping[str, Any], metadata: Mapping[str, Any]) -> str:
    if metadata.get("kind"):
        return str(metadata["kind"])
    origin = metadata.get("origin")
    if origin == ORIGIN_CONCLUDE:
        return "conclusion"
    if origin == ORIGIN_MIRROR:
        return "profile" if metadata.get("target") == "user" else "note"
    if origin == ORIGIN_TURN and memory.get("role"):
        return "message"  # stored verbatim; extracted facts carry no role
    return "fact"


def _peer(memory: Mapping[str, Any], metadata: Mapping[str, Any]) -> str:
    if metadata.get("peer"):
        return str(metadata["peer"])
    return "assistant" if memory.get("role") == "assistant" else "user"


def to_record(memory: Mapping[str, Any]) -> dict[str, Any]:
    """One stored memory as a record; mem0's own ids go under ``metadata``."""
    metadata = dict(memory.get("metadata") or {})
    extra = {k: v for k, v in metadata.items() if k not in _INTERNAL}
    extra.update({k: memory[k] for k in ("user_id", "agent_id", "role") if memory.get(k)})
    if metadata.get("import_source"):
        extra["imported_from"] = metadata["import_source"]
    extra["mem0_id"] = memory.get("id")
    return {
        "text": memory.get("memory", ""),
        "kind": _kind(memory, metadata),
        "peer": _peer(memory, metadata),
        "created_at": memory.get("created_at"),
        "source": f"mem0:{memory.get('id')}",
        "metadata": extra,
    }


def _field(record: Any, name: str) -> Any:
    getter = getattr(record, "get", None)
    return getter(name) if callable(getter) else getattr(record, name, None)


def import_records(backend: Backend, records: Iterable[Any], *, user_id: str, agent_id: str) -> int:
    """Add each record's text verbatim under the configured user; returns how many were added.

    ``records`` may be ``MemoryRecord`` objects or plain dicts. A record already held (its
    ``source`` imported before, or ``mem0:<id>`` of a memory in this store) is skipped.
    """
    held: set[str] = set()
    for memory in backend.get_all(user_id=user_id):
        held.add(f"mem0:{memory.get('id')}")
        source = (memory.get("metadata") or {}).get("import_source")
        if source:
            held.add(str(source))
    added = 0
    for record in records:
        text = str(_field(record, "text") or "").strip()
        source = str(_field(record, "source") or "")
        if not text or (source and source in held):
            continue
        peer = str(_field(record, "peer") or _field(record, "user") or "user")
        metadata: dict[str, Any] = {k: v for k, v in dict(_field(record, "metadata") or {}).items() if k not in _INTERNAL}
        metadata.update(origin=ORIGIN_IMPORT, kind=str(_field(record, "kind") or "fact"), peer=peer)
        if source:
            metadata["import_source"] = source
        if _field(record, "created_at"):
            metadata["original_created_at"] = str(_field(record, "created_at"))
        # The generic peers are this store's own user; any other id stays in the metadata, so
        # searches of the configured user find every imported memory.
        backend.add([{"role": "user", "content": text}], user_id=user_id, agent_id=agent_id, infer=False, metadata=metadata)
        if source:
            held.add(source)
        added += 1
    return added
