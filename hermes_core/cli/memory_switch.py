"""``hermes memory switch``: move to another memory provider, optionally carrying over what the agent knows."""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager, PluginRecord
    from hermes_core.memory.provider import MemoryProvider


def add_arguments(commands: Any) -> None:
    switch = commands.add_parser(
        "switch",
        help="make NAME the memory provider; --backfill carries over the built-in memory and stored conversations",
        description="Check that NAME is installed, configured and available, set memory.provider, and with --backfill "
        "send it the built-in memory entries and the stored conversations (oldest first). Safe to interrupt: "
        "the same command again resumes and sends nothing twice.",
    )
    switch.add_argument("provider", metavar="NAME", help="plugin or provider name ('builtin' for built-in memory only)")
    switch.add_argument("--backfill", action="store_true", help="send the built-in memory and stored conversations to NAME")
    which = switch.add_mutually_exclusive_group()
    which.add_argument("--sessions", type=int, metavar="N", help="backfill only the N most recent conversations")
    which.add_argument("--since", metavar="DATE", help="backfill only turns from DATE on (2025-03-01 or 2025-03-01T14:00)")
    switch.add_argument("--again", action="store_true",
                        help="forget what earlier backfills into NAME sent and send everything again (after its storage was emptied or replaced)")
    switch.add_argument("--dry-run", action="store_true", help="say what would be sent; change nothing")
    switch.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    switch.add_argument("--json", action="store_true", help="print a JSON summary at the end")
    switch.set_defaults(func=cmd_switch)


# -- shared with export / import --


def resolve_provider(manager: PluginManager, choice: str, *, from_config: bool = False) -> tuple[PluginRecord, MemoryProvider]:
    """The external provider ``choice`` names, loaded and available; the error names the fix, nothing is changed.

    ``from_config``: ``choice`` is memory.provider, not a name the user typed; an unknown one is blamed on the config.
    """
    from hermes_core.cli.memory_common import provider_available, find_setup_target, missing_secrets, provider_records

    fix = "name one of them, or 'builtin'"
    if from_config:
        fix = (f"memory.provider in {manager.home / 'config.yaml'} names no installed provider: pick one with --provider NAME, "
               "or fix the setting with 'hermes memory setup'")
    record, provider = find_setup_target(manager, provider_records(manager), choice, fix)
    available, reason = provider_available(provider)
    if not available:
        missing = missing_secrets(manager, provider)
        extra = f"; not set: {', '.join(missing)}" if missing else ""
        # the provider's reason may carry its own fix: it joins ours after the one ' -> ', so --json's
        # cause holds every cause and its fix every fix
        cause, _, own_fix = reason.partition(" -> ")
        fixes = f"{own_fix}; or " if own_fix else ""
        raise HermesError(
            f"memory provider '{provider.name}' is not available: {cause}{extra} -> {fixes}run 'hermes memory setup {record.name}', "
            f"then 'hermes memory status'; nothing was changed"
        )
    return record, provider


def builtin_provider(manager: PluginManager) -> Any:
    from hermes_core.cli.memory_common import builtin_memory

    return builtin_memory(manager)


def open_store(manager: PluginManager) -> Any:
    from hermes_core.cli.sessions import open_session_store

    manager.load_builtins()
    store = open_session_store(manager)
    if not callable(getattr(store, "memory_backfill_ledger", None)):
        store.close()
        raise HermesError("the session store in use keeps no memory backfill checkpoints (the builtin 'state' plugin does) -> "
                          "use the builtin session store for this command")
    return store


def summary_filter(manager: PluginManager) -> Any:
    """Message text -> the text without a compression summary, by the active context engine.

    A summary condenses turns that are replayed themselves; only the engine that wrote it knows
    its shape (``ContextEngine.text_without_summary``).
    """
    engine = manager.active_context_engine()
    strip = getattr(engine, "text_without_summary", None) if engine is not None else None
    if not callable(strip):
        return str.strip

    def clean(text: str) -> str:
        try:
            return str(strip(text)).strip()
        except Exception:  # engine code: keep the text rather than lose a turn
            return text.strip()

    return clean


def parse_since(text: str) -> float:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise HermesError(f"--since {text!r} is not a date -> write it like 2025-03-01 or 2025-03-01T14:00") from None
    return moment.timestamp()  # a time without a zone is local time


def _confirm(question: str, args: argparse.Namespace) -> None:
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise HermesError("hermes memory switch --backfill sends stored conversations to the provider and cannot ask for confirmation here -> add --yes")
    if input(f"{question} [y/N] ").strip().lower() not in {"y", "yes"}:
        raise HermesError("not confirmed, so nothing was changed -> run it again and answer 'y', or add --yes")


