"""Backfill a memory provider from what the agent already knows, resumably and without repeats.

Two kinds of items go to the provider through its normal write paths: the built-in memory's
entries (``on_memory_write("add", ...)``) and the turns of stored conversations, oldest first
(``sync_turn`` with the session's id, plus ``timestamp=``, ``source=`` and ``messages=`` for
providers whose ``sync_turn`` accepts them). A session that ended for real is closed with
``on_session_end``. Every item is confirmed in the store's checkpoint ledger only after the
provider's ``flush_writes()`` says it is stored; the one item handed over but not confirmed is
the only one a killed run sends again (with the same ``source``, so a provider can recognise it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from hermes_core.memory.calls import accepts, call_on_memory_write
from hermes_core.memory.provider import MemoryProvider
from hermes_core.memory.records import MemoryRecord
from hermes_core.memory.replay_turns import NON_CONVERSATION_SOURCES, ReplayTurn, TextFilter, copies_of, session_turns, wire_messages

DEFAULT_RETRIES = 3
DEFAULT_RETRY_DELAY = 1.0
DEFAULT_FLUSH_TIMEOUT = 60.0
#: Built-in memory files a record's target maps to, as ``on_memory_write`` names them.
ENTRY_TARGETS = {"note": "memory", "profile": "user"}

Progress = Callable[[int, int], None]
#: Prefixes of the items a backfill records: built-in entries, turns, session ends.
BACKFILL_ITEM_KINDS = ("entry", "turn", "end")


class NotDelivered(RuntimeError):
    """``flush_writes()`` did not confirm an item: it timed out, or the provider queued or dropped the write."""


class BackfillFailed(RuntimeError):
    """The provider kept failing on one item; the ledger still says where to resume."""

    def __init__(self, item: str, attempts: int, cause: BaseException, where: str) -> None:
        super().__init__(f"{where}: {type(cause).__name__}: {cause} (gave up after {attempts} attempts)")
        self.item = item
        self.attempts = attempts
        self.cause = cause
        self.where = where


@dataclass
class SessionPlan:
    """One stored session: its row and how many of its items are still to send."""

    session: dict[str, Any]
    turns: int
    pending_turns: int
    ends: bool  # ended for real (not by a compression): on_session_end is one of its items
    pending_end: bool


@dataclass
class BackfillPlan:
    """What a run would send; ``dry_run`` output and the progress total come from here."""

    provider: str
    upto_message_id: int
    entries: list[MemoryRecord]
    pending_entries: list[MemoryRecord]
    sessions: list[SessionPlan]
    done_before: int
    in_flight: str | None
    resumed: bool
    since: float | None = None
    #: Checkpoints of earlier runs are ignored and forgotten when the run starts (``--again``).
    fresh: bool = False

    @property
    def turns(self) -> int:
        return sum(s.turns for s in self.sessions)

    @property
    def pending_turns(self) -> int:
        return sum(s.pending_turns for s in self.sessions)

    @property
    def pending_items(self) -> int:
        return len(self.pending_entries) + sum(s.pending_turns + s.pending_end for s in self.sessions)

    @property
    def messages(self) -> int:
        return sum(int(s.session.get("message_count") or 0) for s in self.sessions)

    def summary(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "upto_message_id": self.upto_message_id,
            "entries": len(self.entries),
            "entries_to_send": len(self.pending_entries),
            "sessions": len(self.sessions),
            "sessions_to_send": sum(1 for s in self.sessions if s.pending_turns or s.pending_end),
            "turns": self.turns,
            "turns_to_send": self.pending_turns,
            "already_done": self.done_before,
            "resuming": self.resumed,
        }


@dataclass
class BackfillReport:
    """What a run did."""

    entries_sent: int = 0
    turns_sent: int = 0
    sessions_ended: int = 0
    resent: list[str] = field(default_factory=list)
    retries: int = 0
    seconds: float = 0.0


def entry_item(record: MemoryRecord) -> str:
    return f"entry:{record.source}"


class Backfill:
    """Replays the built-in memory and stored conversations into ``provider``.

    :param store: the session store (``replay_sessions``, ``replay_messages``,
        ``get_compression_chain``, ``max_message_id``, ``memory_backfill_ledger``).
    :param clean: applied to every message text (the CLI removes compression summaries).
    """

    def __init__(self, provider: MemoryProvider, store: Any, *, hermes_home: str, clean: TextFilter = str.strip,
                 retries: int = DEFAULT_RETRIES, retry_delay: float = DEFAULT_RETRY_DELAY,
                 flush_timeout: float = DEFAULT_FLUSH_TIMEOUT, progress: Progress | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.provider = provider
        self.store = store
        self.hermes_home = hermes_home
        self.clean = clean
        self.retries = retries
        self.retry_delay = retry_delay
        self.flush_timeout = flush_timeout
        self.progress = progress
        self.sleep = sleep  # the back-off between attempts; a parameter so its waits can be checked
        self.ledger = store.memory_backfill_ledger(provider.name)
        sync = provider.sync_turn
        self._turn_extras = {name for name in ("timestamp", "source", "messages") if accepts(sync, name)}

    # -- planning (reads only) --

    def plan(self, entries: Sequence[MemoryRecord], *, since: float | None = None, last: int | None = None, fresh: bool = False) -> BackfillPlan:
        """What is left to send; writes nothing (a new job's bound is the newest message now).

        ``fresh`` plans as if nothing had been sent before (the run then forgets the old checkpoints).
        """
        job = None if fresh else self.ledger.job()
        upto = job.upto_message_id if job is not None else self.store.max_message_id()
        # the ledger also holds what `hermes memory import` stored; only backfill items count here
        done = set() if fresh else {item for item in self.ledger.done_items() if item.split(":", 1)[0] in BACKFILL_ITEM_KINDS}
        sessions = []
        for session in self.store.replay_sessions(upto_message_id=upto, exclude_sources=NON_CONVERSATION_SOURCES, since=since, last=last):
            turns = self._turns(session, upto, since)
            ends = bool(session.get("ended_at")) and session.get("end_reason") != "compression"
            pending = sum(1 for t in turns if t.item not in done)
            sessions.append(SessionPlan(session, len(turns), pending, ends, ends and f"end:{session['id']}" not in done))
        pending_entries = [r for r in entries if entry_item(r) not in done]
        return BackfillPlan(self.provider.name, upto, list(entries), pending_entries, sessions, len(done),
                            job.in_flight if job else None, job is not None and job.finished_at is None, since, fresh)

    def _turns(self, session: dict[str, Any], upto: int, since: float | None) -> list[ReplayTurn]:
        return session_turns(session["id"], self.store.replay_messages(session["id"], upto_message_id=upto, full=False),
                             copies=self._copies(session["id"], upto), clean=self.clean, since=since)

    def _copies(self, session_id: str, upto: int) -> Any:
        chain = self.store.get_compression_chain(session_id)
        earlier = chain[: chain.index(session_id)] if session_id in chain else []
        if not earlier:
            return None
        return copies_of([self.store.replay_messages(part, upto_message_id=upto, full=False) for part in earlier], self.clean)

    # -- running --

    def run(self, plan: BackfillPlan) -> BackfillReport:
        """Send every pending item of ``plan``; raises :class:`BackfillFailed` (ledger intact) when the provider keeps failing."""
        report = BackfillReport()
        started = time.monotonic()
        if plan.fresh:
            self.ledger.forget(BACKFILL_ITEM_KINDS)
        self.ledger.start(plan.upto_message_id)
        total, sent = plan.pending_items, 0
        previous: str | None = None
        first_session = next((s.session for s in plan.sessions if s.pending_turns or s.pending_end), None)
        current_session = first_session["id"] if first_session else f"memory-backfill-{self.provider.name}"
        try:
            self.provider.initialize(current_session, hermes_home=self.hermes_home, platform=(first_session or {}).get("source") or "cli",
                                     agent_context="primary")
        except (Exception, SystemExit) as exc:  # provider code: nothing was sent yet
            raise BackfillFailed("initialize", 1, exc, "initialize (before anything was sent)") from exc
        try:
            for item, where, send in self._items(plan, current_session):
                # one commit: the previous item is stored, this one is in the provider's hands
                self.ledger.confirm([previous] if previous else [], next_item=item)
                if item == plan.in_flight:
                    report.resent.append(item)
                report.retries += self._deliver(item, where, send)
                previous = item
                sent += 1
                kind = item.split(":", 1)[0]
                report.entries_sent += kind == "entry"
                report.turns_sent += kind == "turn"
                report.sessions_ended += kind == "end"
                if self.progress is not None:
                    self.progress(sent, total)
            self.ledger.confirm([previous] if previous else [], next_item=None)
            self.ledger.finish()
        finally:
            report.seconds = time.monotonic() - started
            try:
                self.provider.shutdown()
            except Exception:  # provider code; its writes were already confirmed item by item
                pass
        return report

    def _items(self, plan: BackfillPlan, current: str) -> Iterator[tuple[str, str, Callable[[], None]]]:
        """(item, where it is for messages, how to send it) for everything still to send, in order."""
        for record in plan.pending_entries:
            target = ENTRY_TARGETS.get(record.kind, "user" if record.peer == "user" else "memory")
            metadata = {"write_origin": "backfill", "session_id": current, "platform": "cli", "source": record.source}
            yield entry_item(record), f"built-in {target} entry {record.text[:40]!r}", (
                lambda t=target, r=record, m=metadata: call_on_memory_write(self.provider, "add", t, r.text, m))
        done = self.ledger.done_items()
        for entry in plan.sessions:
            if not (entry.pending_turns or entry.pending_end):
                continue
            session = entry.session
            sid = session["id"]
            if sid != current:
                previous = current
                self._switch(sid, session, previous)
                current = sid
            # on_session_end gets the tool fields whatever sync_turn accepts, as in a live session
            full = "messages" in self._turn_extras or entry.pending_end
            messages = self.store.replay_messages(sid, upto_message_id=plan.upto_message_id, full=full)
            wire = wire_messages(messages) if "messages" in self._turn_extras else None
            for turn in session_turns(sid, messages, copies=self._copies(sid, plan.upto_message_id), clean=self.clean, since=plan.since):
                if turn.item in done:
                    continue
                yield turn.item, f"session {sid} turn {turn.message_id}", (lambda t=turn, w=wire: self._sync(t, w))
            if entry.pending_end:
                yield f"end:{sid}", f"session {sid} end", (lambda w=wire_messages(messages): self.provider.on_session_end(w))

    def _switch(self, session_id: str, session: dict[str, Any], previous: str) -> None:
        parent = session.get("parent_session_id") or ""
        try:
            if parent and parent == previous:
                self.provider.on_session_switch(session_id, parent_session_id=parent, reset=False, reason="compression")
            else:
                self.provider.on_session_switch(session_id, parent_session_id=parent, reset=True)
        except Exception:  # not a write; the turns that follow carry the session id themselves
            pass

    def _sync(self, turn: ReplayTurn, wire: list[dict[str, Any]] | None) -> None:
        kwargs: dict[str, Any] = {"session_id": turn.session_id}
        if "timestamp" in self._turn_extras:
            kwargs["timestamp"] = turn.timestamp
        if "source" in self._turn_extras:
            kwargs["source"] = turn.source
        if wire is not None:
            kwargs["messages"] = wire[: turn.end]
        self.provider.sync_turn(turn.user, turn.assistant, **kwargs)

    def _deliver(self, item: str, where: str, send: Callable[[], None]) -> int:
        """Send one item until the provider confirms it; returns the retries it took."""
        attempt = 0
        while True:
            try:
                send()
                if self.provider.flush_writes(self.flush_timeout) is False:
                    raise NotDelivered(self._undelivered_cause())
                return attempt
            except (Exception, SystemExit) as exc:  # provider code: bounded retries, then stop with the ledger intact
                if attempt >= self.retries:
                    raise BackfillFailed(item, attempt + 1, exc, where) from exc
                self.sleep(self.retry_delay * (2**attempt))
                attempt += 1

    def _undelivered_cause(self) -> str:
        """Why the provider did not confirm a write: its own latest problem (a write queued for later, a
        refused key), else the timeout; ``problems()`` must not touch the network, so asking is cheap."""
        try:
            problems = [str(p) for p in self.provider.problems() or []]
        except Exception:  # provider code; the timeout wording still holds
            problems = []
        if problems:
            return f"the provider did not confirm the write: {problems[-1]}"
        return f"flush_writes() did not confirm the write (not stored within {self.flush_timeout:g} s, or queued by the provider for later)"
