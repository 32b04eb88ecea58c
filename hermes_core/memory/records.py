"""Provider-agnostic memory records: what ``export_memories()`` yields and ``import_memories()`` takes.

A record is one thing a memory backend knows, in a shape every backend can read:

``text``        the memory itself, as a sentence ("The user prefers tabs over spaces.")
``kind``        what sort of memory: ``fact``, ``preference``, ``note``, ``profile``,
                ``conclusion``, ``message`` (or another lower-case word a backend uses)
``peer``        whom it is about: ``user``, ``assistant``, or a backend's own peer/user id
``created_at``  when the backend first stored it (ISO 8601, UTC), ``None`` when unknown
``source``      where it came from, stable across exports (``mem0:<id>``, ``builtin:user``,
                ``session:<id>:message:<n>``); importers may use it to skip what they already hold
``metadata``    anything else worth carrying (JSON values only)

Records travel as JSON Lines (``hermes memory export`` / ``import``), one object per line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

#: Kinds every backend should understand; others are allowed when they are one lower-case word.
KNOWN_KINDS = ("fact", "preference", "note", "profile", "conclusion", "message")
DEFAULT_KIND = "fact"
DEFAULT_PEER = "user"
#: The fields a record line may hold; ``user`` is read as ``peer`` (Mem0 and others call it so).
RECORD_FIELDS = ("text", "kind", "peer", "created_at", "source", "metadata")
_KIND = re.compile(r"[a-z][a-z0-9_-]{0,39}")
MAX_TEXT_CHARS = 100_000


class RecordError(ValueError):
    """A record that cannot be imported: ``field`` names the part at fault, ``str()`` says why and how to fix it."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class MemoryExportUnsupported(NotImplementedError):
    """Raised by the default ``export_memories()``: the provider cannot list what it holds."""


