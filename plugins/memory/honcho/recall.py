"""The two recalled layers: base context (summary, representations, cards) and the dialectic supplement.

Pure functions of their inputs, so cadence, depth and budget rules are tested without a server.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .config import REASONING_LEVELS

COLD_PROMPT = (
    "Who is this person? What are their preferences, goals, and working style? "
    "Focus on facts that would help an AI assistant be immediately useful."
)
WARM_PROMPT = (
    "Given what's been discussed in this session so far, what context about this user is most relevant "
    "to the current conversation? Prioritize active context over biographical facts."
)
AUDIT_PROMPT = (
    "Here is a first answer about this user:\n\n{previous}\n\n"
    "Audit it: what is missing, uncertain or wrong? Then give a targeted synthesis of what an assistant "
    "should know about the user right now."
)
RECONCILE_PROMPT = (
    "Earlier passes about this user said:\n\n{previous}\n\n"
    "Reconcile any contradictions between them into one final, concise synthesis."
)
#: A first answer this long (or structured and over STRUCTURED_BAIL_CHARS) is kept as it is at depth >= 2.
STRONG_BAIL_CHARS = 300
STRUCTURED_BAIL_CHARS = 100
_STRUCTURED = re.compile(r"^\s*(?:[-*•]\s|\d+[.)]\s|#{1,6}\s)", re.MULTILINE)


def truncate_to_budget(text: str, tokens: int | None) -> str:
    """``text`` cut to ``tokens`` x 4 characters, at a word boundary; unchanged without a budget."""
    if not tokens or len(text) <= tokens * 4:
        return text
    cut = text[: tokens * 4]
    boundary = max(cut.rfind(" "), cut.rfind("\n"))
    return (cut[:boundary] if boundary > 0 else cut).rstrip()


def truncate_chars(text: str, limit: int) -> str:
    """At most ``limit`` characters, word-boundary safe."""
    return text if len(text) <= limit else truncate_to_budget(text, limit // 4) if limit >= 4 else text[:limit]


def level_index(level: str) -> int:
    return REASONING_LEVELS.index(level)


def cap_level(level: str, cap: str | None) -> str:
    """``level`` lowered to ``cap`` (reasoningLevelCap) when it is higher."""
    if cap and level_index(level) > level_index(cap):
        return cap
    return level


def pass_levels(depth: int, base: str, explicit: list[str] | None = None, cap: str | None = None) -> list[str]:
    """Reasoning level of each pass: ``dialecticDepthLevels`` if given, else proportional to ``base``.

    Proportional: depth 1 -> [base]; 2 -> [minimal, base]; 3 -> [minimal, base, low].
    """
    depth = max(1, min(3, depth))
    proportional = [[base], ["minimal", base], ["minimal", base, "low"]][depth - 1]
    levels = [(explicit[i] if explicit and i < len(explicit) else proportional[i]) for i in range(depth)]
    return [cap_level(level, cap) for level in levels]


def is_strong(answer: str) -> bool:
    """Whether a first pass already says enough: > 300 chars, or structured (bullets, sections) and > 100."""
    text = answer.strip()
    return len(text) > STRONG_BAIL_CHARS or (bool(_STRUCTURED.search(text)) and len(text) > STRUCTURED_BAIL_CHARS)


@dataclass
class DialecticRun:
    """What one dialectic firing did: the prompts and levels sent, and the final answer."""

    answer: str
    passes: list[tuple[str, str]]
    bailed_out: bool = False


def run_dialectic(
    ask: Callable[[str, str], str],
    *,
    depth: int,
    levels: list[str],
    cold: bool,
    current_message: str = "",
    max_input_chars: int = 10000,
    max_chars: int = 600,
) -> DialecticRun:
    """Fire 1-3 ``.chat()`` passes (``ask(query, level) -> answer``) as dialecticDepth says."""
    depth = max(1, min(3, depth))
    prompt = COLD_PROMPT if cold else WARM_PROMPT
    if current_message.strip() and not cold:
        prompt += "\n\nCurrent message: " + current_message.strip()
    passes: list[tuple[str, str]] = []
    answers: list[str] = []

    def fire(query: str, level: str) -> str:
        query = query[:max_input_chars]
        passes.append((query, level))
        answer = (ask(query, level) or "").strip()
        answers.append(answer)
        return answer

    first = fire(prompt, levels[0])
    bailed = False
    if depth >= 2:
        if is_strong(first):
            bailed = True
        else:
            fire(AUDIT_PROMPT.format(previous=first or "(nothing known yet)"), levels[1])
            if depth >= 3:
                joined = "\n\n---\n\n".join(a for a in answers if a) or "(nothing known yet)"
                fire(RECONCILE_PROMPT.format(previous=joined), levels[2])
    final = next((a for a in reversed(answers) if a), "")
    return DialecticRun(truncate_chars(final, max_chars), passes, bailed)


def format_base_context(
    *,
    summary: str | None,
    user_representation: str | None,
    user_card: list[str] | None,
    ai_representation: str | None,
    ai_card: list[str] | None,
) -> str:
    """Layer 1, in its fixed order: session summary first, then user, then AI."""
    sections = [
        ("Session summary", summary),
        ("User representation", user_representation),
        ("User peer card", "\n".join(f"- {line}" for line in user_card or []) or None),
        ("AI self-representation", ai_representation),
        ("AI identity card", "\n".join(f"- {line}" for line in ai_card or []) or None),
    ]
    return "\n\n".join(f"## {title}\n{body.strip()}" for title, body in sections if body and body.strip())


def join_layers(base: str, dialectic: str, context_tokens: int | None) -> str:
    """Both layers, base first, cut to the contextTokens budget."""
    parts = [base.strip()]
    if dialectic.strip():
        parts.append("## Dialectic\n" + dialectic.strip())
    return truncate_to_budget("\n\n".join(p for p in parts if p), context_tokens)


def due(turn: int, last: int | None, cadence: int) -> bool:
    """Whether a layer with ``cadence`` refreshes on ``turn`` (it always does on its first use)."""
    return last is None or turn - last >= cadence
