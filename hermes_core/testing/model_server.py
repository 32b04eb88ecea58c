"""Scripted model servers on 127.0.0.1 that speak the OpenAI chat-completions and Anthropic Messages protocols.

For tests and benchmarks of anything that calls a model, hermes' own and plugins' alike::

    from hermes_core.testing_servers import OpenAIServer, text_reply, tool_call_reply

    with OpenAIServer([tool_call_reply("get_weather", {"city": "Paris"}), text_reply("Sunny.")]) as server:
        client = OpenAIChatClient(server.base_url, "any-model")
        ...
        assert server.requests[1].body["messages"][-1]["role"] == "tool"

Each server is a real HTTP server (stdlib ``ThreadingHTTPServer``) on an ephemeral port, running
in a thread while the ``with`` block lasts. It answers requests from a *script*: a list of replies
used in order (or a callable that builds a reply from the request), and records every request so
tests can assert on what was sent. A streamed reply is sent when the request asks for one.
Replies can also fail with an HTTP status, hang past a client's timeout, drop the connection, or
rate-limit with Retry-After. :class:`CachingAnthropicServer` additionally simulates prompt caching
by longest-cached-prefix rules, for benchmarks of cache-breakpoint policies.

Only the standard library is imported; the servers validate requests the way the real APIs do
where a client bug would otherwise go unnoticed (a tool result that answers no call, more than
four cache breakpoints, an empty text block).
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from .http_io import read_request, send_reply
from .prefix_cache import _tokens
from .replies import (
    DEFAULT_CHARS_PER_TOKEN,
    RecordedRequest,
    Reply,
    ScriptItem,
    ToolCall,
    error_reply,
)

# --- the servers ------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return re.findall(r"\s*\S+\s*|\s+", text) or ([text] if text else [])


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs; streams use chunked encoding
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every reply on a kept-alive connection.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, opened=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, opened=False)

    def do_POST(self) -> None:
        self.server.owner._handle(self)

    def do_GET(self) -> None:
        self.server.owner._handle(self)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # tests read server.requests, not a log on stderr


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedModelServer


class ScriptedModelServer:
    """Common machinery; use :class:`OpenAIServer`, :class:`AnthropicServer` or :class:`CachingAnthropicServer`."""

    #: Provider name, for messages.
    protocol = ""

    def __init__(
        self,
        script: Iterable[ScriptItem] | Callable[[RecordedRequest], Reply] = (),
        *,
        api_key: str | None = None,
        models: Iterable[str] | None = None,
        model: str = "scripted-model",
        chars_per_token: int = DEFAULT_CHARS_PER_TOKEN,
    ) -> None:
        """
        :param script: replies used in order, or one function answering every request.
        :param api_key: when set, requests without this key get 401.
        :param models: when set, requests for any other model get 404.
        :param model: the model name reported when the request names none.
        """
        self._responder = script if callable(script) else None
        self._script: list[ScriptItem] = [] if callable(script) else list(script)
        self.api_key = api_key
        self.models = set(models) if models is not None else None
        self.model = model
        self.chars_per_token = chars_per_token
        self._requests: list[RecordedRequest] = []
        self._used = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._port: int | None = None
        self._thread: threading.Thread | None = None
        self._ids = 0

    # lifecycle

    def start(self) -> Self:
        httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._port = int(httpd.server_address[1])
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is None:
            return
        self._closing.set()  # releases hanging replies
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            # Wakes handler threads waiting for the next request on a kept-alive connection.
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # what tests read

    @property
    def port(self) -> int:
        """The port it listens (or, once closed, listened) on."""
        if self._port is None:
            raise RuntimeError("the server was never started; use it as a context manager or call start()")
        return self._port

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The base URL to give a client of this protocol."""
        return self.origin

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, including refused ones."""
        with self._lock:
            return list(self._requests)

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of :attr:`requests`."""
        return [request.body for request in self.requests]

    @property
    def replies_left(self) -> int:
        with self._lock:
            return len(self._script) - self._used

    def add(self, *replies: ScriptItem) -> None:
        """Append replies to the script."""
        with self._lock:
            self._script.extend(replies)

    # request handling

    def _track(self, connection: socket.socket, *, opened: bool) -> None:
        with self._lock:
            if opened:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _next_id(self) -> int:
        with self._lock:
            self._ids += 1
            return self._ids

    def _handle(self, handler: _Handler) -> None:
        raw, body, headers = read_request(handler)
        request = RecordedRequest(handler.command, handler.path, headers, raw, body)
        with self._lock:
            self._requests.append(request)
            number = len(self._requests)
        refusal = self._refuse(request)
        if refusal is not None:
            self._send_reply(handler, request, refusal)
            return
        reply = self._take_reply(request, number)
        if reply.delay > 0 or reply.hang:
            self._closing.wait(reply.delay if reply.delay > 0 else None)
        if reply.hang or reply.disconnect:
            handler.close_connection = True
            return
        self._send_reply(handler, request, reply)

    def _take_reply(self, request: RecordedRequest, number: int) -> Reply:
        if self._responder is not None:
            return self._responder(request)
        with self._lock:
            if self._used >= len(self._script):
                return error_reply(
                    400, f"scripted server: no reply left for request #{number} (the script had {len(self._script)})"
                )
            item = self._script[self._used]
            self._used += 1
        return item(request) if callable(item) else item

    def _send_reply(self, handler: _Handler, request: RecordedRequest, reply: Reply) -> None:
        if reply.body is not None:
            self._send(handler, reply.status, reply.body, reply.content_type, reply.headers)
        elif reply.status != 200:
            payload = self._error_body(reply.status, reply.error_message or f"scripted error {reply.status}", reply.error_type)
            self._send(handler, reply.status, json.dumps(payload).encode(), "application/json", reply.headers)
        elif request.wants_stream:
            self._send_stream(handler, self._stream_events(request, reply), reply.headers)
        else:
            payload = self._reply_body(request, reply)
            self._send(handler, 200, json.dumps(payload).encode(), "application/json", reply.headers)

    @staticmethod
    def _send(handler: _Handler, status: int, data: bytes, content_type: str, headers: Iterable[tuple[str, str]]) -> None:
        send_reply(handler, status, data, content_type=content_type, headers=headers)

    @staticmethod
    def _send_stream(handler: _Handler, events: Iterator[str], headers: Iterable[tuple[str, str]]) -> None:
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Cache-Control", "no-cache")
            handler.send_header("Transfer-Encoding", "chunked")
            for name, value in headers:
                handler.send_header(name, value)
            handler.end_headers()
            for event in events:
                data = event.encode("utf-8")
                # One HTTP chunk per event, flushed, so the client really receives the deltas one by one.
                handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                handler.wfile.flush()
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        except OSError:
            handler.close_connection = True

    def _text_chunks(self, reply: Reply) -> list[str]:
        if reply.chunks is not None:
            return list(reply.chunks)
        return _words(reply.text)

    def _output_tokens(self, reply: Reply) -> int:
        chars = len(reply.text) + sum(len(call.name) + len(call.arguments_json()) for call in reply.tool_calls)
        return max(1, _tokens(chars, self.chars_per_token))

    def _call_id(self, call: ToolCall, prefix: str) -> str:
        return call.id or f"{prefix}{self._next_id():06d}"

    # protocol specifics

    def _refuse(self, request: RecordedRequest) -> Reply | None:
        raise NotImplementedError

    def _error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        raise NotImplementedError

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        raise NotImplementedError

    def _stream_events(self, request: RecordedRequest, reply: Reply) -> Iterator[str]:
        raise NotImplementedError

