"""``hermes sessions export`` and ``import``: transcripts out as JSONL or Markdown, OpenAI chat JSONL in."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

from hermes_core.cli.output import print_json
from hermes_core.cli.sessions_store import _ROLES, IMPORT_BATCH, _open_store, _session_or_fail, _tool_calls, _when
from hermes_core.errors import HermesError

#: Exported transcripts are as private as state.db itself.
EXPORT_MODE = 0o600


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


def _write_export(path: Path, text: str, *, example: str, option: str = "-o ") -> None:
    """Write *text* to *path* atomically with mode 0600; never creates a directory.

    *option* is how the command takes the file (``-o FILE``; ``""`` where FILE is positional)."""
    from hermes_core.files import atomic_write_text

    if path.is_dir():
        raise HermesError(f"{path} is a directory -> give a file name, e.g. {option}{path / example}")
    if is_stream(path):  # written into, as a shell's '>' would: the atomic replace would put a file in its place
        try:
            own = next((s for s in (sys.stdout, sys.stderr) if _same_file(path, s)), None)
            if own is not None:  # /dev/stdout: through our own stream, so the text keeps its place among our other output
                own.write(text)
                own.flush()
                return
            with open(path, "a", encoding="utf-8") as stream:
                stream.write(text)
        except OSError as exc:
            raise HermesError(f"cannot write {path} ({exc.strerror or exc}) -> choose another path") from exc
        return
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


def _same_file(path: Path, stream: Any) -> bool:
    try:
        return os.path.samestat(os.stat(path), os.fstat(stream.fileno()))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # a StringIO, a closed stream
        return False


def is_stream(path: Path) -> bool:
    """Whether *path* is a device, a FIFO, or reaches one through /dev or /proc (/dev/stdout, /dev/fd/1,
    /proc/self/fd/1, which may lead to a redirected file): written into, never replaced or refused as a file."""
    current, hops = Path(os.path.abspath(path)), 0
    while hops < 40:
        if current.parts[1:2] in (("dev",), ("proc",)):
            return True
        if not current.is_symlink():
            return current.exists() and not current.is_file() and not current.is_dir()
        current, hops = Path(os.path.abspath(current.parent / os.readlink(current))), hops + 1
    return False


def _refuse_overwrite(path: Path | None, force: bool) -> None:
    """An existing file (or a link by that name) is replaced only with --force: it may be the only copy."""
    if path is None or force or path.is_dir() or not os.path.lexists(path) or is_stream(path):
        return
    raise HermesError(f"{path} already exists -> add --force to overwrite it, or give another file name")


def cmd_export(args: argparse.Namespace) -> int:
    force = bool(getattr(args, "force", False))
    _refuse_overwrite(args.output, force)  # before the store opens: a refusal changes nothing
    with _open_store() as store:
        row = _session_or_fail(store, args.session_id)
        messages = store.get_messages(row["id"])
    text = _markdown(row, messages) if args.format == "md" else "".join(json.dumps(_wire(m), ensure_ascii=False) + "\n" for m in messages)
    if args.output is None:
        from hermes_core.cli.output import document_stream, terminal_safe

        out = document_stream()  # stdout itself, also while --json sends other prints to stderr
        if args.format == "md" and out.isatty():  # a person reads it: stored text must not drive their terminal
            text = terminal_safe(text)
        out.write(text)
        return 0
    _refuse_overwrite(args.output, force)  # again: another program may have written it meanwhile
    _write_export(args.output, text, example=f"{args.session_id}.{args.format}")
    if getattr(args, "json", False):
        from hermes_core.cli.output import print_json

        print_json({"session_id": row["id"], "file": str(args.output), "format": args.format, "messages": len(messages)})
    else:
        print(f"wrote {len(messages)} message{'' if len(messages) == 1 else 's'} to {args.output}", file=sys.stderr)
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
        raise HermesError(f"{where}: a chat message must be a JSON object with 'role' and 'content', not {_json_kind(message)} "
                          "-> write each line as {\"role\": \"user\", \"content\": \"...\"} or {\"messages\": [...]}")
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
        raise HermesError(f"{where}: 'content' must be text or a list of parts, not {type(content).__name__} -> write it as a string, or as [{{\"type\": \"text\", \"text\": \"...\"}}]")
    kept = {k: v for k, v in dict(message, content=content).items() if k in {"role", "content", "tool_calls", "tool_call_id", "tool_name", "name"}}
    name = kept.pop("name", None)
    if name and kept["role"] == "tool":
        kept.setdefault("tool_name", name)
    return kept


#: The largest file ``sessions import`` reads (it is held in memory to be checked before anything is written).
MAX_IMPORT_BYTES = 1 << 30


def _read_lines(path: Path) -> list[str]:
    from hermes_core.files import read_limited_text, read_stdin_text

    if str(path) == "-":  # `hermes sessions export ID | hermes -p other sessions import -`
        return read_stdin_text(MAX_IMPORT_BYTES, what="file to import").splitlines()
    try:
        # refuses FIFOs and devices (a FIFO would block, /dev/zero would fill memory), bounds the size,
        # names the line of a byte that is not UTF-8; a leading byte-order mark is fine
        return read_limited_text(path, MAX_IMPORT_BYTES, what="file to import").splitlines()
    except FileNotFoundError:
        raise HermesError(f"{path}: no such file -> check the path") from None


def _refuse_one_document(path: Path, lines: list[str], number: int) -> None:
    """A .json file (a list, or an object spread over lines) where JSON Lines belong: say so, and how to convert it."""
    if any(line.strip() for line in lines[: number - 1]):
        return  # an earlier line was fine: this is a JSON Lines file with a bad line
    try:
        document = json.loads("\n".join(lines))
    except (ValueError, RecursionError):
        return
    if not isinstance(document, (list, dict)) or (isinstance(document, list) and not all(isinstance(i, dict) for i in document)):
        return  # not messages or conversations either: the line's own error says more
    kind, filter_ = ("list", "'.[]'") if isinstance(document, list) else ("object", ".")
    spread = " spread over several lines" if isinstance(document, dict) or len([ln for ln in lines if ln.strip()]) > 1 else ""
    target = "chats" if str(path) == "-" else Path(path).stem
    if f"{target}.jsonl" == Path(path).name:
        target += "-lines"  # jq must not write over the file it reads
    raise HermesError(f"{path} is one JSON {kind}{spread}, not JSON Lines (one message or conversation per line) -> "
                      f"convert it: jq -c {filter_} {path} > {target}.jsonl, then import that file")


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
            _refuse_one_document(path, lines, number)
            raise HermesError(f"{path}:{number}: not JSON ({exc.msg}) -> each line must be a chat message or {{\"messages\": [...]}}") from exc
        except RecursionError:
            raise HermesError(f"{path}:{number}: the JSON is nested too deeply to be a chat message -> check the file") from None
        try:  # "\ud800" is valid JSON but cannot be stored as UTF-8 text
            json.dumps(item, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise HermesError(f"{path}:{number}: holds a lone surrogate (U+{ord(exc.object[exc.start]):04X}), which is not valid text -> fix the line") from None
        except (RecursionError, ValueError):
            raise HermesError(f"{path}:{number}: the JSON is nested too deeply to be a chat message -> check the file") from None
        if isinstance(item, list):
            _refuse_one_document(path, lines, number)
        if isinstance(item, dict) and "messages" in item:
            if not isinstance(item["messages"], list):
                raise HermesError(f"{path}:{number}: 'messages' must be a list of chat messages, not {_json_kind(item['messages'])} "
                                  "-> write it as {\"messages\": [{\"role\": \"user\", \"content\": \"...\"}, ...]}")
            conversations.append([_chat_message(f"{path}:{number}: message {i}", m) for i, m in enumerate(item["messages"], 1)])
        else:
            loose.append(_chat_message(f"{path}:{number}", item))
    if conversations and loose:
        raise HermesError(f"{path}: mixes conversation lines ({{\"messages\": [...]}}) with message lines -> use one form per file")
    found = [c for c in (conversations or [loose]) if any(m["role"] != "system" for m in c)]
    if not found:
        raise HermesError(f"{path}: no messages found (the file is empty, or holds only system messages) "
                          "-> give a file of chat messages, one per line or {\"messages\": [...]} per line")
    return found


#: Names the ids of imported conversations (uuid5); any fixed UUID would do, this one must never change.
_IMPORT_NAMESPACE = "7d0b4a8e-3c51-4f0e-9a37-5b8f2d6c1e94"


def conversation_session_id(conversation: list[dict[str, Any]]) -> str:
    """The session id an imported conversation gets: derived from its messages, so importing it again finds it.

    A UUID like every other session id (version 5, named by a digest of the conversation as read).
    """
    import hashlib
    import uuid

    namespace = uuid.UUID(_IMPORT_NAMESPACE)
    canonical = json.dumps(conversation, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return str(uuid.uuid5(namespace, hashlib.sha256(canonical.encode("utf-8")).hexdigest()))


def _stored_prefix(store: Any, session_id: str, body: list[dict[str, Any]]) -> int | None:
    """How many of ``body``'s messages the existing session already holds, or None when it holds something else.

    A process killed half-way through a conversation leaves its first messages stored under the
    conversation's id; the next import appends the rest instead of skipping a half conversation.
    """
    stored = [(m.get("role"), m.get("content")) for m in store.get_messages(session_id) if m.get("role") != "system"]
    if len(stored) <= len(body) and stored == [(m["role"], m.get("content")) for m in body[: len(stored)]]:
        return len(stored)
    return None


def cmd_import(args: argparse.Namespace) -> int:
    conversations = read_chat_jsonl(args.file)
    total = sum(len(c) for c in conversations)
    from hermes_core.cli.progress import Progress

    done = 0
    outcomes: list[dict[str, Any]] = []
    progress = Progress("importing", unit="messages", minimum=IMPORT_BATCH + 1)
    with _open_store() as store, progress:
        progress.start(total)  # one job for the whole file, however many conversations it holds
        for conversation in conversations:
            system = next((m["content"] for m in conversation if m["role"] == "system"), None)
            body = [m for m in conversation if m["role"] != "system"]
            session_id, already, created = None, 0, True
            if not args.again:
                session_id = conversation_session_id(conversation)
                if store.get_session(session_id) is not None:
                    prefix = _stored_prefix(store, session_id, body)
                    already, created = (len(body) if prefix is None else prefix), False
            if created:
                try:
                    session_id = store.create_session(session_id, source=args.source, system_prompt=system)
                except _session_exists_error():
                    # another host sharing the store imported it between the look above and this write
                    already, created = len(body), False
            if created and args.title:
                store.set_title(session_id, args.title, auto_number=True)  # "Title", "Title #2", ...
            try:
                for start in range(already, len(body), IMPORT_BATCH):
                    chunk = body[start : start + IMPORT_BATCH]
                    store.append_messages(session_id, chunk)
                    done += len(chunk)
                    progress.update(done)
            except BaseException:
                # a conversation is imported whole or not at all: Ctrl-C or a failing store half-way
                # must not leave half of it looking like a session of its own
                if created:
                    try:
                        store.delete_session(session_id)
                    except Exception:  # the store itself failed; what is left is finished by the next run
                        pass
                print(f"hermes: {_stopped(outcomes, len(conversations))}", file=sys.stderr)
                raise
            done += len(conversation) - len(body) + already
            status = "skipped" if already == len(body) else "imported" if created else "completed"
            row = store.get_session(session_id) or {}
            outcomes.append({"id": session_id, "messages": len(body), "title": row.get("title"), "status": status})
            if not args.json:
                print(_outcome_line(status, len(body), already, session_id))
    if args.json:
        print_json({"file": str(args.file), "sessions": outcomes})
    return 0


def _session_exists_error() -> type[Exception]:
    """The state store's "that session id is taken" error (the store module is loaded by then)."""
    import importlib

    from hermes_core.cli.sessions_store import STATE_PLUGIN_MODULE

    return importlib.import_module(STATE_PLUGIN_MODULE).SessionExistsError  # type: ignore[no-any-return]


def _outcome_line(status: str, messages: int, already: int, session_id: str) -> str:
    counted = f"{messages} message{'' if messages == 1 else 's'}"
    if status == "skipped":
        return f"skipped {counted} already imported as session {session_id}"
    if status == "completed":
        return f"imported the last {messages - already} of {counted} into session {session_id}"
    return f"imported {counted} as session {session_id}"


def _stopped(outcomes: list[dict[str, Any]], total: int) -> str:
    """What a stopped import tells the user: what is stored, and that running it again finishes the job."""
    return (f"import stopped after {len(outcomes)} of {total} conversations -> run the same command again: "
            "it skips the conversations already imported and writes the rest")
