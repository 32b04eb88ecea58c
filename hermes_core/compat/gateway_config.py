"""``gateway.config`` for platform plugins written for Hermes Agent: the types they build on.

hermes runs no messaging gateway; platform plugins import these types, register their
adapter (``ctx.register_platform``), and are listed by ``hermes plugins list --load``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["Platform", "PlatformConfig", "HomeChannel", "GatewayConfig"]


class Platform(Enum):
    """A messaging platform; plugin platforms get a member on first use (``Platform("irc")``)."""

    LOCAL = "local"
    TELEGRAM = "telegram"
    DISCORD = "discord"
    WHATSAPP = "whatsapp"
    SLACK = "slack"
    SIGNAL = "signal"
    MATTERMOST = "mattermost"
    MATRIX = "matrix"
    EMAIL = "email"
    SMS = "sms"
    API_SERVER = "api_server"
    WEBHOOK = "webhook"

    @classmethod
    def _missing_(cls, value: object) -> Platform | None:
        if not isinstance(value, str) or not value.strip():
            return None
        name = value.strip().lower()
        member = cls._value2member_map_.get(name)
        if member is None:
            member = object.__new__(cls)
            member._name_ = name.upper().replace("-", "_")
            member._value_ = name
            cls._value2member_map_[name] = member
        return member  # type: ignore[return-value]


@dataclass
class HomeChannel:
    platform: Platform
    chat_id: str
    name: str = ""


@dataclass
class PlatformConfig:
    """Settings of one platform (``gateway.platforms.<name>`` in Hermes Agent's config)."""

    enabled: bool = False
    token: str | None = None
    api_key: str | None = None
    home_channel: HomeChannel | None = None
    reply_to_mode: str = "first"
    gateway_restart_notification: bool = True
    typing_indicator: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class GatewayConfig:
    platforms: dict[Platform, PlatformConfig] = field(default_factory=dict)
