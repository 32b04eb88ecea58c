"""``hermes sessions``: list, show, search, export, import, prune, reindex and measure stored sessions."""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_ROLES = {"system", "user", "assistant", "tool"}
#: Messages written per transaction by ``hermes sessions import``; more than this shows progress.
IMPORT_BATCH = 500
#: Exported transcripts are as private as state.db itself.
EXPORT_MODE = 0o600
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
    export.add_argument("--format", choices=("jsonl", "md"), default="jsonl", help="JSON lines (re-importable) or Markdown (default: jsonl)")
    export.add_argument("--output", "-o", type=Path, help="file to write, mode 0600 (default: stdout)")
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

    reindex = commands.add_parser("reindex", help="rebuild both search indexes from the stored messages")
    reindex.add_argument("--json", action="store_true", help="print JSON instead of text")
    reindex.set_defaults(func=cmd_reindex)

    from hermes_core.cli import sessions_migrate

    sessions_migrate.add_arguments(commands, open_store=lambda manager: open_session_store(manager))


def _accepts_progress(factory: Callable[..., Any]) -> bool:
    # the host's contract is factory(hermes_home); the builtin store also takes progress=
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    keyword = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return any((p.name == "progress" and p.kind in keyword) or p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters)


#: The module the builtin ``state`` entry point names (pyproject.toml; a test checks the two agree).
#: Imported by that name rather than found by an entry-point scan, which alone costs more than a
#: sessions command: the core still reaches the store only through the plugin's own entry module.
STATE_PLUGIN_MODULE = "hermes_plugins_builtin.state"


def _open_store() -> Any:
    """The configured session store, opened the way the builtin ``state`` plugin's factory
    opens it, without loading any plugin.

    A sessions command needs nothing else, and loading every builtin costs more than
    the command itself (the model clients' HTTP library, the schema validator).
    Opening an older state.db migrates it, which indexes every stored message
    (minutes on a big store); that shows progress on stderr.
    """
    import importlib
    import os

    from hermes_core.cli.progress import Progress
    from hermes_core.config import ensure_home, get_hermes_home, load_config

    state = importlib.import_module(STATE_PLUGIN_MODULE)
    home = get_hermes_home()
    ensure_home(home)  # state.db lives there: a home that cannot be created is named as such
    with Progress("indexing state.db for search", unit="messages", minimum=IMPORT_BATCH) as progress:
        return state.open_configured_store(home, load_config(home), os.environ, progress=progress)


def open_session_store(manager: Any) -> Any:
    """The store of a loaded plugin manager, showing progress if opening it migrates an older state.db."""
    factory = manager.session_store_factory
    if factory is None:
        raise HermesError("no session store is loaded (the builtin 'state' plugin) -> run 'hermes plugins list --load' to see why")
    if not _accepts_progress(factory):
        return factory(manager.home)
    from hermes_core.cli.progress import Progress

    with Progress("indexing state.db for search", unit="messages", minimum=IMPORT_BATCH) as progress:
        return factory(manager.home, progress=progress)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _when(timestamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp)) if timestamp else "-"


def parse_age(text: str) -> float:
    """``30d`` -> seconds; units s, m, h, d, w."""
    match = _DURATION.match(text)
    if not match:
        raise HermesError(f"--older-than {text!r} is not an age -> write a number and a unit, e.g. 30d, 12h, 2w")
    return float(match.group(1)) * _SECONDS[match.group(2)]


def _positive_limit(limit: int) -> int:
    if limit < 1:
        raise HermesError(f"--limit {limit} would show nothing -> give 1 or more (default: 20)")
    return limit


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
        title = row.get("title") or (row.get("preview") or "")[:50] or "-"
        chain = f" ({len(row['chain'])} linked)" if len(row.get("chain") or []) > 1 else ""
        print(f"{row['id']}  {_when(row.get('last_active'))}  {row.get('source', '-'):<8} {row.get('chain_message_count', 0):>5} msgs  {title}{chain}")
    return 0


def _session_or_fail(store: Any, session_id: str) -> dict[str, Any]:
    row = store.get_session(session_id)
    if row is None:
        raise HermesError(f"no session {session_id!r} -> 'hermes sessions list' shows the ids")
    return row


