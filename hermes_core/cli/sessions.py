"""``hermes sessions``: list, show, search, export, import, prune, reindex and measure stored sessions."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict
from typing import Any

from hermes_core.cli.arguments import path_argument
from hermes_core.cli.output import one_line, print_json, terminal_safe

# Re-exported: chat, memory switch/export and tests import these names from here.
from hermes_core.cli.sessions_store import (
    _ROLES,
    IMPORT_BATCH,
    STATE_PLUGIN_MODULE,
    _open_store,
    _session_or_fail,
    _tool_calls,
    _when,
    open_session_store,
)
from hermes_core.errors import HermesError

# Export/import and migrate live in their own modules, imported only by the command that runs
# them: every `hermes sessions` command builds this group's parser, and list/show/search must
# not pay for the others (tests/test_cli_imports.py).
_TRANSFER_NAMES = frozenset({"EXPORT_MODE", "MAX_IMPORT_BYTES", "_write_export", "cmd_export", "cmd_import",
                             "read_chat_jsonl"})


def __getattr__(name: str) -> Any:
    """The export/import names, re-exported from :mod:`hermes_core.cli.sessions_transfer` on first use."""
    if name in _TRANSFER_NAMES:
        from hermes_core.cli import sessions_transfer

        return getattr(sessions_transfer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _run_from(module: str, function: str) -> Any:
    """A command function that imports ``hermes_core.cli.<module>`` when it runs."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        return int(getattr(importlib.import_module(f"hermes_core.cli.{module}"), function)(args))

    return run

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
DASH_HINT = "a query that starts with '-' goes after '--': hermes sessions search -- -verbose"


def _hinting_parser(base: type[argparse.ArgumentParser]) -> type[argparse.ArgumentParser]:
    """*base* (the CLI's parser class, which formats errors) plus an optional ``dash_hint``.

    ``hermes sessions search -verbose`` reads '-verbose' as an unknown option; the hint
    says how to search for it. Unknown options after the query are checked here too,
    since the top-level parser that would report them knows nothing about queries.
    """

    class HintingParser(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, dash_hint: str | None = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.dash_hint = dash_hint

        def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
            parsed, extras = super().parse_known_args(args, namespace)
            if self.dash_hint and any(extra.startswith("-") for extra in extras):
                self.error(f"unrecognized arguments: {' '.join(extras)}")
            return parsed, extras

        def error(self, message: str) -> Any:  # type: ignore[override]
            dashed = "unrecognized arguments: -" in message or "arguments are required: query" in message
            super().error(f"{message} -> {self.dash_hint}" if self.dash_hint and dashed else message)

    return HintingParser


def _export_format(value: str) -> str:
    """The spellings people type for the two formats, as argparse's choices know them."""
    return {"markdown": "md", "json": "jsonl"}.get(value.lower(), value)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="sessions_command", metavar="SUBCOMMAND", parser_class=_hinting_parser(type(parser)))
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    listing = commands.add_parser("list", aliases=["ls"], help="recent sessions (a compression chain shows as its latest session)")
    listing.add_argument("--limit", type=int, default=20, help="at most this many sessions, 1 or more (default: 20)")
    listing.add_argument("--source", help="only sessions from this platform (cli, telegram, ...)")
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    listing.set_defaults(func=cmd_list)

    show = commands.add_parser("show", help="print one session's messages")
    show.add_argument("session_id", help="a session ID, as hermes sessions list shows it")
    show.add_argument("--json", action="store_true", help="print the session and its messages as JSON")
    show.set_defaults(func=cmd_show)

    search = commands.add_parser("search", help="full-text search over every stored message", dash_hint=DASH_HINT)
    search.add_argument("query", help="words, \"a phrase\", prefix*, OR / AND / NOT; any text is safe (after '--' when it starts with '-')")
    search.add_argument("--role", action="append", help="only messages of this role: user, assistant, tool or system (any case; repeatable)")
    search.add_argument("--limit", type=int, default=20, help="at most this many matches (default: 20)")
    search.add_argument("--json", action="store_true", help="print JSON instead of a list")
    search.set_defaults(func=cmd_search)

    export = commands.add_parser("export", help="write a session as JSON lines or Markdown")
    export.add_argument("session_id", help="a session ID")
    export.add_argument("--format", choices=("jsonl", "md"), default="jsonl", type=_export_format,
                        help="JSON lines (re-importable) or Markdown (default: jsonl; 'markdown' and 'json' work too)")
    export.add_argument("--output", "-o", type=path_argument, help="file to write, mode 0600 (default: stdout)")
    export.add_argument("--force", action="store_true", help="replace the --output file if it already exists")
    export.add_argument("--json", action="store_true", help="with --output: print what was written as JSON")
    export.set_defaults(func=_run_from("sessions_transfer", "cmd_export"))

    importer = commands.add_parser("import", help="import an OpenAI chat-format JSONL file: one conversation per line, or one message per line")
    importer.add_argument("file", type=path_argument, help="the .jsonl file to import")
    importer.add_argument("--title", help="title of the imported session (numbered when the file holds several)")
    importer.add_argument("--source", default="import", help="source recorded on the sessions (default: import)")
    importer.add_argument("--again", action="store_true",
                          help="import conversations already imported again, as new sessions (by default they are skipped)")
    importer.add_argument("--json", action="store_true", help="print the sessions created as JSON")
    importer.set_defaults(func=_run_from("sessions_transfer", "cmd_import"))

    prune = commands.add_parser("prune", help="delete sessions with no activity for a while")
    prune.add_argument("--older-than", required=True, metavar="AGE", help="e.g. 30d, 12h, 2w")
    prune.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    prune.add_argument("--json", action="store_true", help="print how many sessions were deleted as JSON")
    prune.set_defaults(func=cmd_prune)

    stats = commands.add_parser("stats", help="counts, database size and index sizes")
    stats.add_argument("--json", action="store_true", help="print JSON instead of text")
    stats.set_defaults(func=cmd_stats)

    reindex = commands.add_parser("reindex", help="rebuild both search indexes from the stored messages")
    reindex.add_argument("--json", action="store_true", help="print JSON instead of text")
    reindex.set_defaults(func=cmd_reindex)

    migrate = commands.add_parser(
        "migrate", help="copy every session to another store (a postgresql:// URL or a state.db path), verified")
    migrate.add_argument("--to", required=True, metavar="TARGET",
                         help="postgresql://user@host/db (password from HERMES_STATE_URL-style URL) or a state.db path")
    migrate.add_argument("--force", action="store_true",
                         help="copy into a target that already holds other sessions (merge)")
    migrate.add_argument("--json", action="store_true", help="print a JSON summary")
    migrate.set_defaults(func=_run_from("sessions_migrate", "cmd_migrate"),
                         open_store=lambda manager: open_session_store(manager))


