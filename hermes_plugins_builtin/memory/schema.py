"""The OpenAI function schema of the ``memory`` tool."""

from __future__ import annotations

from typing import Any

TOOL_NAME = "memory"

MEMORY_TOOL_SCHEMA: dict[str, Any] = {
    "name": TOOL_NAME,
    "description": (
        "Save durable facts to your persistent memory, which is loaded into your system prompt at the start of "
        "every later session. target 'memory' is your own notes (environment facts, project conventions, lessons "
        "learned); target 'user' is the profile of the user (preferences, communication style, habits). "
        "Keep entries short and factual. Entries have no ids: 'replace' and 'remove' find the entry by a short "
        "substring ('old_text') that only that entry contains. Space is limited; when an add does not fit, the "
        "answer lists the current entries so you can replace or remove some. Changes are saved at once and "
        "visible in this tool's answers, but your system prompt only shows them from the next session."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["add", "replace", "remove"],
                "description": "add a new entry, replace the entry containing old_text, or remove it",
            },
            "target": {
                "type": "string",
                "enum": ["memory", "user"],
                "default": "memory",
                "description": "'memory' for your notes (default), 'user' for the user profile",
            },
            "content": {
                "type": "string",
                "description": "the entry's text (add, replace)",
            },
            "old_text": {
                "type": "string",
                "description": "a substring that identifies exactly one existing entry (replace, remove)",
            },
        },
        "required": ["action"],
    },
}
