"""MemoryManager: the built-in provider plus at most one external one, every call isolated.

Turn-time calls (``prefetch_all``) are bounded by a timeout so a slow provider
cannot stall a turn; writes (``sync_all``, ``queue_prefetch_all``) run in order on
one background worker, with ``flush`` as a barrier and a bounded drain at shutdown.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.memory.calls import accepts, call_on_memory_write
# OrderedWorker stays importable from here: providers that keep their own ordered write queue
# (Mem0's) import it from this module.
from hermes_core.memory.ordered_worker import OrderedWorker
from hermes_core.memory.provider import MemoryProvider, availability, is_trivial_prompt
from hermes_core.memory.tool_routing import BUILTIN_PROVIDER_NAME, RESERVED_TOOL_NAMES, MemoryTools

if TYPE_CHECKING:
    from hermes_core.hooks import HookDispatcher
    from hermes_core.manager import PluginManager

logger = logging.getLogger("hermes.memory")

DEFAULT_PREFETCH_TIMEOUT = 8.0
DEFAULT_DRAIN_TIMEOUT = 5.0


class MemoryManager(MemoryTools):
    """Fans memory calls out to the built-in provider and the selected external one.

    :param hooks: dispatcher used to fire the ``on_memory_write`` hook (optional).
    :param prefetch_timeout: seconds ``prefetch_all`` waits for all providers together.
    :param drain_timeout: seconds ``shutdown_all`` waits for queued writes.
    """

    def __init__(
        self,
        *,
        hooks: HookDispatcher | None = None,
        prefetch_timeout: float = DEFAULT_PREFETCH_TIMEOUT,
        drain_timeout: float = DEFAULT_DRAIN_TIMEOUT,
    ) -> None:
        self.hooks = hooks
        self.prefetch_timeout = prefetch_timeout
        self.drain_timeout = drain_timeout
        self._providers: list[MemoryProvider] = []
        self._tool_owner: dict[str, MemoryProvider] = {}
        self._tool_schemas: list[dict[str, Any]] = []
        self._worker: OrderedWorker | None = None
        self._worker_lock = threading.Lock()
        self._prefetching: set[str] = set()
        self._logged: set[tuple[str, str, str]] = set()
        self._session_id = ""
        #: Keyword arguments of the last initialize_all, for a provider switched in at a boundary.
        self._init_kwargs: dict[str, Any] = {}
        self._in_session = False
        #: (provider or None for built-in only) waiting for the running session's boundary.
        self._pending_external: tuple[MemoryProvider | None] | None = None

    # -- providers --

    @classmethod
    def from_plugins(cls, plugins: PluginManager, **options: Any) -> MemoryManager:
        """The built-in provider and the one ``memory.provider`` selects, from loaded plugins."""
        manager = cls(hooks=plugins.hooks, **options)
        builtin = plugins.memory_providers.get(BUILTIN_PROVIDER_NAME)
        if builtin is not None:
            manager.add_provider(builtin)
        selection = plugins.config.get("memory.provider", "") or ""
        if selection and selection != BUILTIN_PROVIDER_NAME:
            external = plugins.active_memory_provider()
            if external is None:
                logger.warning(
                    "memory.provider is %r but no loaded plugin provides it -> run 'hermes memory status' "
                    "to see the providers found, or 'hermes config set memory.provider \"\"' for built-in only",
                    selection,
                )
            else:
                # is_available() decides activation: a provider that lacks its settings, credentials or libraries
                # would fail at every call of the session (or, worse, half-work); the session runs on built-in
                # memory and says why, as `hermes memory status` does.
                with _home_in_effect(plugins.home):
                    available, reason = availability(external)
                if available:
                    manager.add_provider(external)
                else:
                    logger.warning(
                        "memory provider %r is selected but not available (%s); this session uses built-in memory "
                        "only -> run 'hermes memory status' for what it lacks",
                        external.name,
                        reason,
                    )
        return manager

    @property
    def providers(self) -> list[MemoryProvider]:
        return list(self._providers)

    @property
    def external(self) -> MemoryProvider | None:
        return next((p for p in self._providers if p.name != BUILTIN_PROVIDER_NAME), None)

    def add_provider(self, provider: MemoryProvider) -> bool:
        """Add a provider; the built-in always goes first, a second external one is rejected."""
        if any(p is provider for p in self._providers):
            return True
        if provider.name == BUILTIN_PROVIDER_NAME:
            if any(p.name == BUILTIN_PROVIDER_NAME for p in self._providers):
                logger.warning("a second built-in memory provider was offered and ignored")
                return False
            self._providers.insert(0, provider)
            listener = getattr(provider, "add_write_listener", None)
            if callable(listener):
                listener(self._builtin_wrote)
        else:
            current = self.external
            if current is not None:
                logger.warning(
                    "memory provider %r rejected: %r is already active and only one external memory provider "
                    "runs at a time -> choose one with memory.provider",
                    provider.name,
                    current.name,
                )
                return False
            self._providers.append(provider)
        self._rebuild_tools()
        return True

    def switch_external(self, provider: MemoryProvider | None) -> bool:
        """Make ``provider`` the external provider (``None``: built-in only) from the next session on.

        A running session keeps its provider, and the system prompt frozen with it, until its
        boundary (``on_session_end``, a reset through ``on_session_switch(reset=True)``, or the next
        ``initialize_all``); a compression is not a boundary. Returns ``True`` when the change took
        effect at once (no session running), ``False`` when it waits for the boundary.
        """
        if provider is not None and provider.name == BUILTIN_PROVIDER_NAME:
            raise ValueError("the built-in provider is always present; switch_external takes an external provider or None")
        self._pending_external = (provider,)
        if self._in_session:
            return False
        self._apply_pending_switch(None)
        return True

    def _apply_pending_switch(self, session_id: str | None, **kwargs: Any) -> None:
        """Swap the external provider: drain the old one's queued writes, shut it down, add the new one.

        With ``session_id`` the new provider is initialized for it (the session that starts at this
        boundary); without, the next ``initialize_all`` does that.
        """
        if self._pending_external is None:
            return
        (new,) = self._pending_external
        self._pending_external = None
        old = self.external
        if old is new:
            return
        if old is not None:
            if not self.flush(self.drain_timeout):
                logger.warning("memory writes to %r still queued after %g s at the provider switch; they are abandoned", old.name, self.drain_timeout)
            self._call(old, "shutdown")
            self._providers.remove(old)
        if new is not None:
            self._providers.append(new)
            if session_id is not None:
                self._call(new, "initialize", session_id, **dict(self._init_kwargs, **kwargs))
        self._rebuild_tools()
        logger.info("external memory provider is now %r", new.name if new is not None else "none (built-in only)")

    # -- isolation --

    def _call(self, provider: MemoryProvider, method: str, *args: Any, default: Any = None, **kwargs: Any) -> Any:
        try:
            return getattr(provider, method)(*args, **kwargs)
        except (Exception, SystemExit) as exc:  # a provider must never break the turn
            self._log_failure(provider, method, exc)
            return default

    def _log_failure(self, provider: MemoryProvider, method: str, exc: BaseException) -> None:
        signature = (provider.name, method, type(exc).__name__)
        message = f"memory provider {provider.name!r} failed in {method}: {type(exc).__name__}: {exc}"
        if signature in self._logged:
            logger.debug(message)
        else:
            self._logged.add(signature)
            logger.warning(message)

    # -- session lifecycle --

    def initialize_all(self, session_id: str, **kwargs: Any) -> None:
        """Call ``initialize`` on every provider; ``hermes_home`` is added when missing."""
        self._session_id = session_id
        if "hermes_home" not in kwargs:
            from hermes_core.config import get_hermes_home

            kwargs["hermes_home"] = str(get_hermes_home())
        kwargs.setdefault("platform", "cli")
        self._init_kwargs = {k: v for k, v in kwargs.items() if k != "parent_session_id"}
        self._apply_pending_switch(None)  # a new session is a boundary: it starts with the chosen provider
        self._in_session = True
        for provider in self._providers:
            self._call(provider, "initialize", session_id, **kwargs)
        self._rebuild_tools()

    def build_system_prompt(self) -> str:
        """Every provider's ``system_prompt_block()``, built-in first, joined by blank lines."""
        return "\n\n".join(self.system_prompt_blocks())

    def system_prompt_blocks(self) -> list[str]:
        blocks = []
        for provider in self._providers:
            block = self._call(provider, "system_prompt_block", default="")
            if isinstance(block, str) and block.strip():
                blocks.append(block.strip())
        return blocks

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        for provider in self._providers:
            self._call(provider, "on_turn_start", turn_number, message, **kwargs)

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        for provider in self._providers:
            self._call(provider, "on_session_end", messages)
        self._in_session = False
        self._apply_pending_switch(None)

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        self._session_id = new_session_id
        extra = dict(kwargs, parent_session_id=parent_session_id, reset=reset)
        if rewound:  # older providers do not know the flag; pass it only when it means something
            extra["rewound"] = True
        arriving = None
        if reset and self._pending_external is not None:
            # a new conversation is a boundary: the provider switched in starts with it, initialized for it
            arriving = self._pending_external[0]
            self._apply_pending_switch(new_session_id, parent_session_id=parent_session_id)
        self._in_session = True
        for provider in self._providers:
            if provider is not arriving:
                self._call(provider, "on_session_switch", new_session_id, **extra)

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        parts = [self._call(p, "on_pre_compress", messages, default="") for p in self._providers]
        return "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any) -> None:
        for provider in self._providers:
            self._call(provider, "on_delegation", task, result, child_session_id=child_session_id, **kwargs)

    def on_session_title(self, title: str) -> None:
        """The user named the running session (``/title``); ``""`` when the title was cleared.

        Turns queued before the rename are handed over first, so they are filed under the old name.
        """
        self.flush(self.drain_timeout)
        for provider in self._providers:
            if callable(getattr(provider, "on_session_title", None)):  # providers written for older hosts lack it
                self._call(provider, "on_session_title", title)

    # -- turn-time recall --

    def prefetch_all(self, query: str, *, session_id: str = "") -> str:
        """Recalled context from every provider, joined by blank lines; bounded by ``prefetch_timeout``.

        A provider still busy with an earlier prefetch is skipped rather than piled up.
        """
        if is_trivial_prompt(query):
            return ""
        session_id = session_id or self._session_id
        results: dict[str, str] = {}
        threads: list[tuple[MemoryProvider, threading.Thread]] = []
        lock = threading.Lock()
        for provider in self._providers:
            if type(provider).prefetch is MemoryProvider.prefetch:
                continue  # the default returns nothing; skip the thread
            with lock:
                if provider.name in self._prefetching:
                    logger.debug("memory provider %r is still busy with an earlier prefetch; skipped", provider.name)
                    continue
                self._prefetching.add(provider.name)

            def fetch(p: MemoryProvider = provider) -> None:
                try:
                    value = self._call(p, "prefetch", query, session_id=session_id, default="")
                    if isinstance(value, str) and value.strip():
                        with lock:
                            results[p.name] = value.strip()
                finally:
                    with lock:
                        self._prefetching.discard(p.name)

            thread = threading.Thread(target=fetch, name=f"mem-prefetch-{provider.name}", daemon=True)
            thread.start()
            threads.append((provider, thread))
        deadline = time.monotonic() + self.prefetch_timeout
        for provider, thread in threads:
            thread.join(max(deadline - time.monotonic(), 0.0))
            if thread.is_alive():
                self._log_failure(provider, "prefetch", TimeoutError(f"no answer within {self.prefetch_timeout:g} s; turn continued without it"))
        with lock:
            return "\n\n".join(results[p.name] for p, _ in threads if p.name in results)

    # -- background writes --

    def _background(self) -> OrderedWorker:
        with self._worker_lock:
            if self._worker is None:
                self._worker = OrderedWorker("mem-sync")
            return self._worker

    def sync_all(self, user_content: str, assistant_content: str, *, session_id: str = "", messages: list[dict[str, Any]] | None = None) -> None:
        """Hand the finished turn to every provider, in order, off the turn's thread."""
        session_id = session_id or self._session_id
        for provider in self._providers:
            kwargs: dict[str, Any] = {"session_id": session_id}
            if messages is not None and accepts(provider.sync_turn, "messages"):
                kwargs["messages"] = messages
            self._background().submit(lambda p=provider, kw=kwargs: self._call(p, "sync_turn", user_content, assistant_content, **kw))

    def queue_prefetch_all(self, query: str, *, session_id: str = "") -> None:
        """Let providers warm their cache for the next turn, in order, off the turn's thread."""
        session_id = session_id or self._session_id
        for provider in self._providers:
            self._background().submit(lambda p=provider: self._call(p, "queue_prefetch", query, session_id=session_id))

    def flush(self, timeout: float | None = None) -> bool:
        """Wait for every queued write; ``False`` if ``timeout`` passed first."""
        worker = self._worker
        return True if worker is None else worker.flush(timeout)

    def shutdown_all(self) -> None:
        """Drain queued writes (bounded by ``drain_timeout``), then shut providers down, last first."""
        if not self.flush(self.drain_timeout):
            logger.warning("memory writes still queued after %g s at shutdown; they are abandoned", self.drain_timeout)
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        self._in_session = False
        for provider in reversed(self._providers):
            self._call(provider, "shutdown")

    # -- writes to the built-in memory --

    def _builtin_wrote(self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None) -> None:
        self.on_memory_write(action, target, content, metadata)

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None) -> None:
        """Mirror a built-in memory write to the external provider and fire the ``on_memory_write`` hook."""
        metadata = dict(metadata or {})
        for provider in self._providers:
            if provider.name == BUILTIN_PROVIDER_NAME:
                continue
            try:
                call_on_memory_write(provider, action, target, content, metadata)
            except (Exception, SystemExit) as exc:  # a provider must never break the write
                self._log_failure(provider, "on_memory_write", exc)
        if self.hooks is not None:
            self.hooks.notify(
                "on_memory_write",
                action=action,
                target=target,
                content=content,
                session_id=metadata.get("session_id", self._session_id),
                metadata=metadata,
            )


@contextlib.contextmanager
def _home_in_effect(home: Path) -> Iterator[None]:
    """``$HERMES_HOME`` set to the plugin manager's home for a moment: a provider reads its settings from there until
    ``initialize(hermes_home=...)`` hands it the session's home, and a host may run a manager on another home."""
    saved = os.environ.get("HERMES_HOME")
    if saved is not None and Path(saved).expanduser() == Path(home):
        yield
        return
    os.environ["HERMES_HOME"] = str(home)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = saved
