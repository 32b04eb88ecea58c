"""``hermes sessions migrate --to TARGET`` (its arguments are declared in :mod:`hermes_core.cli.sessions`): copy every session and message to another store, verified.

The target is a PostgreSQL URL or the path of a state.db, so a deployment moves
from one host to many and back. The copy goes session by session, parents before
the sessions they started; a session is complete when its messages are all there,
so running the same command again after an interruption skips what is complete,
redoes the one that was cut off and goes on. At the end both sides are counted and
every session's columns and messages compared by checksum.

A target that holds sessions the source does not have belongs to someone else:
it is refused unless ``--force`` merges into it.
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any, Callable, Iterable

from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError


def redact_url(text: str) -> str:
    """*text* with a URL's password replaced, as every other message shows it."""
    from hermes_core.models.clients.sanitize import REDACTED, sanitize_request

    return str(sanitize_request(text)).replace(REDACTED, "***")

_COUNTERS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
             "api_call_count", "estimated_cost_usd", "actual_cost_usd", "model", "billing_provider",
             "billing_base_url", "billing_mode", "cost_status", "cost_source", "pricing_version")
_MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "tool_name", "timestamp", "token_count",
                 "finish_reason", "reasoning", "reasoning_content", "reasoning_details", "codex_reasoning_items",
                 "codex_message_items")


def _open_target(manager: Any, target: str) -> Any:
    import inspect

    factory = manager.session_store_factory
    try:
        accepts = "location" in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        accepts = False
    if not accepts:
        raise HermesError("the loaded session store cannot open another location -> migrate needs the builtin "
                          "'state' plugin; run 'hermes plugins list --load' to see which store is loaded")
    if "://" not in target:
        from pathlib import Path

        path = Path(target).expanduser()
        if path.exists() and not path.is_file():  # a device, FIFO or directory is no SQLite file to write
            raise HermesError(f"--to {target!r} is not a regular file -> give a new .db path or a postgresql:// URL")
    return factory(manager.home, location=target)


def message_digest(messages: Iterable[dict[str, Any]]) -> str:
    """A checksum of a session's messages that ignores row ids (they differ between stores)."""
    import hashlib

    digest = hashlib.sha256()
    for message in messages:
        record = {k: message.get(k) for k in _MESSAGE_KEYS}
        digest.update(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "replace"))
        digest.update(b"\n")
    return digest.hexdigest()


# what the copy carries over for a session besides its messages (message_count follows from them)
_SESSION_KEYS = ("source", "user_id", "model_config", "system_prompt", "title", "started_at", "ended_at",
                 "end_reason", *_COUNTERS)


def session_digest(session: dict[str, Any]) -> str:
    """A checksum of the session columns the copy carries (its parent link aside: a pruned parent is dropped)."""
    import hashlib

    record = {k: session.get(k) for k in _SESSION_KEYS}
    return hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
                          .encode("utf-8", "replace")).hexdigest()


