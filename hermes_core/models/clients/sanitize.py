"""Copies of request and response payloads that are safe to hand to plugin hooks: no secrets."""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[REDACTED]"

# Keys whose values are credentials wherever they appear (extra_body, headers, provider options).
# Matched on the whole key, so counters such as max_tokens or input_tokens stay visible.
_SECRET_KEY = re.compile(
    r"(?:.*[_-])?(?:api[_-]?key|apikey|secret|password|passwd|authorization|auth[_-]?token|access[_-]?token"
    r"|refresh[_-]?token|bearer|session[_-]?token|client[_-]?secret|private[_-]?key)",
    re.IGNORECASE,
)
# Credentials pasted into text: provider keys (sk-..., sk-ant-...) and bearer headers.
_SECRET_TEXT = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|Bearer\s+[A-Za-z0-9._~+/=-]{16,})")
# ``password=hunter2``, ``api_key: abc``: the name stays, so a reader still sees what was there.
_SECRET_ASSIGNMENT = re.compile(
    r"\b((?:api[_-]?key|apikey|password|passwd|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[:=]\s*)"
    r"(?!\[REDACTED\])[^\s\"',;]+",
    re.IGNORECASE,
)
# ``postgresql://user:hunter2@host/db``: the password of a URL's userinfo; scheme, user and host stay.
_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)(?!\[REDACTED\]@)[^@\s/]+(@)")
_HINTS = ("sk-", "Bearer", "=", ":")


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: (REDACTED if isinstance(key, str) and _SECRET_KEY.fullmatch(key) and value_ else _scrub(value_))
            for key, value_ in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_scrub(item) for item in value]
    if isinstance(value, str) and any(hint in value for hint in _HINTS):
        value = _URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + m.group(2), value)
        return _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, _SECRET_TEXT.sub(REDACTED, value))
    return value


def sanitize_request(body: Any) -> Any:
    """A deep copy of ``body`` with credential-like keys and key-shaped strings replaced by ``[REDACTED]``.

    The original is never modified. Meant for the ``request`` kwarg of ``pre_api_request``.
    """
    return _scrub(body)


def sanitize_response(body: Any) -> Any:
    """The same cleaning for a provider's response (``post_api_request``'s ``response``)."""
    return _scrub(body)
