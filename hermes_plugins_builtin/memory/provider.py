"""BuiltinMemoryProvider: MEMORY.md and USER.md, a snapshot frozen per session, and the ``memory`` tool."""

from __future__ import annotations

import copy
import json
import logging
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hermes_core.memory.provider import MemoryProvider
from hermes_core.memory.records import MemoryRecord

from .entries import char_count, usage_text
from .operations import TARGETS, EditError, Request, apply, parse_request, shown
from .scan_switch import meaning_status
from .schema import MEMORY_TOOL_SCHEMA, TOOL_NAME
from .snapshot import render_block
from .store import MemoryFile

logger = logging.getLogger("hermes.memory.builtin")

DEFAULT_MEMORY_CHAR_LIMIT = 2200
DEFAULT_USER_CHAR_LIMIT = 1375
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}
#: ``write_origin`` in listener metadata when the caller does not say who wrote.
DEFAULT_WRITE_ORIGIN = "assistant_tool"

#: ``fn(action, target, content, metadata)``, called after each write that changed a file.
WriteListener = Callable[[str, str, str, dict[str, Any]], None]


def _check_limit(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive number of characters, got {value!r}")
    return value


class BuiltinMemoryProvider(MemoryProvider):
    """The always-on memory: two small files under ``$HERMES_HOME/memories``, edited by one tool."""

    def __init__(
        self,
        home: Path,
        memory_char_limit: int = DEFAULT_MEMORY_CHAR_LIMIT,
        user_char_limit: int = DEFAULT_USER_CHAR_LIMIT,
    ) -> None:
        self.home = Path(home)
        self.memories_dir = self.home / "memories"
        self._limits = {
            "memory": _check_limit("memory_char_limit", memory_char_limit),
            "user": _check_limit("user_char_limit", user_char_limit),
        }
        self._files = {target: MemoryFile(self.memories_dir / FILE_NAMES[target]) for target in TARGETS}
        self._listeners: list[WriteListener] = []
        self._state_lock = threading.Lock()
        self._snapshot: dict[str, str] | None = None
        self._session_id = ""
        self._session_info: dict[str, str] = {}

    # -- identity --

    @property
    def name(self) -> str:
        return "builtin"

    def is_available(self) -> bool:
        return True

    def path(self, target: str) -> Path:
        """The file of ``target`` ("memory" or "user")."""
        return self._file(target).path

    def char_limit(self, target: str) -> int:
        """The character limit of ``target``."""
        self._file(target)
        return self._limits[target]

    def _file(self, target: str) -> MemoryFile:
        if target not in self._files:
            raise ValueError(f"unknown memory target {target!r}; use one of {', '.join(TARGETS)}")
        return self._files[target]

    # -- session and snapshot --

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Start ``session_id``: freeze the files into the prompt snapshot (once per session)."""
        with self._state_lock:
            if self._snapshot is None or session_id != self._session_id:
                self._snapshot = self._freeze()
            self._session_id = session_id
            self._session_info = {
                key: str(kwargs[key]) for key in ("platform", "agent_context", "parent_session_id") if kwargs.get(key)
            }

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        """A new conversation (or a reset) sees the files as they are now; a rewind of the same one does not."""
        with self._state_lock:
            if reset or new_session_id != self._session_id:
                self._snapshot = self._freeze()
            self._session_id = new_session_id
            if parent_session_id:
                self._session_info["parent_session_id"] = parent_session_id
            else:
                self._session_info.pop("parent_session_id", None)

    def _freeze(self) -> dict[str, str]:
        return {target: render_block(target, self._files[target].read(), self._limits[target]) for target in TARGETS}

    def frozen_snapshot(self) -> dict[str, str]:
        """Target -> its block as this session's system prompt shows it (``""`` when empty)."""
        with self._state_lock:
            if self._snapshot is None:
                self._snapshot = self._freeze()
            return dict(self._snapshot)

    def system_prompt_block(self) -> str:
        """The frozen MEMORY and USER blocks; unchanged by writes until the session changes."""
        snapshot = self.frozen_snapshot()
        return "\n\n".join(snapshot[target] for target in TARGETS if snapshot[target])

    # -- live state --

    def live_state(self, target: str) -> dict[str, Any]:
        """What is on disk now: ``{target, entries, usage, char_count, char_limit}``."""
        entries = self._file(target).read()
        return self._state(target, entries)

    def _state(self, target: str, entries: list[str]) -> dict[str, Any]:
        count, limit = char_count(entries), self._limits[target]
        return {
            "target": target,
            "entries": [shown(entry) for entry in entries],
            "usage": usage_text(count, limit),
            "char_count": count,
            "char_limit": limit,
        }

    def scanner_status(self) -> dict[str, str]:
        """How writes are scanned beyond the rules: whether the meaning stage is on, off or unavailable (and why)."""
        # The scanner is not loaded for this (compiling its patterns costs more than the whole command); once a scan
        # in this process has loaded it, its meaning module knows whether the encoder really loaded.
        meaning = sys.modules.get("hermes_plugins_builtin.memory.scanner.meaning")
        return {"meaning_stage": meaning.status() if meaning is not None else meaning_status()}

    # -- the tool --

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(MEMORY_TOOL_SCHEMA)]

    def add_write_listener(self, fn: WriteListener) -> None:
        """Call ``fn(action, target, content, metadata)`` after every write that changed a file."""
        self._listeners.append(fn)

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run the ``memory`` tool; always a JSON string, never an exception."""
        try:
            return json.dumps(self._run_tool(tool_name, args, kwargs), ensure_ascii=False)
        except Exception as exc:  # the agent's turn must survive anything that goes wrong here
            logger.exception("memory tool failed")
            return json.dumps({"success": False, "error": f"memory tool failed: {type(exc).__name__}: {exc}"})

    def _run_tool(self, tool_name: str, args: Any, call: dict[str, Any]) -> dict[str, Any]:
        if tool_name != TOOL_NAME:
            return {"success": False, "error": f"unknown tool {tool_name!r}; the built-in memory has only {TOOL_NAME!r}"}
        request: Request | None = None
        try:
            # The session's snapshot must show the files as they were before its first write.
            self.frozen_snapshot()
            request = parse_request(args, self._limits)
            file, limit = self._files[request.target], self._limits[request.target]

            def change(current: list[str]) -> tuple[list[str] | None, Any]:
                edit = apply(request, current, limit)
                return (edit.entries if edit.changed else None), edit

            edit = file.update(change)
        except EditError as error:
            return self._failure(error, request)
        state = self._state(request.target, edit.entries)
        message = edit.message
        if edit.changed:
            message += "; saved (your system prompt shows the change from the next session on)"
            self._notify(request, edit.content, {**edit.metadata, **self._write_metadata(call)})
        return {
            "success": True,
            "target": request.target,
            "entries": state["entries"],
            "usage": state["usage"],
            "entry_count": len(edit.entries),
            "message": message,
        }

    def _failure(self, error: EditError, request: Request | None) -> dict[str, Any]:
        answer: dict[str, Any] = {"success": False, "error": error.message, **error.details}
        target = request.target if request is not None else error.details.get("target")
        if target in self._files:
            answer["target"] = target
            try:
                # The model decides what to change next from what is stored now.
                state = self.live_state(target)
            except EditError:  # the file itself is what failed; the error already says so
                return answer
            answer.update(current_entries=state["entries"], usage=state["usage"])
        return answer

    def _write_metadata(self, call: dict[str, Any]) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "session_id": str(call.get("session_id") or self._session_id),
            "tool_name": TOOL_NAME,
            "write_origin": str(call.get("write_origin") or DEFAULT_WRITE_ORIGIN),
        }
        metadata["platform"] = str(call.get("platform") or self._session_info.get("platform", ""))
        if self._session_info.get("agent_context"):
            metadata["execution_context"] = self._session_info["agent_context"]
        if self._session_info.get("parent_session_id"):
            metadata["parent_session_id"] = self._session_info["parent_session_id"]
        return metadata

    def _notify(self, request: Request, content: str, metadata: dict[str, Any]) -> None:
        for listener in list(self._listeners):
            try:
                listener(request.action, request.target, content, dict(metadata))
            except Exception:  # a listener's failure is its own; the write already happened
                logger.warning("memory write listener %r failed", listener, exc_info=True)

    # -- moving memories to and from other backends --

    def export_memories(self) -> Iterator[MemoryRecord]:
        """Both files' live entries as records (see transfer.py for their kind, peer and source)."""
        from .transfer import export_records

        return export_records(self)

    def import_memories(self, records: Sequence[MemoryRecord]) -> int:
        """Add the records as entries, all or nothing per file; raises EditError when they do not fit."""
        from .transfer import import_records

        return import_records(self, records)

    def check_import(self, records: Sequence[MemoryRecord]) -> int:
        """What :meth:`import_memories` would store as new, without writing; raises the error it would raise."""
        from .transfer import check_records

        return check_records(self, records)
