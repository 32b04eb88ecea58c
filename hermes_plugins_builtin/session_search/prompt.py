"""The query-focused summary prompt: what to extract from one past conversation, and for which query."""

from __future__ import annotations

from dataclasses import dataclass

SYSTEM_PROMPT = """\
You help an AI agent recall a past conversation. You are given a search query and an excerpt of one \
earlier conversation that matched it. Write a short summary of what that conversation says about the \
query, for the agent to use now.

- Focus on the query. Leave out parts of the conversation that do not bear on it.
- Recognise the query's subject even when the conversation words it differently.
- Keep concrete details that would be costly to rediscover: decisions and their reasons, commands, \
file paths, settings, error messages, names, numbers, and what finally worked or did not.
- Say what was left unresolved, if anything.
- Report only what the excerpt states; do not guess. If the excerpt has nothing relevant to the query, \
say so in one sentence.
- Plain prose or short bullet points, at most about 250 words. No preamble."""


@dataclass(frozen=True)
class SessionHeader:
    """What the summary model is told about the session besides its text."""

    session_id: str
    title: str | None
    started_at: str | None
    source: str | None


def build_messages(query: str, header: SessionHeader, excerpt: str, *, truncated: bool) -> list[dict[str, str]]:
    """The chat messages of one summary request."""
    about = [
        f"Search query: {query}",
        f"Session: {header.session_id}" + (f' titled "{header.title}"' if header.title else ""),
    ]
    if header.started_at:
        about.append(f"Started: {header.started_at}")
    if header.source:
        about.append(f"Platform: {header.source}")
    if truncated:
        about.append("The conversation was cut to the part around the matches; omitted spans are marked.")
    user = "\n".join(about) + "\n\n<conversation>\n" + excerpt + "\n</conversation>\n\n" + (
        f"Summarise what this conversation says about: {query}"
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
