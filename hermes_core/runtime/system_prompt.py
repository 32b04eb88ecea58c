"""L0: the system prompt, assembled once per session in a fixed order and then never changed.

Order: identity (SOUL.md or the default), the caller's system message, the frozen
MEMORY/USER blocks, external providers' blocks, context files from the working
directory, the date and time, a platform hint. Keeping it byte-identical for the
whole session is what lets the model provider serve the prefix from its cache.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from hermes_core.memory.manager import MemoryManager

DEFAULT_IDENTITY = (
    "You are Hermes, a capable and careful assistant. You remember what matters across sessions "
    "through your memory tool, you say when you are unsure, and you keep answers to the point."
)
#: Files read from the working directory, in this order, when present.
CONTEXT_FILE_NAMES: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md", ".hermes.md")
#: Longer context files are cut, keeping the head and the tail, so one huge file cannot crowd out the rest.
CONTEXT_FILE_MAX_CHARS = 20_000
PLATFORM_HINTS: dict[str, str] = {
    "cli": "You are running in a terminal. Plain text and Markdown render well; keep lines readable.",
    "telegram": "You are chatting on Telegram. Keep messages short; Markdown is limited.",
    "discord": "You are chatting on Discord. Messages over 2,000 characters are split.",
    "slack": "You are chatting on Slack. Use Slack's mrkdwn sparingly.",
    "cron": "You are running as a scheduled job; nobody is watching live, so finish the task without asking questions.",
}


@dataclass(frozen=True)
class SystemPromptInputs:
    """Everything the system prompt is made of, in order; useful to inspect and to test."""

    identity: str
    caller_system: str
    memory_blocks: tuple[str, ...]
    context_files: tuple[tuple[str, str], ...]
    now: _dt.datetime
    platform: str

    def render(self) -> str:
        sections = [self.identity.strip()]
        if self.caller_system.strip():
            sections.append(self.caller_system.strip())
        sections.extend(block.strip() for block in self.memory_blocks if block.strip())
        for name, text in self.context_files:
            sections.append(f"# Context file: {name}\n\n{text.strip()}")
        zone = self.now.tzname() or "local time"
        sections.append(f"Session started {self.now:%A, %Y-%m-%d %H:%M} ({zone}).")
        hint = PLATFORM_HINTS.get(self.platform)
        sections.append(hint if hint else f"Platform: {self.platform}.")
        return "\n\n".join(sections)


def read_identity(home: Path) -> str:
    """``$HERMES_HOME/SOUL.md`` when it has content, else the default identity."""
    try:
        text = (home / "SOUL.md").read_text(encoding="utf-8")
    except OSError:
        return DEFAULT_IDENTITY
    return text if text.strip() else DEFAULT_IDENTITY


def read_context_files(cwd: Path, names: Sequence[str] = CONTEXT_FILE_NAMES, max_chars: int = CONTEXT_FILE_MAX_CHARS) -> tuple[tuple[str, str], ...]:
    """The context files present in ``cwd`` (stray memory fences removed), cut to ``max_chars`` each."""
    from hermes_core.memory.fence import sanitize_context

    found = []
    for name in names:
        try:
            text = (cwd / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        text = sanitize_context(text)
        if not text.strip():
            continue
        if len(text) > max_chars:
            head, tail = text[: max_chars * 3 // 4], text[-max_chars // 4 :]
            text = f"{head}\n\n[... {len(text) - len(head) - len(tail)} characters of {name} omitted ...]\n\n{tail}"
        found.append((name, text))
    return tuple(found)


def collect_inputs(
    *,
    home: Path,
    memory: MemoryManager | None = None,
    caller_system: str = "",
    cwd: Path | None = None,
    platform: str = "cli",
    now: _dt.datetime | None = None,
) -> SystemPromptInputs:
    """Gather the parts of a new session's system prompt."""
    return SystemPromptInputs(
        identity=read_identity(home),
        caller_system=caller_system or "",
        memory_blocks=tuple(memory.system_prompt_blocks()) if memory is not None else (),
        context_files=read_context_files(cwd if cwd is not None else Path.cwd()),
        now=now or _dt.datetime.now().astimezone(),
        platform=platform,
    )


class SystemPromptStore(Protocol):
    """Where a session's prompt is kept so a resumed session reads it back instead of rebuilding it.

    The session store implements this; :class:`InMemoryPromptStore` serves tests and embedders
    that keep no history.
    """

    def load_system_prompt(self, session_id: str) -> str | None: ...

    def save_system_prompt(self, session_id: str, prompt: str) -> None: ...


class InMemoryPromptStore:
    """A :class:`SystemPromptStore` that lives as long as the process."""

    def __init__(self) -> None:
        self._prompts: dict[str, str] = {}

    def load_system_prompt(self, session_id: str) -> str | None:
        return self._prompts.get(session_id)

    def save_system_prompt(self, session_id: str, prompt: str) -> None:
        self._prompts[session_id] = prompt


class SessionPrompts:
    """Builds a session's prompt once, stores it, and hands the same text back for the rest of it."""

    def __init__(self, store: SystemPromptStore | None = None) -> None:
        self.store: SystemPromptStore = store if store is not None else InMemoryPromptStore()

    def for_session(self, session_id: str, build: Callable[[], str]) -> str:
        """The stored prompt of ``session_id``; built with ``build()`` and stored the first time."""
        stored = self.store.load_system_prompt(session_id)
        if stored is not None:
            return stored
        prompt = build()
        self.store.save_system_prompt(session_id, prompt)
        return prompt

    def inherit(self, parent_session_id: str, child_session_id: str) -> str | None:
        """Give a sub-agent (or background task) its parent's prompt, byte for byte."""
        prompt = self.store.load_system_prompt(parent_session_id)
        if prompt is not None:
            self.store.save_system_prompt(child_session_id, prompt)
        return prompt
