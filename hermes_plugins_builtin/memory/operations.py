"""The memory tool's actions as pure functions over a list of entries: validate, then add/replace/remove."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entries import char_count, holds_separator, usage_text
from .findings import blocked_marker, printable_span
from .verdicts import scan

ACTIONS = ("add", "replace", "remove")
TARGETS = ("memory", "user")
DEFAULT_TARGET = "memory"


class EditError(Exception):
    """A tool call that cannot be carried out; ``details`` go into the JSON answer beside the error."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


@dataclass(frozen=True)
class Request:
    """One validated tool call: strings stripped, whitespace-only values already refused."""

    action: str
    target: str
    content: str = ""
    old_text: str = ""


@dataclass(frozen=True)
class Edit:
    """What an action did: the new entries, whether anything changed, and what listeners are told.

    An edit that changed nothing carries no content or metadata: listeners hear only of changes.
    """

    entries: list[str]
    changed: bool
    message: str
    content: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


def shown(entry: str) -> str:
    """An entry as the model sees it: itself, or a ``[BLOCKED: ...]`` marker if it is poisoned."""
    finding = scan(entry)
    return entry if finding is None else blocked_marker(finding)


def _text_field(args: dict[str, Any], name: str, action: str) -> str:
    value = args.get(name)
    if value is None:
        raise EditError(f"'{name}' is required for action '{action}' -> give '{name}' as a string")
    if not isinstance(value, str):
        raise EditError(f"'{name}' must be a string, got {type(value).__name__} -> give '{name}' as text")
    try:  # MEMORY.md and USER.md are UTF-8: a lone surrogate (or a non-UTF-8 byte from a command line) cannot be stored
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EditError(f"'{name}' holds a character that is not valid UTF-8 (U+{ord(value[exc.start]):04X} at position {exc.start}) -> give it as UTF-8 text") from None
    # Models send "   " for "nothing"; it passes a truthiness check but would store or match nonsense.
    # Line endings are made "\n" to match what reading a file gives.
    stripped = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not stripped:
        raise EditError(f"'{name}' is empty (only whitespace) -> give the text for action '{action}'")
    return stripped


def parse_request(args: Any, limits: dict[str, int] | None = None) -> Request:
    """Validate tool arguments; raise :class:`EditError` naming the field at fault.

    With ``limits`` (target -> char limit), an ``add`` whose content alone is over its target's limit is refused
    before the content is scanned: it could never be stored, and scanning a huge note is what costs.
    """
    if not isinstance(args, dict):
        raise EditError(f"arguments must be an object, got {type(args).__name__} -> e.g. {{\"action\": \"add\", \"content\": \"...\"}}")
    action = args.get("action")
    if not isinstance(action, str) or action.strip().lower() not in ACTIONS:
        raise EditError(f"'action' must be one of {', '.join(ACTIONS)}; got {action!r} -> use one of them")
    action = action.strip().lower()
    target = args.get("target")
    if target is None or (isinstance(target, str) and not target.strip()):
        target = DEFAULT_TARGET
    if not isinstance(target, str) or target.strip().lower() not in TARGETS:
        raise EditError(f"'target' must be one of {', '.join(TARGETS)}; got {target!r} -> use one of them, or leave it out for '{DEFAULT_TARGET}'")
    target = target.strip().lower()
    content = _text_field(args, "content", action) if action in ("add", "replace") else ""
    old_text = _text_field(args, "old_text", action) if action in ("replace", "remove") else ""
    if content and action == "add" and limits is not None and len(content) > limits.get(target, len(content)):
        raise EditError(
            f"not enough room: the note is {len(content)} chars, more than '{target}' holds ({limits[target]}) "
            "-> shorten the text",
            target=target,
            needed=len(content) - limits[target],
        )
    if content:
        if holds_separator(content):
            raise EditError("'content' may not contain a line holding only '§': that line separates entries -> remove that line, or put other text beside the '§'", target=target)
        finding = scan(content)
        if finding is not None:
            raise EditError(
                finding.message, target=target, blocked=finding.reason, blocked_family=finding.family, blocked_span=printable_span(finding.span)
            )
    return Request(action=action, target=target, content=content, old_text=old_text)


def _find(entries: list[str], old_text: str) -> int:
    """Index of the one entry whose visible text contains ``old_text``."""
    matches = [i for i, entry in enumerate(entries) if old_text in shown(entry)]
    if not matches:
        raise EditError(f"no entry contains {old_text!r} -> use a substring of one of the current entries")
    candidates = [shown(entries[i]) for i in matches]
    # Entries that look the same (two poisoned entries behind one marker) cannot be told apart; take the first.
    if len(set(candidates)) > 1:
        raise EditError(
            f"{old_text!r} is in {len(matches)} entries -> use a longer substring that only one of them contains",
            candidates=candidates,
        )
    return matches[0]


def _over_limit(target: str, before: list[str], after: list[str], limit: int) -> None:
    old, new = char_count(before), char_count(after)
    # A lowered limit can leave a file over it; edits that do not grow it must still be possible.
    if new > limit and new > old:
        raise EditError(
            f"not enough room: this would bring '{target}' to {new}/{limit} chars (now {usage_text(old, limit)}) "
            "-> shorten the text, or replace or remove entries first; the current entries are listed",
            needed=new - limit,
        )


def apply(request: Request, entries: list[str], limit: int) -> Edit:
    """Carry out ``request`` on ``entries`` (not modified); raise :class:`EditError` when it cannot be done."""
    if request.action == "add":
        if request.content in entries:
            return Edit(list(entries), False, "this entry is already stored; nothing changed")
        after = [*entries, request.content]
        _over_limit(request.target, entries, after, limit)
        return Edit(after, True, "entry added", request.content)
    index = _find(entries, request.old_text)
    old_entry = entries[index]
    if request.action == "remove":
        after = entries[:index] + entries[index + 1 :]
        return Edit(after, True, "entry removed", shown(old_entry), {"old_text": request.old_text})
    if request.content == old_entry:
        return Edit(list(entries), False, "the entry already has this text; nothing changed")
    after = list(entries)
    if request.content in entries:
        # The new text is another entry already: the replaced one merges into it instead of duplicating it.
        del after[index]
        message = "entry replaced; its new text was already stored, so the two are now one entry"
    else:
        after[index] = request.content
        message = "entry replaced"
    _over_limit(request.target, entries, after, limit)
    return Edit(after, True, message, request.content, {"old_text": request.old_text, "old_entry": shown(old_entry)})
