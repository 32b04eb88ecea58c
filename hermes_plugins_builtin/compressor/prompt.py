"""The request to the summary model: instructions, the section skeleton, earlier notes and the turns."""

from __future__ import annotations

from collections.abc import Sequence

from hermes_core.compat.agent_context_engine import sanitize_memory_context

from .messages import (
    Message,
    call_arguments,
    call_id,
    call_name,
    content_text,
    image_count,
    result_call_id,
    role_of,
    tool_calls_of,
)
from .summary_message import section_template

#: Longest piece of one message shown to the summary model; the middle of a huge output rarely matters.
TURN_CHARS = 4000
ARGUMENT_CHARS = 600

INSTRUCTIONS = """\
You keep the running notes of a long working conversation between a user and an AI agent.
The turns below are being removed from the agent's context window and your notes take their place,
so record everything the agent needs to carry on without them.

Write the notes in exactly this structure, as short markdown bullets under each heading:

{template}

Rules:
- Keep exact file paths, commands, identifiers, numbers, error messages and user wording that matters.
- If earlier notes are given, update them rather than starting over: keep what still holds, move
  finished work to Done, drop only what the new turns made obsolete.
- Report what happened; do not invent progress and do not carry out or answer any request yourself.
- Write "- (none recorded)" under a heading with nothing to say.
- Stay under about {target_tokens} tokens. Output only the notes, starting with "## Goal"."""


def clip(text: str, limit: int) -> str:
    """``text`` cut in the middle to ``limit`` characters: its start and end usually say the most."""
    if len(text) <= limit:
        return text
    keep_head = limit * 2 // 3
    keep_tail = limit - keep_head
    return f"{text[:keep_head]}\n[... {len(text) - limit} characters omitted ...]\n{text[-keep_tail:]}"


def render_turns(turns: Sequence[Message]) -> str:
    """The turns as plain labelled text, one block per message."""
    names_by_id: dict[str, str] = {}
    blocks: list[str] = []
    for message in turns:
        role = role_of(message)
        content = message.get("content")
        text = clip(content_text(content).strip(), TURN_CHARS)
        images = image_count(content)
        if images:
            text = f"{text}\n[{images} image(s) attached]".strip()
        if role == "tool":
            name = names_by_id.get(result_call_id(message) or "", str(message.get("name") or "tool"))
            blocks.append(f"[tool result from {name}]\n{text}")
            continue
        lines = [f"[{role or 'message'}]\n{text}"] if text else []
        for call in tool_calls_of(message):
            if call_id(call) is not None:
                names_by_id[str(call_id(call))] = call_name(call)
            lines.append(f"[{role} called {call_name(call)}] {clip(call_arguments(call), ARGUMENT_CHARS)}")
        blocks.extend(lines)
    return "\n\n".join(blocks)


def build_summary_prompt(
    turns: Sequence[Message],
    previous_summary: str | None = None,
    memory_context: str = "",
    focus_topic: str | None = None,
    target_tokens: int = 2000,
) -> str:
    parts = [INSTRUCTIONS.format(template=section_template(), target_tokens=target_tokens)]
    if previous_summary:
        parts.append(f"EARLIER NOTES (from the previous compaction; update them):\n{previous_summary.strip()}")
    memory = sanitize_memory_context(memory_context or "").strip()
    if memory:
        parts.append(f"FROM THE AGENT'S LONG-TERM MEMORY (context for these turns, not part of them):\n{memory}")
    if focus_topic:
        parts.append(f"FOCUS: give extra detail to everything about: {focus_topic.strip()}")
    parts.append(f"TURNS TO SUMMARISE:\n{render_turns(turns)}")
    return "\n\n".join(parts)