def parse_age(text: str) -> float:
    """``30d`` -> seconds; units s, m, h, d, w."""
    match = _DURATION.match(text)
    if not match:
        raise HermesError(f"--older-than {text!r} is not an age -> write a number and a unit, e.g. 30d, 12h, 2w")
    return float(match.group(1)) * _SECONDS[match.group(2)]


# the largest LIMIT both SQLite and PostgreSQL take (a signed 64-bit integer)
_LARGEST_LIMIT = 2**63 - 1


def _positive_limit(limit: int) -> int:
    if limit < 1:
        raise HermesError(f"--limit {limit} would show nothing -> give 1 or more (default: 20)")
    return min(limit, _LARGEST_LIMIT)  # a huge limit means "all of them", not an overflow


def cmd_list(args: argparse.Namespace) -> int:
    limit = _positive_limit(args.limit)
    with _open_store() as store:
        rows = store.list_sessions_rich(limit=limit, source=args.source)
    if args.json:
        print_json(rows)
        return 0
    if not rows and args.source is not None:
        print(f"no sessions match --source {args.source!r}; without --source every session is listed")
        return 0
    if not rows:
        print("no sessions stored yet; 'hermes chat' starts one")
        return 0
    for row in rows:
        title = one_line(row.get("title") or (row.get("preview") or "")[:50] or "-")
        chain = f" ({len(row['chain'])} linked)" if len(row.get("chain") or []) > 1 else ""
        print(f"{row['id']}  {_when(row.get('last_active'))}  {row.get('source', '-'):<8} {row.get('chain_message_count', 0):>5} msgs  {title}{chain}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with _open_store() as store:
        row = _session_or_fail(store, args.session_id)
        messages = store.get_messages(row["id"])
    if args.json:
        print_json({"session": row, "messages": messages})
        return 0
    print(f"session {row['id']}  {one_line(row.get('title') or '')}  started {_when(row.get('started_at'))}  model {one_line(row.get('model') or '-')}")
    for message in messages:
        header = f"{message.get('role')}{' ' + str(message['tool_name']) if message.get('tool_name') else ''}"
        print(f"\n[{one_line(header)}]")
        if message.get("content"):
            print(terminal_safe(str(message["content"])))
        for name, arguments in _tool_calls(message.get("tool_calls")):
            print(terminal_safe(f"-> {name}({arguments})" if name is not None else f"-> (as stored) {arguments}"))
    return 0


def _search_roles(given: list[str] | None) -> list[str] | None:
    """--role values (repeatable, comma-separated, any case) as stored role names; unknown ones are refused."""
    if not given:
        return None
    roles = [part.strip() for item in given for part in item.split(",") if part.strip()]
    valid = ", ".join(sorted(_ROLES))
    if not roles:
        raise HermesError(f"--role is empty -> use one of {valid}")
    for role in roles:
        if role.lower() not in _ROLES:
            raise HermesError(f"--role {role!r} is not a message role -> use one of {valid}")
    return sorted({role.lower() for role in roles})


def cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():  # checked before the store is opened, so an empty query creates no state.db
        raise HermesError(
            "hermes sessions search: the query is empty, so it would match nothing -> give words to look for, "
            "e.g. hermes sessions search 'dark mode' (a \"quoted phrase\", prefix*, OR / AND / NOT also work)"
        )
    roles = _search_roles(args.role)
    limit = _positive_limit(args.limit)
    with _open_store() as store:
        # a message that compression copied into later parts of a chain is listed once, where it first appeared
        hits = store.search(args.query, role_filter=roles, limit=limit, collapse_copies=True)
    if args.json:
        print_json([asdict(hit) for hit in hits])
        return 0
    if not hits:
        print("no matches")
        return 0
    for hit in hits:
        print(f"{hit.session_id}  #{hit.message_id}  {hit.role:<9} {_when(hit.timestamp)}  {one_line(hit.snippet)}")
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    age = parse_age(args.older_than)
    if not args.yes:
        if not sys.stdin.isatty():  # nobody to ask: deleting history needs an explicit yes
            raise HermesError("hermes sessions prune deletes sessions and cannot ask for confirmation here -> add --yes")
        if input(f"delete every conversation with no activity in the last {args.older_than}? [y/N] ").strip().lower() not in {"y", "yes"}:
            if args.json:
                print_json({"older_than": args.older_than, "deleted": 0, "confirmed": False})
            else:
                print("nothing deleted")
            return 0
    with _open_store() as store:
        deleted = store.prune_sessions(age)
    if args.json:
        print_json({"older_than": args.older_than, "deleted": deleted, "confirmed": True})
    else:
        print(f"deleted {deleted} session(s)")
    return 0


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def cmd_stats(args: argparse.Namespace) -> int:
    with _open_store() as store:
        stats = store.stats()
    if args.json:
        print_json(asdict(stats))
        return 0
    print(f"schema version   {stats.schema_version}")
    print(f"sessions         {stats.sessions}" + ("  (none stored yet; 'hermes chat' starts one)" if not stats.sessions else ""))
    by_role = ", ".join(f"{role} {count}" for role, count in sorted(stats.messages_by_role.items()) if count)
    print(f"messages         {stats.messages}" + (f" ({by_role})" if by_role else ""))
    print(f"database         {_size(stats.db_bytes)} (+ {_size(stats.wal_bytes)} WAL)")
    for name, size in sorted(stats.object_bytes.items(), key=lambda item: -item[1]):
        print(f"  {name:<28} {_size(size)}")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    """Rebuild the word and gram indexes from the messages table (a repair; one write transaction)."""
    from hermes_core.cli.progress import Progress

    started = time.monotonic()
    with _open_store() as store, Progress("reindexing", unit="messages") as progress:
        rows = store.rebuild_search_index(progress)
    seconds = time.monotonic() - started
    if args.json:
        print_json({"messages": rows, "seconds": round(seconds, 3)})
        return 0
    print(f"rebuilt the word and gram search indexes: {rows} messages in {seconds:.1f} s")
    return 0
