"""A loopback stand-in for the Mem0 platform: the endpoints ``mem0.MemoryClient`` 2.2 calls.

The platform is not open source, so the protocol is spoken here from the SDK's side: ping, add,
search, list, get/update/delete and delete-all, token auth, and scripted failures per request.
Search scores by shared words, which is enough to check what the provider asks and shows.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections import deque
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


class PlatformServer:
    def __init__(self, api_key: str = "m0-test-key") -> None:
        self.api_key = api_key
        self.memories: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, Any, dict[str, str]]] = []
        #: (status, body) answers used before the normal one, one per request.
        self.failures: deque[tuple[int, Any]] = deque()
        #: The answer to the key check (``GET /v1/ping/``) the client makes when it starts.
        self.ping_answer: tuple[int, Any] = (200, {"status": "ok", "org_id": "org", "project_id": "proj", "user_email": None})
        #: While not set, searches wait for it (a slow platform); ``None``: they answer at once.
        self.search_gate: threading.Event | None = None
        #: Set whenever a search request arrived.
        self.search_arrived = threading.Event()
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, method: str) -> None:
                owner._handle(self, method)

            def do_GET(self) -> None:
                self._answer("GET")

            def do_POST(self) -> None:
                self._answer("POST")

            def do_PUT(self) -> None:
                self._answer("PUT")

            def do_DELETE(self) -> None:
                self._answer("DELETE")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    def __enter__(self) -> PlatformServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def paths(self) -> list[str]:
        return [f"{m} {p}" for m, p, _, _ in self.requests]

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urlparse(handler.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length)) if length else {}
        with self._lock:
            self.requests.append((method, url.path, body, dict(handler.headers)))
            failure = self.failures.popleft() if self.failures and url.path != "/v1/ping/" else None
        if handler.headers.get("Authorization") != f"Token {self.api_key}":
            return self._send(handler, 401, {"detail": "Invalid API key"})
        if failure is not None:
            return self._send(handler, *failure)
        if method == "POST" and url.path == "/v3/memories/search/":
            self.search_arrived.set()
            gate = self.search_gate
            if gate is not None:
                gate.wait(30)
        status, answer = self._route(method, url.path, query, body)
        self._send(handler, status, answer)

    def _matches(self, memory: dict[str, Any], filters: dict[str, Any]) -> bool:
        return all(memory.get(k) == v for k, v in (filters or {}).items() if k in ("user_id", "agent_id", "run_id"))

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if method == "GET" and path == "/v1/ping/":
            return self.ping_answer
        if method == "POST" and path == "/v3/memories/add/":
            out = []
            for message in body.get("messages", []):
                # Verbatim adds keep every message; inferred ones keep what the user said.
                if body.get("infer", True) and message.get("role") != "user":
                    continue
                memory_id = str(uuid.uuid4())
                self.memories[memory_id] = {
                    "id": memory_id, "memory": message["content"], "user_id": body.get("user_id"), "agent_id": body.get("agent_id"),
                    "metadata": body.get("metadata"), "created_at": _now(), "updated_at": _now(),
                }
                out.append({"id": memory_id, "memory": message["content"], "event": "ADD"})
            return 200, {"results": out}
        if method == "POST" and path == "/v3/memories/":
            found = [m for m in self.memories.values() if self._matches(m, body.get("filters"))]
            size = int(query.get("page_size", 100))
            page = int(query.get("page", 1))
            chunk = found[(page - 1) * size: page * size]
            more = len(found) > page * size
            return 200, {"count": len(found), "next": f"{path}?page={page + 1}" if more else None, "previous": None, "results": chunk}
        if method == "POST" and path == "/v3/memories/search/":
            words = set(re.findall(r"\w+", body["query"].lower()))
            scored = []
            for memory in self.memories.values():
                if not self._matches(memory, body.get("filters")):
                    continue
                score = len(words & set(re.findall(r"\w+", memory["memory"].lower()))) / (len(words) or 1)
                if score > 0:
                    scored.append(dict(memory, score=score))
            scored.sort(key=lambda m: -m["score"])
            return 200, {"results": scored[: body.get("top_k", 10)]}
        match = re.fullmatch(r"/v1/memories/([^/]+)/", path)
        if match:
            memory = self.memories.get(match.group(1))
            if memory is None:
                return 404, {"detail": "Memory not found"}
            if method == "PUT":
                memory.update(memory=body.get("text", memory["memory"]), updated_at=_now())
                return 200, memory
            if method == "DELETE":
                del self.memories[memory["id"]]
                return 200, {"message": "Memory deleted successfully!"}
            return 200, memory
        return 404, {"detail": f"no route {method} {path}"}
