"""Mem0 settings: ``memory.mem0.*`` in config.yaml over ``$HERMES_HOME/mem0.json`` over the environment.

``mem0.json`` is the file Hermes Agent's Mem0 plugin writes; it is read so an existing setup keeps
working. Secrets (the platform key, model keys) come only from the environment or ``$HERMES_HOME/.env``;
a key written into either file is ignored and reported. The one exception is a key inside one of mem0's
own blocks in mem0.json (``llm``, ``embedder``, ``vector_store``), where Hermes Agent's setup put it: it is
used, so that setup keeps working, and reported; the block's variable, when set, wins.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODES = ("auto", "local", "platform")
DEFAULT_USER_ID = "hermes-user"
DEFAULT_AGENT_ID = "hermes"
DEFAULT_HOST = "https://api.mem0.ai"
DEFAULT_EMBEDDER_MODEL = "text-embedding-3-small"
DEFAULT_COLLECTION = "hermes"
STORE_DIR_NAME = "mem0"
JSON_FILE_NAME = "mem0.json"
#: mem0.json holds a few settings; a larger file is not one.
MAX_JSON_BYTES = 1 << 20
API_KEY_ENV = "MEM0_API_KEY"
HOST_ENVS = ("MEM0_BASE_URL", "MEM0_HOST")
LLM_KEY_ENV = "MEM0_LLM_API_KEY"
EMBEDDER_KEY_ENV = "MEM0_EMBEDDER_API_KEY"
VECTOR_STORE_KEY_ENV = "MEM0_VECTOR_STORE_API_KEY"
#: Keys that hold secrets if someone writes them into a settings file.
SECRET_KEYS = frozenset({"api_key", "llm.api_key", "embedder.api_key"})


class SettingsError(ValueError):
    """A setting has a value the provider cannot use; the message names key, value and fix."""


@dataclass(frozen=True)
class ModelEndpoint:
    """An OpenAI-compatible endpoint (or another mem0 provider name) for extraction or embeddings."""

    provider: str
    model: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    dims: int = 0


@dataclass(frozen=True)
class Mem0Settings:
    mode: str  # "local" or "platform" (auto already decided)
    home: Path
    user_id: str
    agent_id: str
    infer: bool = True
    rerank: bool = False
    top_k: int = 5
    prefetch_timeout: float = 3.0
    timeout: float = 10.0
    breaker_threshold: int = 5
    breaker_cooldown: float = 120.0
    max_attempts: int = 5
    telemetry: bool = False
    api_key: str | None = field(default=None, repr=False)
    host: str = DEFAULT_HOST
    llm: ModelEndpoint | None = None
    embedder: ModelEndpoint | None = None
    store_path: Path | None = None
    collection: str = DEFAULT_COLLECTION
    #: mem0-format ``vector_store``/``llm``/``embedder`` blocks from mem0.json, used verbatim.
    native: dict[str, Any] = field(default_factory=dict, repr=False)  # its blocks may carry a key from the environment
    #: Things the user should know (ignored secrets, unreadable mem0.json); shown by status.
    notes: tuple[str, ...] = ()

    @property
    def data_dir(self) -> Path:
        return self.home / STORE_DIR_NAME

    @property
    def location(self) -> str:
        """Where memories live, for status lines."""
        if self.mode == "platform":
            return self.host
        if "vector_store" in self.native:
            return f"{self.native['vector_store'].get('provider', '?')} (from {JSON_FILE_NAME})"
        return str(self.store_path)


def _get(tree: Mapping[str, Any], dotted: str) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def read_json_file(home: Path) -> tuple[dict[str, Any], list[str]]:
    """``$HERMES_HOME/mem0.json`` as a mapping, with notes on what was wrong with it."""
    from hermes_core.files import UnreadableFileError, read_limited_text

    path = home / JSON_FILE_NAME
    try:
        # bounded, and never a FIFO or a device (a read that would block, or never end); a byte-order mark is dropped
        data = json.loads(read_limited_text(path, MAX_JSON_BYTES, what=JSON_FILE_NAME))
    except FileNotFoundError:
        return {}, []
    except UnreadableFileError as exc:
        return {}, [f"{str(exc).split(' -> ')[0]}; it is ignored -> fix or delete it"]
    except (OSError, ValueError) as exc:
        return {}, [f"{path} is not readable JSON ({exc}); it is ignored -> fix or delete it"]
    if not isinstance(data, dict):
        return {}, [f"{path} holds a {type(data).__name__}, not an object; it is ignored"]
    return data, []


def _as_bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"true", "yes", "on", "1"}:
        return True
    if text in {"false", "no", "off", "0"}:
        return False
    raise SettingsError(f"memory.mem0.{key} is {value!r}, not true or false -> 'hermes config set memory.mem0.{key} true'")


def _as_number(key: str, value: Any, kind: type, minimum: float) -> Any:
    try:
        number = kind(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: int() of an infinity (mem0.json may hold one)
        number = None
    # a NaN compares false with everything and would pass the minimum; an infinite timeout or count is no setting
    if number is None or isinstance(value, bool) or not math.isfinite(number) or number < minimum:
        raise SettingsError(f"memory.mem0.{key} is {value!r}; it must be a number of at least {minimum:g} -> 'hermes config set memory.mem0.{key} <number>'")
    return number


class _Layers:
    """Looks a key up in config.yaml's section, then mem0.json, then a default."""

    def __init__(self, yaml_section: Mapping[str, Any], json_data: Mapping[str, Any]) -> None:
        self.yaml = yaml_section
        self.json = json_data

    def get(self, key: str, default: Any = None) -> Any:
        for layer in (self.yaml, self.json):
            value = _get(layer, key)
            if value is not None and value != "":
                return value
        return default


