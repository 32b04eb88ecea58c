"""``hermes sessions``: list, show, search, export, import, prune and measure stored sessions."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hermes_core.errors import HermesError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="sessions_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 0)[1])

    listing = commands.add_parser("list", aliases=["ls"], help="recent sessions (a compression chain shows as its latest session)")
    listing.add_argument("--limit", type=int, default=20, help="at most this many sessions (default: 20)")
    listing.add_argument("--source", help="only sessions from this platform (cli, telegram, ...)")
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    listing.set_defaults(func=cmd_list)

    show = commands.add_parser("show", help="print one session's messages")
    show.add_argument("session_id", help="a session ID, as hermes sessions list shows it")
    show.add_argument("--json", action="store_true", help="print the session and its messages as JSON")
    show.set_defaults(func=cmd_show)

    search = commands.add_parser("search", help="full-text search over every stored message")
    search.add_argument("query", help="words, \"a phrase\", prefix*, OR / AND / NOT; any text is safe")
    search.add_argument("--role", action="append", help="only messages of this role (repeatable)")
    search.add_argument("--limit", type=int, default=20, help="at most this many matches (default: 20)")
    search.add_argument("--json", action="store_true", help="print JSON instead of a list")
    search.set_defaults(func=cmd_search)

    export = commands.add_parser("export", help="write a session as JSON lines or Markdown")
    export.add_argument("session_id", help="a session ID")
    export.add_argument("--format", choices=("jsonl", "md"), default="jsonl", help="JSON lines (re-importable) or Markdown (default: jsonl)")
    export.add_argument("--output", "-o", type=Path, help="file to write (default: stdout)")
    export.set_defaults(func=cmd_export)

    importer = commands.add_parser("import", help="import an OpenAI chat-format JSONL file: one conversation per line, or one message per line")
    importer.add_argument("file", type=Path, help="the .jsonl file to import")
    importer.add_argument("--title", help="title of the imported session (numbered when the file holds several)")
    importer.add_argument("--source", default="import", help="source recorded on the sessions (default: import)")
    importer.set_defaults(func=cmd_import)

    prune = commands.add_parser("prune", help="delete sessions with no activity for a while")
    prune.add_argument("--older-than", required=True, metavar="AGE", help="e.g. 30d, 12h, 2w")
    prune.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    prune.set_defaults(func=cmd_prune)

    stats = commands.add_parser("stats", help="counts, database size and index sizes")
    stats.add_argument("--json", action="store_true", help="print JSON instead of text")
    stats.set_defaults(func=cmd_stats)


def _open_store() -> Any:
    """The session store the builtin plugin serves, without loading any other plugin."""
    from hermes_core.manager import PluginManager

    manager = PluginManager()
    manager.discover()
    for record in manager.plugins:
        if record.candidate.source == "builtin":
            manager.load(record.key)
    if manager.session_store_factory is None:
        raise HermesError("no session store is loaded (the builtin 'state' plugin) -> run 'hermes plugins list --load' to see why")
    return manager.session_store_factory(manager.home)


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def _when(timestamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp)) if timestamp else "-"


def parse_age(text: str) -> float:
    """``30d`` -> seconds; units s, m, h, d, w."""
    match = _DURATION.match(text)
    if not match:
        raise HermesError(f"--older-than {text!r} is not an age -> write a number and a unit, e.g. 30d, 12h, 2w")
    return float(match.group(1)) * _SECONDS[match.group(2)]


def cmd_list(args: argparse.Namespace) -> int:
    with _open_store() as store:
        rows = store.list_sessions_rich(limit=args.limit, source=args.source)
    if args.json:
        _print_json(rows)
        return 0
    if not rows:
        print("no sessions stored yet; 'hermes chat' starts one")
        return 0
    for row in rows:
        title = row.get("title") or (row.get("preview") or "")[:50] or "-"
        chain = f" ({len(row['chain'])} linked)" if len(row.get("chain") or []) > 1 else ""
        print(f"{row['id']}  {_when(row.get('last_active'))}  {row.get('source', '-'):<8} {row.get('chain_message_count', 0):>5} msgs  {title}{chain}")
    return 0


def _session_or_fail(store: Any, session_id: str) -> dict[str, Any]:
    row = store.get_session(session_id)
    if row is None:
        raise HermesError(f"no session {session_id!r} -> 'hermes sessions list' shows the ids")
    return row


def cmd_show(args: argparse.Namespace) -> int:
    with _open_store() as store:
        row = _session_or_fail(store, args.session_id)
        messages = store.get_messages(args.session_id)
    if args.json:
        _print_json({"session": row, "messages": messages})
        return 0
    print(f"session {row['id']}  {row.get('title') or ''}  started {_when(row.get('started_at'))}  model {row.get('model') or '-'}")
    for message in messages:
        print(f"\n[{message['role']}{' ' + message['tool_name'] if message.get('tool_name') else ''}]")
        if message.get("content"):
            print(message["content"])
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            print(f"-> {function.get('name')}({function.get('arguments', '')})")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    with _open_store() as store:
        hits = store.search(args.query, role_filter=args.role, limit=args.limit)
    if args.json:
        _print_json([asdict(hit) for hit in hits])
        return 0
    if not hits:
        print("no matches")
        return 0
    for hit in hits:
        print(f"{hit.session_id}  #{hit.message_id}  {hit.role:<9} {_when(hit.timestamp)}  {hit.snippet}")
    return 0


def _markdown(row: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    lines = [f"# {row.get('title') or 'Session ' + row['id']}", "", f"- id: `{row['id']}`", f"- started: {_when(row.get('started_at'))}", f"- model: {row.get('model') or '-'}", ""]
    for message in messages:
        heading = message["role"].capitalize() + (f" ({message['tool_name']})" if message.get("tool_name") else "")
        lines += [f"## {heading}", ""]
        if message.get("content"):
            lines += [message["content"], ""]
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            lines += [f"Tool call `{function.get('name')}`: `{function.get('arguments', '')}`", ""]
    return "\n".join(lines)


def _wire(message: dict[str, Any]) -> dict[str, Any]:
    wire = {"role": message["role"], "content": message.get("content")}
    for key in ("tool_calls", "tool_call_id", "tool_name"):
        if message.get(key):
            wire[key] = message[key]
    return wire


def cmd_export(args: argparse.Namespace) -> int:
    with _open_store() as store:
        row = _session_or_fail(store, args.session_id)
        messages = store.get_messages(args.session_id)
    text = _markdown(row, messages) if args.format == "md" else "".join(json.dumps(_wire(m), ensure_ascii=False) + "\n" for m in messages)
    if args.output is None:
        sys.stdout.write(text)
    else:
        from hermes_core.config import atomic_write_text

        atomic_write_text(args.output, text)
        print(f"wrote {len(messages)} messages to {args.output}", file=sys.stderr)
    return 0


_ROLES = {"system", "user", "assistant", "tool"}
#: Messages written per transaction by ``hermes sessions import``.
IMPORT_BATCH = 500


def _chat_message(where: str, message: Any) -> dict[str, Any]:
    roles = ", ".join(sorted(_ROLES))
    if not isinstance(message, dict):
        raise HermesError(f"{where}: a chat message must be a JSON object with 'role' and 'content', not {type(message).__name__}")
    if "role" not in message:
        raise HermesError(f"{where}: the message has no 'role' -> add one of {roles}")
    if message["role"] not in _ROLES:
        raise HermesError(f"{where}: 'role' is {message['role']!r} -> use one of {roles}")
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text
        content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    kept = {k: v for k, v in dict(message, content=content).items() if k in {"role", "content", "tool_calls", "tool_call_id", "tool_name", "name"}}
    name = kept.pop("name", None)
    if name and kept["role"] == "tool":
        kept.setdefault("tool_name", name)
    return kept


def read_chat_jsonl(path: Path) -> list[list[dict[str, Any]]]:
    """The conversations in ``path``; every line is read and checked first, so a bad file imports nothing.

    Two forms: one conversation per line (``{"messages": [...]}``, as in OpenAI's chat fine-tuning
    files), or one message per line, the whole file being one conversation.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise HermesError(f"{path}: cannot be read ({exc.strerror})") from exc
    conversations: list[list[dict[str, Any]]] = []
    loose: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise HermesError(f"{path}:{number}: not JSON ({exc.msg}) -> each line must be a chat message or {{\"messages\": [...]}}") from exc
        if isinstance(item, dict) and "messages" in item:
            if not isinstance(item["messages"], list):
                raise HermesError(f"{path}:{number}: 'messages' must be a list of chat messages")
            conversations.append([_chat_message(f"{path}:{number}: message {i}", m) for i, m in enumerate(item["messages"], 1)])
        else:
            loose.append(_chat_message(f"{path}:{number}", item))
    if conversations and loose:
        raise HermesError(f"{path}: mixes conversation lines ({{\"messages\": [...]}}) with message lines -> use one form per file")
    found = [c for c in (conversations or [loose]) if any(m["role"] != "system" for m in c)]
    if not found:
        raise HermesError(f"{path}: no messages found")
    return found


