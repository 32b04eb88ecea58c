"""MemoryProvider: the contract every memory backend implements (built-in or external).

Besides the base class, this module exports the helper names newer providers
import, so a provider written against a recent host also loads here.
"""

from __future__ import annotations

import contextvars
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_core.memory.fallback_import import register_base_write

if TYPE_CHECKING:
    from hermes_core.memory.records import MemoryRecord

#: Version of the ``on_pre_compress`` checkpoint contract; providers declaring 2 accept
#: ``require_checkpoint=`` and may refuse compression until their checkpoint is safe.
PRE_COMPRESS_CHECKPOINT_API_VERSION = 2
#: The glyph status lines use to show that recalled memory was used.
INDICATOR_GLYPH = "◈"
#: Prompts too small to be worth a recall round-trip ("ok", "thanks", "/new").
TRIVIAL_PROMPT_RE = re.compile(
    r"^\s*(?:/\S*|ok(?:ay)?|k|yes|no|y|n|thanks?(?: you)?|thx|ty|sure|cool|great|nice|done|continue|go on|next|hi|hello|hey)[\s.!?]*$",
    re.IGNORECASE,
)


def is_trivial_prompt(text: str) -> bool:
    """Whether ``text`` carries nothing to recall memory for."""
    return not text or not text.strip() or bool(TRIVIAL_PROMPT_RE.match(text))


@dataclass(frozen=True)
class RecallStatus:
    """What a provider recalled for the current turn, for status displays."""

    provider_label: str
    count: int
    glyph: str = INDICATOR_GLYPH


