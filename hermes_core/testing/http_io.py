"""Reading a request and writing a reply, for the scripted servers (standard library only)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any


def read_request(handler: BaseHTTPRequestHandler) -> tuple[bytes, Any, dict[str, str]]:
    """The body ``handler`` received, raw and parsed (``None`` when it is empty or not JSON: a server
    under test must record what a client sent, even when it is broken), and the headers by lowercase name."""
    length = int(handler.headers.get("Content-Length") or 0)
    raw = handler.rfile.read(length) if length else b""
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = None
    return raw, body, {name.lower(): value for name, value in handler.headers.items()}


def send_reply(
    handler: BaseHTTPRequestHandler, status: int, data: bytes, *,
    content_type: str = "application/json", headers: Iterable[tuple[str, str]] = (),
) -> None:
    """Write one whole reply; a client that already gave up (timed out) is not an error."""
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()
    except OSError:
        handler.close_connection = True  # nothing to tell a client that left
