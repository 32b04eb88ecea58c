"""``hermes memory export`` / ``import``: memories as provider-agnostic JSON Lines records."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.cli.arguments import path_argument
from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager
    from hermes_core.memory.records import MemoryRecord

#: Records handed to import_memories() per call; each batch is checkpointed after it is stored.
IMPORT_BATCH = 50
#: Bad lines listed when a file is refused.
SHOWN_ERRORS = 10


def add_arguments(commands: Any) -> None:
    export = commands.add_parser("export", help="write a provider's memories to FILE.jsonl (one record per line)")
    export.add_argument("file", type=path_argument, metavar="FILE.jsonl", help="where to write ('-' for stdout)")
    export.add_argument("--provider", metavar="NAME", help="provider to export (default: memory.provider, else the built-in memory)")
    export.add_argument("--force", action="store_true", help="replace FILE.jsonl if it already exists")
    export.add_argument("--json", action="store_true", help="print a JSON summary")
    export.set_defaults(func=cmd_export)

    load = commands.add_parser("import", help="store the records of FILE.jsonl in a provider (the whole file is checked first)")
    load.add_argument("file", type=path_argument, metavar="FILE.jsonl", help="the file 'hermes memory export' wrote ('-' for stdin)")
    load.add_argument("--provider", metavar="NAME", help="provider to import into (default: memory.provider, else the built-in memory)")
    load.add_argument("--dry-run", action="store_true", help="check the file and count what would be imported")
    load.add_argument("--again", action="store_true", help="import records imported before too (to restore entries removed since)")
    load.add_argument("--json", action="store_true", help="print a JSON summary")
    load.set_defaults(func=cmd_import)


def _target(manager: PluginManager, name: str | None, *, reading: bool = False) -> Any:
    """The provider named (or selected by memory.provider), loaded, available and initialized."""
    from hermes_core.cli.memory_common import BUILTIN_ONLY
    from hermes_core.cli.memory_switch import builtin_provider, resolve_provider

    choice = name if name is not None else (manager.config.get("memory.provider", "") or "")
    if not isinstance(choice, str):
        raise HermesError(f"{manager.home / 'config.yaml'}: memory.provider must be a name -> run 'hermes memory setup'")
    if choice.lower() in BUILTIN_ONLY:
        provider = builtin_provider(manager)
    else:
        provider = resolve_provider(manager, choice, from_config=name is None)[1]
    # an export only reads: no background fetches or resends (they could outlive the command)
    start = provider.initialize_for_inspection if reading else provider.initialize
    try:
        start(f"memory-transfer-{uuid.uuid4()}", hermes_home=str(manager.home), platform="cli", agent_context="primary")
    except Exception as exc:  # provider code
        raise HermesError(f"memory provider '{provider.name}' failed to start: {type(exc).__name__}: {exc} -> check 'hermes memory status'") from exc
    return provider


# -- export --


def _refuse_overwrite(path: Path, force: bool) -> None:
    """An existing FILE (or a link by that name) is replaced only when --force says so: it may be the only copy."""
    from hermes_core.cli.sessions_transfer import is_stream

    if force or path.is_dir() or not os.path.lexists(path) or is_stream(path):
        return  # a directory is refused, with its own hint, when the file is written
    raise HermesError(f"{path} already exists, and 'hermes memory export' does not replace a file unasked -> "
                      "add --force to overwrite it, or give another file name")


def cmd_export(args: argparse.Namespace) -> int:
    from hermes_core.cli.memory_common import plugin_manager
    from hermes_core.memory.records import MemoryExportUnsupported, RecordError, coerce_records

    to_file = str(args.file) != "-"
    if to_file:
        _refuse_overwrite(args.file, args.force)  # before any provider starts: a refusal costs and changes nothing
    manager = plugin_manager()
    provider = _target(manager, args.provider, reading=True)
    try:
        records = list(coerce_records(provider.export_memories(), origin=f"memory provider '{provider.name}'"))
    except MemoryExportUnsupported as exc:
        raise HermesError(f"{exc} -> 'hermes memory switch NAME --backfill' rebuilds another provider from the built-in memory and stored conversations") from None
    except RecordError as exc:
        raise HermesError(f"{exc} -> report it to the provider's author; nothing was written") from None
    except Exception as exc:  # provider code
        raise HermesError(f"memory provider '{provider.name}' failed to export: {type(exc).__name__}: {exc}; nothing was written") from exc
    finally:
        _shutdown(provider)
    text = "".join(record.to_json() + "\n" for record in records)
    if not to_file:
        from hermes_core.cli.output import document_stream

        document_stream().write(text)
    else:
        from hermes_core.cli.sessions import _write_export

        _refuse_overwrite(args.file, args.force)  # again: the export may have taken a while
        _write_export(args.file, text, example="memories.jsonl", option="")  # FILE is positional here
    if args.json and to_file:
        print_json({"provider": provider.name, "file": str(args.file), "records": len(records)})
    else:
        print(f"wrote {len(records)} record{'' if len(records) == 1 else 's'} from {provider.name} to {args.file if to_file else 'standard output'}", file=sys.stderr)
    return 0


# -- import --


#: How standard input is named, given as ``-``.
STDIN = "standard input"


def read_records(path: Path) -> list[MemoryRecord]:
    """Every record of the file (``-``: standard input), or one error listing the bad lines; nothing is imported from
    a bad file."""
    from hermes_core.files import UnreadableFileError, read_limited_bytes, read_stdin_text

    if str(path) == "-":
        text = read_stdin_text(1 << 30, what="records to import")
        return _parsed(text, STDIN)
    if path.is_dir():
        raise HermesError(f"{path} is a directory -> give the .jsonl file 'hermes memory export' wrote")
    try:  # a regular file of bounded size: a FIFO would block, /dev/zero would fill memory
        data = read_limited_bytes(path, 1 << 30, what="file to import")
        # utf-8-sig: a byte-order mark (Notepad, PowerShell's Out-File) is the encoding's, not the first line's
        text = data.decode("utf-8-sig")
    except UnreadableFileError as exc:
        raise HermesError(f"{exc}; nothing was imported") from None
    except FileNotFoundError:
        raise HermesError(f"{path} does not exist -> give the file 'hermes memory export' wrote") from None
    except UnicodeDecodeError as exc:
        utf16 = " (it is UTF-16, as PowerShell's '>' writes)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise HermesError(f"{path} is not UTF-8 text{utf16}: byte 0x{data[exc.start]:02x} at offset {exc.start} "
                          "-> save it as UTF-8; nothing was imported") from None
    except OSError as exc:
        raise HermesError(f"cannot read {path} ({exc.strerror or exc}) -> check the path and its permissions") from None
    return _parsed(text, str(path))


def _parsed(text: str, where: str) -> list[MemoryRecord]:
    from hermes_core.memory.records import parse_jsonl

    records, errors = parse_jsonl(text.splitlines())
    if errors:
        lines = [f"  {where}:{e.line}: {e.message}" for e in errors[:SHOWN_ERRORS]]
        more = f"\n  ... and {len(errors) - SHOWN_ERRORS} more bad lines" if len(errors) > SHOWN_ERRORS else ""
        raise HermesError(f"{where}: {len(errors)} bad line(s); nothing was imported -> fix them and run the import again\n" + "\n".join(lines) + more)
    return records


def record_item(record: MemoryRecord) -> str:
    """The checkpoint name of a record: the same record imported again is recognised."""
    digest = hashlib.sha256("\x1f".join((record.text, record.kind, record.peer, record.source)).encode("utf-8")).hexdigest()[:32]
    return f"import:{digest}"


def cmd_import(args: argparse.Namespace) -> int:
    from hermes_core.cli.memory_common import plugin_manager
    from hermes_core.cli.memory_switch import open_store

    records = read_records(args.file)
    unique = list({record_item(r): r for r in records}.items())
    manager = plugin_manager()
    provider = _target(manager, args.provider)
    store = open_store(manager)
    try:
        ledger = store.memory_backfill_ledger(provider.name)
        done = set() if args.again else ledger.done_items("import:")
        pending = [(item, r) for item, r in unique if item not in done]
        source = STDIN if str(args.file) == "-" else str(args.file)
        summary = {"provider": provider.name, "file": source, "records": len(records), "duplicates_in_file": len(records) - len(unique),
                   "imported_before": len(unique) - len(pending), "to_import": len(pending), "dry_run": bool(args.dry_run)}
        if args.dry_run:
            _check(provider, pending, source)
        else:
            summary["imported"], summary["added"] = _import(provider, ledger, pending, source)
            # what the provider already held (the built-in's own export read back, say) is not new
            summary["already_present"] = None if summary["added"] is None else summary["imported"] - summary["added"]
    finally:
        store.close()
        _shutdown(provider)
    if args.json:
        print_json(summary)
    elif args.dry_run:
        print(f"{source}: {len(records)} valid records; would import {len(pending)} into {provider.name} "
              f"({summary['imported_before']} imported before); dry run: nothing was changed")
    else:
        print(_import_line(summary))
    return 0


def _import_line(summary: dict[str, Any]) -> str:
    line = f"imported {summary['imported']} record{'' if summary['imported'] == 1 else 's'} into {summary['provider']}"
    if summary["added"] is not None and summary["imported"]:
        line += f": {summary['added']} added, {summary['already_present']} already present"
    if summary["imported_before"]:
        line += f"; {summary['imported_before']} imported before were skipped"
    return line


def _check(provider: Any, pending: list[tuple[str, MemoryRecord]], source: str) -> None:
    """A dry run asks a provider that can check records without storing them (the built-in: its scanner and limits)."""
    check = getattr(provider, "check_import", None)
    if not callable(check) or not pending:
        return
    try:
        check([record for _, record in pending])
    except Exception as exc:  # provider code, or the built-in's refusal
        cause, fix = _explained(exc, source)
        raise HermesError(f"importing into {provider.name} would stop: {cause} -> {fix}; dry run: nothing was changed") from None


def _explained(exc: BaseException, source: str) -> tuple[str, str]:
    """A provider's refusal as (cause, what to do), naming the file to edit when one record was refused."""
    from hermes_core.errors import split_cause_and_fix

    cause, fix = split_cause_and_fix(getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
    fix = fix.rstrip(". ")
    if getattr(exc, "record", None) is not None:  # one record the provider will not store: the file must change
        if source == STDIN:  # nothing to edit in place: the records must be kept in a file first
            return cause, f"save the records to a file, {fix or 'change that record'} there (or delete that record), and import that file; records already imported are skipped"
        return cause, f"{fix or 'change it'} in {source} (or delete that record), then run the same import again; records already imported are skipped"
    then = "run the same import again; records already imported are skipped"
    return cause, (f"{fix}; then {then}" if fix else f"fix the cause and {then}")


def _import(provider: Any, ledger: Any, pending: list[tuple[str, MemoryRecord]], source: str) -> tuple[int, int | None]:
    from hermes_core.cli.progress import Progress

    with Progress(f"importing into {provider.name}", unit="records", minimum=IMPORT_BATCH + 1) as progress:
        return _import_batches(provider, ledger, pending, progress, source)


def _import_batches(provider: Any, ledger: Any, pending: list[tuple[str, MemoryRecord]], progress: Any, source: str) -> tuple[int, int | None]:
    """(records handed over, how many of them the provider stored as new: None when it did not say)."""
    from hermes_core.memory.fallback_import import ImportUnsupported

    imported, added = 0, 0
    counted = True
    for start in range(0, len(pending), IMPORT_BATCH):
        batch = pending[start : start + IMPORT_BATCH]
        try:
            stored = provider.import_memories([record for _, record in batch])
            if provider.flush_writes(60.0) is False:
                raise TimeoutError("flush_writes() did not confirm the import within 60 s")
        except ImportUnsupported as exc:
            raise HermesError(str(exc)) from None
        except Exception as exc:  # provider code (or the built-in's refusal: no room, injected text)
            cause, fix = _explained(exc, source)
            raise HermesError(f"import into {provider.name} stopped after {imported} of {len(pending)} records: {cause} -> {fix}") from None
        ledger.record_done([item for item, _ in batch])
        imported += len(batch)
        if isinstance(stored, int) and not isinstance(stored, bool) and 0 <= stored <= len(batch):
            added += stored
        else:  # the contract asks for the count stored; a provider that returns anything else did not say
            counted = False
        progress(imported, len(pending))
    return imported, (added if counted else None)


def _shutdown(provider: Any) -> None:
    try:
        provider.shutdown()
    except Exception:  # provider code; everything it stored was confirmed already
        pass
