"""The offline summary: facts picked out of the turns by rule, no model, the same output for the same input."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .messages import (
    Message,
    call_arguments,
    call_id,
    call_name,
    content_text,
    result_call_id,
    role_of,
    tool_calls_of,
)
from .summary_message import GROUPING_SECTIONS, SECTIONS

#: Longest bullet, in characters; a summary of verbatim paragraphs would not save much.
BULLET_CHARS = 220
#: Most bullets a section keeps; older ones fall off so that repeated compressions stay bounded.
SECTION_LIMIT = 8
LARGE_SECTION_LIMIT = 15
NONE_ITEM = "(none recorded)"
LATEST_REQUEST = "Latest request: "
#: Where a line of an earlier summary goes when it sits under no heading we know.
FALLBACK_SECTION = "Critical Context"

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")
_CONSTRAINT_CUES = re.compile(
    r"\b(?:must|never|always|don't|do not|avoid|prefer|only|without|make sure|should not|shouldn't|keep)\b", re.I
)
_DECISION_CUES = re.compile(
    r"\b(?:decided|decide to|chose|going with|will use|we'll use|i'll use|instead of|switched to|switch to|"
    r"settled on|opted)\b",
    re.I,
)
_NEXT_CUES = re.compile(r"\b(?:next|then|todo|remaining|still need|will now|i'll|we'll|afterwards|follow-up)\b", re.I)
_ERROR_CUES = re.compile(
    r"\b(?:error|exception|traceback|failed|failure|not found|permission denied|no such file|timed out)\b", re.I
)
_SHELL_LINE = re.compile(r"^\s*\$\s+(\S.*)$", re.M)
_PATH_TOKEN = re.compile(r"[\w~./@+-]+")
_HEADING = re.compile(r"^(#{2,3})\s+(.+?)\s*$")
_FILE_EXTENSIONS = frozenset(
    "py pyi js mjs ts tsx jsx json yaml yml toml md rst txt cfg ini conf sh bash zsh rs go java kt c h cc cpp hpp "
    "rb php css scss html sql csv lock env log xml ipynb dockerfile".split()
)
#: Tool argument keys that hold a shell command or a file path.
_COMMAND_KEYS = ("command", "cmd", "script")
_PATH_KEYS = ("path", "file", "file_path", "filename", "target", "directory")


def shorten(text: str, limit: int = BULLET_CHARS) -> str:
    """One line of at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s.strip()]


def _cued(texts: Sequence[str], cues: re.Pattern[str]) -> list[str]:
    return [shorten(sentence) for text in texts for sentence in _sentences(text) if cues.search(sentence)]


def _looks_like_path(token: str) -> bool:
    last = token.rsplit("/", 1)[-1]
    stem, dot, extension = last.rpartition(".")
    has_extension = bool(dot and stem.strip(".") and extension.lower() in _FILE_EXTENSIONS)
    if "/" not in token:
        return has_extension
    if token.startswith("//"):
        return False  # the remains of a URL
    rooted = token.startswith(("/", "./", "../", "~/")) and token.count("/") >= 2
    return rooted or has_extension


def find_paths(text: str) -> list[str]:
    found = []
    for token in _PATH_TOKEN.findall(text):
        token = token.rstrip(".-")
        if len(token) >= 3 and _looks_like_path(token):
            found.append(token)
    return found


def _arguments(raw: str) -> dict[str, Any]:
    try:
        parsed = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item and item != NONE_ITEM))


def _keep(earlier: Sequence[str], new: Sequence[str], limit: int = SECTION_LIMIT, newest: bool = True) -> list[str]:
    merged = _unique([*earlier, *new])
    return merged[-limit:] if newest else merged[:limit]


def parse_sections(summary: str) -> dict[str, list[str]]:
    """The bullets of an earlier summary by section title; lines under unknown headings are kept too."""
    known = {title for _, title in SECTIONS}
    sections: dict[str, list[str]] = {}
    current = FALLBACK_SECTION
    label = ""
    for line in summary.splitlines():
        heading = _HEADING.match(line.strip())
        if heading:
            title = heading.group(2)
            current, label = (title, "") if title in known else (FALLBACK_SECTION, f"{title}: ")
            continue
        item = line.strip().lstrip("-*•").strip()
        if item and item != NONE_ITEM and current not in GROUPING_SECTIONS:
            sections.setdefault(current, []).append(label + item)
    return sections