def _check_connection(provider: MemoryProvider) -> None:
    """Refuse a provider whose service does not answer (as 'hermes memory status' reports it), before anything changes.

    Without this a backfill into an unreachable server retries every item and stops with a
    flush timeout that hides the cause.
    """
    from hermes_core.cli.memory_common import provider_connection_problem

    problem = provider_connection_problem(provider)
    if problem:
        fix = "" if "->" in problem else " -> fix the connection ('hermes memory status' checks it), then run this command again"
        raise HermesError(f"memory provider '{provider.name}' does not answer, so nothing was changed: {problem}{fix}")


# -- the command --


def cmd_switch(args: argparse.Namespace) -> int:
    from hermes_core.cli.memory_common import BUILTIN_ONLY, plugin_manager, provider_records, selection_for
    from hermes_core.config import update_user_config

    if args.sessions is not None and args.sessions < 1:
        raise HermesError(f"--sessions {args.sessions} would send nothing -> give 1 or more")
    since = parse_since(args.since) if args.since else None
    manager = plugin_manager()
    before = manager.config.get("memory.provider", "") or ""
    if args.again and not args.backfill:
        raise HermesError("--again goes with --backfill -> hermes memory switch NAME --backfill --again")
    if args.provider.lower() in BUILTIN_ONLY:
        if args.backfill:
            raise HermesError("the built-in memory is always on and already holds its entries -> name an external provider to backfill it")
        if not args.dry_run:
            update_user_config(manager.home, "memory.provider", "")
        return _report(args, {"provider": "builtin", "plugin": "", "memory.provider": "", "previous": before, "changed": not args.dry_run and before != ""})
    record, provider = resolve_provider(manager, args.provider)
    if not args.dry_run:
        _check_connection(provider)
    selection = selection_for(provider_records(manager), record)
    summary: dict[str, Any] = {"provider": provider.name, "plugin": record.key, "memory.provider": selection, "previous": before, "changed": False}
    if not args.backfill:
        if not args.dry_run:
            update_user_config(manager.home, "memory.provider", selection)
            summary["changed"] = selection != before
        return _report(args, dict(summary, dry_run=True) if args.dry_run else summary)
    # taken before planning: a plan made while another run still sends would send its items again
    lock = None if args.dry_run else _one_backfill_at_a_time(manager, provider.name)
    store = None
    try:
        planning = time.monotonic()
        backfill, plan, store = _plan(manager, provider, since, args.sessions, args.again)
        summary["backfill"] = dict(plan.summary(), plan_seconds=round(time.monotonic() - planning, 3))
        if args.dry_run:
            return _report(args, dict(summary, dry_run=True))
        _confirm(f"set memory.provider to {selection} and send {plan.pending_items} items ({len(plan.pending_entries)} memory entries, "
                 f"{plan.pending_turns} turns of {len(plan.sessions)} conversations) to {provider.name}?", args)
        update_user_config(manager.home, "memory.provider", selection)
        summary["changed"] = selection != before
        summary["backfill"].update(_run(backfill, plan, args))
    finally:
        if store is not None:
            store.close()
        if lock is not None:
            lock.release()
    return _report(args, summary)


def _one_backfill_at_a_time(manager: PluginManager, provider: str) -> Any:
    """A lock file per target provider: two backfills into one provider would send the same turns twice."""
    import re

    from filelock import FileLock, Timeout

    lock = FileLock(manager.home / f".memory-backfill-{re.sub(r'[^A-Za-z0-9_.-]', '_', provider)}.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise HermesError(
            f"another backfill into {provider} is running (lock {lock.lock_file}) -> wait for it to finish; "
            "if it was killed, the lock is free again and this command resumes it"
        ) from None
    return lock


def _plan(manager: PluginManager, provider: MemoryProvider, since: float | None, last: int | None, again: bool) -> tuple[Any, Any, Any]:
    from hermes_core.memory.backfill import Backfill
    from hermes_core.memory.records import coerce_records

    entries = list(coerce_records(builtin_provider(manager).export_memories(), origin="built-in memory"))
    store = open_store(manager)
    try:
        backfill = Backfill(provider, store, hermes_home=str(manager.home), clean=summary_filter(manager), **_retry_settings(manager))
        return backfill, backfill.plan(entries, since=since, last=last, fresh=again), store
    except BaseException:
        store.close()
        raise


