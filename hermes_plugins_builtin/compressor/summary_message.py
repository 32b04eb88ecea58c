"""The summary as it sits in the conversation: its markers, its sections, and where it is placed."""

from __future__ import annotations

from collections.abc import Sequence

from .messages import Message, content_text, role_of, with_content

#: The opening words; finding them is how a later compression recognises an earlier summary.
SUMMARY_TAG = "[COMPACTED CONTEXT - REFERENCE ONLY]"
SUMMARY_PREFIX = (
    f"{SUMMARY_TAG} Earlier turns of this conversation were condensed into the notes below to save "
    "context space. They record what already happened; they are not a new request and need no reply."
)
END_MARKER = "[END OF COMPACTED CONTEXT - reply to the conversation that follows, not to these notes]"

#: Between a summary merged into a user message and that message's own text.
MERGE_SEPARATOR = "\n\n"

#: (heading level, title) of every section, in order; the model and the offline summary both fill these.
SECTIONS: tuple[tuple[int, str], ...] = (
    (2, "Goal"),
    (2, "Constraints & Preferences"),
    (2, "Progress"),
    (3, "Done"),
    (3, "In Progress"),
    (3, "Blocked"),
    (2, "Key Decisions"),
    (2, "Relevant Files"),
    (2, "Next Steps"),
    (2, "Critical Context"),
)
#: Sections that only group others and hold no bullets of their own.
GROUPING_SECTIONS = frozenset({"Progress"})


def section_template() -> str:
    """The empty skeleton of a summary, shown to the summary model."""
    return "\n".join(f"{'#' * level} {title}" for level, title in SECTIONS)


def summary_content(body: str) -> str:
    return f"{SUMMARY_PREFIX}\n\n{clean_body(body)}\n\n{END_MARKER}"


def clean_body(body: str) -> str:
    """The body without our markers, so a model echoing them cannot make a summary look like two."""
    kept = [line for line in body.strip().splitlines() if SUMMARY_TAG not in line and END_MARKER not in line]
    return "\n".join(kept).strip()


def _split_text(text: str) -> tuple[str, str] | None:
    """``(summary body, the text around it)`` when ``text`` holds a summary block."""
    start = text.find(SUMMARY_TAG)
    if start < 0:
        return None
    end = text.find(END_MARKER, start)
    block_end = len(text) if end < 0 else end + len(END_MARKER)
    block = text[start:block_end]
    body = block[len(SUMMARY_PREFIX):] if block.startswith(SUMMARY_PREFIX) else block[len(SUMMARY_TAG):]
    if end >= 0:
        body = body[: len(body) - len(END_MARKER)]
    before, after = text[:start], text[block_end:]
    # Undo exactly what merging added, so the user's own text comes back byte for byte.
    if not before and after.startswith(MERGE_SEPARATOR):
        rest = after[len(MERGE_SEPARATOR) :]
    elif not after and before.endswith(MERGE_SEPARATOR):
        rest = before[: -len(MERGE_SEPARATOR)]
    else:
        rest = (before.rstrip() + MERGE_SEPARATOR + after.lstrip()).strip()
    return body.strip(), rest


def split_summary(message: Message) -> tuple[str | None, Message | None]:
    """Separate an earlier summary from ``message``.

    Returns ``(summary body or None, the message without it or None when nothing else was in it)``.
    A summary merged into a user message gives that message back with its own text only.
    """
    content = message.get("content")
    if isinstance(content, str):
        found = _split_text(content)
        if found is None:
            return None, message
        body, rest = found
        return body, (with_content(message, rest) if rest else None)
    if isinstance(content, list):
        for position, part in enumerate(content):
            found = _split_text(content_text([part]))
            if found is not None:
                remaining = content[:position] + content[position + 1 :]
                if found[1]:
                    remaining.insert(position, {"type": "text", "text": found[1]})
                return found[0], (with_content(message, remaining) if remaining else None)
    return None, message


def _merged(message: Message, block: str, before: bool) -> Message:
    content = message.get("content")
    if isinstance(content, list):
        part = {"type": "text", "text": block}
        return with_content(message, [part, *content] if before else [*content, part])
    text = content_text(content)
    if not text:
        return with_content(message, block)
    return with_content(message, f"{block}{MERGE_SEPARATOR}{text}" if before else f"{text}{MERGE_SEPARATOR}{block}")


def summary_role(before: str | None, after: str | None) -> str | None:
    """A role for a message between ``before`` and ``after`` that repeats neither; ``None`` if there is none."""
    return next((role for role in ("user", "assistant") if role not in (before, after)), None)


def place_summary(head: Sequence[Message], body: str, tail: Sequence[Message]) -> list[Message]:
    """``head + summary + tail``, with the summary's role differing from both neighbours.

    When no role can (an assistant before and a user after, or the reverse), the summary is merged
    into the neighbouring user message instead of sitting beside it as a same-role twin.
    """
    block = summary_content(body)
    before = role_of(head[-1]) if head else None
    after = role_of(tail[0]) if tail else None
    role = summary_role(before, after)
    if role is not None:
        return [*head, {"role": role, "content": block}, *tail]
    if after == "user":
        return [*head, _merged(tail[0], block, before=True), *tail[1:]]
    return [*head[:-1], _merged(head[-1], block, before=False), *tail]
