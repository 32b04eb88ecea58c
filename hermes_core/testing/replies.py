"""What a scripted model server answers: replies, tool calls, failures, and the requests it recorded."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_CHARS_PER_TOKEN = 4


# --- the script ----------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A tool call the scripted model makes; ``id`` is generated when not given."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with the ``*_reply`` functions rather than by hand."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    #: In the provider's own terms ("stop"/"length" for OpenAI, "end_turn"/"max_tokens" for Anthropic).
    finish_reason: str | None = None
    #: Usage in the provider's own shape; replaces the server's estimate.
    usage: dict[str, Any] | None = None
    #: How streamed text is cut into deltas; default: word by word.
    chunks: tuple[str, ...] | None = None
    model: str | None = None
    status: int = 200
    error_message: str | None = None
    error_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    #: Seconds to wait before answering.
    delay: float = 0.0
    #: Never answer: wait until the server closes (or ``delay`` seconds when > 0), then drop the connection.
    hang: bool = False
    #: Drop the connection without answering.
    disconnect: bool = False
    #: Send these bytes as the body instead of a protocol reply.
    body: bytes | None = None
    content_type: str = "application/json"
    #: When streaming: send the text, then this error event instead of finishing.
    stream_error: str | None = None


#: A script entry: a reply, or a function of the request that returns one.
ScriptItem = Reply | Callable[["RecordedRequest"], Reply]


def text_reply(
    text: str,
    *,
    chunks: Sequence[str] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    model: str | None = None,
    delay: float = 0.0,
    stream_error: str | None = None,
) -> Reply:
    """The model answers with ``text``; ``chunks`` (which must join to ``text``) fixes the streamed deltas."""
    if chunks is not None and "".join(chunks) != text:
        raise ValueError("text_reply: chunks must join to the text")
    return Reply(
        text=text, chunks=tuple(chunks) if chunks is not None else None, finish_reason=finish_reason,
        usage=usage, model=model, delay=delay, stream_error=stream_error,
    )


def tool_call_reply(
    name: str, arguments: dict[str, Any] | str | None = None, *, id: str | None = None, text: str = "", **options: Any
) -> Reply:
    """The model calls one tool (after optional ``text``)."""
    return tool_calls_reply(ToolCall(name, {} if arguments is None else arguments, id), text=text, **options)


def tool_calls_reply(*calls: ToolCall, text: str = "", **options: Any) -> Reply:
    """The model calls several tools in one reply (parallel tool calls)."""
    return Reply(text=text, tool_calls=tuple(calls), **options)


def error_reply(
    status: int, message: str | None = None, *, error_type: str | None = None, headers: dict[str, str] | None = None
) -> Reply:
    """Answer with HTTP ``status`` and an error body in the provider's shape."""
    return Reply(status=status, error_message=message, error_type=error_type, headers=tuple((headers or {}).items()))


def rate_limit_reply(retry_after: float | str | None = 0) -> Reply:
    """429 with ``Retry-After`` (omitted when ``None``)."""
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return error_reply(429, "rate limit exceeded (scripted)", headers=headers)


def hang_reply(seconds: float | None = None) -> Reply:
    """Send nothing — past any client timeout — until the server closes or ``seconds`` pass, then drop the connection."""
    return Reply(hang=True, delay=seconds or 0.0)


def disconnect_reply() -> Reply:
    """Close the connection without answering, as a crashing or restarting server would."""
    return Reply(disconnect=True)


def raw_reply(status: int, body: bytes | str, *, content_type: str = "application/json", headers: dict[str, str] | None = None) -> Reply:
    """Answer with exactly these bytes, e.g. a malformed body."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    return Reply(status=status, body=data, content_type=content_type, headers=tuple((headers or {}).items()))


@dataclass(frozen=True)
class RecordedRequest:
    """A request the server received, in arrival order."""

    method: str
    path: str
    #: Header names in lower case.
    headers: dict[str, str]
    raw: bytes
    #: The decoded JSON body, or None when it was not JSON.
    body: Any

    @property
    def wants_stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

