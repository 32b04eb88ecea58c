"""``gateway.platforms.base`` for platform plugins written for Hermes Agent: adapter and message types."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from hermes_core.compat.gateway_config import Platform, PlatformConfig
from hermes_core.compat.gateway_session import SessionSource

__all__ = [
    "BasePlatformAdapter", "MessageEvent", "MessageType", "SendResult", "ProcessingOutcome", "EphemeralReply",
    "MessageHandler", "safe_url_for_log", "resolve_proxy_url", "merge_pending_message_event",
]


class MessageType(Enum):
    TEXT = "text"
    LOCATION = "location"
    PHOTO = "photo"
    VIDEO = "video"
    AUDIO = "audio"
    VOICE = "voice"
    DOCUMENT = "document"
    STICKER = "sticker"
    COMMAND = "command"


class ProcessingOutcome(Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    CANCELLED = "cancelled"


@dataclass
class MessageEvent:
    """An incoming message, as every adapter reports it."""

    text: str
    message_type: MessageType = MessageType.TEXT
    source: SessionSource | None = None
    raw_message: Any = None
    message_id: str | None = None
    media_urls: list[str] = field(default_factory=list)
    media_types: list[str] = field(default_factory=list)
    reply_to_message_id: str | None = None
    reply_to_text: str | None = None


@dataclass
class SendResult:
    success: bool
    message_id: str | None = None
    error: str | None = None
    raw_response: Any = None
    retryable: bool = False


class EphemeralReply(str):
    """A reply meant to disappear after ``ttl_seconds``."""

    def __new__(cls, text: str, ttl_seconds: float = 30.0) -> EphemeralReply:
        value = super().__new__(cls, text)
        value.ttl_seconds = ttl_seconds  # type: ignore[attr-defined]
        return value


MessageHandler = Callable[[MessageEvent], Awaitable["str | EphemeralReply | None"]]


def merge_pending_message_event(
    pending_messages: dict[str, MessageEvent], session_key: str, event: MessageEvent, *, merge_text: bool = False
) -> None:
    """Queue ``event`` for ``session_key``, folding it into the event already waiting there.

    Adapters call this for messages that arrive while a turn is running, so the next turn sees
    them all: a burst of photos (or any messages carrying media) becomes one event with every
    attachment and the captions joined; with ``merge_text`` text follow-ups are appended to the
    waiting text. Anything else replaces the waiting event.
    """
    waiting = pending_messages.get(session_key)
    if waiting is None:
        pending_messages[session_key] = event
        return
    photos = {getattr(waiting, "message_type", None), event.message_type} & {MessageType.PHOTO}
    if waiting.media_urls or event.media_urls:
        waiting.media_urls.extend(event.media_urls)
        waiting.media_types.extend(event.media_types)
        waiting.text = _joined(waiting.text, event.text)
        if photos:
            waiting.message_type = MessageType.PHOTO
        return
    if merge_text and waiting.message_type == MessageType.TEXT and event.message_type == MessageType.TEXT:
        waiting.text = _joined(waiting.text, event.text)
        return
    pending_messages[session_key] = event


def _joined(first: str, second: str) -> str:
    return f"{first}\n{second}" if first and second else first or second


def safe_url_for_log(url: str, max_len: int = 80) -> str:
    """``url`` without credentials, query or fragment, cut to ``max_len`` characters."""
    if max_len <= 0:
        return ""
    try:
        parts = urlsplit(url or "")
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        clean = urlunsplit((parts.scheme, host, parts.path, "", ""))
    except ValueError:
        clean = ""
    return clean if len(clean) <= max_len else clean[: max_len - 3] + "..."


def resolve_proxy_url(platform_env_var: str | None = None, **_: Any) -> str | None:
    """The proxy for a platform: its own variable, else HTTPS_PROXY / HTTP_PROXY / ALL_PROXY."""
    import os

    for name in filter(None, (platform_env_var, "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


class BasePlatformAdapter(ABC):
    """A messaging platform adapter: connect, receive (through the message handler), send."""

    def __init__(self, config: PlatformConfig, platform: Platform) -> None:
        self.config = config
        self.platform = platform
        self._message_handler: MessageHandler | None = None

    def set_message_handler(self, handler: MessageHandler | None) -> None:
        self._message_handler = handler

    async def handle_message(self, event: MessageEvent) -> Any:
        """Hand an incoming message to the host's handler (none is set when no gateway runs)."""
        if self._message_handler is None:
            return None
        return await self._message_handler(event)

    @abstractmethod
    async def connect(self) -> bool:
        """Connect and authenticate; whether it worked."""

    @abstractmethod
    async def disconnect(self) -> None:
        """Close the connection."""

    @abstractmethod
    async def send(self, chat_id: str, content: str, reply_to: str | None = None, metadata: dict[str, Any] | None = None) -> SendResult:
        """Send ``content`` to ``chat_id``."""

    async def get_chat_info(self, chat_id: str) -> dict[str, Any]:
        return {"name": chat_id, "type": "dm"}