def _tool_calls(stored: Any) -> list[tuple[str | None, str]]:
    """Stored tool calls as (name, arguments); a call of any other shape as (None, its JSON).

    The store keeps whatever a writer gave it (older versions, other programs, raw
    SQL), so show and export must cope with any value here.
    """
    if not stored:
        return []
    out: list[tuple[str | None, str]] = []
    for call in stored if isinstance(stored, list) else [stored]:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            arguments = function.get("arguments", "")
            out.append((function["name"], arguments if isinstance(arguments, str) else _json_text(arguments)))
        else:
            out.append((None, call if isinstance(call, str) else _json_text(call)))
    return out


def cmd_show(args: argparse.Namespace) -> int:
    with _open_store() as store:
        row = _session_or_fail(store, args.session_id)
        messages = store.get_messages(args.session_id)
    if args.json:
        print_json({"session": row, "messages": messages})
        return 0
    print(f"session {row['id']}  {row.get('title') or ''}  started {_when(row.get('started_at'))}  model {row.get('model') or '-'}")
    for message in messages:
        print(f"\n[{message.get('role')}{' ' + str(message['tool_name']) if message.get('tool_name') else ''}]")
        if message.get("content"):
            print(message["content"])
        for name, arguments in _tool_calls(message.get("tool_calls")):
            print(f"-> {name}({arguments})" if name is not None else f"-> (as stored) {arguments}")
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
        print(f"{hit.session_id}  #{hit.message_id}  {hit.role:<9} {_when(hit.timestamp)}  {hit.snippet}")
    return 0


def _markdown(row: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    lines = [f"# {row.get('title') or 'Session ' + row['id']}", "", f"- id: `{row['id']}`", f"- started: {_when(row.get('started_at'))}", f"- model: {row.get('model') or '-'}", ""]
    for message in messages:
        heading = str(message.get("role")).capitalize() + (f" ({message['tool_name']})" if message.get("tool_name") else "")
        lines += [f"## {heading}", ""]
        if message.get("content"):
            lines += [str(message["content"]), ""]
        for name, arguments in _tool_calls(message.get("tool_calls")):
            lines += [f"Tool call `{name}`: `{arguments}`" if name is not None else f"Tool call (as stored): `{arguments}`", ""]
    return "\n".join(lines)


def _wire(message: dict[str, Any]) -> dict[str, Any]:
    wire = {"role": message["role"], "content": message.get("content")}
    for key in ("tool_calls", "tool_call_id", "tool_name"):
        if message.get(key):
            wire[key] = message[key]
    return wire


def _write_export(path: Path, text: str, *, example: str) -> None:
    """Write *text* to *path* atomically with mode 0600; never creates a directory."""
    from hermes_core.files import atomic_write_text

    if path.is_dir():
        raise HermesError(f"{path} is a directory -> give a file name, e.g. -o {path / example}")
    parent = path.parent
    if not parent.exists():
        # atomic_write_text would create it: a typo in the path should fail, not leave directories behind
        raise HermesError(f"cannot write {path}: the directory {parent} does not exist -> create it first or choose another path")
    if not parent.is_dir():
        raise HermesError(f"cannot write {path}: {parent} is not a directory -> choose another path")
    try:
        atomic_write_text(path, text, exact_mode=EXPORT_MODE)
    except OSError as exc:
        raise HermesError(f"cannot write {path} ({exc.strerror or exc}) -> choose another path") from exc


def cmd_export(args: argparse.Namespace) -> int:
    with _open_store() as store:
        row = _session_or_fail(store, args.session_id)
        messages = store.get_messages(args.session_id)
    text = _markdown(row, messages) if args.format == "md" else "".join(json.dumps(_wire(m), ensure_ascii=False) + "\n" for m in messages)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    _write_export(args.output, text, example=f"{args.session_id}.{args.format}")
    print(f"wrote {len(messages)} messages to {args.output}", file=sys.stderr)
    return 0


_TOOL_CALL_SHAPE = '[{"id": "call_1", "type": "function", "function": {"name": "...", "arguments": "<JSON text>"}}]'


def _json_kind(value: Any) -> str:
    kinds = {str: "a string", bool: "true/false", int: "a number", float: "a number", dict: "an object", list: "a list"}
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


def _check_tool_calls(where: str, calls: Any) -> None:
    """Refuse tool calls that show, export and search could not read back as calls."""
    if calls is None:
        return
    if not isinstance(calls, list):
        raise HermesError(f"{where}: 'tool_calls' is {_json_kind(calls)} -> give a list of calls: {_TOOL_CALL_SHAPE}")
    for number, call in enumerate(calls, 1):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
            raise HermesError(f"{where}: tool call {number} has no function.name -> each call looks like {_TOOL_CALL_SHAPE}")
        if "arguments" in function and not isinstance(function["arguments"], str):
            raise HermesError(
                f"{where}: tool call {number} ({function['name']}): function.arguments is {_json_kind(function['arguments'])} "
                "-> give the arguments as a string of JSON text, as OpenAI's format does"
            )


def _chat_message(where: str, message: Any) -> dict[str, Any]:
    roles = ", ".join(sorted(_ROLES))
    if not isinstance(message, dict):
        raise HermesError(f"{where}: a chat message must be a JSON object with 'role' and 'content', not {type(message).__name__}")
    if "role" not in message:
        raise HermesError(f"{where}: the message has no 'role' -> add one of {roles}")
    if not isinstance(message["role"], str) or message["role"] not in _ROLES:
        raise HermesError(f"{where}: 'role' is {message['role']!r} -> use one of {roles}")
    _check_tool_calls(where, message.get("tool_calls"))
    for key in ("tool_call_id", "tool_name", "name"):
        if message.get(key) is not None and not isinstance(message[key], str):
            raise HermesError(f"{where}: '{key}' must be text, not {type(message[key]).__name__} -> write it as a string")
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("text") is not None]
        if not all(isinstance(t, str) for t in texts):
            raise HermesError(f"{where}: a content part's 'text' must be text -> write it as a string")
        content = "\n".join(texts)
    elif content is not None and not isinstance(content, str):
        raise HermesError(f"{where}: 'content' must be text or a list of parts, not {type(content).__name__}")
    kept = {k: v for k, v in dict(message, content=content).items() if k in {"role", "content", "tool_calls", "tool_call_id", "tool_name", "name"}}
    name = kept.pop("name", None)
    if name and kept["role"] == "tool":
        kept.setdefault("tool_name", name)
    return kept


