"""The five Honcho tools: their schemas and what each does. Every tool takes ``peer`` ("user" | "ai")."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .client import HonchoBackend, HonchoCallError
from .config import REASONING_LEVELS, HonchoConfig
from .recall import cap_level, truncate_to_budget

SEARCH_DEFAULT_TOKENS = 800
SEARCH_MAX_TOKENS = 2000
CARD_TOKENS = 200
_PEER = {"type": "string", "enum": ["user", "ai"], "description": "Whose memory: 'user' (default) or 'ai' (yourself)."}

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "name": "honcho_profile",
        "description": "Key facts about the user (or yourself) from Honcho's peer card. No model call.",
        "parameters": {"type": "object", "properties": {"peer": _PEER}},
    },
    {
        "name": "honcho_search",
        "description": "Semantic search over what Honcho knows about the user (or yourself). No model call.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for."},
                "max_tokens": {"type": "integer", "description": f"Result budget in tokens (default {SEARCH_DEFAULT_TOKENS}, at most {SEARCH_MAX_TOKENS}).", "minimum": 1, "maximum": SEARCH_MAX_TOKENS},
                "peer": _PEER,
            },
            "required": ["query"],
        },
    },
    {
        "name": "honcho_context",
        "description": "The full context of this conversation in Honcho: summary, representation, card and recent messages. No model call.",
        "parameters": {"type": "object", "properties": {"peer": _PEER}},
    },
    {
        "name": "honcho_reasoning",
        "description": "Ask Honcho a question about the user (or yourself); answered by Honcho's reasoning model.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The question."},
                "reasoning_level": {"type": "string", "enum": list(REASONING_LEVELS), "description": "How hard to think (optional)."},
                "peer": _PEER,
            },
            "required": ["query"],
        },
    },
    {
        "name": "honcho_conclude",
        "description": "Save a lasting fact (conclusion) about the user (or yourself), or delete one by id.",
        "parameters": {
            "type": "object",
            "properties": {
                "conclusion": {"type": "string", "description": "The fact to remember, in one sentence."},
                "delete_id": {"type": "string", "description": "Id of a conclusion to delete instead."},
                "peer": _PEER,
            },
        },
    },
]
TOOL_NAMES = tuple(schema["name"] for schema in TOOL_SCHEMAS)


def _text(args: dict[str, Any], name: str) -> str:
    """An argument as stripped text; whitespace-only counts as empty."""
    value = args.get(name)
    return value.strip() if isinstance(value, str) else ""


def _error(message: str) -> str:
    return json.dumps({"error": message})


@dataclass
class ToolContext:
    """What the tools need from a running provider."""

    backend: HonchoBackend
    config: HonchoConfig
    user_peer: str
    ai_peer: str
    session: Any
    session_name: str


class HonchoTools:
    def __init__(self, context: ToolContext) -> None:
        self.ctx = context

    def handle(self, name: str, args: dict[str, Any]) -> str:
        args = args if isinstance(args, dict) else {}
        peer = _text(args, "peer") or "user"
        if peer not in ("user", "ai"):
            return _error(f"peer must be 'user' or 'ai', not {peer!r}")
        peer_id = self.ctx.user_peer if peer == "user" else self.ctx.ai_peer
        handler = getattr(self, "_" + name.removeprefix("honcho_"), None)
        if name not in TOOL_NAMES or handler is None:
            return _error(f"no Honcho tool {name!r}; tools: {', '.join(TOOL_NAMES)}")
        try:
            return json.dumps(handler(args, peer, peer_id), ensure_ascii=False)
        except HonchoCallError as exc:
            return _error(str(exc))

    def _peer(self, peer_id: str) -> Any:
        return self.ctx.backend.peer(peer_id)

    def _profile(self, args: dict[str, Any], peer: str, peer_id: str) -> dict[str, Any]:
        card = self.ctx.backend.call(self._peer(peer_id).get_card) or []
        return {"peer": peer, "peer_id": peer_id, "card": truncate_to_budget("\n".join(card), CARD_TOKENS).splitlines()}

    def _search(self, args: dict[str, Any], peer: str, peer_id: str) -> dict[str, Any]:
        query = _text(args, "query")
        if not query:
            return {"error": "query is empty -> say what to search for"}
        budget = args.get("max_tokens")
        budget = budget if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0 else SEARCH_DEFAULT_TOKENS
        budget = min(budget, SEARCH_MAX_TOKENS)
        found = self.ctx.backend.call(self._peer(peer_id).representation, search_query=query, search_top_k=10) or ""
        return {"peer": peer, "query": query, "max_tokens": budget, "results": truncate_to_budget(found, budget)}

    def _context(self, args: dict[str, Any], peer: str, peer_id: str) -> dict[str, Any]:
        context = self.ctx.backend.call(self.ctx.session.context, summary=True, tokens=self.ctx.config.contextTokens, peer_target=peer_id)
        return {
            "peer": peer,
            "session": self.ctx.session_name,
            "summary": context.summary.content if context.summary else None,
            "representation": context.peer_representation,
            "card": context.peer_card or [],
            "messages": [{"peer": m.peer_id, "content": m.content} for m in context.messages],
        }

    def _reasoning(self, args: dict[str, Any], peer: str, peer_id: str) -> dict[str, Any]:
        query = _text(args, "query")
        if not query:
            return {"error": "query is empty -> ask a question"}
        config = self.ctx.config
        asked = _text(args, "reasoning_level")
        level = asked if config.dialecticDynamic and asked in REASONING_LEVELS else config.dialecticReasoningLevel
        level = cap_level(level, config.reasoningLevelCap)
        answer = self.ctx.backend.call(self._peer(peer_id).chat, query[: config.dialecticMaxInputChars], reasoning_level=level)
        return {"peer": peer, "reasoning_level": level, "answer": answer if isinstance(answer, str) else ""}

    def _conclude(self, args: dict[str, Any], peer: str, peer_id: str) -> dict[str, Any]:
        conclusion, delete_id = _text(args, "conclusion"), _text(args, "delete_id")
        if not conclusion and not delete_id:
            return {"error": "give a conclusion to save or a delete_id to remove (both were empty)"}
        ai = self._peer(self.ctx.ai_peer)
        view = ai.conclusions if peer == "ai" else ai.conclusions_of(peer_id)
        if delete_id:
            self.ctx.backend.call(view.delete, delete_id)
            return {"peer": peer, "deleted": delete_id}
        created = self.ctx.backend.call(view.create, [{"content": conclusion, "session_id": self.ctx.session_name}])
        return {"peer": peer, "saved": conclusion, "id": created[0].id if created else None}