def _env(name: str, home: Path, env: Mapping[str, str]) -> str | None:
    from hermes_core.config import get_env_value

    value = get_env_value(name, home, env)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _chat_model(home: Path, env: Mapping[str, str]) -> Any:
    """The model ``hermes chat`` would call, or ``None`` when none is configured."""
    from hermes_core.config import load_config
    from hermes_core.models.clients.errors import ModelAPIError
    from hermes_core.models.clients.from_config import resolve_model_settings

    try:
        return resolve_model_settings(load_config(home, env=env), env=env, home=home)
    except ModelAPIError:
        return None


#: The variables whose value, when set, is each mem0-format block's ``config.api_key``.
NATIVE_KEY_ENVS = {"llm": (LLM_KEY_ENV,), "embedder": (EMBEDDER_KEY_ENV, LLM_KEY_ENV), "vector_store": (VECTOR_STORE_KEY_ENV,)}


def _native_blocks(json_data: Mapping[str, Any], home: Path, env: Mapping[str, str], notes: list[str]) -> dict[str, Any]:
    """mem0-format blocks (``{"provider", "config"}``) a Hermes Agent mem0.json may hold, keys from the environment first.

    Such a block is mem0's own configuration, and Hermes Agent's setup wrote keys into it: a key
    found there is still used, so the setup keeps working, but reported with where it belongs; the
    block's variable, when set, replaces it.
    """
    blocks: dict[str, Any] = {}
    for name in ("vector_store", "llm", "embedder"):
        block = json_data.get(name)
        if not isinstance(block, dict) or "provider" not in block:
            continue
        block = dict(block)
        if isinstance(block.get("config"), Mapping):
            config = dict(block["config"])
            variables = NATIVE_KEY_ENVS[name]
            key = next((v for v in (_env(n, home, env) for n in variables) if v), None)
            if config.get("api_key") and not key:
                notes.append(f"{name}.config.api_key is read from {JSON_FILE_NAME}, where anyone who can read the file sees it "
                             f"-> move it to {variables[0]} in {home / '.env'} and delete it from {JSON_FILE_NAME}")
            if key:
                config["api_key"] = key
            block["config"] = config
        blocks[name] = block
    return blocks


