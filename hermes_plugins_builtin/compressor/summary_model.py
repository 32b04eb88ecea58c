"""The auxiliary summary model: one OpenAI-compatible chat-completions request over httpx."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Summaries should restate, not invent; a low temperature keeps the model close to the turns.
SUMMARY_TEMPERATURE = 0.1
DEFAULT_TIMEOUT_SECONDS = 60.0


class SummaryModelError(RuntimeError):
    """The summary model could not be reached or gave no usable answer."""


def _endpoint(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def _answer_text(payload: Any) -> str:
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise SummaryModelError(f"the answer is not a chat completion ({type(exc).__name__}: {exc})") from exc
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    if not isinstance(content, str) or not content.strip():
        raise SummaryModelError("the summary model returned an empty summary")
    return content


@dataclass(frozen=True)
class ChatCompletionsSummarizer:
    """``summarize(prompt) -> str`` backed by ``POST {base_url}/chat/completions``."""

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    temperature: float = SUMMARY_TEMPERATURE

    def __call__(self, prompt: str) -> str:
        import httpx  # here, not at import: every command that loads the builtins would pay ~140 ms for it

        url = _endpoint(self.base_url)
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
        }
        try:
            response = httpx.post(url, json=body, headers=headers, timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise SummaryModelError(f"request to {url} failed: {type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise SummaryModelError(f"{url} answered HTTP {response.status_code}: {response.text[:300]}")
        try:
            payload = response.json()
        except ValueError as exc:
            raise SummaryModelError(f"{url} did not answer with JSON") from exc
        return _answer_text(payload)
