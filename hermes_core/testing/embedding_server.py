"""An OpenAI-compatible model server on 127.0.0.1 with embeddings, for tests and benchmarks of memory backends.

:class:`EmbeddingModelServer` speaks ``POST /v1/chat/completions`` (scripted, as
:class:`~hermes_core.testing.OpenAIServer` does) and ``POST /v1/embeddings``. Embeddings are
deterministic hashed bag-of-words vectors: texts that share content words point the same way, so a
vector search over them ranks like a keyword search would ("which port does postgres use" finds
"postgres listens on port 5433", not "the cat likes tuna"). Memory libraries that extract facts with a
JSON-mode completion (mem0's ``## New Messages`` prompt) are answered automatically, so the script only
holds the chat model's own replies::

    from hermes_core.testing import EmbeddingModelServer, text_reply

    with EmbeddingModelServer([text_reply("5433.")], dims=64) as server:
        ...  # point both the chat client and the memory library at server.base_url
        server.fail_next("embeddings", error_reply(500))   # the next embedding request fails

Faults are injected per route with :meth:`EmbeddingModelServer.fail_next` (any scripted reply: an HTTP
error, a hang past the client's timeout, a dropped connection, malformed bytes).
Only the standard library is imported.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from hermes_core.testing.openai_server import OpenAIServer
from hermes_core.testing.replies import RecordedRequest, Reply, ScriptItem, error_reply, raw_reply, text_reply

__all__ = ["EmbeddingModelServer", "embed_text", "embeddings_reply", "extraction_reply", "is_extraction_request"]

DEFAULT_DIMS = 64
#: Words that carry no topic; left out so that questions match statements about the same thing.
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does doing for from had has have how i if in into is it
    its me my of on or our she he so than that the their them then there these they this to use used uses using
    was we were what when where which who whom why will with would you your yours about please tell know remember
    user said assistant""".split()
)
ROUTES = ("embeddings", "extraction", "chat")


def _stem(word: str) -> str:
    """A crude suffix strip, enough for "ports"/"port" and "listens"/"listen" to meet."""
    for suffix in ("ing", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> list[str]:
    return [_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


def embed_text(text: str, dims: int = DEFAULT_DIMS) -> list[float]:
    """A unit vector: each content word adds ±1 to one hashed coordinate (a signed feature hash)."""
    vector = [0.0] * dims
    words = content_words(text) or re.findall(r"\S+", text.lower())[:1]
    for word in words:
        digest = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
        vector[digest % dims] += 1.0 if (digest >> 32) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:  # no words at all: a fixed direction, so the vector is still valid
        vector[0], norm = 1.0, 1.0
    return [x / norm for x in vector]


def is_extraction_request(body: Any) -> bool:
    """Whether a chat-completions body is mem0's fact extraction (JSON mode, a ``## New Messages`` section)."""
    if not isinstance(body, dict) or (body.get("response_format") or {}).get("type") != "json_object":
        return False
    return any("## New Messages" in str(m.get("content", "")) for m in body.get("messages") or [] if isinstance(m, dict))


def extraction_reply(body: dict[str, Any]) -> Reply:
    """Every ``user:`` line of the New Messages section becomes one extracted memory, word for word."""
    last = str((body.get("messages") or [{}])[-1].get("content", ""))
    section = re.search(r"## New Messages\s*\n(.*?)(?:\n## |\Z)", last, re.S)
    lines = section.group(1).splitlines() if section else []
    facts = [line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("user:") and line.split(":", 1)[1].strip()]
    memory = [{"id": str(i), "text": fact, "attributed_to": "user", "linked_memory_ids": []} for i, fact in enumerate(facts)]
    return text_reply(json.dumps({"memory": memory}))


class EmbeddingModelServer(OpenAIServer):
    """Chat completions (scripted, with mem0 extraction answered automatically) plus ``/v1/embeddings``.

    :param script: replies to the chat model's ordinary requests, in order (or one function).
    :param dims: the embedding size when a request does not ask for ``dimensions``.
    :param chat_fallback: what ordinary chat requests get once the script is used up; ``None`` = a 400.
    """

    def __init__(
        self,
        script: Iterable[ScriptItem] | Callable[[RecordedRequest], Reply] = (),
        *,
        dims: int = DEFAULT_DIMS,
        chat_fallback: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(script, **options)
        self.dims = dims
        self.chat_fallback = chat_fallback
        self._faults: dict[str, deque[ScriptItem]] = {route: deque() for route in ROUTES}
        self._fault_lock = threading.Lock()

    # -- what tests use --

    def fail_next(self, route: str, *replies: ScriptItem) -> None:
        """Answer the next requests of ``route`` (embeddings, extraction or chat) with ``replies`` first."""
        if route not in ROUTES:
            raise ValueError(f"route must be one of {', '.join(ROUTES)}, not {route!r}")
        with self._fault_lock:
            self._faults[route].extend(replies)

    def clear_faults(self) -> None:
        with self._fault_lock:
            for queue in self._faults.values():
                queue.clear()

    def reset(self, *script: ScriptItem) -> None:
        """Start over with a new chat script: faults and recorded requests cleared (one server, many tests)."""
        self.clear_faults()
        with self._lock:
            self._script = list(script)
            self._used = 0
            self._requests.clear()

    def route_of(self, request: RecordedRequest) -> str:
        if request.path.split("?")[0].rstrip("/").endswith("/embeddings"):
            return "embeddings"
        return "extraction" if is_extraction_request(request.body) else "chat"

    def requests_of(self, route: str) -> list[RecordedRequest]:
        return [r for r in self.requests if self.route_of(r) == route]

    # -- protocol --

    def _refuse(self, request: RecordedRequest) -> Reply | None:
        if self.route_of(request) != "embeddings":
            return super()._refuse(request)
        if request.method != "POST":
            return error_reply(404, f"no route for {request.method} {request.path}", error_type="not_found")
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return error_reply(401, "Incorrect API key provided.", error_type="invalid_api_key")
        body = request.body
        inputs = body.get("input") if isinstance(body, dict) else None
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not inputs or not all(isinstance(i, str) for i in inputs):
            return error_reply(400, "'input' must be a string or a non-empty list of strings", error_type="invalid_request_error")
        return None

    def _take_reply(self, request: RecordedRequest, number: int) -> Reply:
        route = self.route_of(request)
        with self._fault_lock:
            fault = self._faults[route].popleft() if self._faults[route] else None
        if fault is not None:
            return fault(request) if callable(fault) else fault
        if route == "embeddings":
            return self._embeddings(request.body)
        if route == "extraction":
            return extraction_reply(request.body)
        if self.chat_fallback is not None and self._responder is None and self.replies_left <= 0:
            return text_reply(self.chat_fallback)
        return super()._take_reply(request, number)

    def _embeddings(self, body: dict[str, Any]) -> Reply:
        return embeddings_reply(body, self.dims)


def embeddings_reply(body: dict[str, Any], dims: int = DEFAULT_DIMS) -> Reply:
    """The normal answer to an embeddings request (``dimensions`` in the body wins over ``dims``).

    Useful in a fault script: ``fail_next("embeddings", lambda r: embeddings_reply(r.body), error_reply(500))``
    lets the first request through and fails the second.
    """
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    size = int(body.get("dimensions") or dims)
    data = [{"object": "embedding", "index": i, "embedding": embed_text(text, size)} for i, text in enumerate(inputs)]
    tokens = sum(len(text) // 4 + 1 for text in inputs)
    payload = {"object": "list", "model": body.get("model", "hashed-bow"), "data": data, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}
    return raw_reply(200, json.dumps(payload))
