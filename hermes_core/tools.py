"""ToolRegistry: tools grouped in toolsets, OpenAI function-schema checks, safe dispatch."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hermes_core.async_bridge import resolve_awaitable
from hermes_core.errors import RegistrationError, ToolOverrideError

ToolHandler = Callable[..., Any]

# OpenAI's rule for function names; other providers accept the same set.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def tool_error(message: str, **extra: Any) -> str:
    """Return the JSON string a tool hands back to the model when it fails."""
    return json.dumps({"error": message, **extra}, ensure_ascii=False)


@dataclass
class ToolEntry:
    """A registered tool."""

    name: str
    toolset: str
    schema: dict[str, Any]
    handler: ToolHandler
    check_fn: Callable[[], bool] | None = None
    requires_env: list[str] = field(default_factory=list)
    is_async: bool = False
    description: str = ""
    emoji: str = ""
    #: The key of the plugin that registered it ("" for the host itself).
    plugin: str = ""

    def definition(self) -> dict[str, Any]:
        """The tool as offered to a chat-completions API."""
        return {"type": "function", "function": self.schema}


def normalize_tool_schema(schema: Any) -> Any:
    """Unwrap ``{"type": "function", "function": {...}}`` to the bare function schema."""
    if isinstance(schema, dict) and schema.get("type") == "function" and isinstance(schema.get("function"), dict):
        return schema["function"]
    return schema


def check_tool_schema(name: str, schema: Any, *, against_meta_schema: bool = True) -> list[str]:
    """Return every way ``schema`` is not a valid OpenAI function schema for tool ``name``.

    ``against_meta_schema=False`` skips checking the parameters against JSON Schema's own meta-schema.
    """
    problems: list[str] = []
    if not isinstance(name, str) or not _TOOL_NAME.match(name):
        problems.append(f"the name {name!r} must be 1-64 letters, digits, '_' or '-'")
    if not isinstance(schema, dict):
        return problems + [f"the schema must be a mapping, got {type(schema).__name__}"]
    if schema.get("name") != name:
        problems.append(f"schema 'name' is {schema.get('name')!r}, it must equal the tool name {name!r}")
    if not isinstance(schema.get("description", ""), str):
        problems.append("schema 'description' must be a string")
    parameters = schema.get("parameters")
    if parameters is None:
        return problems + ["schema has no 'parameters' (use {'type': 'object', 'properties': {}} for none)"]
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        return problems + ["schema 'parameters' must be a JSON Schema with type 'object'"]
    if not against_meta_schema:
        return problems
    from jsonschema import Draft202012Validator  # deferred: only needed when tools register
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as exc:
        location = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        problems.append(f"schema 'parameters' is not valid JSON Schema at {location}: {exc.message}")
    return problems


class ToolRegistry:
    """Every tool the agent can call, by name, grouped in toolsets."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolEntry] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def prepare(
        self,
        name: str,
        toolset: str,
        schema: Any,
        handler: ToolHandler,
        *,
        check_fn: Callable[[], bool] | None = None,
        requires_env: Iterable[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        override: bool = False,
        override_allowed: bool = False,
        plugin: str = "",
        pending: Iterable[str] = (),
        schema_checked: bool = False,
    ) -> ToolEntry:
        """Check a tool and build its entry without registering it.

        :param override_allowed: whether config lets this plugin replace another's tool.
        :param pending: names already staged by the same plugin, which also clash.
        :param schema_checked: the parameters are known to be valid JSON Schema (hermes' own tools): only the
            shape of the schema is checked here, not the parameters against the meta-schema.
        :raises RegistrationError: the schema is invalid or the name is taken.
        """
        schema = normalize_tool_schema(schema)
        problems = check_tool_schema(name, schema, against_meta_schema=not schema_checked)
        if not callable(handler):
            problems.append(f"the handler must be callable, got {type(handler).__name__}")
        if not isinstance(toolset, str) or not toolset:
            problems.append("the toolset must be a non-empty string")
        if problems:
            raise RegistrationError(f"tool {name!r} cannot be registered: " + "; ".join(problems))
        if name in set(pending):
            raise RegistrationError(f"tool {name!r} is registered twice by the same plugin")
        existing = self._tools.get(name)
        if existing is not None and existing.plugin != plugin:
            owner = f"plugin '{existing.plugin}'" if existing.plugin else "hermes"
            if not override:
                raise RegistrationError(
                    f"tool {name!r} is already registered by {owner} (toolset {existing.toolset!r}) -> "
                    "choose another name, or pass override=True to replace it"
                )
            if not override_allowed:
                raise ToolOverrideError(
                    f"tool {name!r} of {owner} may only be replaced when config allows it -> "
                    f"set plugins.entries.{plugin}.allow_tool_override: true"
                )
        return ToolEntry(
            name=name,
            toolset=toolset,
            schema=schema,
            handler=handler,
            check_fn=check_fn,
            requires_env=list(requires_env or []),
            is_async=is_async,
            description=description or schema.get("description", ""),
            emoji=emoji,
            plugin=plugin,
        )

    def add(self, entry: ToolEntry) -> ToolEntry | None:
        """Register a prepared entry; return the entry it replaced, if any."""
        previous = self._tools.get(entry.name)
        self._tools[entry.name] = entry
        return previous

    def register(self, name: str, toolset: str, schema: Any, handler: ToolHandler, **options: Any) -> ToolEntry:
        """Check and register a tool in one step (the host's own tools use this)."""
        entry = self.prepare(name, toolset, schema, handler, **options)
        self.add(entry)
        return entry

    def remove(self, name: str, *, restore: ToolEntry | None = None) -> None:
        """Unregister ``name``; put ``restore`` back if the removed tool had replaced it."""
        self._tools.pop(name, None)
        if restore is not None:
            self._tools[name] = restore

    def get_entry(self, name: str) -> ToolEntry | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def toolsets(self) -> dict[str, list[str]]:
        """Map each toolset to the sorted names of its tools."""
        grouped: dict[str, list[str]] = {}
        for entry in self._tools.values():
            grouped.setdefault(entry.toolset, []).append(entry.name)
        return {toolset: sorted(names) for toolset, names in sorted(grouped.items())}

    def is_available(self, name: str) -> bool:
        entry = self._tools.get(name)
        if entry is None:
            return False
        if entry.check_fn is None:
            return True
        try:
            return bool(entry.check_fn())
        except Exception:
            return False

    def get_definitions(self, toolsets: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Chat-completions tool definitions for available tools, optionally of some toolsets."""
        wanted = set(toolsets) if toolsets is not None else None
        return [
            entry.definition()
            for name, entry in sorted(self._tools.items())
            if (wanted is None or entry.toolset in wanted) and self.is_available(name)
        ]

    def dispatch(self, name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run tool ``name`` and return its result as a string; never raises.

        Unknown tools, unavailable tools and handler exceptions become
        :func:`tool_error` JSON so the model can read what went wrong.
        """
        entry = self._tools.get(name)
        if entry is None:
            return tool_error(f"unknown tool {name!r}")
        if not self.is_available(name):
            return tool_error(f"tool {name!r} is not available right now (its check failed)")
        try:
            result = entry.handler(args, **kwargs)
            result = resolve_awaitable(result)
        except Exception as exc:  # a tool must never crash the agent loop
            return tool_error(f"tool {name!r} failed: {type(exc).__name__}: {exc}")
        if isinstance(result, str):
            return result
        try:
            return json.dumps(result, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(result)