def _retry_settings(manager: PluginManager) -> dict[str, Any]:
    """memory.backfill_retries and memory.backfill_retry_delay, checked."""
    retries = manager.config.get("memory.backfill_retries", 3)
    delay = manager.config.get("memory.backfill_retry_delay", 1.0)
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise HermesError(f"memory.backfill_retries must be a whole number >= 0, not {retries!r} -> hermes config set memory.backfill_retries 3")
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0:
        raise HermesError(f"memory.backfill_retry_delay must be seconds >= 0, not {delay!r} -> hermes config set memory.backfill_retry_delay 1.0")
    return {"retries": retries, "retry_delay": float(delay)}


def _run(backfill: Any, plan: Any, args: argparse.Namespace) -> dict[str, Any]:
    from hermes_core.cli.progress import Progress
    from hermes_core.memory.backfill import BackfillFailed, NotDelivered

    again = f"hermes memory switch {args.provider} --backfill --yes"
    with Progress(f"backfilling {plan.provider}", unit="items") as progress:
        backfill.progress = progress
        try:
            report = backfill.run(plan)
        except BackfillFailed as exc:
            progress.finish()
            cause = str(exc.cause) if isinstance(exc.cause, NotDelivered) else f"{type(exc.cause).__name__}: {exc.cause}"
            undelivered = plan.pending_items - delivered(backfill, plan)
            raise HermesError(
                f"backfill into {plan.provider} stopped at {exc.where}: {cause} (gave up after {_count(exc.attempts, 'attempt', 'attempts')}); "
                f"{_stored(backfill, plan)} are stored and checkpointed; {_count(undelivered, 'item was', 'items were')} "
                f"not delivered (none checkpointed: the next run sends them) -> fix the provider (hermes memory status), "
                f"then run '{again}' to resume"
            ) from None
        except KeyboardInterrupt:
            progress.finish()
            print(f"backfill interrupted; {_stored(backfill, plan)} are stored and checkpointed -> run '{again}' to resume", file=sys.stderr)
            raise
    sent = report.entries_sent + report.turns_sent
    return {
        "entries_sent": report.entries_sent,
        "turns_sent": report.turns_sent,
        "sessions_ended": report.sessions_ended,
        "resent_after_interruption": report.resent,
        "retries": report.retries,
        "seconds": round(report.seconds, 3),
        "items_per_second": round(sent / report.seconds, 1) if report.seconds > 0 else None,
        "complete": True,
    }


def delivered(backfill: Any, plan: Any) -> int:
    """Items of ``plan`` the provider confirmed in this run (from the checkpoints)."""
    from hermes_core.memory.backfill import BACKFILL_ITEM_KINDS

    done = sum(1 for item in backfill.ledger.done_items() if item.split(":", 1)[0] in BACKFILL_ITEM_KINDS)
    return done - (0 if plan.fresh else plan.done_before)


def _stored(backfill: Any, plan: Any) -> str:
    """How far a stopped backfill got, from its checkpoints."""
    turns = len(backfill.ledger.done_items("turn:"))
    entries = len(backfill.ledger.done_items("entry:"))
    return f"{turns} of {plan.turns} turns and {entries} of {len(plan.entries)} memory entries"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _report(args: argparse.Namespace, summary: dict[str, Any]) -> int:
    if args.json:
        print_json(summary)
        return 0
    verb = "would set" if summary.get("dry_run") else "set"
    shown = summary["memory.provider"] or "'' (built-in only)"
    print(f"{verb} memory.provider = {shown}" + ("" if summary.get("changed") or summary.get("dry_run") else " (unchanged)"))
    backfill = summary.get("backfill")
    if backfill is None:
        if summary["provider"] != "builtin":
            print(f"nothing carried over; 'hermes memory switch {args.provider} --backfill' sends the built-in memory and stored conversations")
        return 0
    if summary.get("dry_run"):
        print(f"would send {backfill['entries_to_send']} of {backfill['entries']} built-in memory entries and "
              f"{backfill['turns_to_send']} of {backfill['turns']} turns from {backfill['sessions_to_send']} of {backfill['sessions']} conversations")
        if backfill["already_done"]:
            print(f"{backfill['already_done']} items were sent by an earlier run and are skipped")
        print("dry run: nothing was changed")
        return 0
    print(f"sent {_count(backfill['entries_sent'], 'memory entry', 'memory entries')} and {_count(backfill['turns_sent'], 'turn', 'turns')} "
          f"in {backfill['seconds']:.1f} s"
          + (f"; {backfill['already_done']} sent earlier were skipped" if backfill["already_done"] else ""))
    if backfill["resent_after_interruption"]:
        print(f"resent after the interruption: {', '.join(backfill['resent_after_interruption'])} (handed over when the last run stopped)")
    return 0
