"""One chat-completions request to the auxiliary summary model, over httpx."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

#: The summary should restate what the conversation holds, not invent; keep sampling nearly greedy.
SUMMARY_TEMPERATURE = 0.1


class SummaryError(RuntimeError):
    """The summary model gave no usable answer; the message says why, for the tool's result."""


class SummaryTimeout(SummaryError):
    """The summary model did not answer in time."""


def endpoint(base_url: str) -> str:
    """``{base_url}/chat/completions`` unless base_url already names that path."""
    url = base_url.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def _error_detail(response: httpx.Response) -> str:
    try:
        payload = response.json()
        message = payload.get("error", {}).get("message") if isinstance(payload, dict) else None
    except ValueError:
        message = None
    return str(message or response.text[:200]).strip()


def _answer(payload: Any) -> str:
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise SummaryError(f"the answer is not a chat completion ({type(exc).__name__})") from exc
    if isinstance(content, list):  # some servers return content parts
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise SummaryError("the model returned an empty summary")
    return content.strip()


def request_summary(
    *, base_url: str, model: str, api_key: str, messages: list[dict[str, str]], timeout: float
) -> str:
    """POST the messages at temperature 0.1 and return the answer text.

    :raises SummaryTimeout: no answer within *timeout* seconds (per connect/read/write phase).
    :raises SummaryError: transport failure, HTTP error status, or an unusable body.
    """
    import httpx  # here, not at import: loading the plugin (every command that loads the builtins) needs no HTTP client

    url = endpoint(base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    body = {"model": model, "messages": messages, "temperature": SUMMARY_TEMPERATURE}
    try:
        response = httpx.post(url, json=body, headers=headers, timeout=timeout)
    except httpx.TimeoutException as exc:
        raise SummaryTimeout(f"no answer within {timeout:g} s") from exc
    except httpx.HTTPError as exc:
        raise SummaryError(f"request failed: {type(exc).__name__}: {exc}") from exc
    if response.status_code >= 400:
        raise SummaryError(f"HTTP {response.status_code}: {_error_detail(response)}")
    try:
        payload = response.json()
    except ValueError as exc:
        raise SummaryError("the answer is not JSON") from exc
    return _answer(payload)
