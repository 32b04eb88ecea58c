"""The three tools (names and parameters as in Hermes Agent's Mem0 plugin), mirroring, the recall block."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .backend import Backend
    from .provider import Mem0MemoryProvider

MAX_TOP_K = 50
DEFAULT_TOP_K = 10
#: ``metadata["origin"]`` of what the provider writes: where a memory came from.
ORIGIN_TURN, ORIGIN_CONCLUDE, ORIGIN_MIRROR, ORIGIN_IMPORT = "turn", "conclude", "builtin_memory", "import"
#: Longest memory shown in the recalled block.
MAX_LINE_CHARS = 400

SEARCH = {
    "name": "mem0_search",
    "description": "Search long-term memory by meaning; returns the most similar stored facts with scores. rerank=true trades speed for precision.",
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "rerank": {"type": "boolean", "description": "Rerank the results for precision (default false)."},
            "top_k": {"type": "integer", "description": f"Most results to return (default {DEFAULT_TOP_K}, at most {MAX_TOP_K})."},
        },
        "required": ["query"],
    },
}
PROFILE = {
    "name": "mem0_profile",
    "description": "Everything stored about the user: preferences, facts, project context. Useful at the start of a conversation.",
    "parameters": {"type": "object", "properties": {}, "required": []},
}
CONCLUDE = {
    "name": "mem0_conclude",
    "description": "Store one durable fact about the user exactly as written (no extraction): a preference, a correction, a decision.",
    "parameters": {
        "type": "object",
        "properties": {"conclusion": {"type": "string", "description": "The fact to store."}},
        "required": ["conclusion"],
    },
}


def schemas() -> list[dict[str, Any]]:
    return [PROFILE, SEARCH, CONCLUDE]


def _top_k(value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an infinite number (JSON's Infinity, 1e999)
        return DEFAULT_TOP_K
    return max(1, min(number, MAX_TOP_K))


def _flag(value: Any) -> bool:
    """A boolean argument; models sometimes send it as text, and ``bool("false")`` is true."""
    if isinstance(value, str):
        return value.strip().lower() in {"true", "yes", "1"}
    return value is True or (type(value) is int and value == 1)


def handle(provider: Mem0MemoryProvider, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The tool's answer as a JSON-ready dict; problems are ``{"error": ...}``, never exceptions."""
    settings = provider.settings
    if settings is None:
        return {"error": f"Mem0 is not set up: {provider.unavailable_reason() or 'the session did not initialize it'}"}
    if name not in {"mem0_search", "mem0_profile", "mem0_conclude"}:
        return {"error": f"unknown tool {name!r}; Mem0 offers mem0_search, mem0_profile and mem0_conclude"}
    if name == "mem0_search":
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return {"error": "mem0_search needs a non-empty 'query' string"}
    if name == "mem0_conclude":
        conclusion = args.get("conclusion")
        if not isinstance(conclusion, str) or not conclusion.strip():
            return {"error": "mem0_conclude needs a non-empty 'conclusion' string"}
    if provider.breaker_open():
        return {"error": provider.breaker_message()}
    user_id = settings.user_id
    if name == "mem0_search":
        results = provider.call("search", lambda b: b.search(args["query"][:2000], user_id=user_id, top_k=_top_k(args.get("top_k", DEFAULT_TOP_K)), rerank=_flag(args.get("rerank", False))))
        if results is None:
            return {"error": _failure(provider, "search")}
        items = [{"memory": r.get("memory", ""), "score": r.get("score")} for r in results if r.get("memory")]
        return {"results": items, "count": len(items)}
    if name == "mem0_profile":
        results = provider.call("profile", lambda b: b.get_all(user_id=user_id, limit=500))
        if results is None:
            return {"error": _failure(provider, "profile")}
        facts = [str(r.get("memory")) for r in results if r.get("memory")]
        return {"result": "\n".join(f"- {f}" for f in facts) if facts else "No memories stored yet.", "count": len(facts)}
    fact = args["conclusion"].strip()
    added = provider.call("conclude", lambda b: b.add([{"role": "user", "content": fact}], user_id=user_id, agent_id=settings.agent_id, infer=False, metadata={"origin": ORIGIN_CONCLUDE, "kind": "conclusion", "peer": "user"}))
    if added is None:
        return {"error": _failure(provider, "conclude") + "; the fact was not stored"}
    return {"result": "Fact stored.", "count": len(added)}


def _failure(provider: Mem0MemoryProvider, operation: str) -> str:
    if provider.backend_error():
        return f"Mem0 is unavailable: {provider.backend_error()}"
    if provider.breaker_open():
        return provider.breaker_message()
    return f"Mem0 {operation} failed: {provider.last_error()}"


def _find_mirrored(backend: Backend, text: str, target: str, user_id: str) -> str | None:
    for memory in backend.get_all(user_id=user_id):
        metadata = memory.get("metadata") or {}
        if memory.get("memory") == text and metadata.get("origin") == ORIGIN_MIRROR and metadata.get("target", target) == target:
            return str(memory["id"])
    return None


def mirror(backend: Backend, write: dict[str, Any], *, user_id: str, agent_id: str) -> None:
    """Apply a built-in memory edit (add, replace, remove) to mem0's copy of that entry."""
    action, target, content = write["action"], write["target"], write["content"]
    # USER.md is about the user; MEMORY.md holds the agent's own notes.
    metadata = {"origin": ORIGIN_MIRROR, "target": target, "kind": "profile" if target == "user" else "note", "peer": "user" if target == "user" else "assistant"}
    if action == "add":
        backend.add([{"role": "user", "content": content}], user_id=user_id, agent_id=agent_id, infer=False, metadata=metadata)
        return
    old = write.get("old_entry") or (content if action == "remove" else "")
    found = _find_mirrored(backend, old, target, user_id) if old else None
    if action == "remove":
        if found is not None:
            backend.delete(found)
        return
    if found is not None:
        backend.update(found, content)
    else:  # the old entry was written before mirroring started: keep the new text anyway
        backend.add([{"role": "user", "content": content}], user_id=user_id, agent_id=agent_id, infer=False, metadata=metadata)


def format_recall(results: list[dict[str, Any]]) -> str:
    """A compact bullet list under one heading; duplicates and empty memories left out."""
    seen: set[str] = set()
    lines = []
    for result in results:
        text = " ".join(str(result.get("memory") or "").split())
        if not text or text.lower() in seen:
            continue
        seen.add(text.lower())
        lines.append("- " + (text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 1] + "…"))
    return "## Mem0 Memory\n" + "\n".join(lines) if lines else ""