@dataclass(frozen=True)
class MemoryRecord:
    """One memory in the provider-agnostic shape (see the module docstring for the fields)."""

    text: str
    kind: str = DEFAULT_KIND
    peer: str = DEFAULT_PEER
    created_at: str | None = None
    source: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        for name, value in _checked(self.text, self.kind, self.peer, self.created_at, self.source, self.metadata).items():
            object.__setattr__(self, name, value)

    # Read like a dict too, for providers written against records as plain JSON objects.
    def __getitem__(self, key: str) -> Any:
        if key not in RECORD_FIELDS and key != "user":
            raise KeyError(key)
        return getattr(self, "peer" if key == "user" else key)

    def get(self, key: str, default: Any = None) -> Any:
        """``record.get("text")`` as on the JSON object of the record (``user`` reads ``peer``)."""
        try:
            return self[key]
        except KeyError:
            return default

    def keys(self) -> tuple[str, ...]:
        return RECORD_FIELDS

    @property
    def timestamp(self) -> float | None:
        """``created_at`` as seconds since the epoch, for backends that take numbers."""
        return None if self.created_at is None else datetime.fromisoformat(self.created_at.replace("Z", "+00:00")).timestamp()

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of one export line (``metadata`` left out when empty)."""
        data: dict[str, Any] = {"text": self.text, "kind": self.kind, "peer": self.peer, "created_at": self.created_at, "source": self.source}
        if self.metadata:
            data["metadata"] = dict(self.metadata)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False)


def iso_utc(value: Any) -> str | None:
    """``value`` (ISO 8601 text, a datetime, or epoch seconds) as ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``; ``None`` stays ``None``.

    Raises :class:`RecordError` for anything else. Text without a zone is read as UTC.
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise RecordError(f"'created_at' must be an ISO 8601 date or time, not {value!r}", "created_at")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise RecordError(f"'created_at' must be a finite time, not {value!r}", "created_at")
        try:
            moment = datetime.fromtimestamp(value, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise RecordError(f"'created_at' {value!r} is out of range for a time", "created_at") from None
    elif isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise RecordError(f"'created_at' {value!r} is not an ISO 8601 time -> write it like 2025-03-01T14:30:00Z", "created_at") from None
    else:
        raise RecordError(f"'created_at' must be an ISO 8601 text, not {type(value).__name__}", "created_at")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    except (OverflowError, ValueError):
        raise RecordError(f"'created_at' {value!r} is out of range for a time", "created_at") from None


def _checked(text: Any, kind: Any, peer: Any, created_at: Any, source: Any, metadata: Any) -> dict[str, Any]:
    """The normalised field values, or :class:`RecordError` naming the field at fault."""
    if not isinstance(text, str):
        raise RecordError(f"'text' must be text, not {type(text).__name__}", "text")
    if not text.strip():
        raise RecordError("'text' is missing or empty -> every record needs the memory itself in 'text'", "text")
    if len(text) > MAX_TEXT_CHARS:
        raise RecordError(f"'text' is {len(text):,} characters; a memory record holds at most {MAX_TEXT_CHARS:,} -> split it", "text")
    kind = DEFAULT_KIND if kind in (None, "") else kind
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        raise RecordError(f"'kind' {kind!r} is not one lower-case word -> use one of {', '.join(KNOWN_KINDS)}", "kind")
    if peer is not None and not isinstance(peer, str):
        raise RecordError(f"'peer' must be text, not {type(peer).__name__}", "peer")
    peer = (peer or "").strip() or DEFAULT_PEER
    if source is None:
        source = ""
    if not isinstance(source, str):
        raise RecordError(f"'source' must be text, not {type(source).__name__}", "source")
    metadata = {} if metadata is None else metadata
    if not isinstance(metadata, Mapping):
        raise RecordError(f"'metadata' must be a JSON object, not {type(metadata).__name__}", "metadata")
    try:
        json.dumps(metadata, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise RecordError(f"'metadata' holds a value JSON cannot carry ({exc})", "metadata") from None
    return {"text": text, "kind": kind, "peer": peer, "created_at": iso_utc(created_at), "source": source, "metadata": dict(metadata)}


def record_from_dict(data: Any, *, fold_unknown: bool = False) -> MemoryRecord:
    """A checked :class:`MemoryRecord` from one decoded JSON object; :class:`RecordError` says what is wrong.

    Fields other than the record's are an error (a typo in a file should not pass silently), or
    with ``fold_unknown`` are kept under ``metadata`` (what a provider's export adds, e.g. its ids).
    """
    if isinstance(data, MemoryRecord):
        return data
    if not isinstance(data, Mapping):
        raise RecordError(f"a record must be a JSON object with at least 'text', not {type(data).__name__}")
    unknown = sorted(set(data) - set(RECORD_FIELDS) - {"user"}, key=str)
    if unknown and fold_unknown:
        metadata = data.get("metadata")
        extra = {str(k): data[k] for k in unknown}
        data = {k: v for k, v in data.items() if k not in extra}
        data["metadata"] = {**extra, **metadata} if isinstance(metadata, Mapping) else (extra if metadata is None else metadata)
    elif unknown:
        raise RecordError(f"unknown field(s) {', '.join(map(repr, unknown))} -> a record has {', '.join(RECORD_FIELDS)}; put the rest under 'metadata'", str(unknown[0]))
    if "peer" in data and "user" in data and data["peer"] != data["user"]:
        raise RecordError("'peer' and 'user' disagree -> give only one of them", "peer")
    return MemoryRecord(
        text=data.get("text"),  # type: ignore[arg-type]
        kind=data.get("kind"),  # type: ignore[arg-type]
        peer=data.get("peer", data.get("user")),  # type: ignore[arg-type]
        created_at=data.get("created_at"),
        source=data.get("source"),  # type: ignore[arg-type]
        metadata=data.get("metadata"),  # type: ignore[arg-type]
    )


def coerce_records(items: Iterable[Any], *, origin: str) -> Iterator[MemoryRecord]:
    """Check what a provider's ``export_memories()`` yielded (extra fields kept under metadata); ``origin`` names it in errors."""
    for number, item in enumerate(items, 1):
        try:
            yield record_from_dict(item, fold_unknown=True)
        except RecordError as exc:
            raise RecordError(f"{origin} record {number}: {exc}", exc.field) from None


@dataclass(frozen=True)
class LineError:
    """One bad line of a JSON Lines file."""

    line: int
    message: str


def parse_jsonl(lines: Iterable[str]) -> tuple[list[MemoryRecord], list[LineError]]:
    """Every record of a JSON Lines text, and every bad line (blank lines are skipped)."""
    records: list[MemoryRecord] = []
    errors: list[LineError] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            errors.append(LineError(number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        except RecursionError:  # arrays or objects nested thousands deep: no record is written that way
            errors.append(LineError(number, "not a record: its JSON is nested too deeply to read"))
            continue
        try:
            records.append(record_from_dict(data))
        except RecordError as exc:
            errors.append(LineError(number, str(exc)))
    return records, errors
