"""What ``hermes memory status`` shows of Honcho: where memory goes, and what needs the user's attention."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import HonchoConfigError

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
