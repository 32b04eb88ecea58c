"""Mem0MemoryProvider: recall before a turn, background writes after it, three tools, and status.

Threads: one ordered worker opens the backend and makes every write (turns, mirrored built-in
memory edits, retries of queued writes), so writes land in the order they happened; one prefetch
thread runs the search for the next turn. The turn itself only reads what those threads left.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_core.memory.manager import OrderedWorker
from hermes_core.memory.provider import MemoryProvider, RecallStatus

from . import portable, status, tools
from .access import BackendAccess
from .backend import Backend, INSTALL_HINT, mem0_installed
from .recall import Recall
from .resilience import Outbox
from .writes import WriteQueue
from .settings import Mem0Settings, SettingsError, config_schema, load_settings, save_settings

logger = logging.getLogger("hermes.plugins.memory.mem0")

#: Longest query sent to the embedder; longer prompts are cut (their start carries the question).
MAX_QUERY_CHARS = 2000
#: Seconds the first turn waits for mem0 to open (import + store) before searching; with the default
#: prefetch_timeout it stays under the memory manager's 8 s bound for the whole prefetch.
OPEN_TIMEOUT = 4.5
#: Seconds ``on_session_end``/``shutdown`` wait for queued writes.
DRAIN_TIMEOUT = 10.0


def turn_key(session_id: str, position: int, turn: list[dict[str, str]]) -> str:
    """A stable name for a turn without a ``source``: its session, its place and its text."""
    digest = hashlib.sha256("\0".join([session_id, str(position)] + [m["content"] for m in turn]).encode()).hexdigest()[:24]
    return f"turn:{digest}"


class Mem0MemoryProvider(MemoryProvider):
    """Mem0 memory, local (embedded ``mem0.Memory``) or platform (``MemoryClient``)."""

    def __init__(self) -> None:
        self.settings: Mem0Settings | None = None
        self._home: Path | None = None
        self._session_id = ""
        self._writes = True
        self._worker: OrderedWorker | None = None
        #: The backend and the circuit breaker every call goes through.
        self._access = BackendAccess(lambda: self._worker is not None)
        self._outbox: Outbox | None = None
        self._queue: WriteQueue | None = None
        #: Writes handed to the worker that it has not started, by submission number.
        self._unmade: dict[int, dict[str, Any]] = {}
        self._numbers = itertools.count()
        self._lock = threading.Lock()
        self._recall: Recall | None = None

    # -- identity and availability --

    @property
    def name(self) -> str:
        return "mem0"

    def _settings_for_check(self) -> Mem0Settings:
        from hermes_core.config import get_hermes_home

        return self.settings or load_settings(self._home or get_hermes_home())

    def is_available(self) -> bool:
        return not self.unavailable_reason()

    def unavailable_reason(self) -> str:
        if not mem0_installed():
            return INSTALL_HINT
        try:
            settings = self._settings_for_check()
        except SettingsError as exc:
            return str(exc)
        if settings.mode == "platform":
            return "" if settings.api_key else "memory.mem0.mode is platform but MEM0_API_KEY is not set -> 'hermes memory setup mem0'"
        if settings.llm is None and "llm" not in settings.native:
            return "local mode needs a model: configure the chat model (model.name, model.base_url) or memory.mem0.llm.model"
        if settings.embedder is None and "embedder" not in settings.native:
            return "local mode needs an embedding endpoint: set memory.mem0.embedder.base_url (or model.base_url)"
        return ""

    # -- lifecycle --

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self._setup(session_id, kwargs)
        assert self.settings is not None
        for note in self.settings.notes:
            logger.warning("mem0: %s", note)
        if self._worker is None:  # a second initialize (resume) keeps the worker and its queue
            self._worker = OrderedWorker("mem0-writes")
        self._submit(self._open_and_replay)

    def initialize_for_inspection(self, session_id: str, **kwargs: Any) -> None:
        self._setup(session_id, kwargs)

    def _setup(self, session_id: str, kwargs: dict[str, Any]) -> None:
        from hermes_core.config import get_hermes_home

        self._home = Path(kwargs.get("hermes_home") or get_hermes_home())
        self.settings = load_settings(self._home, platform=str(kwargs.get("platform") or "cli"), user_id=kwargs.get("user_id") or None)
        self._session_id = session_id
        # Sub-agents, cron and flush runs read memory but do not write it (Hermes Agent's rule).
        self._writes = str(kwargs.get("agent_context") or "primary") == "primary"
        self._access.configure(self.settings)
        self._outbox = Outbox(self.settings.data_dir, self.settings.max_attempts)
        self._queue = WriteQueue(self._outbox, self.attempt, self._access.breaker.allows)
        if self._recall is None:
            self._recall = Recall(self._search, self._access.opened, OPEN_TIMEOUT, self.settings.prefetch_timeout)

    def _open(self) -> Backend | None:
        return self._access.open()

    def _open_and_replay(self) -> None:
        if self._open() is not None and self._writes and self._queue is not None:
            self._queue.replay()

    def shutdown(self) -> None:
        if not self.flush(DRAIN_TIMEOUT):
            # Writes the worker has not started would die with the process: they wait in the outbox instead.
            with self._lock:
                left = list(self._unmade.values())
                self._unmade.clear()
            for write in left:
                if self._outbox is not None:
                    self._outbox.put(write, "not made before the session ended; the next session makes it")
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        self.wait_for_prefetch(self.settings.timeout if self.settings else 5.0)
        self._access.close()

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        self.flush(DRAIN_TIMEOUT)

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False, rewound: bool = False, **kwargs: Any) -> None:
        with self._lock:
            self._session_id = new_session_id
            if reset and self._recall is not None:  # a new conversation: the last turn's search is about something else
                self._recall.forget()

    def flush(self, timeout: float = DRAIN_TIMEOUT) -> bool:
        """Wait until every write submitted so far was made or queued; ``False`` on timeout."""
        worker = self._worker
        if worker is None:
            return True
        if not worker.flush(timeout):
            pending = len(self._outbox.pending()) if self._outbox else 0
            logger.warning("mem0: writes still running after %g s; %d queued in %s are retried next time", timeout, pending, self._outbox.pending_path if self._outbox else "")
            return False
        return True

    # -- the system prompt and recall --

    def system_prompt_block(self) -> str:
        if self.settings is None:
            return ""
        where = "local store" if self.settings.mode == "local" else f"Mem0 platform ({self.settings.host})"
        return (
            f"# Mem0 memory ({where})\n"
            f"Long-term memory about user {self.settings.user_id}. Relevant memories are recalled before each turn; "
            "use mem0_search to look something up, mem0_profile for everything known, mem0_conclude to store a durable fact."
        )

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """Later turns: what the previous turn's background search found. Without one (the first turn): a bounded search."""
        return self._recall.for_turn(query) if self._recall is not None else ""

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        if self._recall is not None:
            self._recall.start(query)

    def wait_for_prefetch(self, timeout: float | None = None) -> bool:
        """Wait for the background search ``queue_prefetch`` started; ``False`` if it still runs."""
        return self._recall is None or self._recall.wait(timeout)

    def _search(self, query: str) -> list[dict[str, Any]] | None:
        assert self.settings is not None
        settings = self.settings
        return self.call("search", lambda b: b.search(query[:MAX_QUERY_CHARS], user_id=settings.user_id, top_k=settings.top_k, rerank=settings.rerank))

    def recall_status(self) -> RecallStatus | None:
        count = self._recall.last_count if self._recall is not None else 0
        return RecallStatus("Mem0", count) if count else None

    # -- guarded calls --

    def call(self, operation: str, action: Callable[[Backend], Any]) -> Any:
        """Run ``action`` on the backend through the circuit breaker; ``None`` when it did not succeed."""
        return self.attempt(operation, action)[0]

    def attempt(self, operation: str, action: Callable[[Backend], Any]) -> tuple[Any, str]:
        """``(result, "")``, or ``(None, why it was not done)``; failures are counted and recorded, never raised."""
        return self._access.attempt(operation, action)

    # -- writes --

    def _submit(self, job: Callable[[], None]) -> None:
        """Queue ``job`` on the ordered worker; its failure is logged and the worker lives on."""

        def guarded() -> None:
            try:
                job()
            except Exception:  # e.g. an unreadable queue file: the next job must still run
                logger.exception("mem0: background job failed")

        assert self._worker is not None
        self._worker.submit(guarded)

    def _submit_write(self, write: dict[str, Any]) -> None:
        if not self._writes or self.settings is None or self._queue is None:
            return
        write = dict(write, user_id=self.settings.user_id, agent_id=self.settings.agent_id)
        queue = self._queue
        if self._worker is None:  # inspection mode, or after shutdown: make it now
            queue.make(write)
            return
        number = next(self._numbers)
        with self._lock:
            self._unmade[number] = write

        def make() -> None:
            with self._lock:
                if self._unmade.pop(number, None) is None:
                    return  # shutdown already moved it to the outbox
            queue.make(write)

        self._submit(make)

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
        source: str = "",
        timestamp: float | None = None,
    ) -> None:
        """Add the turn in the background; ``source`` (or the turn's place in ``messages``) names it, so a resent turn is not stored twice."""
        turn = [{"role": r, "content": c} for r, c in (("user", user_content), ("assistant", assistant_content)) if c and c.strip()]
        if not turn or self.settings is None:
            return
        session_id = session_id or self._session_id
        metadata: dict[str, Any] = {"origin": tools.ORIGIN_TURN, "session_id": session_id}
        # Without a source or the turn's place in the conversation, two equal turns could not be told apart.
        key = source or (turn_key(session_id, len(messages), turn) if messages is not None else "")
        if key:
            metadata["turn"] = key
        if timestamp is not None:
            metadata["turn_at"] = timestamp
        self._submit_write({"op": "add", "messages": turn, "infer": self.settings.infer, "metadata": metadata})

    def flush_writes(self, timeout: float | None = None) -> bool:
        """``True`` once every write handed over so far is stored (not merely queued for a retry)."""
        if not self.flush(DRAIN_TIMEOUT if timeout is None else timeout):
            return False
        return self._outbox is None or not self._outbox.pending()

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None) -> None:
        if action not in ("add", "replace", "remove") or self.settings is None:
            return
        metadata = metadata or {}
        self._submit_write({"op": "mirror", "action": action, "target": target, "content": content, "old_entry": str(metadata.get("old_entry") or "")})

    # -- tools --

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return tools.schemas()

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        return json.dumps(tools.handle(self, tool_name, args if isinstance(args, dict) else {}), ensure_ascii=False, default=str)

    def breaker_message(self) -> str:
        return self._access.breaker_message()

    def breaker_open(self) -> bool:
        return not self._access.breaker.allows()

    def backend_error(self) -> str:
        return self._access.backend_error

    def last_error(self) -> str:
        """``operation: message`` of the latest failed call (``""`` before any)."""
        return self._access.last_error

    # -- moving memories between providers --

    def export_memories(self) -> list[dict[str, Any]]:
        """Every memory of the configured user as portable records."""
        assert self.settings is not None, "initialize first"
        backend = self._open()
        if backend is None:
            raise RuntimeError(f"mem0 cannot be opened: {self._access.backend_error}")
        return [portable.to_record(m) for m in backend.get_all(user_id=self.settings.user_id)]

    def import_memories(self, records: list[dict[str, Any]]) -> int:
        """Add each record's text verbatim (no extraction); returns how many were added."""
        assert self.settings is not None, "initialize first"
        backend = self._open()
        if backend is None:
            raise RuntimeError(f"mem0 cannot be opened: {self._access.backend_error}")
        return portable.import_records(backend, records, user_id=self.settings.user_id, agent_id=self.settings.agent_id)

    # -- setup and status --

    def get_config_schema(self) -> list[dict[str, Any]]:
        return config_schema()

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        save_settings(values, Path(hermes_home))

    def backup_paths(self) -> list[str]:
        if self.settings is None:
            return []
        return [str(self.settings.data_dir), str(self.settings.home / "mem0.json")]

    def problems(self) -> list[str]:
        """What needs the user (writes given up on, ignored settings), from local files only."""
        try:
            self._inspect()
        except SettingsError as exc:
            return [str(exc)]
        if self.settings is None or self._outbox is None:
            return []
        return status.problems(self.settings, self._outbox)

    def _inspect(self) -> None:
        """``hermes memory status``: no session set up, so read the settings for inspection (SettingsError if bad)."""
        if self.settings is None:
            from hermes_core.config import get_hermes_home

            self._setup(f"status-{uuid.uuid4()}", {"hermes_home": str(self._home or get_hermes_home()), "platform": "cli"})

    def check_connection(self) -> str:
        """Platform mode: open the client (its constructor pings the platform); ``""`` when it answers.
        Local mode keeps its store on disk: nothing remote to check."""
        self._inspect()
        if self.settings is None or self.settings.mode != "platform" or not mem0_installed():
            return ""
        return "" if self._open() is not None else self._access.backend_error

    def status_details(self) -> dict[str, Any]:
        """Mode, where memories live, how many, queued and failed writes, the last error."""
        self._inspect()
        access = self._access
        if self.settings is None or self._outbox is None or access.status is None:
            return {}

        def open_() -> tuple[Backend | None, str]:
            if not mem0_installed():
                return None, INSTALL_HINT
            return access.open(), access.backend_error

        return status.describe(self.settings, open_, self._outbox, access.status, access.record_error)
