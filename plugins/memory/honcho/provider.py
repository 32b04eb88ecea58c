"""HonchoMemoryProvider: hermes' MemoryProvider over the honcho-ai SDK.

Nothing here imports the SDK at module level: listing plugins and ``hermes --help`` never pay for
it, and a missing SDK is reported by ``is_available``/``unavailable_reason`` with the install command.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hermes_core.memory.fence import sanitize_context
from hermes_core.memory.provider import MemoryProvider, RecallStatus

from . import portability, settings, status
from .client import INSTALL_HINT, HonchoBackend, HonchoCallError, sdk_installed
from .config import HonchoConfig, HonchoConfigError, load_config, sanitize_id
from .connection import RECONNECT_BACKOFF_S, HonchoConnection
from .held import PART_KEY, TURN_KEY, HeldTurns, new_turn_id
from .prefetch import Prefetcher
from .sessions import SessionName, resolve_session_name, user_peer_id
from .tools import TOOL_SCHEMAS, HonchoTools, ToolContext
from .writer import DEFAULT_RETRY_DELAYS, FailureJournal, MessageWriter, PendingMessage, chunk_message, iso_time

logger = logging.getLogger("hermes.plugins.honcho")
__all__ = ["HonchoMemoryProvider", "RECONNECT_BACKOFF_S"]


class HonchoMemoryProvider(MemoryProvider):
    """Cross-session user modelling by Honcho: recalled context, dialectic reasoning, peer tools."""

    def __init__(self, *, env: Mapping[str, str] | None = None, user_home: Path | None = None, retry_delays: tuple[float, ...] = DEFAULT_RETRY_DELAYS) -> None:
        self._env = env
        self._user_home = user_home
        self._retry_delays = retry_delays
        self._hermes_home: Path | None = None
        self._config: HonchoConfig | None = None
        self._active = False
        #: Peers, Honcho sessions and requests; a new one each time a session starts.
        self._link: HonchoConnection | None = None
        self._writer: MessageWriter | None = None
        self._prefetcher: Prefetcher | None = None
        self._journal: FailureJournal | None = None
        #: Conclusions (mirrored memory entries) Honcho refused, and the failures flush_writes() already reported.
        self._failed_conclusions = 0
        self._failures_reported = 0
        #: What each Honcho session already holds, learnt when a write that may have landed is sent.
        self.held: HeldTurns | None = None
        #: Sends writes a previous session could not deliver; started by initialize().
        self.replay_thread: threading.Thread | None = None
        #: The latest background fetch for the next turn (benchmarks wait on it to model a turn's length).
        self.prefetch_thread: threading.Thread | None = None
        self._header = ""
        self._turn = 0
        self._turn_announced = False
        self._last_recall = ""
        self.session_id = ""
        self.session_name = SessionName("", "")
        self.user_peer = self.ai_peer = ""
        self._context: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return "honcho"

    # -- configuration --

    @property
    def hermes_home(self) -> Path:
        if self._hermes_home is None:
            from hermes_core.config import get_hermes_home

            return get_hermes_home(self._env)
        return self._hermes_home

    def config(self, *, reload: bool = False) -> HonchoConfig:
        """The resolved settings; raises :class:`HonchoConfigError` for a bad honcho.json."""
        if self._config is None or reload:
            self._config = load_config(self.hermes_home, self._env, profile=self._context.get("profile"), user_home=self._user_home)
        return self._config

    def unavailable_reason(self) -> str:
        try:
            config = self.config(reload=True)
        except HonchoConfigError as exc:
            return str(exc)
        if not config.enabled:
            if config.sources["enabled"].startswith("auto"):
                return "Honcho is not configured: no apiKey or baseUrl -> run 'hermes honcho setup' (or set HONCHO_API_KEY)"
            return f"Honcho is disabled for host '{config.host}' (enabled: false) -> run 'hermes honcho enable'"
        if not sdk_installed():
            return INSTALL_HINT
        if not config.api_key and not config.is_local:
            where = config.baseUrl or "Honcho cloud"
            return f"{where} needs an API key -> set apiKey in honcho.json or HONCHO_API_KEY (hermes honcho setup)"
        return ""

    def is_available(self) -> bool:
        return not self.unavailable_reason()

    def journal(self) -> FailureJournal:
        path = self.hermes_home / "honcho" / "failed_writes.jsonl"
        if self._journal is None or self._journal.path != path:
            self._journal = FailureJournal(path)
        return self._journal

    # -- lifecycle --

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self._start(session_id, kwargs, inspecting=False)

    def initialize_for_inspection(self, session_id: str, **kwargs: Any) -> None:
        """Ready for status and tools, without resending journalled writes in the background."""
        self._start(session_id, kwargs, inspecting=True)

    def _start(self, session_id: str, kwargs: dict[str, Any], *, inspecting: bool) -> None:
        self.shutdown()
        if kwargs.get("hermes_home"):
            self._hermes_home = Path(kwargs["hermes_home"])
        self._context = {k: kwargs.get(k) for k in ("platform", "agent_context", "cwd", "title", "gateway_session_key", "user_id", "profile")}
        self.session_id = session_id
        self._turn, self._turn_announced = 0, False
        self._last_recall = ""  # the indicator speaks of this session's recall only
        reason = self.unavailable_reason()
        if reason:
            logger.info("honcho: not active: %s", reason)
            self._active = False
            return
        config = self.config()
        for warning in config.warnings:
            logger.warning("honcho: %s", warning)
        self.user_peer = user_peer_id(config, str(kwargs.get("user_id") or ""))
        self.ai_peer = sanitize_id(config.aiPeer)
        self._link = HonchoConnection(HonchoBackend(config), self.config, self.user_peer, self.ai_peer)
        self.held = self._link.held
        self.session_name = self._resolve_session_name()
        self._writer = MessageWriter(self._send, mode=config.writeFrequency, journal=self.journal(), retry_delays=self._retry_delays)
        self._failed_conclusions = self._failures_reported = 0
        self._prefetcher = Prefetcher(config, self._fetch_base, self._ask)
        self._header = status.mode_header(config, self.ai_peer, self.user_peer)  # frozen for the session: the prompt prefix cache holds
        self._active = True
        if inspecting or self._context.get("agent_context") not in (None, "primary"):
            return
        # the first turn's context needs no user message (the cold prompt): fetch it while the user types
        self.prefetch_thread = self._prefetcher.prepare_in_background(1, "")
        if self.journal().entries():
            self.replay_thread = threading.Thread(target=self.journal().replay, args=(self._send,), name="honcho-replay", daemon=True)
            self.replay_thread.start()

    def _resolve_session_name(self) -> SessionName:
        ctx = self._context
        cwd = Path(ctx["cwd"]) if ctx.get("cwd") else None
        gateway = str(ctx.get("gateway_session_key") or "") if ctx.get("platform") not in (None, "cli") else ""
        return resolve_session_name(
            self.config(), cwd=cwd, session_id=self.session_id, title=str(ctx.get("title") or ""), gateway_key=gateway, user_peer=self.user_peer
        )

    def system_prompt_block(self) -> str:
        return self._header if self._active else ""

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        self._turn = turn_number
        self._turn_announced = True

    def on_session_title(self, title: str) -> None:
        """``/title``: later messages go to the session named after it (unless the manual map names one)."""
        self._drain()
        self._context["title"] = title
        if self._active:
            self.session_name = self._resolve_session_name()

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reset: bool = False, rewound: bool = False, **kwargs: Any) -> None:
        if not self._active:
            return
        self._drain()
        self.session_id = new_session_id
        if "title" in kwargs:
            self._context["title"] = kwargs["title"]
        self.session_name = self._resolve_session_name()
        if reset and self._prefetcher is not None:
            self._prefetcher.reset()
            self._turn, self._last_recall = 0, ""

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        self._drain()

    def _drain_timeout(self) -> float:
        return float(self._config.timeout if self._config is not None else 8) * 3

    def _drain(self) -> None:
        if self._writer is not None:
            self._writer.drain(self._drain_timeout())

    def shutdown(self) -> None:
        if self._writer is not None:
            self._writer.close(self._drain_timeout())
            self._writer = None
        # a background fetch or resend still in an HTTP call when the interpreter exits can abort it
        # (SIGABRT while the SDK's client is torn down): wait for them, as long as one call may take
        for thread in (self.prefetch_thread, self.replay_thread):
            if thread is not None and thread is not threading.current_thread():
                thread.join(self._drain_timeout())
        self._active = False

    # -- talking to Honcho --

    def _connected(self, session_name: str | None = None) -> tuple[Any, Any, Any]:
        """``(user peer, ai peer, session)`` of this session (or of the Honcho session named)."""
        assert self._link is not None
        return self._link.connected(session_name or self.session_name.name)

    def _send(self, messages: list[PendingMessage]) -> None:
        assert self._link is not None
        self._link.send(messages)

    def _fetch_base(self) -> str:
        assert self._link is not None
        return self._link.fetch_base(self.session_name.name)

    def _ask(self, query: str, level: str) -> str:
        assert self._link is not None
        return self._link.ask(self.session_name.name, query, level)

    # -- per turn --

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        if not self._active or self._prefetcher is None:
            return ""
        if not self._turn_announced:  # a host that does not call on_turn_start: each prefetch is a turn
            self._turn += 1
        self._turn_announced = False
        self._last_recall = self._prefetcher.for_turn(max(self._turn, 1), sanitize_context(query or ""))
        return self._last_recall

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        if self._active and self._prefetcher is not None:
            started = self._prefetcher.prepare_in_background(max(self._turn, 1) + 1, sanitize_context(query or ""))
            self.prefetch_thread = started or self.prefetch_thread

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
        timestamp: float | str | None = None,
        source: str = "",
    ) -> None:
        """Queue the turn as ``writeFrequency`` says. ``timestamp``/``source`` come with replayed history."""
        config = self._config
        if not self._active or self._writer is None or config is None or not config.saveMessages:
            return
        if self._context.get("agent_context") not in (None, "primary"):
            return  # sub-agents, cron and flush runs are not the user's conversation
        metadata = {
            "source": "hermes", "hermes_session_id": session_id or self.session_id, TURN_KEY: source or new_turn_id(),
            **({"hermes_source": source} if source else {}),
        }
        name = self._session_name_for(session_id)
        said = iso_time(timestamp)
        pending: list[PendingMessage] = []
        for peer, text in ((self.user_peer, user_content), (self.ai_peer, assistant_content)):
            text = sanitize_context(text or "").strip()  # a leaked <memory-context> block is never stored
            for piece in chunk_message(text, config.messageMaxChars) if text else []:
                # a turn with a source may be a replay of one Honcho holds already: it is checked before sending
                pending.append(PendingMessage(name, peer, piece, {**metadata, PART_KEY: len(pending)}, said, may_be_stored=bool(source)))
        self._writer.add_turn(pending)

    def _session_name_for(self, session_id: str) -> str:
        """The Honcho session of a turn of ``session_id`` (another hermes session only matters per-session)."""
        if not session_id or session_id == self.session_id or self.config().sessionStrategy != "per-session":
            return self.session_name.name
        if self.session_name.rule != "per-session":  # a map, a title or a gateway key decided: it still holds
            return self.session_name.name
        prefix = f"{self.user_peer}-" if self.config().sessionPeerPrefix else ""
        return sanitize_id(prefix + session_id)

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None) -> None:
        """A fact added to the built-in memory becomes a Honcho conclusion (USER.md: about the user,
        MEMORY.md: the AI's own), in the background; replacements and removals stay local."""
        text = sanitize_context(content or "").strip()
        if not self._active or self._writer is None or action != "add" or not text:
            return

        def conclude() -> None:
            try:
                _, ai, _ = self._connected()
                assert self._link is not None
                view = ai.conclusions_of(self.user_peer) if target == "user" else ai.conclusions
                self._link.backend.call(view.create, [{"content": text[:65535], "session_id": self.session_name.name}])
            except HonchoCallError as exc:
                self._failed_conclusions += 1  # runs on the writer thread only
                store = {"memory": "MEMORY.md", "user": "USER.md"}.get(target, target)
                logger.warning("honcho: the new %s entry was not mirrored as a conclusion: %s", store, exc)

        self._writer.submit(conclude)

    def recall_status(self) -> RecallStatus | None:
        if not self._last_recall:
            return None
        return RecallStatus("Honcho", self._last_recall.count("\n## ") + 1)

    # -- tools --

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        if self.unavailable_reason():  # reads the config again: no tools offered that could only fail
            return []
        return [] if self.config().recallMode == "context" else [dict(schema) for schema in TOOL_SCHEMAS]

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        import json

        if not self._active:
            return json.dumps({"error": f"Honcho is not active: {self.unavailable_reason() or 'initialize() was not called'}"})
        try:
            _, _, session = self._connected()
        except HonchoCallError as exc:
            return json.dumps({"error": str(exc)})
        assert self._link is not None
        context = ToolContext(self._link.backend, self.config(), self.user_peer, self.ai_peer, session, self.session_name.name)
        return HonchoTools(context).handle(tool_name, args)

    # -- setup and status --

    def get_config_schema(self) -> list[dict[str, Any]]:
        try:
            return settings.config_schema(self.config(reload=True))
        except HonchoConfigError:
            return settings.CONFIG_SCHEMA

    def post_setup(self, hermes_home: str, config: dict[str, Any]) -> None:
        """``hermes memory setup honcho`` on a terminal: the same wizard as ``hermes honcho setup``."""
        from .cli import run_setup

        path, _ = run_setup(Path(hermes_home), {}, None, interactive=True)
        print(f"Honcho settings written to {path}")

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        settings.save_settings(Path(hermes_home), values, env=self._env, user_home=self._user_home)

    def status_details(self) -> dict[str, Any]:
        """Lines for ``hermes memory status``: where memory goes and how it is written."""
        return status.details(self)

    def check_connection(self) -> str:
        """One request to Honcho (``hermes memory status``): ``""`` when it answers, else the cause and fix."""
        if self.unavailable_reason():
            return ""  # not configured: status says so already
        result = status.check_connection(self.config())
        return "" if result["ok"] else str(result["error"])

    def problems(self) -> list[str]:
        """Writes that failed for good (kept for the next session) and config problems, for ``hermes memory status``."""
        return status.problems(self)

    def flush_writes(self, timeout: float | None = None) -> bool:
        """``True`` once every write handed over so far reached Honcho; ``False`` on timeout, or when a write
        since the last call failed for good (its messages wait in the failure journal, not in Honcho)."""
        if self._writer is None:
            return True
        drained = self._writer.drain(timeout)
        failures = self._writer.failed_batches + self._failed_conclusions
        delivered = failures == self._failures_reported
        self._failures_reported = failures
        return drained and delivered

    def export_memories(self) -> list[dict[str, Any]]:
        """Both peers' conclusions (or their representation when there are none) as portable records."""
        self._require_active()
        user, ai, _ = self._connected()
        assert self._link is not None
        return portability.export_records(self._link.backend, self.config(), user, ai)

    def import_memories(self, records: Any) -> int:
        """Records (dicts or record objects with ``text`` and ``peer``) saved as conclusions; returns how many were new."""
        self._require_active()
        _, ai, _ = self._connected()
        assert self._link is not None
        return portability.import_records(self._link.backend, ai, self.user_peer, records, session_name=self.session_name.name)

    def _require_active(self) -> None:
        if not self._active:
            self.initialize(self.session_id or f"hermes-{os.getpid()}", hermes_home=str(self.hermes_home), platform="cli", agent_context="primary")
        if not self._active:
            raise HonchoCallError(f"Honcho is not available: {self.unavailable_reason()}", retryable=False)
