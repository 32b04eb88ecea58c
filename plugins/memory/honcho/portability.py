"""Moving memories in and out of Honcho as provider-neutral records (``hermes memory switch``).

A record is a dict: ``text``, ``kind``, ``peer`` ("user" | "ai"), ``user``, ``created_at``, ``source``.
Exported: every conclusion the AI peer holds about the user and about itself; a peer with no
conclusions contributes its representation instead. Imported: each record becomes a conclusion.
"""

from __future__ import annotations

from typing import Any

from .client import HonchoBackend
from .config import HonchoConfig

PAGE_SIZE = 100
IMPORT_BATCH = 100


def _conclusions(backend: HonchoBackend, view: Any) -> list[Any]:
    page = backend.call(view.list, size=PAGE_SIZE)
    return backend.call(list, page)  # iterating fetches the following pages


def export_records(backend: HonchoBackend, config: HonchoConfig, user: Any, ai: Any) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    source = f"honcho:{config.workspace}"
    for peer, view, peer_obj in (("user", ai.conclusions_of(user.id), user), ("ai", ai.conclusions, ai)):
        found = _conclusions(backend, view)
        for item in found:
            created = getattr(item, "created_at", None)
            records.append({
                "text": item.content, "kind": "conclusion", "peer": peer, "user": user.id,
                "created_at": created.isoformat() if hasattr(created, "isoformat") else created,
                "source": f"{source}/{getattr(item, 'observer_id', ai.id)}->{getattr(item, 'observed_id', peer_obj.id)}",
                "id": item.id,
            })
        if not found:
            representation = backend.call(peer_obj.representation) or ""
            if representation.strip():
                records.append({"text": representation.strip(), "kind": "representation", "peer": peer, "user": user.id, "created_at": None, "source": f"{source}/{peer_obj.id}"})
    return records


def import_records(backend: HonchoBackend, ai: Any, user_peer: str, records: list[dict[str, Any]], *, session_name: str = "") -> int:
    """Save each record with text as a conclusion of the AI peer about its ``peer``; returns how many."""
    batches: dict[str, list[dict[str, Any]]] = {"user": [], "ai": []}
    for record in records:
        if not isinstance(record, dict):
            continue
        text = record.get("text")
        if not isinstance(text, str) or not text.strip():
            continue
        peer = "ai" if record.get("peer") == "ai" or record.get("target") == "memory" else "user"
        item = {"content": text.strip()[:65535]}
        if session_name:
            item["session_id"] = session_name
        batches[peer].append(item)
    saved = 0
    for peer, items in batches.items():
        view = ai.conclusions if peer == "ai" else ai.conclusions_of(user_peer)
        for start in range(0, len(items), IMPORT_BATCH):
            saved += len(backend.call(view.create, items[start : start + IMPORT_BATCH]) or [])
    return saved
