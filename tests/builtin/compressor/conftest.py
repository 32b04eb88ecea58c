"""Fixtures for the compressor tests: a conversation builder and a scripted chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class Conversation:
    """Builds OpenAI-shaped messages: ``c.user("hi").assistant("hello").tool_round("read_file", {...}, "out")``."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._next_id = 0

    def system(self, text: str) -> Conversation:
        self.messages.append({"role": "system", "content": text})
        return self

    def user(self, text: str) -> Conversation:
        self.messages.append({"role": "user", "content": text})
        return self

    def assistant(self, text: str) -> Conversation:
        self.messages.append({"role": "assistant", "content": text})
        return self

    def tool_round(self, name: str, arguments: dict[str, Any], *outputs: str) -> Conversation:
        """One assistant message calling ``name`` once per output, followed by the results."""
        ids = []
        for _ in outputs:
            self._next_id += 1
            ids.append(f"call_{self._next_id}")
        calls = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}} for cid in ids
        ]
        self.messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        for cid, output in zip(ids, outputs):
            self.messages.append({"role": "tool", "tool_call_id": cid, "content": output})
        return self


@pytest.fixture
def conversation() -> type[Conversation]:
    return Conversation


@dataclass
class ChatServer:
    """What the scripted server answers, and every request it received."""

    base_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    #: "ok" (a completion with ``reply``), "error" (HTTP 500), "garbage" (not JSON) or "hang" (no answer).
    mode: str = "ok"
    reply: str = "## Goal\n- summary written by the model"
    release: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A real HTTP server on 127.0.0.1 speaking the chat-completions protocol, in a thread."""
    server_state: dict[str, ChatServer] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def do_POST(self) -> None:
            state = server_state["state"]
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if state.mode == "hang":
                state.release.wait()  # the client gives up first; the test's teardown releases us
                return
            if state.mode == "error":
                self._send(500, b'{"error": {"message": "model overloaded"}}')
            elif state.mode == "garbage":
                self._send(200, b"<html>not json</html>")
            else:
                answer = {
                    "id": "cmpl-1",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": state.reply}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }
                self._send(200, json.dumps(answer).encode())

        def _send(self, status: int, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state = ChatServer(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    server_state["state"] = state
    # A short poll interval only makes shutdown() return sooner at teardown.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join()
