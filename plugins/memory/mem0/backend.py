"""The two ways to reach mem0, behind one small interface: ``mem0.Memory`` (local) and ``MemoryClient`` (platform).

mem0 is imported here and only here, when a backend is opened. Its import reads ``MEM0_DIR`` and
``MEM0_TELEMETRY`` and creates that directory, so both are set first: the directory goes under
``$HERMES_HOME/mem0`` and telemetry is off unless the user turned it on.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from .settings import Mem0Settings, ModelEndpoint

INSTALL_HINT = "the mem0ai library is not installed -> pip install 'hermes-host[mem0]' (or: pip install 'mem0ai>=2.2,<2.3')"
#: Memories read per listing; status and export page through at most this many.
LIST_LIMIT = 100_000


class BackendError(RuntimeError):
    """mem0 cannot be opened; the message names the cause and the fix."""


def mem0_installed() -> bool:
    """Whether mem0 can be imported, found without importing it (it takes a second or more)."""
    try:
        return importlib.util.find_spec("mem0") is not None
    except (ImportError, ValueError):
        return False


def import_mem0(settings: Mem0Settings) -> Any:
    """Import mem0 with its directory under ``$HERMES_HOME`` and telemetry as configured."""
    os.environ.setdefault("MEM0_DIR", str(settings.data_dir))
    os.environ.setdefault("MEM0_TELEMETRY", "True" if settings.telemetry else "False")
    try:
        import mem0
    except ImportError as exc:
        raise BackendError(INSTALL_HINT) from exc
    except OSError as exc:  # the import creates MEM0_DIR
        raise BackendError(f"mem0 could not create its directory {os.environ['MEM0_DIR']} ({exc}) -> make {settings.home} writable") from exc
    if not logging.getLogger("hermes").isEnabledFor(logging.DEBUG):
        # mem0 warns about optional extras (spaCy, fastembed) on every start; that is not the user's problem.
        logging.getLogger("mem0").setLevel(logging.ERROR)
    return mem0


def _results(response: Any) -> list[dict[str, Any]]:
    if isinstance(response, dict):
        response = response.get("results", [])
    return [r for r in response if isinstance(r, dict)] if isinstance(response, list) else []


class Backend:
    """What the provider needs from mem0, in either mode."""

    mode = ""
    location = ""

    def add(self, messages: list[dict[str, str]], *, user_id: str, agent_id: str, infer: bool, metadata: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        raise NotImplementedError

    def search(self, query: str, *, user_id: str, top_k: int, rerank: bool) -> list[dict[str, Any]]:
        raise NotImplementedError

    def get_all(self, *, user_id: str, limit: int = LIST_LIMIT) -> list[dict[str, Any]]:
        raise NotImplementedError

    def turn_memories(self, user_id: str, turn: str) -> list[dict[str, Any]]:
        """What is already stored for the turn named ``turn``; ``[]`` when unknown."""
        return []

    def update(self, memory_id: str, text: str) -> None:
        raise NotImplementedError

    def delete(self, memory_id: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Release files and connections."""


class _Serialized:
    """Forwards to the embedded vector store, one call at a time.

    The background search and the writer run on different threads; the embedded qdrant keeps its
    vectors in arrays that a concurrent insert may resize under a search. Only the store is
    serialized, so a slow model call in one thread never holds up the other.
    """

    def __init__(self, store: Any) -> None:
        self._store = store
        self._lock = threading.RLock()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        if not callable(value):
            return value

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return value(*args, **kwargs)

        return locked


