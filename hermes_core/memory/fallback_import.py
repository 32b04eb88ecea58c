"""The default ``import_memories``: store records through a path the provider already has.

Most providers written for Hermes Agent offer a tool that stores one sentence verbatim (Honcho's
``honcho_conclude``, Mem0's ``mem0_conclude``); those that do not usually mirror the built-in
memory through ``on_memory_write``. Records go through the first of these the provider has.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.memory.calls import call_on_memory_write

if TYPE_CHECKING:
    from hermes_core.memory.provider import MemoryProvider
    from hermes_core.memory.records import MemoryRecord

#: Record kinds that describe the user, and so land in the built-in's USER.md side.
USER_KINDS = frozenset({"profile", "preference"})

#: ``on_memory_write`` as the MemoryProvider base defines it (it stores nothing). provider.py
#: registers it: the provider module imports this one, so this one may not import it back.
_BASE_WRITES: set[Any] = set()


def register_base_write(function: Any) -> None:
    """Name the base class's do-nothing ``on_memory_write`` (called once, by :mod:`hermes_core.memory.provider`)."""
    _BASE_WRITES.add(function)


class ImportUnsupported(RuntimeError):
    """The provider has no import_memories(), no conclude tool and no on_memory_write()."""


def _function(schema: Any) -> dict[str, Any]:
    if isinstance(schema, dict) and isinstance(schema.get("function"), dict):
        return schema["function"]
    return schema if isinstance(schema, dict) else {}


def conclude_tool(provider: MemoryProvider) -> tuple[str, str, dict[str, Any]] | None:
    """``(tool name, text parameter, properties)`` of a ``*_conclude`` tool taking one required text, if any."""
    try:
        schemas = provider.get_tool_schemas() or []
    except Exception:  # provider code; no tool then
        return None
    for schema in schemas:
        function = _function(schema)
        name = function.get("name")
        if not isinstance(name, str) or not name.endswith("_conclude"):
            continue
        parameters = function.get("parameters") or {}
        properties = parameters.get("properties") or {}
        required = [p for p in parameters.get("required") or [] if isinstance(properties.get(p), dict) and properties[p].get("type") == "string"]
        texts = required or [p for p, spec in properties.items() if isinstance(spec, dict) and spec.get("type") == "string" and p != "peer"]
        if texts:
            return name, texts[0], properties
    return None


def _conclude(provider: MemoryProvider, tool: tuple[str, str, dict[str, Any]], record: MemoryRecord) -> None:
    name, parameter, properties = tool
    args: dict[str, Any] = {parameter: record.text}
    peer = properties.get("peer")
    if isinstance(peer, dict):
        allowed = peer.get("enum")
        wanted = "ai" if record.peer in ("ai", "assistant") else record.peer
        if not allowed or wanted in allowed:
            args["peer"] = wanted
    answer = provider.handle_tool_call(name, args)
    try:
        data = json.loads(answer) if isinstance(answer, str) else answer
    except ValueError:
        return  # not JSON: the tool ran; its answer is its own business
    if isinstance(data, dict) and data.get("error"):
        raise RuntimeError(f"{name} refused the record: {data['error']}")


def import_through_existing_paths(provider: MemoryProvider, records: Sequence[MemoryRecord]) -> int:
    """Store every record with the provider's conclude tool, else its ``on_memory_write``; return the count."""
    tool = conclude_tool(provider)
    if tool is None and type(provider).on_memory_write in _BASE_WRITES:
        raise ImportUnsupported(
            f"memory provider {provider.name!r} cannot take imported memories: it has no import_memories(), "
            "no *_conclude tool and no on_memory_write() -> ask its author to add import_memories(records)"
        )
    for record in records:
        if tool is not None:
            _conclude(provider, tool, record)
            continue
        target = "user" if record.peer == "user" or record.kind in USER_KINDS else "memory"
        metadata = {"write_origin": "import", "source": record.source, "kind": record.kind, "peer": record.peer}
        if record.created_at:
            metadata["created_at"] = record.created_at
        call_on_memory_write(provider, "add", target, record.text, metadata)
    return len(records)