def ctx_bound(function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap ``function`` so it runs with the context variables of the moment of wrapping."""
    context = contextvars.copy_context()

    def run(*args: Any, **kwargs: Any) -> Any:
        return context.run(function, *args, **kwargs)

    return run


def spawn_context_thread(target: Callable[..., Any], *args: Any, name: str = "memory-provider", **kwargs: Any) -> threading.Thread:
    """Start a daemon thread that sees the caller's context variables."""
    thread = threading.Thread(target=ctx_bound(target), args=args, kwargs=kwargs, name=name, daemon=True)
    thread.start()
    return thread


class MemoryProvider(ABC):
    """A memory backend. The built-in one is named ``"builtin"``; at most one external runs beside it.

    Only :attr:`name`, :meth:`is_available`, :meth:`initialize` and
    :meth:`get_tool_schemas` are required; every other method has a safe default.
    """

    #: Read by hosts that offer fail-closed checkpoints (version 2); this host calls
    #: ``on_pre_compress(messages)`` whatever the value, which every version accepts.
    pre_compress_checkpoint_api_version: int = 1

    @property
    @abstractmethod
    def name(self) -> str:
        """A short identifier, e.g. ``"honcho"``; selected by ``memory.provider``."""

    @abstractmethod
    def is_available(self) -> bool:
        """Whether credentials and dependencies are present. Must not touch the network."""

    @abstractmethod
    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Prepare for ``session_id``; kwargs include ``hermes_home`` and ``platform``."""

    @abstractmethod
    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI function schemas ``{name, description, parameters}``; ``[]`` for context only."""

    def system_prompt_block(self) -> str:
        """Static text for the system prompt; ``""`` for none."""
        return ""

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """Recalled context for ``query``; must be fast (return what a background fetch cached)."""
        return ""

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Warm the cache for the next turn, after this one finished."""

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "") -> None:
        """Persist a completed turn; must not block (``messages=`` is passed if accepted)."""

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run one of this provider's tools; return a JSON string."""
        raise NotImplementedError(f"memory provider {self.name!r} has no tool {tool_name!r}")

    def shutdown(self) -> None:
        """Flush queues and close connections."""

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        """A user turn begins."""

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """A real session boundary: exit, /reset, gateway expiry."""

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        """The agent moved to another session (resume, new, compression)."""

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        """Messages are about to be compressed; returned text joins the summary prompt."""
        return ""

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any) -> None:
        """A sub-agent of this agent finished ``task`` with ``result``."""

    def on_memory_write(self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None) -> None:
        """The built-in memory changed; mirror it if useful."""

    def on_session_title(self, title: str) -> None:
        """The user named the running session (``/title``; ``""`` when cleared); a provider that files
        memory by session name may follow it."""

    def recall_status(self) -> RecallStatus | None:
        """What the last prefetch recalled, if the provider tracks it."""
        return None

    def unavailable_reason(self) -> str:
        """Why :meth:`is_available` is false, worded for the user; ``""`` when it is available."""
        return ""

    def problems(self) -> list[str]:
        """Problems the user should act on (writes that failed for good, a bad config file), each
        naming cause and fix; ``hermes memory status`` lists them. Must not touch the network."""
        return []

    def check_connection(self) -> str:
        """One cheap round-trip to the provider's own service, bounded by its configured timeout: ``""`` when
        it answers (or there is nothing remote to check), else why not, naming cause and fix.

        ``hermes memory status`` calls it on an available provider no session initialized (then
        :meth:`shutdown`) and reports the provider unavailable when it fails; ``--offline`` skips it.
        """
        return ""

    def initialize_for_inspection(self, session_id: str, **kwargs: Any) -> None:
        """Prepare for read-only use (status, listing) without starting background work."""
        self.initialize(session_id, **kwargs)

    def status_details(self) -> dict[str, Any]:
        """Extra lines for ``hermes memory status`` (mode, store, counts, last error); ``{}`` for none.

        Called on a provider no session initialized (then :meth:`shutdown`): read what the lines
        need here. Values should be text, numbers, lists or ``None``.
        """
        return {}

    def cache_busting_signature(self) -> dict[str, Any] | None:
        """Settings whose change must invalidate agents a long-lived host has cached; ``None`` for none."""
        return None

    def backup_paths(self) -> list[str]:
        """Files under ``$HERMES_HOME`` this provider keeps, for backups."""
        return []

    def get_config_schema(self) -> list[dict[str, Any]]:
        """Fields ``{key, description, secret, required, default, choices, url, env_var}`` for setup.

        Newer optional keys: ``type`` (``str``, ``int``, ``float``, ``bool``), ``minimum``, ``maximum``.
        """
        return []

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Write non-secret settings to the provider's own file under ``hermes_home``."""

    # -- moving memories between backends (optional; see hermes_core.memory.records) --

    def export_memories(self) -> Iterable[MemoryRecord]:
        """Every memory this provider holds, as provider-agnostic records (dicts with the record fields work too).

        Optional. The default raises :class:`~hermes_core.memory.records.MemoryExportUnsupported`:
        what such a provider holds can only be rebuilt from stored conversations (a backfill).
        """
        from hermes_core.memory.records import MemoryExportUnsupported

        raise MemoryExportUnsupported(
            f"memory provider {self.name!r} cannot export its memories (it has no export_memories()); "
            "only a backfill from stored conversations can carry what it learned"
        )

    def import_memories(self, records: Sequence[MemoryRecord]) -> int:
        """Store ``records`` (checked :class:`~hermes_core.memory.records.MemoryRecord`); return how many were stored.

        Optional. The default stores each record through a path the provider already has: its
        ``*_conclude`` tool when it offers one (verbatim conclusions), otherwise ``on_memory_write("add", ...)``.
        Called after ``initialize``; ``record.source`` is stable, so a provider may skip what it already holds.
        """
        from hermes_core.memory.fallback_import import import_through_existing_paths

        return import_through_existing_paths(self, records)

    def flush_writes(self, timeout: float | None = None) -> bool:
        """Wait until every write handed over so far (``sync_turn``, ``on_memory_write``, imports) is stored.

        Returns ``False`` if ``timeout`` passed first. A provider that writes on a background thread
        should override this: a backfill records a turn as done only after this returns ``True``.
        """
        return True


# The default import_memories stores records through on_memory_write only where a provider
# overrides this do-nothing base (see hermes_core.memory.fallback_import).
register_base_write(MemoryProvider.on_memory_write)


def availability(provider: MemoryProvider) -> tuple[bool, str]:
    """``(is_available(), why not)``; a provider whose check raises counts as unavailable (its code, not ours)."""
    try:
        if provider.is_available():
            return True, ""
        return False, provider.unavailable_reason() or "is_available() returned false"
    except Exception as exc:  # noqa: BLE001 - provider code: its failure is a reason to report, not a crash
        return False, f"is_available() raised {type(exc).__name__}: {exc}"
