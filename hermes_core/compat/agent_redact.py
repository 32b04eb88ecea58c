"""``agent.redact`` for plugins written for Hermes Agent: secrets masked out of text and logs."""

from __future__ import annotations

import logging
import re
from typing import Any

from hermes_core.models.clients.sanitize import REDACTED, sanitize_request

__all__ = ["redact_sensitive_text", "redact_terminal_output", "redact_cdp_url", "mask_secret", "RedactingFormatter", "register_redaction_patterns"]

_URL_CREDENTIALS = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", re.IGNORECASE)
_QUERY_SECRET = re.compile(r"([?&](?:api[_-]?key|key|token|access_token|secret|password|sig|signature)=)[^&\s#]+", re.IGNORECASE)
_plugin_patterns: list[re.Pattern[str]] = []


def mask_secret(value: str, *, keep: int = 4) -> str:
    """``sk-abc...wxyz`` style: the ends kept, the middle hidden (short values hidden whole)."""
    if not value or len(value) <= keep * 3:
        return REDACTED
    return f"{value[:keep]}...{value[-keep:]}"


def redact_sensitive_text(text: Any, **_: Any) -> Any:
    """``text`` with API keys, bearer tokens, ``password=...`` values and URL credentials replaced."""
    if not isinstance(text, str) or not text:
        return text
    cleaned = sanitize_request(text)
    cleaned = _URL_CREDENTIALS.sub(lambda m: m.group("scheme") + REDACTED + "@", cleaned)
    cleaned = _QUERY_SECRET.sub(lambda m: m.group(1) + REDACTED, cleaned)
    for pattern in _plugin_patterns:
        cleaned = pattern.sub(REDACTED, cleaned)
    return cleaned


def redact_terminal_output(output: Any, command: str | None = None, **_: Any) -> Any:
    return redact_sensitive_text(output)


def redact_cdp_url(value: object) -> str:
    return redact_sensitive_text(str(value or ""))


def register_redaction_patterns(patterns: list[str], *, owner: str = "") -> None:
    """Add regular expressions whose matches are redacted too (invalid ones raise ``re.error``)."""
    _plugin_patterns.extend(re.compile(p) for p in patterns)


class RedactingFormatter(logging.Formatter):
    """A log formatter that redacts secrets from every formatted record."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_sensitive_text(super().format(record))


_ENV_DUMP = re.compile(r"^\s*(env|printenv|set|export\s+-p|declare\s+-x)\s*(\||$)|\bcat\s+[^|;]*\.env\b")


def is_env_dump_command(command: str | None) -> bool:
    """Whether a shell command prints the environment or a .env file (its output is all secrets)."""
    return bool(command and _ENV_DUMP.search(command))
