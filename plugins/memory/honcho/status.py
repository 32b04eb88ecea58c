"""What ``hermes memory status`` shows of Honcho: where memory goes, and what needs the user's attention."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import HonchoConfig, HonchoConfigError

if TYPE_CHECKING:
    from .provider import HonchoMemoryProvider


def details(provider: HonchoMemoryProvider) -> dict[str, Any]:
    """Host, workspace, session, recall mode, write mode and how many messages wait in the journal."""
    try:
        config = provider.config(reload=True)
    except HonchoConfigError as exc:
        return {"config": str(exc)}
    return {
        "host": config.host, "workspace": config.workspace, "session": provider.session_name.name or None,
        "recall": config.recallMode, "writes": config.writeFrequency,
        "failed writes": sum(len(e["messages"]) for e in provider.journal().entries()),
    }


def problems(provider: HonchoMemoryProvider) -> list[str]:
    """Config warnings or errors, and writes that failed for good (kept and resent at the next session)."""
    found: list[str] = []
    try:
        found.extend(provider.config(reload=True).warnings)
    except HonchoConfigError as exc:
        found.append(str(exc))
    entries = provider.journal().entries()
    if entries:
        count = sum(len(e["messages"]) for e in entries)
        found.append(
            f"{count} message(s) in {len(entries)} write(s) failed to reach Honcho (last cause: {entries[-1].get('cause')}); "
            f"they are kept in {provider.journal().path} and sent again when the next session starts"
        )
    return found


def check_connection(config: HonchoConfig) -> dict[str, Any]:
    """One real call (workspace get-or-create, then the queue status), bounded by the config's timeout."""
    import time

    from .client import HonchoBackend, HonchoCallError

    started = time.perf_counter()
    try:
        backend = HonchoBackend(config)
        backend.call(backend.client.queue_status)
    except HonchoCallError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000)}


_MODE_HEADERS = {
    "hybrid": "Relevant memory is recalled into user messages inside memory-context blocks; the honcho_* tools look up more and honcho_conclude saves lasting facts.",
    "context": "Relevant memory is recalled into user messages inside memory-context blocks.",
    "tools": "Nothing is recalled automatically: use honcho_profile, honcho_search, honcho_context and honcho_reasoning to look things up, and honcho_conclude to save lasting facts.",
}


def mode_header(config: HonchoConfig, ai_peer: str, user_peer: str) -> str:
    """The static system-prompt block: who is who, and how memory reaches the model in this recall mode."""
    return (
        f"# Honcho memory\nHoncho keeps a model of the user across sessions (you are peer '{ai_peer}', "
        f"the user is peer '{user_peer}'). {_MODE_HEADERS[config.recallMode]}"
    )
