"""Row shapes: how messages and sessions are encoded into columns and decoded back."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple

SESSION_COLUMNS = (
    "id", "source", "user_id", "model", "model_config", "system_prompt", "parent_session_id",
    "started_at", "ended_at", "end_reason", "message_count", "tool_call_count",
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
    "billing_provider", "billing_base_url", "billing_mode", "estimated_cost_usd", "actual_cost_usd",
    "cost_status", "cost_source", "pricing_version", "title", "api_call_count",
)
SESSION_FIELDS_SQL = ", ".join("s." + c for c in SESSION_COLUMNS)  # for "FROM sessions s"
SELECT_SESSION_SQL = f"SELECT {SESSION_FIELDS_SQL} FROM sessions s"

MESSAGE_COLUMNS = (
    "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp",
    "token_count", "finish_reason", "reasoning", "reasoning_content", "reasoning_details",
    "codex_reasoning_items", "codex_message_items",
)
# columns holding JSON documents: given as Python objects, returned decoded
JSON_MESSAGE_COLUMNS = ("tool_calls", "reasoning_details", "codex_reasoning_items", "codex_message_items")
MESSAGE_FIELDS = tuple(c for c in MESSAGE_COLUMNS if c != "session_id")
INSERT_MESSAGE_SQL = (f"INSERT INTO messages ({', '.join(MESSAGE_COLUMNS)}) "
                      f"VALUES ({', '.join('?' * len(MESSAGE_COLUMNS))})")


# json.dumps with options builds an encoder per call; every append with tool calls encodes
_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_CONTENT_JSON = json.JSONEncoder(ensure_ascii=False).encode


def _json_or_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return _COMPACT_JSON(value)


def _text(value: Any) -> str | None:
    # content is text; structured content (a list of parts) is kept as its JSON
    if value is None or isinstance(value, str):
        return value
    return _CONTENT_JSON(value)


class EncodedMessage(NamedTuple):
    """One message ready for INSERT, with what the write path needs to know about it."""

    values: tuple[Any, ...]
    tool_call_count: int


def encode_message(session_id: str, message: Mapping[str, Any]) -> EncodedMessage:
    """Map an OpenAI-style message dict (plus our extra fields) onto the messages columns."""
    get = message.get
    role = get("role")
    return encode_fields(session_id, role, get("content"), get("tool_calls"), get("tool_call_id"),
                         get("tool_name") or (get("name") if role == "tool" else None), get("timestamp"),
                         get("token_count"), get("finish_reason"), get("reasoning"), get("reasoning_content"),
                         get("reasoning_details"), get("codex_reasoning_items"), get("codex_message_items"))


def encode_fields(session_id: str, role: Any, content: Any, tool_calls: Any, tool_call_id: Any, tool_name: Any,
                  timestamp: Any, token_count: Any, finish_reason: Any, reasoning: Any, reasoning_content: Any,
                  reasoning_details: Any, codex_reasoning_items: Any, codex_message_items: Any) -> EncodedMessage:
    """encode_message for fields given one by one (``append_message`` has them as arguments)."""
    if not isinstance(role, str) or not role:
        raise ValueError("a message needs a non-empty 'role'")
    calls = len(tool_calls) if isinstance(tool_calls, (list, tuple)) else (1 if tool_calls else 0)
    # in MESSAGE_COLUMNS order (a test keeps the two in step); built directly, since every
    # append goes through here
    return EncodedMessage((
        session_id,
        role,
        _text(content),
        tool_call_id,
        _json_or_text(tool_calls) if tool_calls else None,
        tool_name,
        float(timestamp or time.time()),
        token_count,
        finish_reason,
        reasoning,
        reasoning_content,
        _json_or_text(reasoning_details),
        _json_or_text(codex_reasoning_items),
        _json_or_text(codex_message_items),
    ), calls)


def _decode_json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text  # written by something else: hand back what is there


def decode_message(row: tuple[Any, ...]) -> dict[str, Any]:
    """(id, *MESSAGE_FIELDS) -> message dict; None-valued optional fields are omitted."""
    out: dict[str, Any] = {"id": row[0]}
    for name, value in zip(MESSAGE_FIELDS, row[1:]):
        if value is None and name not in ("content",):
            continue
        out[name] = _decode_json(value) if name in JSON_MESSAGE_COLUMNS else value
    return out


def decode_session(row: tuple[Any, ...]) -> dict[str, Any]:
    """SESSION_COLUMNS row -> dict (model_config decoded from JSON)."""
    out = dict(zip(SESSION_COLUMNS, row))
    out["model_config"] = _decode_json(out["model_config"])
    return out


@dataclass(frozen=True)
class StoreStats:
    """Counts and sizes, as `hermes sessions stats` shows them."""

    schema_version: int
    sessions: int
    messages: int
    messages_by_role: dict[str, int]
    db_bytes: int
    wal_bytes: int
    messages_awaiting_index: int = 0
    object_bytes: dict[str, int] = field(default_factory=dict)  # table / index / FTS index -> bytes