def render_sections(sections: dict[str, list[str]]) -> str:
    lines: list[str] = []
    for level, title in SECTIONS:
        if lines and level == 2:
            lines.append("")
        lines.append(f"{'#' * level} {title}")
        if title in GROUPING_SECTIONS:
            continue
        lines.extend(f"- {item}" for item in sections.get(title) or [NONE_ITEM])
    return "\n".join(lines)


def extractive_summary(
    turns: Sequence[Message],
    previous_summary: str | None = None,
    memory_context: str = "",
    focus_topic: str | None = None,
    *,
    goal: str | None = None,
) -> str:
    """Fill the summary sections from ``turns``, carrying ``previous_summary`` forward.

    ``goal`` is the user's opening request (it may sit in the protected head, outside ``turns``);
    without it the first request in ``turns`` stands for the goal.
    """
    earlier = parse_sections(previous_summary or "")
    requests: list[str] = []
    replies: list[str] = []
    user_texts: list[str] = []
    tool_names: dict[str, int] = {}
    names_by_id: dict[str, str] = {}
    commands: list[str] = []
    paths: list[str] = []
    blocked: list[str] = []
    for message in turns:
        role = role_of(message)
        text = content_text(message.get("content")).strip()
        if role == "user" and text:
            user_texts.append(text)
            requests.append(shorten(text))
        elif role == "assistant" and text:
            replies.append(text)
        if role in ("user", "assistant"):
            paths.extend(find_paths(text))
            commands.extend(shorten(line) for line in _SHELL_LINE.findall(text))
        for call in tool_calls_of(message):
            name = call_name(call)
            tool_names[name] = tool_names.get(name, 0) + 1
            if call_id(call) is not None:
                names_by_id[str(call_id(call))] = name
            arguments = _arguments(call_arguments(call))
            commands.extend(shorten(str(arguments[k])) for k in _COMMAND_KEYS if isinstance(arguments.get(k), str))
            paths.extend(shorten(arguments[k]) for k in _PATH_KEYS if isinstance(arguments.get(k), str) and arguments[k])
            paths.extend(p for value in arguments.values() if isinstance(value, str) for p in find_paths(value))
        if role == "tool":
            failure = next((line for line in text.splitlines() if _ERROR_CUES.search(line)), None)
            if failure:
                name = names_by_id.get(result_call_id(message) or "", str(message.get("name") or "tool"))
                blocked.append(f"{name}: {shorten(failure)}")

    # An older summary's current request is history once newer requests arrived; it moves to Done.
    superseded = earlier.get("In Progress", []) if requests else []
    done = [f"Earlier request: {item.removeprefix(LATEST_REQUEST)}" for item in superseded]
    done += [f"Handled request: {request}" for request in requests[:-1]]
    if tool_names:
        done.append("Tools run: " + ", ".join(f"{name} x{count}" for name, count in tool_names.items()))
    done.extend(f"Assistant reported: {shorten(reply)}" for reply in replies[-3:])
    # The plan stated most recently; plans older than the last few replies are likely carried out.
    next_steps = next((found for reply in reversed(replies[-3:]) if (found := _cued([reply], _NEXT_CUES))), [])
    memory_lines = [shorten(line) for line in (memory_context or "").splitlines() if line.strip()][:3]
    critical = [f"Command run: {command}" for command in commands]
    critical += [f"From memory: {line}" for line in memory_lines]
    if focus_topic:
        critical.append(f"Focus requested for this summary: {shorten(focus_topic)}")

    sections = {
        # The goal is set once; later requests are progress towards it, recorded below.
        "Goal": earlier.get("Goal") or ([shorten(goal)] if goal and goal.strip() else requests[:1]),
        "Constraints & Preferences": _keep(
            earlier.get("Constraints & Preferences", []), _cued(user_texts, _CONSTRAINT_CUES)
        ),
        "Done": _keep(earlier.get("Done", []), done),
        # Current-state sections: what the newer turns say replaces what the older summary said.
        "In Progress": [f"{LATEST_REQUEST}{requests[-1]}"] if requests else earlier.get("In Progress", []),
        "Blocked": _keep(earlier.get("Blocked", []), blocked),
        "Key Decisions": _keep(earlier.get("Key Decisions", []), _cued(replies, _DECISION_CUES)),
        "Relevant Files": _keep(earlier.get("Relevant Files", []), paths, limit=LARGE_SECTION_LIMIT),
        "Next Steps": (next_steps or earlier.get("Next Steps", []))[:SECTION_LIMIT],
        "Critical Context": _keep(earlier.get("Critical Context", []), critical, limit=LARGE_SECTION_LIMIT),
    }
    return render_sections(sections)
