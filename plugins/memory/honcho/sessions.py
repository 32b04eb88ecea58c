"""Which Honcho session a conversation lands in, and how each peer observes it.

Session names follow a priority chain, first match wins: the manual ``sessions`` map, a
``/title`` rename, a gateway session key (chat platforms), then ``sessionStrategy``:
per-session (hermes session id), per-repo (git root name), per-directory (basename of the
working directory), global (workspace name). per-session and per-repo fall back to
per-directory. ``sessionPeerPrefix`` prepends the user's peer name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import HonchoConfig, sanitize_id

#: Presets of observationMode, as per-peer {observeMe, observeOthers}.
OBSERVATION_PRESETS: dict[str, dict[str, dict[str, bool]]] = {
    "directional": {"user": {"observeMe": True, "observeOthers": True}, "ai": {"observeMe": True, "observeOthers": True}},
    "unified": {"user": {"observeMe": True, "observeOthers": False}, "ai": {"observeMe": False, "observeOthers": True}},
}


@dataclass(frozen=True)
class SessionName:
    """The resolved name and the rule that produced it (shown by status and used in tests)."""

    name: str
    rule: str


def git_root(directory: Path) -> Path | None:
    """The nearest directory at or above ``directory`` holding ``.git`` (a directory or a worktree file)."""
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _mapped(config: HonchoConfig, cwd: Path) -> str | None:
    sessions: dict[str, str] = config.sessions or {}
    resolved = cwd.resolve()
    for directory, name in sessions.items():
        try:
            if Path(directory).expanduser().resolve() == resolved:
                return name
        except (OSError, RuntimeError):
            continue
    return None


def resolve_session_name(
    config: HonchoConfig,
    *,
    cwd: Path | None = None,
    session_id: str = "",
    title: str = "",
    gateway_key: str = "",
    user_peer: str = "",
) -> SessionName:
    """The Honcho session name for this conversation (already a valid Honcho ID)."""
    cwd = cwd or Path(os.getcwd())
    strategy = config.sessionStrategy
    mapped = _mapped(config, cwd)
    if mapped:
        name, rule = mapped, "manual map (sessions)"
    elif title.strip():
        name, rule = title, "/title"
    elif gateway_key.strip():
        name, rule = gateway_key, "gateway session key"
    elif strategy == "per-session" and session_id.strip():
        name, rule = session_id, "per-session"
    elif strategy == "per-repo" and git_root(cwd) is not None:
        name, rule = git_root(cwd).name, "per-repo"  # type: ignore[union-attr]
    elif strategy == "global":
        name, rule = config.workspace, "global"
    else:
        fell_back = strategy in ("per-session", "per-repo")
        name, rule = cwd.name or "root", "per-directory" + (f" (fallback of {strategy})" if fell_back else "")
    if config.sessionPeerPrefix and user_peer:
        name = f"{user_peer}-{name}"
    return SessionName(sanitize_id(name), rule)


def observation_flags(config: HonchoConfig) -> dict[str, dict[str, bool]]:
    """Per-peer flags: the granular ``observation`` object when given, else the preset."""
    preset = OBSERVATION_PRESETS[config.observationMode]
    granular = config.observation
    if not granular:
        return {peer: dict(flags) for peer, flags in preset.items()}
    return {peer: dict(granular.get(peer) or {"observeMe": True, "observeOthers": True}) for peer in ("user", "ai")}


def session_peer_configs(config: HonchoConfig) -> dict[str, dict[str, Any]]:
    """``{"user": {...}, "ai": {...}}`` in SessionPeerConfig's field names."""
    return {
        peer: {"observe_me": flags["observeMe"], "observe_others": flags["observeOthers"]}
        for peer, flags in observation_flags(config).items()
    }


def user_peer_id(config: HonchoConfig, user_id: str = "") -> str:
    return sanitize_id(config.peerName or user_id or "user")