def cmd_import(args: argparse.Namespace) -> int:
    conversations = read_chat_jsonl(args.file)
    total = sum(len(c) for c in conversations)
    done = 0
    show_progress = total > IMPORT_BATCH
    with _open_store() as store:
        for conversation in conversations:
            system = next((m["content"] for m in conversation if m["role"] == "system"), None)
            body = [m for m in conversation if m["role"] != "system"]
            session_id = store.create_session(source=args.source, system_prompt=system)
            if args.title:
                store.set_title(session_id, args.title, auto_number=True)  # "Title", "Title #2", ...
            for start in range(0, len(body), IMPORT_BATCH):
                chunk = body[start : start + IMPORT_BATCH]
                store.append_messages(session_id, chunk)
                done += len(chunk)
                if show_progress:
                    print(f"\rimported {done}/{total} messages", end="", file=sys.stderr, flush=True)
            done += len(conversation) - len(body)
            if show_progress:
                print(file=sys.stderr)
            print(f"imported {len(body)} messages as session {session_id}")
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    age = parse_age(args.older_than)
    if not args.yes:
        if not sys.stdin.isatty():  # nobody to ask: deleting history needs an explicit yes
            raise HermesError("hermes sessions prune deletes sessions and cannot ask for confirmation here -> add --yes")
        if input(f"delete every conversation with no activity in the last {args.older_than}? [y/N] ").strip().lower() not in {"y", "yes"}:
            print("nothing deleted")
            return 0
    with _open_store() as store:
        deleted = store.prune_sessions(age)
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
        _print_json(asdict(stats))
        return 0
    print(f"schema version   {stats.schema_version}")
    print(f"sessions         {stats.sessions}")
    print(f"messages         {stats.messages} ({', '.join(f'{r} {n}' for r, n in sorted(stats.messages_by_role.items()))})")
    print(f"database         {_size(stats.db_bytes)} (+ {_size(stats.wal_bytes)} WAL)")
    for name, size in sorted(stats.object_bytes.items(), key=lambda item: -item[1]):
        print(f"  {name:<28} {_size(size)}")
    return 0
