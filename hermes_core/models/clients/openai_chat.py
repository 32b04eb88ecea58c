"""OpenAIChatClient: chat completions over httpx, for OpenAI and any OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.models.clients.base import HttpModelClient
from hermes_core.models.clients.openai_format import ChatStreamAssembler, build_body, parse_completion
from hermes_core.models.clients.sse import SSEEvent
from hermes_core.models.clients.transport import RetryPolicy

if TYPE_CHECKING:
    import httpx


class OpenAIChatClient(HttpModelClient):
    """POST ``{base_url}/chat/completions``; ``base_url`` includes the version, e.g. ``http://127.0.0.1:8080/v1``."""

    provider = "openai"
    api_mode = "chat_completions"
    key_env = "OPENAI_API_KEY"
    endpoint = "/chat/completions"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        *,
        connect_timeout: float | None = None,
        retry: RetryPolicy | None = None,
        max_tokens_param: str = "max_tokens",
        stream_usage: bool = True,
        extra_body: Mapping[str, Any] | None = None,
        extra_headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        """
        :param max_tokens_param: ``"max_completion_tokens"`` for OpenAI models that refuse ``max_tokens``.
        :param stream_usage: ask for token counts at the end of a stream (``stream_options.include_usage``);
            turn off for a server that rejects the option.
        :param extra_body: fields added to every request (``temperature``, ``top_p``, server-specific options).
        """
        headers = dict(extra_headers or {})
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        super().__init__(
            base_url=base_url, model=model, headers=headers, timeout=timeout, max_retries=max_retries,
            connect_timeout=connect_timeout, retry=retry, http_client=http_client,
        )
        self.max_tokens_param = max_tokens_param
        self.stream_usage = stream_usage
        self.extra_body = dict(extra_body or {})

    def build_request(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        system: str | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
    ) -> dict[str, Any]:
        """The request body :meth:`complete` would send (not sanitized)."""
        return build_body(
            self.model, messages, tools=tools, system=system, max_tokens=max_tokens, stream=stream,
            max_tokens_param=self.max_tokens_param, stream_usage=self.stream_usage, extra_body=self.extra_body,
        )

    def parse_reply(self, reply: dict[str, Any]) -> dict[str, Any]:
        return parse_completion(reply)

    def new_assembler(self) -> ChatStreamAssembler:
        return ChatStreamAssembler()

    def feed_event(self, assembler: ChatStreamAssembler, event: SSEEvent, attempts: int) -> tuple[str, bool]:
        if event.data.strip() == "[DONE]":
            return "", True
        return assembler.feed(self._decode_event(event.data, attempts)), False