def _user_id(layers: _Layers, platform: str, given: str | None, env: Mapping[str, str], home: Path) -> str:
    if given:
        return str(given)
    per_platform = layers.get("user_ids", {})
    if isinstance(per_platform, Mapping) and platform and per_platform.get(platform):
        return str(per_platform[platform])
    return str(layers.get("user_id") or _env("MEM0_USER_ID", home, env) or DEFAULT_USER_ID)


def load_settings(home: Path, *, platform: str = "cli", user_id: str | None = None, env: Mapping[str, str] | None = None) -> Mem0Settings:
    """Resolve every setting; raises :class:`SettingsError` naming the bad one."""
    env = os.environ if env is None else env
    from hermes_core.config import load_config

    section = load_config(home, env=env).get("memory.mem0", {}) or {}
    if not isinstance(section, dict):
        raise SettingsError(f"memory.mem0 in {home / 'config.yaml'} must be a mapping of settings, not {type(section).__name__}")
    json_data, notes = read_json_file(home)
    for key in sorted(SECRET_KEYS):
        for layer, where in ((section, "config.yaml memory.mem0"), (json_data, JSON_FILE_NAME)):
            if _get(layer, key):
                notes.append(f"{key} in {where} is ignored: secrets are read only from the environment or {home / '.env'} -> run 'hermes memory setup mem0'")
    layers = _Layers(section, json_data)
    api_key = _env(API_KEY_ENV, home, env)
    host = next((v for v in (_env(n, home, env) for n in HOST_ENVS) if v), None) or layers.get("host") or layers.get("base_url") or DEFAULT_HOST
    mode = str(layers.get("mode", "auto")).strip().lower()
    if mode not in MODES:
        raise SettingsError(f"memory.mem0.mode is {mode!r} -> set it to one of {', '.join(MODES)}")
    native = _native_blocks(json_data, home, env, notes)
    if mode == "auto":
        # Hermes Agent's rule: an OSS vector_store block means local; otherwise a key means the platform.
        mode = "platform" if api_key and "vector_store" not in native else "local"
    common = dict(
        home=home,
        user_id=_user_id(layers, platform, user_id, env, home),
        agent_id=str(layers.get("agent_id") or _env("MEM0_AGENT_ID", home, env) or DEFAULT_AGENT_ID),
        infer=_as_bool("infer", layers.get("infer", True)),
        rerank=_as_bool("rerank", layers.get("rerank", False)),
        top_k=int(_as_number("top_k", layers.get("top_k", 5), int, 1)),
        prefetch_timeout=float(_as_number("prefetch_timeout", layers.get("prefetch_timeout", 3.0), float, 0)),
        timeout=float(_as_number("timeout", layers.get("timeout", 10.0), float, 0.1)),
        breaker_threshold=int(_as_number("breaker.threshold", layers.get("breaker.threshold", 5), int, 1)),
        breaker_cooldown=float(_as_number("breaker.cooldown", layers.get("breaker.cooldown", 120.0), float, 0)),
        max_attempts=int(_as_number("max_attempts", layers.get("max_attempts", 5), int, 1)),
        telemetry=_as_bool("telemetry", layers.get("telemetry", False)),
        api_key=api_key,
        host=str(host).rstrip("/"),
        native=native,
        notes=tuple(notes),
    )
    if mode == "platform":
        return Mem0Settings(mode="platform", **common)
    llm, embedder = _local_endpoints(layers, home, env)
    store = layers.get("store.path")
    store_path = Path(str(store)).expanduser() if store else home / STORE_DIR_NAME / "qdrant"
    if not store_path.is_absolute():
        store_path = home / store_path
    return Mem0Settings(
        mode="local", llm=llm, embedder=embedder, store_path=store_path,
        collection=str(layers.get("store.collection", DEFAULT_COLLECTION)), **common,
    )


