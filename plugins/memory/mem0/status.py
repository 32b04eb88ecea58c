"""What ``hermes memory status`` shows for Mem0: mode, store, counts, queued and failed writes, the last error,
and the problems that need the user."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .backend import Backend, store_size
from .resilience import Outbox, StatusFile
from .settings import Mem0Settings


def _human_size(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"


def describe(
    settings: Mem0Settings,
    open_backend: Callable[[], tuple[Backend | None, str]],
    outbox: Outbox,
    status: StatusFile,
    record_error: Callable[[str, str], None],
) -> dict[str, Any]:
    """The status lines; ``open_backend()`` gives the backend, or ``None`` and why it cannot be opened."""
    details: dict[str, Any] = {"mode": settings.mode, "store": settings.location, "user_id": settings.user_id, "agent_id": settings.agent_id}
    if settings.mode == "local":
        details["store_size"] = _human_size(store_size(settings.store_path))
        if settings.llm is not None:
            details["llm"] = f"{settings.llm.model} @ {settings.llm.base_url or settings.llm.provider}"
        if settings.embedder is not None:
            details["embedder"] = f"{settings.embedder.model} ({settings.embedder.dims or 'auto'} dims) @ {settings.embedder.base_url or settings.embedder.provider}"
    backend, backend_error = open_backend()
    if backend is not None:
        try:
            details["memories"] = len(backend.get_all(user_id=settings.user_id))
        except Exception as exc:
            details["memories"] = None
            record_error("count", f"{type(exc).__name__}: {exc}")
    else:
        details["memories"] = None
        details["open_error"] = backend_error
    details["pending_writes"] = len(outbox.pending())
    failed = outbox.failed()
    details["failed_writes"] = len(failed)
    if failed:
        details["failed_writes_file"] = str(outbox.failed_path)
    last = status.read().get("last_error")
    details["last_error"] = f"{last.get('at', '?')} {last.get('operation', '?')}: {last.get('message', '')}" if isinstance(last, dict) else None
    return details


def problems(settings: Mem0Settings, outbox: Outbox) -> list[str]:
    """Ignored settings, writes still waiting and writes given up on, from local files only."""
    found = list(settings.notes)
    pending = outbox.pending()
    if pending:  # not stored yet: a backfill or import must not count them as sent
        found.append(
            f"{len(pending)} write(s) wait in {outbox.pending_path} (last error: {pending[-1].get('error', '?')}); "
            "they are retried first at the next write or session -> fix the cause ('hermes memory status' shows the last error)"
        )
    failed = outbox.failed()
    if failed:
        found.append(
            f"{len(failed)} write(s) to mem0 failed {settings.max_attempts} times (last: {failed[-1].get('error', '?')}); "
            f"they are kept in {outbox.failed_path} -> fix the cause, then move those lines to {outbox.pending_path} to retry them"
        )
    return found
