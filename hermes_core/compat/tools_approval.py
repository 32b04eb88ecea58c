"""``tools.approval`` for plugins written for Hermes Agent: dangerous commands and approvals.

Approvals are kept per session key (a context variable the host or a plugin sets) and,
for "always", for the process. This host asks no human: a request that nobody approved
is refused, which is what a fail-closed guard expects.
"""

from __future__ import annotations

import contextvars
import re
import threading
from typing import Any

__all__ = [
    "DANGEROUS_PATTERNS", "detect_dangerous_command", "check_all_command_guards", "request_tool_approval",
    "set_current_session_key", "reset_current_session_key", "get_current_session_key",
    "approve_session", "approve_permanent", "load_permanent", "is_approved",
    "is_approval_bypass_active", "is_approval_bypass_active_for_session", "has_blocking_approval",
    "set_current_observability_context", "reset_current_observability_context",
]

#: (regex, pattern key, description) of shell commands that need a human's approval.
DANGEROUS_PATTERNS: list[tuple[str, str, str]] = [
    (r"\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*[rR]|-r\s+-f|-f\s+-r|--recursive\s+--force|--force\s+--recursive)\b", "rm_recursive_force", "recursive forced delete"),
    (r"\brm\s+-[a-zA-Z]*[rR]", "rm_recursive", "recursive delete"),
    (r"\bmkfs(\.\w+)?\b", "mkfs", "format a filesystem"),
    (r"\bdd\s+.*\bof=/dev/", "dd_device", "write to a block device"),
    (r">\s*/dev/sd[a-z]", "overwrite_device", "overwrite a block device"),
    (r":\(\)\s*\{\s*:\|:&\s*\};:", "fork_bomb", "fork bomb"),
    (r"\bchmod\s+(-R\s+)?0?777\s+/", "chmod_777_root", "world-writable system paths"),
    (r"\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z)?sh\b", "pipe_to_shell", "run a downloaded script"),
    (r"\bgit\s+push\s+.*--force\b", "git_force_push", "force push"),
    (r"\bshutdown\b|\breboot\b|\bhalt\b", "shutdown", "stop the machine"),
    (r"\bsudo\b", "sudo", "run as root"),
]
_compiled = [(re.compile(p, re.IGNORECASE), key, text) for p, key, text in DANGEROUS_PATTERNS]
_session_key: contextvars.ContextVar[str] = contextvars.ContextVar("hermes_approval_session", default="")
_observability: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("hermes_approval_observability", default={})
_session_approvals: dict[str, set[str]] = {}
_permanent: set[str] = set()
_yolo_sessions: set[str] = set()
_lock = threading.Lock()


def detect_dangerous_command(command: str) -> tuple[bool, str | None, str | None]:
    """``(True, pattern_key, description)`` for a command that needs approval, else ``(False, None, None)``."""
    for regex, key, text in _compiled:
        if regex.search(command or ""):
            return True, key, text
    return False, None, None


def set_current_session_key(session_key: str) -> contextvars.Token[str]:
    return _session_key.set(session_key)


def reset_current_session_key(token: contextvars.Token[str]) -> None:
    _session_key.reset(token)


def get_current_session_key(default: str = "default") -> str:
    return _session_key.get() or default


def set_current_observability_context(**ids: str) -> contextvars.Token[dict[str, str]]:
    return _observability.set({k: str(v) for k, v in ids.items()})


def reset_current_observability_context(token: contextvars.Token[dict[str, str]]) -> None:
    _observability.reset(token)


def approve_session(session_key: str, pattern_key: str) -> None:
    with _lock:
        _session_approvals.setdefault(session_key, set()).add(pattern_key)


def approve_permanent(pattern_key: str) -> None:
    with _lock:
        _permanent.add(pattern_key)


def load_permanent(patterns: set[str]) -> None:
    with _lock:
        _permanent.update(patterns)


def is_approved(session_key: str, pattern_key: str) -> bool:
    with _lock:
        return pattern_key in _permanent or pattern_key in _session_approvals.get(session_key, set())


def enable_session_yolo(session_key: str) -> None:
    _yolo_sessions.add(session_key)


def is_approval_bypass_active_for_session(session_key: str) -> bool:
    return session_key in _yolo_sessions


def is_approval_bypass_active() -> bool:
    return is_approval_bypass_active_for_session(get_current_session_key())


def has_blocking_approval(session_key: str | None = None) -> bool:
    """Whether an approval is waiting for a human (never, on a host that asks none)."""
    return False


def _is_gateway_approval_context() -> bool:
    return False


def request_tool_approval(tool_name: str, message: str = "", *, rule_key: str | None = None, **_: Any) -> dict[str, Any]:
    """Approve when the rule was approved for this session or always; otherwise refuse, saying why."""
    key = rule_key or tool_name
    session = get_current_session_key()
    if is_approval_bypass_active_for_session(session) or is_approved(session, key):
        return {"approved": True, "message": None}
    reason = f": {message}" if message else ""
    return {"approved": False, "message": f"BLOCKED: {tool_name} needs approval ({key}){reason}; no one approved it"}


def check_all_command_guards(command: str, env_type: str = "local", **_: Any) -> dict[str, Any]:
    """``{"approved": True}`` for a safe or approved command, else a refusal naming the pattern."""
    dangerous, key, text = detect_dangerous_command(command)
    if not dangerous:
        return {"approved": True, "message": None}
    return request_tool_approval("terminal", f"{text}: {command}", rule_key=key)
