"""Moving memories in and out of Honcho as provider-neutral records (``hermes memory switch``).

A record is a dict: ``text``, ``kind``, ``peer`` ("user" | "assistant"), ``created_at``, ``source``,
``metadata``. Exported: every conclusion the AI peer holds about the user and about itself; a peer
with no conclusions contributes its representation instead. Imported: each record (a dict or an
object with those attributes) becomes a conclusion, unless the same text is already one.
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
    for peer, view, peer_obj in (("user", ai.conclusions_of(user.id), user), ("assistant", ai.conclusions, ai)):
        found = _conclusions(backend, view)
        for item in found:
            created = getattr(item, "created_at", None)
            records.append({
                "text": item.content, "kind": "conclusion", "peer": peer,
                "created_at": created.isoformat() if hasattr(created, "isoformat") else created,
                "source": f"{source}:conclusion:{item.id}",
                "metadata": {"observer": ai.id, "observed": peer_obj.id, "user": user.id},
            })
        if not found:
            representation = backend.call(peer_obj.representation) or ""
            if representation.strip():
                records.append({
                    "text": representation.strip(), "kind": "profile", "peer": peer, "created_at": None,
                    "source": f"{source}:representation:{peer_obj.id}", "metadata": {"observed": peer_obj.id, "user": user.id},
                })
    return records


def _field(record: Any, name: str) -> Any:
    return record.get(name) if isinstance(record, dict) else getattr(record, name, None)


def import_records(backend: HonchoBackend, ai: Any, user_peer: str, records: Any, *, session_name: str = "") -> int:
    """Save each record's text as a conclusion of the AI peer about its ``peer``; returns how many were saved."""
    wanted: dict[str, list[str]] = {"user": [], "assistant": []}
    for record in records:
        text = _field(record, "text")
        if not isinstance(text, str) or not text.strip():
            continue
        peer = _field(record, "peer") or _field(record, "user")
        side = "assistant" if peer in ("assistant", "ai", ai.id) else "user"
        wanted[side].append(text.strip()[:65535])
    saved = 0
    for side, texts in wanted.items():
        view = ai.conclusions if side == "assistant" else ai.conclusions_of(user_peer)
        held = {item.content for item in _conclusions(backend, view)}  # importing twice adds nothing
        fresh = list(dict.fromkeys(t for t in texts if t not in held))
        items = [{"content": t, **({"session_id": session_name} if session_name else {})} for t in fresh]
        for start in range(0, len(items), IMPORT_BATCH):
            saved += len(backend.call(view.create, items[start : start + IMPORT_BATCH]) or [])
    return saved
