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

import hashlib
import json
import math
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = [
    "AnthropicServer",
    "CachingAnthropicServer",
    "OpenAIServer",
    "PrefixCache",
    "RecordedRequest",
    "Reply",
    "ToolCall",
    "disconnect_reply",
    "error_reply",
    "hang_reply",
    "rate_limit_reply",
    "raw_reply",
    "text_reply",
    "tool_call_reply",
    "tool_calls_reply",
]

#: Characters counted as one token by every estimate these servers make.
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


# --- token estimates and the prefix cache -------------------------------------------


def _tokens(chars: int, chars_per_token: int) -> int:
    return math.ceil(chars / chars_per_token) if chars > 0 else 0


def _without_cache_control(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


@dataclass(frozen=True)
class PromptBlock:
    """One cacheable unit of an Anthropic request, in prefix order: tools, then system, then messages."""

    canonical: str
    chars: int
    breakpoint: bool


def anthropic_prompt_blocks(body: dict[str, Any]) -> list[PromptBlock]:
    """The request as the provider's cache sees it: a sequence of blocks, some marked as breakpoints.

    A block's identity ignores its ``cache_control`` (marking a block does not change the
    prefix); a marker on a whole message counts as a breakpoint on its last block.
    """
    blocks: list[PromptBlock] = []

    def add(section: str, block: Any, marked: bool) -> None:
        clean = _without_cache_control(block)
        if isinstance(clean, dict) and clean.get("type") == "text":
            chars = len(str(clean.get("text", "")))
        elif isinstance(clean, str):
            chars = len(clean)
        else:
            chars = len(json.dumps(clean, sort_keys=True, ensure_ascii=False))
        canonical = json.dumps([section, clean], sort_keys=True, ensure_ascii=False)
        blocks.append(PromptBlock(canonical, chars, marked))

    for tool in body.get("tools") or []:
        add("tool", tool, isinstance(tool, dict) and "cache_control" in tool)
    system = body.get("system")
    if isinstance(system, str) and system:
        add("system", {"type": "text", "text": system}, False)
    elif isinstance(system, list):
        for block in system:
            add("system", block, isinstance(block, dict) and "cache_control" in block)
    for message in body.get("messages") or []:
        role = str(message.get("role"))
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        start = len(blocks)
        for part in parts:
            add(role, part, isinstance(part, dict) and "cache_control" in part)
        if "cache_control" in message and len(blocks) > start:
            blocks[-1] = PromptBlock(blocks[-1].canonical, blocks[-1].chars, True)
    return blocks


class PrefixCache:
    """Prompt caching by longest-cached-prefix rules, the way the Messages API describes it.

    - A breakpoint (``cache_control`` on a block) makes the prefix up to and including that block
      a cache entry, if the prefix holds at least ``min_tokens`` tokens.
    - A request reads the longest cached prefix that ends at one of its breakpoints or at most
      ``lookback_blocks`` blocks before one; a request without breakpoints reads nothing.
    - ``cache_read_input_tokens`` is that prefix; ``cache_creation_input_tokens`` is what lies between
      it and the last breakpoint (when that prefix was not cached yet); ``input_tokens`` is the rest.
    - Entries never expire (a benchmark finishes well within the 5-minute lifetime) and are keyed by
      model as well. Tokens are estimated at ``chars_per_token`` characters per token.

    ``min_tokens`` defaults to 1024, the smallest cacheable prompt of most Claude models; set it to 0
    to see caching on tiny test prompts.
    """

    def __init__(
        self, *, chars_per_token: int = DEFAULT_CHARS_PER_TOKEN, min_tokens: int = 1024, lookback_blocks: int = 20
    ) -> None:
        self.chars_per_token = chars_per_token
        self.min_tokens = min_tokens
        self.lookback_blocks = lookback_blocks
        self._entries: dict[str, int] = {}
        self._lock = threading.Lock()
        #: Sums over every request processed so far.
        self.totals: dict[str, int] = {"input_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        self.requests = 0

    @property
    def entries(self) -> int:
        """How many prefixes are cached."""
        return len(self._entries)

    def hit_share(self) -> float:
        """Share of all input tokens so far that were read from the cache."""
        total = sum(self.totals.values())
        return self.totals["cache_read_input_tokens"] / total if total else 0.0

    def process(self, body: dict[str, Any]) -> dict[str, int]:
        """Account for one request: update the cache and return its input usage in Messages terms."""
        blocks = anthropic_prompt_blocks(body)
        cumulative: list[int] = []
        keys: list[str] = []
        running = 0
        digest = hashlib.sha256(f"model:{body.get('model')}".encode())
        for block in blocks:
            running += _tokens(block.chars, self.chars_per_token)
            cumulative.append(running)
            digest.update(block.canonical.encode("utf-8"))
            keys.append(digest.copy().hexdigest())
        breakpoints = [index for index, block in enumerate(blocks) if block.breakpoint]
        with self._lock:
            read_at = -1
            for point in breakpoints:
                for index in range(point, max(-1, point - self.lookback_blocks - 1), -1):
                    if keys[index] in self._entries:
                        read_at = max(read_at, index)
                        break
            read = cumulative[read_at] if read_at >= 0 else 0
            written = 0
            if breakpoints:
                last = breakpoints[-1]
                if read_at < last and cumulative[last] >= self.min_tokens:
                    written = cumulative[last] - read
                for point in breakpoints:
                    if cumulative[point] >= self.min_tokens:
                        self._entries.setdefault(keys[point], cumulative[point])
            usage = {
                "input_tokens": (cumulative[-1] if cumulative else 0) - read - written,
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": written,
            }
            for key, value in usage.items():
                self.totals[key] += value
            self.requests += 1
        return usage


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
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            handler.command, handler.path, {k.lower(): v for k, v in handler.headers.items()}, raw, body
        )
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
            handler.close_connection = True  # the client gave up (timed out); nothing to tell it

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


class OpenAIServer(ScriptedModelServer):
    """Speaks ``POST /v1/chat/completions``; :attr:`base_url` ends in ``/v1``."""

    protocol = "openai"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def _refuse(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or not request.path.rstrip("/").endswith("/v1/chat/completions"):
            return error_reply(404, f"no route for {request.method} {request.path}", error_type="not_found")
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return error_reply(401, "Incorrect API key provided.", error_type="invalid_api_key")
        body = request.body
        if not isinstance(body, dict):
            return error_reply(400, "the body must be a JSON object")
        if self.models is not None and body.get("model") not in self.models:
            return error_reply(404, f"The model `{body.get('model')}` does not exist.", error_type="model_not_found")
        problem = validate_openai_messages(body.get("messages"))
        return error_reply(400, problem, error_type="invalid_request_error") if problem else None

    def _error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        kind = error_type or ("rate_limit_exceeded" if status == 429 else "server_error" if status >= 500 else "invalid_request_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}

    def _usage(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        if reply.usage is not None:
            return reply.usage
        body = request.body
        prompt_chars = len(json.dumps(body.get("messages"), ensure_ascii=False)) + len(json.dumps(body.get("tools") or []))
        prompt = _tokens(prompt_chars, self.chars_per_token)
        completion = self._output_tokens(reply)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _finish(self, reply: Reply) -> str:
        return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")

    def _model(self, request: RecordedRequest, reply: Reply) -> str:
        return reply.model or request.body.get("model") or self.model

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": self._call_id(call, "call_"), "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments_json()}}
                for call in reply.tool_calls
            ]
        return {
            "id": f"chatcmpl-{self._next_id()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self._model(request, reply),
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish(reply)}],
            "usage": self._usage(request, reply),
        }

    def _stream_events(self, request: RecordedRequest, reply: Reply) -> Iterator[str]:
        base = {"id": f"chatcmpl-{self._next_id()}", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": self._model(request, reply)}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            return "data: " + json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"

        yield chunk({"role": "assistant", "content": ""})
        for piece in self._text_chunks(reply):
            yield chunk({"content": piece})
        if reply.stream_error is not None:
            yield "data: " + json.dumps({"error": {"message": reply.stream_error, "type": "server_error"}}) + "\n\n"
            return
        for index, call in enumerate(reply.tool_calls):
            yield chunk({"tool_calls": [{"index": index, "id": self._call_id(call, "call_"), "type": "function",
                                         "function": {"name": call.name, "arguments": ""}}]})
            for piece in _pieces(call.arguments_json(), 7):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, self._finish(reply))
        options = request.body.get("stream_options") or {}
        if options.get("include_usage"):
            yield "data: " + json.dumps({**base, "choices": [], "usage": self._usage(request, reply)}) + "\n\n"
        yield "data: [DONE]\n\n"


