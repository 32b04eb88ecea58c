"""A Honcho-protocol server on 127.0.0.1 (v3 API), for tests and benchmarks of Honcho clients.

The real ``honcho-ai`` SDK talks to it over real HTTP::

    from hermes_core.testing.honcho_server import HonchoServer

    with HonchoServer() as server:
        client = honcho.Honcho(base_url=server.base_url, workspace_id="ws")
        client.peer("alice").conclusions.create([{"content": "Likes tea"}])
        assert server.state.conclusions[0]["content"] == "Likes tea"

It keeps workspaces, peers, sessions, messages, cards, summaries and conclusions in memory and
answers with the shapes the real server sends (recorded from Honcho 3.0.x). What needs a model on
the real server is deterministic here: the representation lists the conclusions about a peer,
``chat`` answers from :attr:`HonchoServer.chat_replies` (or from the conclusions), and search
matches words. Faults are scripted with :meth:`HonchoServer.fail` (any status, malformed JSON, a
reply slower than the client's timeout); :attr:`HonchoServer.delay` slows every answer; with
``api_key`` set, requests without ``Authorization: Bearer <key>`` get 401. Every request is recorded.

Only the standard library is imported.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from .http_io import read_request, send_reply
from .honcho_api import ApiError, HonchoApi, HonchoRequest, HonchoState

__all__ = ["Fault", "HonchoRequest", "HonchoServer", "HonchoState"]


@dataclass
class Fault:
    """A scripted failure for requests whose ``METHOD path`` matches ``pattern`` (a regex, searched)."""

    pattern: str
    status: int = 500
    #: How many matching requests fail; ``None`` for all of them.
    times: int | None = None
    #: Raw body to send instead of an error document (e.g. b"{not json" with status 200).
    body: bytes | None = None
    #: Seconds to wait before answering (longer than the client's timeout makes it time out).
    delay: float = 0.0
    retry_after: str | None = None


class HonchoServer:
    """The server; use it as a context manager. ``api_key``: require this bearer token."""

    def __init__(self, *, api_key: str | None = None) -> None:
        self.api_key = api_key
        self.api = HonchoApi()
        self.requests: list[HonchoRequest] = []
        #: Seconds every answer waits (for latency benchmarks).
        self.delay = 0.0
        self.faults: list[Fault] = []
        self._lock = self.api.lock
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle --

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="honcho-server", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def state(self) -> HonchoState:
        """Everything stored; tests may read and seed it."""
        return self.api.state

    @property
    def chat_replies(self) -> list[str | Callable[[dict[str, Any]], str]]:
        """Answers of ``peer.chat``, used in order; a callable gets the request body."""
        return self.api.chat_replies

    def set_summary(self, workspace: str, session: str, text: str) -> None:
        self.api.set_summary(workspace, session, text)

    def add_conclusion(self, workspace: str, observer: str, observed: str, content: str, session_id: str | None = None) -> dict[str, Any]:
        return self.api.add_conclusion(workspace, observer, observed, content, session_id)

    # -- scripting --

    def fail(self, pattern: str, status: int = 500, *, times: int | None = None, body: bytes | None = None, delay: float = 0.0, retry_after: str | None = None) -> Fault:
        """Make requests matching ``pattern`` (e.g. ``"POST .*/messages$"``) fail; returns the fault to remove later."""
        fault = Fault(pattern, status, times, body, delay, retry_after)
        with self._lock:
            self.faults.append(fault)
        return fault

    def heal(self) -> None:
        """Remove every scripted fault."""
        with self._lock:
            self.faults.clear()

    def calls(self, method: str, path_pattern: str) -> list[HonchoRequest]:
        """Recorded requests with ``method`` whose path matches ``path_pattern`` (searched)."""
        with self._lock:
            return [r for r in self.requests if r.method == method and re.search(path_pattern, r.path)]

    # -- dispatch --

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes; no 40 ms stall

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                server._respond(self)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        return Handler

    def _fault_for(self, request: HonchoRequest) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.times == 0 or not re.search(fault.pattern, f"{request.method} {request.path}"):
                    continue
                if fault.times is not None:
                    fault.times -= 1
                return fault
        return None

    def _respond(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        _, body, headers = read_request(handler)
        request = HonchoRequest(handler.command, parts.path, {k: v[-1] for k, v in parse_qs(parts.query).items()}, body, headers)
        with self._lock:
            self.requests.append(request)
        if self.delay:
            time.sleep(self.delay)
        fault = self._fault_for(request)
        if fault is not None:
            if fault.delay:
                time.sleep(fault.delay)
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            data = fault.body if fault.body is not None else json.dumps({"detail": f"scripted failure ({fault.status})"}).encode()
            return self._send(handler, fault.status, data, headers)
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return self._send(handler, 401, json.dumps({"detail": "Invalid or missing API key"}).encode())
        try:
            status, payload = self.api.route(request)
        except ApiError as error:
            status, payload = error.status, {"detail": error.detail}
        self._send(handler, status, json.dumps(payload).encode())

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        send_reply(handler, status, data, headers=(headers or {}).items())
