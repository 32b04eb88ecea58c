"""Which model to call, resolved from config.yaml, the environment and command-line overrides."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.models.clients.errors import ModelAPIError

if TYPE_CHECKING:
    from hermes_core.models.clients.anthropic_messages import AnthropicMessagesClient, RequestMiddleware
    from hermes_core.models.clients.openai_chat import OpenAIChatClient

PROVIDERS: tuple[str, ...] = ("openai", "anthropic")
DEFAULT_BASE_URLS: dict[str, str] = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
KEY_ENV: dict[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

NOT_CONFIGURED = (
    "no model is configured -> set one with 'hermes config set model.name <model>' (or HERMES_MODEL=<model>, "
    "or --model). For a local OpenAI-compatible server also set 'hermes config set model.base_url "
    "http://127.0.0.1:8080/v1' (or HERMES_BASE_URL, or --base-url); for OpenAI set OPENAI_API_KEY; for "
    "Anthropic run 'hermes config set model.provider anthropic' and set ANTHROPIC_API_KEY"
)


@dataclass(frozen=True)
class ModelSettings:
    """The resolved endpoint: enough to build a client, and to show the user what will be called."""

    provider: str
    model: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    max_retries: int = 3


def _get(config: Mapping[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _env_value(name: str, env: Mapping[str, str], home: Path | None) -> str | None:
    from hermes_core.config import get_env_value  # the .env file is read only when the variable is not set

    return _text(get_env_value(name, home=home, env=env))


def _infer_provider(model: str | None, base_url: str | None) -> str:
    if base_url:
        return "anthropic" if "anthropic.com" in base_url else "openai"
    return "anthropic" if model and model.lower().startswith("claude") else "openai"


def resolve_model_settings(
    config: Mapping[str, Any],
    *,
    model: str | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> ModelSettings:
    """Settings from, highest first: the arguments, config ``model.*``, then HERMES_MODEL / HERMES_BASE_URL.

    ``model`` in config.yaml may also be a plain string (the model name). The provider is
    ``model.provider`` when set; otherwise ``anthropic`` for an anthropic.com base URL or, with no
    base URL, a ``claude*`` model, and ``openai`` (any OpenAI-compatible server) for everything else.
    Keys come from ``model.api_key``, else OPENAI_API_KEY / ANTHROPIC_API_KEY (environment, then
    ``$HERMES_HOME/.env``). Raises :class:`ModelAPIError` (reason ``not_configured``) saying what to set.
    """
    env = os.environ if env is None else env
    section = _get(config, "model")
    if isinstance(section, str):
        section = {"name": section}
    if not isinstance(section, Mapping):
        section = {}
    name = _text(model) or _text(section.get("name")) or _env_value("HERMES_MODEL", env, home)
    url = _text(base_url) or _text(section.get("base_url")) or _env_value("HERMES_BASE_URL", env, home)
    provider = (_text(section.get("provider")) or _infer_provider(name, url)).lower()
    if provider not in PROVIDERS:
        raise ModelAPIError(
            f"model.provider is {provider!r}, which hermes cannot call -> set it to one of {', '.join(PROVIDERS)} "
            "('openai' covers every OpenAI-compatible server: set model.base_url to its address)",
            provider=provider,
            reason="not_configured",
        )
    if not name:
        raise ModelAPIError(NOT_CONFIGURED, provider=provider, reason="not_configured", base_url=url)
    url = url or DEFAULT_BASE_URLS[provider]
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.strip("/"):
        raise ModelAPIError(
            f"the model endpoint {url!r} is not an http(s) URL -> set model.base_url (or --base-url, "
            "HERMES_BASE_URL) to the server's address, e.g. http://127.0.0.1:8080/v1",
            provider=provider,
            reason="not_configured",
            base_url=url,
            model=name,
        )
    key = _text(section.get("api_key")) or _env_value(KEY_ENV[provider], env, home)
    if key is None and url.rstrip("/") == DEFAULT_BASE_URLS[provider]:
        # The hosted APIs always need a key; local servers usually do not, so only those get past this.
        raise ModelAPIError(
            f"no API key for {provider} at {url} -> set {KEY_ENV[provider]} (in the environment or "
            f"$HERMES_HOME/.env) or model.api_key; for a local server set model.base_url (or HERMES_BASE_URL) instead",
            provider=provider,
            reason="not_configured",
            base_url=url,
            model=name,
        )
    return ModelSettings(
        provider=provider,
        model=name,
        base_url=url,
        api_key=key,
        timeout=_number(section.get("timeout"), 60.0, "model.timeout", float),
        max_retries=int(_number(section.get("max_retries"), 3, "model.max_retries", int)),
    )


def _number(value: Any, default: float, key: str, kind: type) -> Any:
    if value is None or value == "":
        return default
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0:
        raise ModelAPIError(
            f"{key} is {value!r} -> set it to a non-negative number", provider="config", reason="not_configured"
        )
    return number


def client_from_config(
    config: Mapping[str, Any],
    *,
    model: str | None = None,
    base_url: str | None = None,
    request_middleware: Sequence[RequestMiddleware] = (),
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> OpenAIChatClient | AnthropicMessagesClient:
    """The client :func:`resolve_model_settings` describes.

    ``request_middleware`` (the ``anthropic_request`` middleware plugins registered) is used
    only by the Anthropic client; OpenAI-compatible servers have no cache breakpoints.
    """
    settings = resolve_model_settings(config, model=model, base_url=base_url, env=env, home=home)
    if settings.provider == "anthropic":
        from hermes_core.models.clients.anthropic_messages import AnthropicMessagesClient

        return AnthropicMessagesClient(
            settings.base_url, settings.model, settings.api_key, settings.timeout, settings.max_retries,
            request_middleware=request_middleware,
        )
    from hermes_core.models.clients.openai_chat import OpenAIChatClient

    return OpenAIChatClient(settings.base_url, settings.model, settings.api_key, settings.timeout, settings.max_retries)
