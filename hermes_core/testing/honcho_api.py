"""The state and the routes of :class:`hermes_core.testing.honcho_server.HonchoServer`: Honcho's v3 API in memory.

Replies have the shapes the real server sends (recorded from Honcho 3.0.x), so the honcho-ai SDK's
own models accept them. What the real server does with a model is deterministic here: the
representation lists the conclusions about a peer, ``chat`` answers from
:attr:`HonchoApi.chat_replies` (else from those conclusions), search matches words.
Only the standard library is imported.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = ["ApiError", "HonchoApi", "HonchoRequest", "HonchoState"]


@dataclass(frozen=True)
class HonchoRequest:
    """A request as received: method, path (without query), query values, JSON body, headers (lower case)."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    headers: dict[str, str]


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class HonchoState:
    """Everything the server stores; tests may read it (and seed it) directly."""

    workspaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    peers: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    sessions: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: (workspace, session) -> {peer_id: {"observe_me": bool|None, "observe_others": bool|None}}
    session_peers: dict[tuple[str, str], dict[str, dict[str, Any]]] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    conclusions: list[dict[str, Any]] = field(default_factory=list)
    #: (workspace, observer, target) -> card lines
    cards: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
    #: (workspace, session) -> summary text
    summaries: dict[tuple[str, str], str] = field(default_factory=dict)

    def session_messages(self, workspace: str, session: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["workspace_id"] == workspace and m["session_id"] == session]

    def about(self, workspace: str, observed: str, observer: str | None = None) -> list[dict[str, Any]]:
        return [
            c for c in self.conclusions
            if c["workspace_id"] == workspace and c["observed_id"] == observed and (observer is None or c["observer_id"] == observer)
        ]


_ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    (method, re.compile("^/v3/workspaces" + pattern + "$"), handler)
    for method, pattern, handler in [
        ("POST", "", "workspace"),
        ("POST", "/(?P<ws>[^/]+)/peers", "peer"),
        ("POST", "/(?P<ws>[^/]+)/peers/list", "peer_list"),
        ("POST", "/(?P<ws>[^/]+)/peers/(?P<peer>[^/]+)/chat", "chat"),
        ("POST", "/(?P<ws>[^/]+)/peers/(?P<peer>[^/]+)/representation", "representation"),
        ("GET", "/(?P<ws>[^/]+)/peers/(?P<peer>[^/]+)/card", "card_get"),
        ("PUT", "/(?P<ws>[^/]+)/peers/(?P<peer>[^/]+)/card", "card_put"),
        ("GET", "/(?P<ws>[^/]+)/peers/(?P<peer>[^/]+)/context", "peer_context"),
        ("POST", "/(?P<ws>[^/]+)/peers/(?P<peer>[^/]+)/search", "search"),
        ("POST", "/(?P<ws>[^/]+)/sessions", "session"),
        ("POST", "/(?P<ws>[^/]+)/sessions/list", "session_list"),
        ("POST", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/peers", "session_peers_add"),
        ("PUT", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/peers", "session_peers_set"),
        ("GET", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/peers", "session_peers_get"),
        ("GET", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/peers/(?P<peer>[^/]+)/config", "session_peer_config"),
        ("POST", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/messages", "messages_add"),
        ("POST", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/messages/list", "messages_list"),
        ("GET", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/context", "session_context"),
        ("POST", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)/search", "search"),
        ("DELETE", "/(?P<ws>[^/]+)/sessions/(?P<sid>[^/]+)", "session_delete"),
        ("POST", "/(?P<ws>[^/]+)/search", "search"),
        ("POST", "/(?P<ws>[^/]+)/conclusions", "conclusions_create"),
        ("POST", "/(?P<ws>[^/]+)/conclusions/list", "conclusions_list"),
        ("POST", "/(?P<ws>[^/]+)/conclusions/query", "conclusions_query"),
        ("DELETE", "/(?P<ws>[^/]+)/conclusions/(?P<cid>[^/]+)", "conclusions_delete"),
        ("GET", "/(?P<ws>[^/]+)/queue/status", "queue_status"),
    ]
]


class ApiError(Exception):
    """An error reply: HTTP ``status`` and the ``detail`` Honcho puts in its body."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def _page(items: list[Any], query: dict[str, str]) -> dict[str, Any]:
    page, size = int(query.get("page", 1)), int(query.get("size", 50))
    pages = max(1, -(-len(items) // size))
    return {"items": items[(page - 1) * size : page * size], "total": len(items), "page": page, "size": size, "pages": pages}


def _matches(item: dict[str, Any], filters: Any) -> bool:
    """Honcho's filter language, in the part this server models: field equality, ``metadata``
    containment (every given key equal) and the logical ``AND``/``OR``/``NOT`` lists."""
    if not filters:
        return True
    if not isinstance(filters, dict):
        raise ApiError(422, "filters must be an object")
    for key, wanted in filters.items():
        if key == "AND":
            ok = all(_matches(item, f) for f in wanted)
        elif key == "OR":
            ok = any(_matches(item, f) for f in wanted)
        elif key == "NOT":
            ok = not any(_matches(item, f) for f in wanted)
        elif key == "metadata":
            if not isinstance(wanted, dict) or any(isinstance(v, dict) for v in wanted.values()):
                raise ApiError(422, "this test server filters metadata by equal values only (no operators)")
            ok = all((item.get("metadata") or {}).get(k) == v for k, v in wanted.items())
        elif isinstance(wanted, dict):
            raise ApiError(422, f"this test server filters '{key}' by an equal value only (no operators)")
        else:
            ok = item.get(key) == wanted
        if not ok:
            return False
    return True


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}

class HonchoApi:
    """Answers one request at a time (callers hold :attr:`lock`) from :attr:`state`."""

    def __init__(self) -> None:
        self.state = HonchoState()
        #: Answers of ``peer.chat``, used in order; a callable gets the request body.
        self.chat_replies: list[str | Callable[[dict[str, Any]], str]] = []
        self.lock = threading.RLock()

    def set_summary(self, workspace: str, session: str, text: str) -> None:
        with self.lock:
            self.state.summaries[(workspace, session)] = text

    def add_conclusion(self, workspace: str, observer: str, observed: str, content: str, session_id: str | None = None) -> dict[str, Any]:
        with self.lock:
            item = {
                "id": uuid.uuid4().hex[:21], "content": content, "observer_id": observer, "observed_id": observed,
                "session_id": session_id, "level": "explicit", "created_at": _now(), "workspace_id": workspace,
            }
            self.state.conclusions.append(item)
            return item

    def route(self, request: HonchoRequest) -> tuple[int, Any]:
        for method, pattern, name in _ROUTES:
            match = pattern.match(request.path)
            if method == request.method and match:
                with self.lock:
                    return getattr(self, "_h_" + name)(request, **match.groupdict())
        raise ApiError(404, f"Not Found: {request.method} {request.path}")

    # -- handlers --

    def _workspace(self, ws: str) -> None:
        if ws not in self.state.workspaces:
            raise ApiError(404, f"Workspace {ws} not found")

    def _h_workspace(self, request: HonchoRequest) -> tuple[int, Any]:
        ws = (request.body or {}).get("id") or "default"
        data = self.state.workspaces.setdefault(ws, {"id": ws, "metadata": {}, "configuration": {}, "created_at": _now()})
        return 201, data

    def _ensure_peer(self, ws: str, peer: str) -> dict[str, Any]:
        return self.state.peers.setdefault((ws, peer), {"id": peer, "workspace_id": ws, "created_at": _now(), "metadata": {}, "configuration": {}})

    def _h_peer(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        self._workspace(ws)
        body = request.body or {}
        data = self._ensure_peer(ws, body["id"])
        for key in ("metadata", "configuration"):
            if body.get(key) is not None:
                data[key] = body[key]
        return 201, data

    def _h_peer_list(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        return 200, _page([p for (w, _), p in self.state.peers.items() if w == ws], request.query)

    def _representation(self, ws: str, peer: str, target: str | None, search: str | None = None) -> str:
        about = self.state.about(ws, target or peer, observer=peer if target else None)
        if search:
            wanted = _words(search)
            about = [c for c in about if _words(c["content"]) & wanted] or about
        if not about:
            return ""
        return "## Explicit Observations\n" + "\n".join(f"- {c['content']}" for c in about)

    def _h_chat(self, request: HonchoRequest, ws: str, peer: str) -> tuple[int, Any]:
        self._workspace(ws)
        body = request.body or {}
        if self.chat_replies:
            reply = self.chat_replies.pop(0)
            content = reply(body) if callable(reply) else reply
        else:
            content = self._representation(ws, peer, body.get("target")) or None
        return 200, {"content": content}

    def _h_representation(self, request: HonchoRequest, ws: str, peer: str) -> tuple[int, Any]:
        self._workspace(ws)
        body = request.body or {}
        return 200, {"representation": self._representation(ws, peer, body.get("target"), body.get("search_query"))}

    def _h_card_get(self, request: HonchoRequest, ws: str, peer: str) -> tuple[int, Any]:
        self._workspace(ws)
        return 200, {"peer_card": self.state.cards.get((ws, peer, request.query.get("target") or peer))}

    def _h_card_put(self, request: HonchoRequest, ws: str, peer: str) -> tuple[int, Any]:
        self._workspace(ws)
        card = list((request.body or {}).get("peer_card") or [])
        self.state.cards[(ws, peer, request.query.get("target") or peer)] = card
        return 200, {"peer_card": card}

    def _h_peer_context(self, request: HonchoRequest, ws: str, peer: str) -> tuple[int, Any]:
        self._workspace(ws)
        target = request.query.get("target")
        return 200, {
            "peer_id": peer, "target_id": target or peer,
            "representation": self._representation(ws, peer, target, request.query.get("search_query")) or None,
            "peer_card": self.state.cards.get((ws, peer, target or peer)),
        }

    def _h_search(self, request: HonchoRequest, ws: str, peer: str | None = None, sid: str | None = None) -> tuple[int, Any]:
        self._workspace(ws)
        body = request.body or {}
        wanted = _words(str(body.get("query", "")))
        found = [
            m for m in self.state.messages
            if m["workspace_id"] == ws and (peer is None or m["peer_id"] == peer) and (sid is None or m["session_id"] == sid) and _words(m["content"]) & wanted
        ]
        return 200, found[: int(body.get("limit") or 10)]

    def _h_session(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        self._workspace(ws)
        body = request.body or {}
        sid = body["id"]
        data = self.state.sessions.setdefault((ws, sid), {"id": sid, "is_active": True, "workspace_id": ws, "metadata": {}, "configuration": {}, "created_at": _now()})
        if body.get("peers"):
            self._add_session_peers(ws, sid, body["peers"])
        return 201, data

    def _h_session_list(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        return 200, _page([s for (w, _), s in self.state.sessions.items() if w == ws], request.query)

    def _session(self, ws: str, sid: str) -> None:
        self._workspace(ws)
        if (ws, sid) not in self.state.sessions:
            raise ApiError(404, f"Session {sid} not found")

    def _add_session_peers(self, ws: str, sid: str, peers: dict[str, Any], replace: bool = False) -> None:
        current = self.state.session_peers.setdefault((ws, sid), {})
        if replace:
            current.clear()
        for peer_id, config in (peers or {}).items():
            self._ensure_peer(ws, peer_id)
            current[peer_id] = {"observe_me": (config or {}).get("observe_me"), "observe_others": (config or {}).get("observe_others")}

    def _h_session_peers_add(self, request: HonchoRequest, ws: str, sid: str) -> tuple[int, Any]:
        self._session(ws, sid)
        self._add_session_peers(ws, sid, request.body or {})
        return 200, self.state.sessions[(ws, sid)]

    def _h_session_peers_set(self, request: HonchoRequest, ws: str, sid: str) -> tuple[int, Any]:
        self._session(ws, sid)
        self._add_session_peers(ws, sid, request.body or {}, replace=True)
        return 200, self.state.sessions[(ws, sid)]

    def _h_session_peers_get(self, request: HonchoRequest, ws: str, sid: str) -> tuple[int, Any]:
        self._session(ws, sid)
        return 200, _page([self.state.peers[(ws, p)] for p in self.state.session_peers.get((ws, sid), {})], request.query)

    def _h_session_peer_config(self, request: HonchoRequest, ws: str, sid: str, peer: str) -> tuple[int, Any]:
        self._session(ws, sid)
        return 200, self.state.session_peers.get((ws, sid), {}).get(peer) or {}

    def _h_messages_add(self, request: HonchoRequest, ws: str, sid: str) -> tuple[int, Any]:
        self._session(ws, sid)
        created = []
        for item in (request.body or {}).get("messages") or []:
            self._ensure_peer(ws, item["peer_id"])
            self.state.session_peers.setdefault((ws, sid), {}).setdefault(item["peer_id"], {"observe_me": None, "observe_others": None})
            message = {
                "id": uuid.uuid4().hex[:21], "content": item["content"], "peer_id": item["peer_id"], "session_id": sid,
                "metadata": item.get("metadata") or {}, "created_at": item.get("created_at") or _now(),
                "workspace_id": ws, "token_count": max(1, len(item["content"]) // 4),
            }
            self.state.messages.append(message)
            created.append(message)
        return 201, created

    def _h_messages_list(self, request: HonchoRequest, ws: str, sid: str) -> tuple[int, Any]:
        self._session(ws, sid)
        filters = (request.body or {}).get("filters")
        return 200, _page([m for m in self.state.session_messages(ws, sid) if _matches(m, filters)], request.query)

    def _h_session_context(self, request: HonchoRequest, ws: str, sid: str) -> tuple[int, Any]:
        self._session(ws, sid)
        messages = self.state.session_messages(ws, sid)
        if request.query.get("tokens"):
            budget, kept = int(request.query["tokens"]), []
            for message in reversed(messages):
                budget -= message["token_count"]
                if budget < 0:
                    break
                kept.insert(0, message)
            messages = kept
        summary = self.state.summaries.get((ws, sid)) if request.query.get("summary", "true") == "true" else None
        target, perspective = request.query.get("peer_target"), request.query.get("peer_perspective")
        return 200, {
            "id": sid, "messages": messages,
            "summary": {"content": summary, "message_id": messages[-1]["id"] if messages else "0", "summary_type": "short", "created_at": _now(), "token_count": len(summary) // 4} if summary else None,
            "peer_representation": self._representation(ws, perspective or target, target if perspective else None) or None if target else None,
            "peer_card": self.state.cards.get((ws, perspective or target, target)) if target else None,
        }

    def _h_session_delete(self, request: HonchoRequest, ws: str, sid: str) -> tuple[int, Any]:
        self._session(ws, sid)
        del self.state.sessions[(ws, sid)]
        self.state.messages = [m for m in self.state.messages if not (m["workspace_id"] == ws and m["session_id"] == sid)]
        return 202, {"message": "Session deleted"}

    def _h_conclusions_create(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        self._workspace(ws)
        items = (request.body or {}).get("conclusions") or []
        for item in items:
            if not str(item.get("content", "")).strip():
                raise ApiError(422, "conclusion content must not be empty")
        created = [self.add_conclusion(ws, i["observer_id"], i["observed_id"], i["content"], i.get("session_id")) for i in items]
        return 201, [{k: v for k, v in c.items() if k != "workspace_id"} for c in created]

    def _matching(self, ws: str, filters: dict[str, Any] | None) -> list[dict[str, Any]]:
        filters = filters or {}
        return [
            {k: v for k, v in c.items() if k != "workspace_id"} for c in self.state.conclusions
            if c["workspace_id"] == ws and all(c.get(k) == v for k, v in filters.items() if k in ("observer_id", "observed_id", "session_id", "level"))
        ]

    def _h_conclusions_list(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        self._workspace(ws)
        return 200, _page(self._matching(ws, (request.body or {}).get("filters")), request.query)

    def _h_conclusions_query(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        self._workspace(ws)
        body = request.body or {}
        wanted = _words(str(body.get("query", "")))
        found = [c for c in self._matching(ws, body.get("filters")) if _words(c["content"]) & wanted]
        return 200, found[: int(body.get("top_k") or 10)]

    def _h_conclusions_delete(self, request: HonchoRequest, ws: str, cid: str) -> tuple[int, Any]:
        self._workspace(ws)
        before = len(self.state.conclusions)
        self.state.conclusions = [c for c in self.state.conclusions if not (c["workspace_id"] == ws and c["id"] == cid)]
        if len(self.state.conclusions) == before:
            raise ApiError(404, f"Conclusion {cid} not found")
        return 200, None

    def _h_queue_status(self, request: HonchoRequest, ws: str) -> tuple[int, Any]:
        return 200, {"total_work_units": 0, "completed_work_units": 0, "in_progress_work_units": 0, "pending_work_units": 0, "sessions": {}}