#: The largest file ``sessions import`` reads (it is held in memory to be checked before anything is written).
MAX_IMPORT_BYTES = 1 << 30


def _read_lines(path: Path) -> list[str]:
    from hermes_core.files import read_limited_text

    try:
        # refuses FIFOs and devices (a FIFO would block, /dev/zero would fill memory), bounds the size,
        # names the line of a byte that is not UTF-8; a leading byte-order mark is fine
        return read_limited_text(path, MAX_IMPORT_BYTES, what="file to import").splitlines()
    except FileNotFoundError:
        raise HermesError(f"{path}: no such file -> check the path") from None


def read_chat_jsonl(path: Path) -> list[list[dict[str, Any]]]:
    """The conversations in ``path``; every line is read and checked first, so a bad file imports nothing.

    Two forms: one conversation per line (``{"messages": [...]}``, as in OpenAI's chat fine-tuning
    files), or one message per line, the whole file being one conversation.
    """
    lines = _read_lines(path)
    conversations: list[list[dict[str, Any]]] = []
    loose: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise HermesError(f"{path}:{number}: not JSON ({exc.msg}) -> each line must be a chat message or {{\"messages\": [...]}}") from exc
        except RecursionError:
            raise HermesError(f"{path}:{number}: the JSON is nested too deeply to be a chat message -> check the file") from None
        try:  # "\ud800" is valid JSON but cannot be stored as UTF-8 text
            json.dumps(item, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise HermesError(f"{path}:{number}: holds a lone surrogate (U+{ord(exc.object[exc.start]):04X}), which is not valid text -> fix the line") from None
        except (RecursionError, ValueError):
            raise HermesError(f"{path}:{number}: the JSON is nested too deeply to be a chat message -> check the file") from None
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
    from hermes_core.cli.progress import Progress

    done = 0
    progress = Progress("importing", unit="messages", minimum=IMPORT_BATCH + 1)
    with _open_store() as store, progress:
        progress.start(total)  # one job for the whole file, however many conversations it holds
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
                progress.update(done)
            done += len(conversation) - len(body)
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
        print_json(asdict(stats))
        return 0
    print(f"schema version   {stats.schema_version}")
    print(f"sessions         {stats.sessions}")
    print(f"messages         {stats.messages} ({', '.join(f'{r} {n}' for r, n in sorted(stats.messages_by_role.items()))})")
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
