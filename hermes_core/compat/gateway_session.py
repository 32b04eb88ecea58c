"""``gateway.session`` for platform plugins written for Hermes Agent: where a message came from."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from hermes_core.compat.gateway_config import Platform

__all__ = ["SessionSource", "build_session_key"]


@dataclass
class SessionSource:
    platform: Platform
    chat_id: str
    chat_name: str | None = None
    chat_type: str = "dm"
    user_id: str | None = None
    user_name: str | None = None
    thread_id: str | None = None
    chat_topic: str | None = None
    user_id_alt: str | None = None
    chat_id_alt: str | None = None
    is_bot: bool = False
    scope_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["platform"] = self.platform.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionSource:
        values = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        values["platform"] = Platform(values.get("platform", "local"))
        return cls(**values)


def build_session_key(source: SessionSource, group_sessions_per_user: bool = True, thread_sessions_per_user: bool = False, profile: str | None = None) -> str:
    """A stable key for the conversation a message belongs to (per user in groups unless told otherwise)."""
    parts = [profile or "default", source.platform.value, source.chat_type, source.chat_id]
    if source.thread_id:
        parts.append(f"thread:{source.thread_id}")
    per_user = thread_sessions_per_user if source.thread_id else group_sessions_per_user
    if source.chat_type != "dm" and per_user and source.user_id:
        parts.append(f"user:{source.user_id}")
    return ":".join(parts)