def _parents_first(sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_id = {s["id"]: s for s in sessions}
    ordered: list[dict[str, Any]] = []
    placed: set[str] = set()
    for session in sessions:
        chain = []
        current: dict[str, Any] | None = session
        while current is not None and current["id"] not in placed and current not in chain:
            chain.append(current)
            parent = current.get("parent_session_id")
            current = by_id.get(parent) if parent else None
        for item in reversed(chain):
            placed.add(item["id"])
            ordered.append(item)
    return ordered


class Migration:
    """One copy from *source* to *target*; ``run`` does the work, ``verify`` checks it."""

    def __init__(self, source: Any, target: Any, *, progress: Callable[[int, int], None] | None = None) -> None:
        self.source, self.target, self.progress = source, target, progress
        self.copied = self.skipped = self.redone = self.messages = 0

    def run(self, *, force: bool = False) -> None:
        sessions = _parents_first(list(self.source.iter_sessions()))
        source_ids = {s["id"] for s in sessions}
        foreign = [s["id"] for s in self.target.iter_sessions() if s["id"] not in source_ids]
        if foreign and not force:
            raise HermesError(f"the target already holds {len(foreign)} session(s) the source does not have "
                              f"(e.g. {foreign[0]!r}) -> choose an empty target, or add --force to merge into it")
        for done, session in enumerate(sessions, start=1):
            self._copy(session)
            if self.progress is not None:
                self.progress(done, len(sessions))

    def _copy(self, session: dict[str, Any]) -> None:
        messages = self.source.get_messages(session["id"])
        existing = self.target.get_session(session["id"])
        if existing is not None:
            # complete: every message there and every column set (an interruption between the
            # messages and the counters leaves the counters behind: that session is redone)
            if self.target.message_count(session["id"]) == len(messages) and session_digest(existing) == session_digest(session):
                self.skipped += 1
                return
            self.target.delete_session(session["id"])  # cut off last time: copy it again, whole
            self.redone += 1
        parent = session.get("parent_session_id")
        if parent and self.target.get_session(parent) is None:
            parent = None  # its parent was pruned from the source: the link cannot be kept
        self.target.create_session(
            session["id"], session.get("source") or "cli", model=session.get("model"),
            model_config=session.get("model_config") if isinstance(session.get("model_config"), dict) else None,
            system_prompt=session.get("system_prompt"), user_id=session.get("user_id"), parent_session_id=parent,
            title=session.get("title"), started_at=session.get("started_at"))
        rows = []
        for n, message in enumerate(messages):
            row = {k: message[k] for k in _MESSAGE_KEYS if k in message}
            row["append_key"] = f"{session['id']}#{n}"  # a retried batch is stored once
            rows.append(row)
        for start in range(0, len(rows), 500):
            self.target.append_messages(session["id"], rows[start:start + 500])
        counters = {k: session[k] for k in _COUNTERS if session.get(k) is not None}
        if counters:
            self.target.update_token_counts(session["id"], absolute=True, **counters)
        if session.get("ended_at") is not None:
            self.target.end_session(session["id"], session.get("end_reason") or "user", ended_at=session["ended_at"])
        self.copied += 1
        self.messages += len(messages)

    def verify(self) -> list[str]:
        """Differences between source and target ([] when every session and message arrived intact)."""
        problems: list[str] = []
        for session in self.source.iter_sessions():
            sid = session["id"]
            copied = self.target.get_session(sid)
            if copied is None:
                problems.append(f"session {sid} is missing from the target")
            elif session_digest(copied) != session_digest(session):
                changed = [k for k in _SESSION_KEYS if copied.get(k) != session.get(k)]
                problems.append(f"session {sid}: {', '.join(changed) or 'columns'} differ between source and target")
            elif copied.get("message_count") != session.get("message_count"):
                problems.append(f"session {sid}: {copied.get('message_count')} messages counted in the target, "
                                f"{session.get('message_count')} in the source")
            elif message_digest(self.target.get_messages(sid)) != message_digest(self.source.get_messages(sid)):
                problems.append(f"session {sid}: messages differ between source and target")
        return problems


def cmd_migrate(args: argparse.Namespace) -> int:
    from hermes_core.manager import PluginManager

    manager = PluginManager()
    manager.load_builtins()
    started = time.monotonic()
    with args.open_store(manager) as source, _open_target(manager, args.to) as target:
        if getattr(source, "path", None) == getattr(target, "path", object()):
            raise HermesError(f"--to {redact_url(args.to)!r} is the store hermes already uses -> give another location")
        from hermes_core.cli.progress import Progress

        progress = Progress("copying sessions", unit="sessions")
        migration = Migration(source, target, progress=progress)
        try:
            migration.run(force=args.force)
        finally:
            progress.finish()
        problems = migration.verify()
        counts = {"source_messages": source.message_count(), "target_messages": target.message_count()}
    summary = {"target": getattr(target, "path", str(args.to)), "sessions_copied": migration.copied,
               "sessions_already_there": migration.skipped, "sessions_redone": migration.redone,
               "messages_copied": migration.messages, **counts, "verified": not problems, "problems": problems,
               "seconds": round(time.monotonic() - started, 3)}
    if args.json:
        print_json(summary)
    else:
        print(f"copied {migration.copied} session(s) and {migration.messages} message(s) to {summary['target']} "
              f"({migration.skipped} already there, {migration.redone} redone) in {summary['seconds']:.1f} s")
        print("verified: every session's messages match" if not problems else
              "verification FAILED:\n  " + "\n  ".join(problems[:20]))
    if problems:
        raise HermesError(f"{len(problems)} session(s) differ after the copy -> run the same command again to "
                          "redo them; the source was not modified")
    return 0
