"""OpenAIChatClient: chat completions over httpx, for OpenAI and any OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hermes_core.runtime.clients.base import HttpModelClient, RequestCallback
from hermes_core.runtime.clients.errors import StreamError
from hermes_core.runtime.clients.openai_format import ChatStreamAssembler, build_body, parse_completion
from hermes_core.runtime.clients.protocol import TextCallback
from hermes_core.runtime.clients.response import ModelResponse
from hermes_core.runtime.clients.sanitize import sanitize_response
from hermes_core.runtime.clients.sse import iter_sse_events
from hermes_core.runtime.clients.transport import RetryPolicy
from hermes_core.runtime.clients.visible import VisibleTextStream, visible_text

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

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        system: str | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
        on_text: TextCallback | None = None,
        on_request: RequestCallback | None = None,
    ) -> ModelResponse:
        """Run one model call; raises :class:`ModelAPIError` on any failure."""
        body = self.build_request(messages, tools=tools, system=system, max_tokens=max_tokens, stream=stream)
        record = self.request_record(body)
        if on_request is not None:
            on_request(record)
        if stream:
            completion, text, attempts = self._stream(body, on_text)
        else:
            completion, attempts = self._transport.post_json(self.endpoint, body)
            text = None
        try:
            fields = parse_completion(completion)
        except ValueError as exc:
            raise self._bad_reply(str(exc), attempts) from None
        fields["text"] = visible_text(fields["text"]) if text is None else text
        return ModelResponse(**fields, raw=sanitize_response(completion), request=record, attempts=attempts)

    def _stream(self, body: dict[str, Any], on_text: TextCallback | None) -> tuple[dict[str, Any], str, int]:
        assembler = ChatStreamAssembler()
        visible = VisibleTextStream(on_text)
        with self._transport.post_stream(self.endpoint, body) as (lines, attempts):
            for event in iter_sse_events(lines):
                if event.data.strip() == "[DONE]":
                    break
                chunk = self._decode_event(event.data, attempts)
                try:
                    delta = assembler.feed(chunk)
                except StreamError as exc:
                    raise self._stream_failed(exc, attempts) from None
                if delta:
                    visible.feed(delta)
        if not assembler.chunks:
            raise self._bad_reply("the stream ended before any data", attempts)
        return assembler.completion(), visible.finish(), attempts