_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
    413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error",
}


class AnthropicServer(ScriptedModelServer):
    """Speaks ``POST /v1/messages``; :attr:`base_url` is the origin (clients append ``/v1/messages``).

    Usage is estimated at ``chars_per_token``; pass ``prefix_cache`` (or use
    :class:`CachingAnthropicServer`) to have cache reads and writes simulated as well.
    """

    protocol = "anthropic"

    def __init__(
        self,
        script: Iterable[ScriptItem] | Callable[[RecordedRequest], Reply] = (),
        *,
        prefix_cache: PrefixCache | None = None,
        **options: Any,
    ) -> None:
        super().__init__(script, **options)
        self.prefix_cache = prefix_cache

    def _refuse(self, request: RecordedRequest) -> Reply | None:
        if request.method != "POST" or request.path.rstrip("/") != "/v1/messages":
            return error_reply(404, f"no route for {request.method} {request.path}")
        if self.api_key is not None and request.headers.get("x-api-key") != self.api_key:
            return error_reply(401, "invalid x-api-key")
        if not request.headers.get("anthropic-version"):
            return error_reply(400, "anthropic-version: header is required")
        body = request.body
        if not isinstance(body, dict):
            return error_reply(400, "the body must be a JSON object")
        if self.models is not None and body.get("model") not in self.models:
            return error_reply(404, f"model: {body.get('model')}")
        problem = validate_anthropic_body(body)
        return error_reply(400, problem) if problem else None

    def _error_body(self, status: int, message: str, error_type: str | None) -> dict[str, Any]:
        kind = error_type or _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def _usage(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        if reply.usage is not None:
            return dict(reply.usage)
        if self.prefix_cache is not None:
            usage: dict[str, Any] = self.prefix_cache.process(request.body)
        else:
            blocks = anthropic_prompt_blocks(request.body)
            total = sum(_tokens(block.chars, self.chars_per_token) for block in blocks)
            usage = {"input_tokens": total, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        usage["output_tokens"] = self._output_tokens(reply)
        return usage

    def _stop(self, reply: Reply) -> str:
        return reply.finish_reason or ("tool_use" if reply.tool_calls else "end_turn")

    def _content(self, reply: Reply) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        for call in reply.tool_calls:
            arguments = json.loads(call.arguments_json()) if call.arguments_json().strip() else {}
            content.append({"type": "tool_use", "id": self._call_id(call, "toolu_"), "name": call.name, "input": arguments})
        return content

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        return {
            "id": f"msg_{self._next_id():06d}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or request.body.get("model") or self.model,
            "content": self._content(reply),
            "stop_reason": self._stop(reply),
            "stop_sequence": None,
            "usage": self._usage(request, reply),
        }

    def _stream_events(self, request: RecordedRequest, reply: Reply) -> Iterator[str]:
        def event(name: str, data: dict[str, Any]) -> str:
            return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"

        usage = self._usage(request, reply)
        start_usage = {**usage, "output_tokens": 1}
        yield event("message_start", {"message": {
            "id": f"msg_{self._next_id():06d}", "type": "message", "role": "assistant",
            "model": reply.model or request.body.get("model") or self.model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}})
        yield event("ping", {})
        index = 0
        if reply.text:
            yield event("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
            for piece in self._text_chunks(reply):
                yield event("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}})
            if reply.stream_error is not None:
                yield event("error", {"error": {"type": "overloaded_error", "message": reply.stream_error}})
                return
            yield event("content_block_stop", {"index": index})
            index += 1
        elif reply.stream_error is not None:
            yield event("error", {"error": {"type": "overloaded_error", "message": reply.stream_error}})
            return
        for block in self._content(reply)[index:]:
            yield event("content_block_start", {"index": index, "content_block": {**block, "input": {}}})
            for piece in _pieces(json.dumps(block["input"]), 7):
                yield event("content_block_delta", {"index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})
            yield event("content_block_stop", {"index": index})
            index += 1
        yield event("message_delta", {"delta": {"stop_reason": self._stop(reply), "stop_sequence": None},
                                      "usage": {"output_tokens": usage.get("output_tokens", 0)}})
        yield event("message_stop", {})


class CachingAnthropicServer(AnthropicServer):
    """An :class:`AnthropicServer` whose usage comes from a :class:`PrefixCache` (see there for the rules)."""

    def __init__(
        self,
        script: Iterable[ScriptItem] | Callable[[RecordedRequest], Reply] = (),
        *,
        min_cache_tokens: int = 1024,
        lookback_blocks: int = 20,
        chars_per_token: int = DEFAULT_CHARS_PER_TOKEN,
        **options: Any,
    ) -> None:
        cache = PrefixCache(chars_per_token=chars_per_token, min_tokens=min_cache_tokens, lookback_blocks=lookback_blocks)
        super().__init__(script, prefix_cache=cache, chars_per_token=chars_per_token, **options)

    @property
    def cache(self) -> PrefixCache:
        assert self.prefix_cache is not None
        return self.prefix_cache


# --- request validation (what the real APIs refuse) -------------------------------


def validate_openai_messages(messages: Any) -> str | None:
    """Why the chat-completions API would refuse ``messages``, or None."""
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    open_calls: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            return f"messages[{index}].role {role!r} is not one of system, user, assistant, tool"
        if role == "tool":
            if message.get("tool_call_id") not in open_calls:
                return (f"messages[{index}]: a message with role 'tool' must be a response to a preceding message "
                        f"with 'tool_calls' (tool_call_id {message.get('tool_call_id')!r})")
            open_calls.discard(message["tool_call_id"])
            continue
        if open_calls:
            return f"messages[{index}]: tool_calls {sorted(open_calls)} have no tool messages answering them"
        if role == "assistant":
            open_calls = {call.get("id") for call in message.get("tool_calls") or []}
    return None


def validate_anthropic_body(body: dict[str, Any]) -> str | None:
    """Why the Messages API would refuse ``body``, or None."""
    if not isinstance(body.get("max_tokens"), int):
        return "max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    breakpoints = sum(1 for block in anthropic_prompt_blocks(body) if block.breakpoint)
    if breakpoints > 4:
        return f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}."
    pending: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{index}.role: Input should be 'user' or 'assistant'"
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or not blocks:
            return f"messages.{index}: content must not be empty"
        for block in blocks:
            if block.get("type") == "text" and not block.get("text"):
                return f"messages.{index}: text content blocks must be non-empty"
        answered = {block.get("tool_use_id") for block in blocks if block.get("type") == "tool_result"}
        if pending:
            if role != "user" or not pending <= answered:
                return (f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                        f"{', '.join(sorted(pending - answered))}")
        elif answered:
            return f"messages.{index}: unexpected `tool_use_id` found in `tool_result` blocks: {', '.join(sorted(answered))}"
        pending = {block.get("id") for block in blocks if block.get("type") == "tool_use"} if role == "assistant" else set()
    return None