class LocalBackend(Backend):
    """``mem0.Memory`` with an embedded qdrant store and history db under ``$HERMES_HOME/mem0``."""

    mode = "local"

    def __init__(self, settings: Mem0Settings) -> None:
        if settings.llm is None and "llm" not in settings.native:
            raise BackendError(
                "local mode needs a model to extract memories with, and no chat model is configured -> "
                "'hermes config set model.name <model>' (and model.base_url), or 'hermes memory setup mem0 --set llm.model=<model> --set llm.base_url=<url>'"
            )
        if settings.embedder is None and "embedder" not in settings.native:
            raise BackendError(
                "local mode needs an embedding endpoint -> 'hermes memory setup mem0 --set embedder.base_url=<OpenAI-compatible url> "
                "--set embedder.model=<model> --set embedder.dims=<size>'"
            )
        mem0 = import_mem0(settings)
        self.settings = settings
        config = self._config(settings)
        self.location = settings.location
        try:
            self.memory = mem0.Memory.from_config(config)
        except RuntimeError as exc:
            if "already accessed" in str(exc):
                raise BackendError(
                    f"the mem0 store {settings.store_path} is in use by another hermes process or session (the embedded store "
                    "allows one at a time) -> close the other chat, or give each a store with memory.mem0.store.path"
                ) from exc
            raise BackendError(f"cannot open the mem0 store at {self.location}: {exc}") from exc
        except OSError as exc:
            raise BackendError(f"cannot open the mem0 store at {self.location}: {exc} -> make the directory writable or set memory.mem0.store.path") from exc
        except Exception as exc:  # pydantic ValidationError and friends: a bad mem0 config
            raise BackendError(f"mem0 refused the configuration: {type(exc).__name__}: {exc}") from exc
        self._tighten_clients(settings)
        self.memory.vector_store = _Serialized(self.memory.vector_store)

    @staticmethod
    def _endpoint_block(endpoint: ModelEndpoint, *, embedder: bool) -> dict[str, Any]:
        config: dict[str, Any] = {"model": endpoint.model}
        if endpoint.provider in ("openai", "lmstudio", "vllm", "deepseek", "together", "groq", "xai"):
            config["api_key"] = endpoint.api_key or "unused"  # local servers ignore it; the client insists on one
        elif endpoint.api_key:
            config["api_key"] = endpoint.api_key
        if endpoint.base_url:
            key = {"openai": "openai_base_url", "ollama": "ollama_base_url", "lmstudio": "lmstudio_base_url", "vllm": "vllm_base_url"}.get(endpoint.provider)
            if key:
                config[key] = endpoint.base_url
        if embedder and endpoint.dims:
            config["embedding_dims"] = endpoint.dims
        return {"provider": endpoint.provider, "config": config}

    def _config(self, settings: Mem0Settings) -> dict[str, Any]:
        native = settings.native
        if "vector_store" in native:
            store = _with_local_path(native["vector_store"], settings)
        else:
            assert settings.store_path is not None
            try:
                settings.store_path.mkdir(parents=True, exist_ok=True)
                probe = settings.store_path / ".write-check"
                probe.write_text("")
                probe.unlink()
            except OSError as exc:
                raise BackendError(
                    f"the mem0 store directory {settings.store_path} is not writable ({exc.strerror or exc}) -> "
                    "fix its permissions, or set memory.mem0.store.path to a writable directory"
                ) from exc
            dims = self._store_dims(settings)
            store = {"provider": "qdrant", "config": {"collection_name": settings.collection, "embedding_model_dims": dims, "path": str(settings.store_path), "on_disk": True}}
        config: dict[str, Any] = {
            "vector_store": store,
            "history_db_path": str(settings.data_dir / "history.db"),
            "version": "v1.1",
        }
        config["llm"] = native.get("llm") or self._endpoint_block(settings.llm, embedder=False)  # type: ignore[arg-type]
        config["embedder"] = native.get("embedder") or self._endpoint_block(settings.embedder, embedder=True)  # type: ignore[arg-type]
        return config

    @staticmethod
    def _store_dims(settings: Mem0Settings) -> int:
        """The vector size: the one the store was created with, which a configured size must match, or the endpoint's."""
        assert settings.store_path is not None
        existing = existing_dims(settings.store_path, settings.collection)
        if settings.embedder is None:  # mem0's own embedder block from mem0.json: its size is written there or nowhere
            return existing or _native_dims(settings.native["embedder"], settings.store_path, settings.collection)
        configured = settings.embedder.dims
        if existing and configured and existing != configured:
            raise BackendError(
                f"the mem0 store {settings.store_path} holds {existing}-dimensional vectors but memory.mem0.embedder.dims is "
                f"{configured} -> set embedder.dims back to {existing}, or give the new embedder a new store with memory.mem0.store.path"
            )
        return existing or configured or probe_dims(settings.embedder, settings.timeout)

    def _tighten_clients(self, settings: Mem0Settings) -> None:
        """mem0's OpenAI clients wait 600 s and retry twice; a turn cannot. Retries are the outbox's job.

        Rebuilding the client also undoes mem0 switching to OpenRouter whenever OPENROUTER_API_KEY is set.
        """
        for part, endpoint in (("llm", settings.llm), ("embedding_model", settings.embedder)):
            if {"llm": "llm", "embedding_model": "embedder"}[part] in settings.native:
                endpoint = None  # mem0's own block from mem0.json: keep its address, only bound the waiting
            component = getattr(self.memory, part, None)
            client = getattr(component, "client", None)
            if client is None or not hasattr(client, "with_options"):
                continue
            if endpoint is not None and endpoint.provider == "openai" and endpoint.base_url:
                # A copy sharing the connection pool (a new client would load the CA bundle again).
                component.client = client.with_options(api_key=endpoint.api_key or "unused", base_url=endpoint.base_url, timeout=settings.timeout, max_retries=0)
            else:
                component.client = client.with_options(timeout=settings.timeout, max_retries=0)

    def add(self, messages: list[dict[str, str]], *, user_id: str, agent_id: str, infer: bool, metadata: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return _results(self.memory.add(messages, user_id=user_id, agent_id=agent_id, infer=infer, metadata=metadata))

    def search(self, query: str, *, user_id: str, top_k: int, rerank: bool) -> list[dict[str, Any]]:
        return _results(self.memory.search(query, filters={"user_id": user_id}, top_k=top_k, rerank=rerank))

    def get_all(self, *, user_id: str, limit: int = LIST_LIMIT) -> list[dict[str, Any]]:
        return _results(self.memory.get_all(filters={"user_id": user_id}, top_k=limit))

    def turn_memories(self, user_id: str, turn: str) -> list[dict[str, Any]]:
        # all of them: a retried turn is sent again minus what is held, so an unseen one would be stored twice
        return _results(self.memory.get_all(filters={"user_id": user_id, "turn": turn}, top_k=LIST_LIMIT))

    def update(self, memory_id: str, text: str) -> None:
        self.memory.update(memory_id, text=text)

    def delete(self, memory_id: str) -> None:
        self.memory.delete(memory_id)

    def close(self) -> None:
        memory = getattr(self, "memory", None)
        if memory is None:
            return
        try:
            memory.close()
        finally:
            client = getattr(getattr(memory, "vector_store", None), "client", None)
            if client is not None and hasattr(client, "close"):
                client.close()  # releases the store's lock so the next process (or session) can open it
            self.memory = None


class PlatformBackend(Backend):
    """``mem0.MemoryClient`` against the hosted platform or a self-hosted one (``MEM0_BASE_URL``)."""

    mode = "platform"

    def __init__(self, settings: Mem0Settings) -> None:
        if not settings.api_key:
            raise BackendError("platform mode needs MEM0_API_KEY -> 'hermes memory setup mem0' (it is stored in $HERMES_HOME/.env)")
        mem0 = import_mem0(settings)
        import httpx

        self.location = settings.host
        http = httpx.Client(base_url=settings.host, timeout=settings.timeout)
        try:
            self.client = mem0.MemoryClient(api_key=settings.api_key, host=settings.host, client=http)
        except httpx.HTTPError as exc:  # the constructor pings the platform
            http.close()
            raise BackendError(f"the Mem0 platform at {settings.host} is unreachable: {type(exc).__name__}: {exc} -> check that it runs "
                               "and that MEM0_BASE_URL points at it ('hermes memory setup mem0')") from exc
        except ValueError as exc:
            http.close()
            raise BackendError(f"the Mem0 platform at {settings.host} refused the key: {exc} -> check MEM0_API_KEY") from exc
        self._http = http

    def add(self, messages: list[dict[str, str]], *, user_id: str, agent_id: str, infer: bool, metadata: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        options: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "infer": infer}
        if metadata:
            options["metadata"] = metadata
        return _results(self.client.add(messages, **options))

    def search(self, query: str, *, user_id: str, top_k: int, rerank: bool) -> list[dict[str, Any]]:
        return _results(self.client.search(query, filters={"user_id": user_id}, top_k=top_k, rerank=rerank))

    def get_all(self, *, user_id: str, limit: int = LIST_LIMIT) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        page = 1
        while len(results) < limit:
            response = self.client.get_all(filters={"user_id": user_id}, page=page, page_size=100)
            batch = _results(response)
            results += batch
            if not batch or not (isinstance(response, dict) and response.get("next")):
                break
            page += 1
        return results[:limit]

    def update(self, memory_id: str, text: str) -> None:
        self.client.update(memory_id, text=text)

    def delete(self, memory_id: str) -> None:
        self.client.delete(memory_id)

    def close(self) -> None:
        http = getattr(self, "_http", None)
        if http is not None:
            http.close()
            self._http = None


#: Embedded stores whose config has a ``path`` mem0 would otherwise put under the shared /tmp.
_PATH_STORES = ("qdrant", "faiss", "chroma")


def _with_local_path(block: dict[str, Any], settings: Mem0Settings) -> dict[str, Any]:
    """A mem0 ``vector_store`` block from mem0.json, with an embedded store kept under ``$HERMES_HOME/mem0``."""
    config = dict(block.get("config") or {})
    provider = str(block.get("provider", ""))
    remote = any(config.get(k) for k in ("url", "host", "client", "api_key"))
    if provider in _PATH_STORES and not remote and not config.get("path"):
        config["path"] = str(settings.data_dir / provider)
    return {**block, "config": config}


def _native_dims(block: Any, store_path: Path, collection: str) -> int:
    """``embedding_dims`` of a mem0.json ``embedder`` block, which the embedded store needs before its first vector."""
    config = block.get("config") if isinstance(block, dict) else None
    dims = config.get("embedding_dims") if isinstance(config, dict) else None
    if isinstance(dims, int) and not isinstance(dims, bool) and dims > 0:
        return dims
    raise BackendError(
        f"the embedder block of mem0.json does not say its vector size, and the store {store_path} (collection "
        f"{collection!r}) holds none yet -> add \"embedding_dims\": <size> to the block's \"config\" in mem0.json"
    )


def existing_dims(store_path: Path, collection: str) -> int:
    """The vector size of an embedded qdrant collection already on disk; 0 when there is none."""
    try:
        meta = json.loads((store_path / "meta.json").read_text(encoding="utf-8"))
        return int(meta["collections"][collection]["vectors"]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def probe_dims(endpoint: ModelEndpoint, timeout: float) -> int:
    """Ask the embedding endpoint for one vector and count it (only OpenAI-compatible endpoints can be asked)."""
    if endpoint.provider != "openai" or not endpoint.base_url:
        raise BackendError(f"the size of {endpoint.provider} embeddings is not known -> 'hermes memory setup mem0 --set embedder.dims=<size of {endpoint.model}>'")
    from openai import OpenAI, OpenAIError

    client = OpenAI(api_key=endpoint.api_key or "unused", base_url=endpoint.base_url, timeout=timeout, max_retries=0)
    try:
        vector = client.embeddings.create(input=["size check"], model=endpoint.model, encoding_format="float").data[0].embedding
    except (OpenAIError, IndexError, AttributeError, TypeError) as exc:
        raise BackendError(
            f"the embedding endpoint {endpoint.base_url} (model {endpoint.model}) did not answer a size check: {type(exc).__name__}: {exc} -> "
            "check embedder.base_url and embedder.model, or set embedder.dims"
        ) from exc
    finally:
        client.close()
    if not isinstance(vector, list) or not vector:
        raise BackendError(f"the embedding endpoint {endpoint.base_url} returned no vector for model {endpoint.model} -> check embedder.model")
    return len(vector)


def open_backend(settings: Mem0Settings) -> Backend:
    return PlatformBackend(settings) if settings.mode == "platform" else LocalBackend(settings)


def store_size(path: Path | None) -> int:
    """Bytes used by the embedded store directory (0 when there is none)."""
    if path is None or not path.exists():
        return 0
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