def _local_endpoints(layers: _Layers, home: Path, env: Mapping[str, str]) -> tuple[ModelEndpoint | None, ModelEndpoint | None]:
    """The extraction model and the embedder; by default the chat model's endpoint for both."""
    chat = _chat_model(home, env)
    llm_model = layers.get("llm.model") or (chat.model if chat else None)
    llm_url = layers.get("llm.base_url") or (chat.base_url if chat else None)
    llm_key = _env(LLM_KEY_ENV, home, env) or (chat.api_key if chat else None)
    llm = None
    if llm_model:
        default_provider = "anthropic" if chat is not None and chat.provider == "anthropic" and not layers.get("llm.model") else "openai"
        llm = ModelEndpoint(str(layers.get("llm.provider", default_provider)), str(llm_model), str(llm_url or ""), llm_key)
    # An Anthropic endpoint has no embeddings: then only an explicitly configured embedder counts.
    embed_url = layers.get("embedder.base_url") or (llm_url if llm is None or llm.provider == "openai" else None)
    embed_key = _env(EMBEDDER_KEY_ENV, home, env) or llm_key
    # 0: learned from the store, or else from the endpoint's first answer (local servers ignore `dimensions`).
    configured = layers.get("embedder.dims")
    dims = 0 if configured is None else int(_as_number("embedder.dims", configured, int, 1))
    embedder = None
    if embed_url or layers.get("embedder.model"):
        embedder = ModelEndpoint(
            str(layers.get("embedder.provider", "openai")), str(layers.get("embedder.model", DEFAULT_EMBEDDER_MODEL)),
            str(embed_url or ""), embed_key, dims,
        )
    return llm, embedder


def config_schema() -> list[dict[str, Any]]:
    """The fields ``hermes memory setup mem0`` walks (keys are relative to ``memory.mem0``)."""
    return [
        {"key": "mode", "description": "auto (platform when MEM0_API_KEY is set), local (embedded, no account) or platform", "default": "auto", "choices": list(MODES)},
        {"key": "api_key", "description": "Mem0 platform API key (leave empty for local mode)", "secret": True, "required": False, "env_var": API_KEY_ENV, "url": "https://app.mem0.ai"},
        {"key": "host", "description": "platform address, for a self-hosted Mem0 platform (empty: https://api.mem0.ai)"},
        {"key": "user_id", "description": "whose memories these are", "default": DEFAULT_USER_ID},
        {"key": "agent_id", "description": "which agent writes them", "default": DEFAULT_AGENT_ID},
        {"key": "infer", "description": "let the model extract facts from each turn (false: store messages verbatim)", "type": "bool", "default": True},
        {"key": "rerank", "description": "rerank recalled memories (the platform; locally only with a reranker in mem0.json)", "type": "bool", "default": False},
        {"key": "llm.model", "description": "local mode: model that extracts memories (empty: the chat model)"},
        {"key": "llm.base_url", "description": "local mode: its OpenAI-compatible address (empty: the chat model's)"},
        {"key": "embedder.model", "description": "local mode: embedding model", "default": DEFAULT_EMBEDDER_MODEL},
        {"key": "embedder.base_url", "description": "local mode: embedding endpoint (empty: the extraction model's address)"},
        {"key": "embedder.dims", "description": "local mode: embedding size of that model (empty: ask the endpoint)", "type": "int", "minimum": 1},
    ]


def save_settings(values: Mapping[str, Any], home: Path) -> None:
    """Store non-secret settings under ``memory.mem0`` in config.yaml (one atomic rewrite)."""
    from hermes_core.config import read_user_config, set_dotted, write_user_config

    data = read_user_config(home)
    for key, value in values.items():
        if key in SECRET_KEYS:
            continue
        set_dotted(data, f"memory.mem0.{key}", value)
    write_user_config(home, data)
