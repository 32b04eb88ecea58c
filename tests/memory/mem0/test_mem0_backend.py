"""The two backends and the portable records, with the real mem0 library: ``MemoryClient`` against the
loopback platform server, and the helpers that read an embedded store's files."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mem0_platform_server import PlatformServer


def test_export_records_say_what_each_memory_is_and_who_it_is_about():
    from hermes_bundled_plugins.memory.mem0 import portable

    base: dict[str, Any] = {"id": "m1", "memory": "likes tea", "created_at": "2026-01-01T00:00:00Z"}
    cases = [
        ({"kind": "preference", "origin": "conclude"}, {}, "preference", "user"),
        ({"origin": "conclude"}, {}, "conclusion", "user"),
        ({"origin": "builtin_memory", "target": "user"}, {}, "profile", "user"),
        ({"origin": "builtin_memory", "target": "memory"}, {}, "note", "user"),
        ({"origin": "turn"}, {"role": "assistant"}, "message", "assistant"),
        ({"origin": "turn"}, {}, "fact", "user"),
        ({}, {"role": "user"}, "fact", "user"),
        ({"peer": "bob"}, {"role": "assistant"}, "fact", "bob"),
    ]
    for metadata, extra, kind, peer in cases:
        record = portable.to_record(dict(base, metadata=metadata, **extra))
        assert (record["kind"], record["peer"]) == (kind, peer), (metadata, extra)
        assert record["source"] == "mem0:m1" and record["text"] == "likes tea" and record["created_at"] == "2026-01-01T00:00:00Z"


def backend_module():
    from hermes_bundled_plugins.memory.mem0 import backend

    return backend


def platform_settings(server: PlatformServer, home: Path, **changes: Any):
    import dataclasses

    from hermes_bundled_plugins.memory.mem0.settings import Mem0Settings

    base = Mem0Settings(mode="platform", home=home, user_id="ann", agent_id="hermes-test", api_key=server.api_key, host=server.url, timeout=2)
    return dataclasses.replace(base, **changes)


@pytest.fixture
def backend(platform: PlatformServer, hermes_home: Path) -> Iterator[Any]:
    opened = backend_module().open_backend(platform_settings(platform, hermes_home))
    yield opened
    opened.close()


def bodies(platform: PlatformServer, path: str) -> list[Any]:
    return [body for _, seen, body, _ in platform.requests if seen == path]


# -- the platform backend --


def test_the_platform_backend_needs_a_key_and_names_a_refused_one_and_a_dead_address(platform, hermes_home):
    import socket

    backend = backend_module()
    with pytest.raises(backend.BackendError) as raised:
        backend.PlatformBackend(platform_settings(platform, hermes_home, api_key=None))
    assert str(raised.value) == "platform mode needs MEM0_API_KEY -> 'hermes memory setup mem0' (it is stored in $HERMES_HOME/.env)"
    assert platform.requests == []
    with pytest.raises(backend.BackendError) as raised:
        backend.PlatformBackend(platform_settings(platform, hermes_home, api_key="wrong"))
    assert str(raised.value).startswith(f"the Mem0 platform at {platform.url} refused the key: ") and str(raised.value).endswith(" -> check MEM0_API_KEY")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(backend.BackendError) as raised:
        backend.PlatformBackend(platform_settings(platform, hermes_home, host=dead))
    assert str(raised.value).startswith(f"the Mem0 platform at {dead} is unreachable: ConnectError: ")
    assert str(raised.value).endswith(" -> check that it runs and that MEM0_BASE_URL points at it ('hermes memory setup mem0')")


def test_the_platform_backend_sends_what_it_is_given(backend, platform):
    assert (backend.mode, backend.location) == ("platform", platform.url)
    added = backend.add([{"role": "user", "content": "likes tea"}], user_id="ann", agent_id="hermes-test", infer=False)
    assert [a["memory"] for a in added] == ["likes tea"]
    backend.add([{"role": "user", "content": "likes coffee"}], user_id="bob", agent_id="other", infer=True, metadata={"origin": "turn"})
    first, second = bodies(platform, "/v3/memories/add/")
    assert (first["user_id"], first["agent_id"], first["infer"], "metadata" in first) == ("ann", "hermes-test", False, False)
    assert (second["user_id"], second["agent_id"], second["infer"], second["metadata"]) == ("bob", "other", True, {"origin": "turn"})
    found = backend.search("tea", user_id="ann", top_k=3, rerank=True)
    assert [f["memory"] for f in found] == ["likes tea"]
    (search,) = bodies(platform, "/v3/memories/search/")
    assert (search["query"], search["filters"], search["top_k"], search["rerank"]) == ("tea", {"user_id": "ann"}, 3, True)
    assert backend.turn_memories("ann", "turn:x") == []
    memory_id = added[0]["id"]
    backend.update(memory_id, "likes green tea")
    assert platform.memories[memory_id]["memory"] == "likes green tea"
    backend.delete(memory_id)
    assert memory_id not in platform.memories
    assert [m["memory"] for m in backend.get_all(user_id="bob")] == ["likes coffee"]


def test_the_platform_listing_pages_through_and_stops_at_the_limit(backend, platform):
    for n in range(230):
        platform.memories[f"m{n}"] = {"id": f"m{n}", "memory": f"fact {n}", "user_id": "ann"}
    platform.memories["other"] = {"id": "other", "memory": "not ann's", "user_id": "bob"}
    everything = backend.get_all(user_id="ann")
    assert [m["memory"] for m in everything] == [f"fact {n}" for n in range(230)]
    pages = bodies(platform, "/v3/memories/")
    assert len(pages) == 3 and all(p["filters"] == {"user_id": "ann"} for p in pages)
    platform.requests.clear()
    assert [m["memory"] for m in backend.get_all(user_id="ann", limit=150)] == [f"fact {n}" for n in range(150)]
    assert len(bodies(platform, "/v3/memories/")) == 2, "no page is asked for past the limit"
    platform.requests.clear()
    assert len(backend.get_all(user_id="ann", limit=100)) == 100
    assert len(bodies(platform, "/v3/memories/")) == 1


def test_the_platform_listing_asks_for_pages_of_a_hundred_in_order(backend, platform):
    seen: list[str] = []
    original = platform._route

    def route(method: str, path: str, query: dict[str, str], body: Any):
        if path == "/v3/memories/":
            seen.append(f"{query.get('page')}/{query.get('page_size')}")
        return original(method, path, query, body)

    platform._route = route  # type: ignore[method-assign]
    for n in range(201):
        platform.memories[f"m{n}"] = {"id": f"m{n}", "memory": f"fact {n}", "user_id": "ann"}
    assert len(backend.get_all(user_id="ann")) == 201
    assert seen == ["1/100", "2/100", "3/100"]


def test_a_listing_page_without_results_or_without_a_next_page_ends_it(backend, platform):
    platform.memories["m"] = {"id": "m", "memory": "only one", "user_id": "ann"}
    platform.failures.append((200, {"results": [], "next": "/v3/memories/?page=2"}))
    assert backend.get_all(user_id="ann") == []
    platform.failures.append((200, [{"id": "x", "memory": "a bare list"}, "not a memory"]))
    assert [m["memory"] for m in backend.get_all(user_id="ann")] == ["a bare list"]
    assert len(bodies(platform, "/v3/memories/")) == 2


def test_the_platform_backend_closes_its_connection_once(platform, hermes_home):
    backend = backend_module().PlatformBackend(platform_settings(platform, hermes_home))
    http = backend._http
    backend.close()
    assert http.is_closed and backend._http is None
    backend.close()


# -- helpers --


def test_replies_are_read_as_lists_of_memories():
    results = backend_module()._results
    assert results({"results": [{"id": 1}, "x", None]}) == [{"id": 1}]
    assert results([{"id": 2}, 3]) == [{"id": 2}]
    assert results({"no": "results"}) == [] and results({"results": "text"}) == [] and results(None) == [] and results("x") == []


def test_endpoint_blocks_for_mem0(hermes_home):
    from hermes_bundled_plugins.memory.mem0.settings import ModelEndpoint

    block = backend_module().LocalBackend._endpoint_block
    assert block(ModelEndpoint("openai", "m", "http://h/v1", None, 32), embedder=False) == {
        "provider": "openai", "config": {"model": "m", "api_key": "unused", "openai_base_url": "http://h/v1"}}
    assert block(ModelEndpoint("openai", "e", "http://h/v1", "k", 32), embedder=True) == {
        "provider": "openai", "config": {"model": "e", "api_key": "k", "openai_base_url": "http://h/v1", "embedding_dims": 32}}
    assert block(ModelEndpoint("openai", "e", "", None, 0), embedder=True) == {"provider": "openai", "config": {"model": "e", "api_key": "unused"}}
    for provider in ("lmstudio", "vllm"):
        assert block(ModelEndpoint(provider, "m", "http://h", None), embedder=False)["config"] == {"model": "m", "api_key": "unused", f"{provider}_base_url": "http://h"}
    for provider in ("deepseek", "together", "groq", "xai"):
        assert block(ModelEndpoint(provider, "m", "http://h", None), embedder=False)["config"] == {"model": "m", "api_key": "unused"}
    assert block(ModelEndpoint("ollama", "m", "http://h", None, 8), embedder=True) == {
        "provider": "ollama", "config": {"model": "m", "ollama_base_url": "http://h", "embedding_dims": 8}}
    assert block(ModelEndpoint("anthropic", "m", "", "sk"), embedder=False) == {"provider": "anthropic", "config": {"model": "m", "api_key": "sk"}}


def test_an_embedded_store_from_mem0_json_is_kept_under_hermes_home(platform, hermes_home):
    settings = platform_settings(platform, hermes_home)
    with_path = backend_module()._with_local_path
    for provider in ("qdrant", "faiss", "chroma"):
        assert with_path({"provider": provider, "config": {"collection_name": "c"}}, settings) == {
            "provider": provider, "config": {"collection_name": "c", "path": str(hermes_home / "mem0" / provider)}}
    assert with_path({"provider": "qdrant"}, settings) == {"provider": "qdrant", "config": {"path": str(hermes_home / "mem0" / "qdrant")}}
    for remote in ({"url": "http://q"}, {"host": "q"}, {"client": "c"}, {"api_key": "k"}, {"path": "/data/q"}):
        assert with_path({"provider": "qdrant", "config": remote}, settings) == {"provider": "qdrant", "config": remote}
    assert with_path({"provider": "pgvector", "config": {"dbname": "x"}}, settings) == {"provider": "pgvector", "config": {"dbname": "x"}}
    assert with_path({"config": None}, settings) == {"config": {}}


def test_the_vector_size_of_a_store_on_disk(tmp_path):
    import json

    existing = backend_module().existing_dims
    assert existing(tmp_path, "mem0") == 0
    (tmp_path / "meta.json").write_text(json.dumps({"collections": {"mem0": {"vectors": {"size": 64}}, "other": {"vectors": {"size": 8}}}}))
    assert existing(tmp_path, "mem0") == 64 and existing(tmp_path, "other") == 8 and existing(tmp_path, "missing") == 0
    for bad in ("not json", "[]", '{"collections": {"mem0": {"vectors": {"size": "big"}}}}', '{"collections": {"mem0": {"vectors": null}}}'):
        (tmp_path / "meta.json").write_text(bad)
        assert existing(tmp_path, "mem0") == 0


def test_the_size_of_the_store_directory(tmp_path):
    size = backend_module().store_size
    assert size(None) == 0 and size(tmp_path / "missing") == 0
    (tmp_path / "a").write_bytes(b"x" * 10)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"y" * 5)
    assert size(tmp_path) == 15


def test_probing_the_embedding_size_asks_once_and_names_what_went_wrong(model_server):
    from hermes_bundled_plugins.memory.mem0.settings import ModelEndpoint
    from hermes_core.testing_servers import error_reply, raw_reply

    backend = backend_module()
    model_server.reset()
    assert backend.probe_dims(ModelEndpoint("openai", "hashed-bow", model_server.base_url, None), 2) == 64
    (probe,) = model_server.requests_of("embeddings")
    assert probe.body["input"] == ["size check"] and probe.body["model"] == "hashed-bow" and probe.body["encoding_format"] == "float"
    assert probe.headers.get("authorization") == "Bearer unused"
    with pytest.raises(backend.BackendError) as raised:
        backend.probe_dims(ModelEndpoint("ollama", "nomic", "http://h", None), 2)
    assert str(raised.value) == "the size of ollama embeddings is not known -> 'hermes memory setup mem0 --set embedder.dims=<size of nomic>'"
    with pytest.raises(backend.BackendError) as raised:
        backend.probe_dims(ModelEndpoint("openai", "e", "", None), 2)
    assert str(raised.value) == "the size of openai embeddings is not known -> 'hermes memory setup mem0 --set embedder.dims=<size of e>'"
    model_server.fail_next("embeddings", error_reply(500))
    with pytest.raises(backend.BackendError) as raised:
        backend.probe_dims(ModelEndpoint("openai", "e", model_server.base_url, "k"), 2)
    assert str(raised.value).startswith(f"the embedding endpoint {model_server.base_url} (model e) did not answer a size check: InternalServerError: ")
    assert str(raised.value).endswith(" -> check embedder.base_url and embedder.model, or set embedder.dims")
    model_server.fail_next("embeddings", raw_reply(200, '{"object": "list", "data": [], "model": "e"}'))
    with pytest.raises(backend.BackendError, match="did not answer a size check: IndexError"):
        backend.probe_dims(ModelEndpoint("openai", "e", model_server.base_url, "k"), 2)
    model_server.fail_next("embeddings", raw_reply(200, '{"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": []}], "model": "e"}'))
    with pytest.raises(backend.BackendError) as raised:
        backend.probe_dims(ModelEndpoint("openai", "e", model_server.base_url, "k"), 2)
    assert str(raised.value) == f"the embedding endpoint {model_server.base_url} returned no vector for model e -> check embedder.model"


def test_mem0_is_found_without_importing_it_and_missing_is_named(monkeypatch, platform, hermes_home):
    import sys
    import types

    backend = backend_module()
    assert backend.mem0_installed() is True
    monkeypatch.setitem(sys.modules, "mem0", None)
    assert backend.mem0_installed() is False
    with pytest.raises(backend.BackendError) as raised:
        backend.import_mem0(platform_settings(platform, hermes_home))
    assert str(raised.value) == backend.INSTALL_HINT
    broken = types.ModuleType("mem0")
    broken.__spec__ = None
    monkeypatch.setitem(sys.modules, "mem0", broken)
    assert backend.mem0_installed() is False


def test_importing_mem0_puts_its_directory_under_hermes_home_and_telemetry_as_configured(monkeypatch, platform, hermes_home):
    import logging
    import os

    backend = backend_module()
    monkeypatch.delenv("MEM0_DIR")
    monkeypatch.delenv("MEM0_TELEMETRY")
    monkeypatch.setattr(logging.getLogger("mem0"), "level", logging.NOTSET)
    backend.import_mem0(platform_settings(platform, hermes_home, telemetry=True))
    assert os.environ["MEM0_DIR"] == str(hermes_home / "mem0") and os.environ["MEM0_TELEMETRY"] == "True"
    assert logging.getLogger("mem0").level == logging.ERROR, "mem0's warnings about optional extras are not shown"
    monkeypatch.delenv("MEM0_TELEMETRY")
    monkeypatch.setenv("MEM0_DIR", "/elsewhere")
    backend.import_mem0(platform_settings(platform, hermes_home))
    assert os.environ["MEM0_TELEMETRY"] == "False" and os.environ["MEM0_DIR"] == "/elsewhere", "a directory the user chose is kept"
    monkeypatch.setattr(logging.getLogger("mem0"), "level", logging.NOTSET)
    monkeypatch.setattr(logging.getLogger("hermes"), "level", logging.DEBUG)
    backend.import_mem0(platform_settings(platform, hermes_home))
    assert logging.getLogger("mem0").level == logging.NOTSET, "debugging hermes shows mem0's warnings too"


# -- portable records --


def test_an_export_record_keeps_the_users_metadata_and_mem0s_ids_but_not_the_providers_own():
    from hermes_bundled_plugins.memory.mem0 import portable

    record = portable.to_record({
        "id": "m7", "memory": "likes tea", "created_at": "2026-01-01T00:00:00Z", "user_id": "ann", "agent_id": "hermes", "role": "user",
        "metadata": {"origin": "import", "kind": "preference", "peer": "bob", "turn": "t1", "import_source": "honcho:9", "topic": "drinks"},
    })
    assert record == {
        "text": "likes tea", "kind": "preference", "peer": "bob", "created_at": "2026-01-01T00:00:00Z", "source": "mem0:m7",
        "metadata": {"topic": "drinks", "user_id": "ann", "agent_id": "hermes", "role": "user", "imported_from": "honcho:9", "mem0_id": "m7"},
    }
    bare = portable.to_record({"id": "m8", "user_id": "", "metadata": None})
    assert bare == {"text": "", "kind": "fact", "peer": "user", "created_at": None, "source": "mem0:m8", "metadata": {"mem0_id": "m8"}}


def test_imports_are_verbatim_under_the_configured_user_and_skip_what_is_held(backend, platform):
    from types import SimpleNamespace

    from hermes_bundled_plugins.memory.mem0 import portable
    from hermes_core.memory import MemoryRecord

    backend.add([{"role": "user", "content": "already here"}], user_id="ann", agent_id="hermes-test", infer=False, metadata={"import_source": "honcho:1"})
    (held_id,) = platform.memories
    records = [
        {"text": "  likes tea  ", "kind": "preference", "peer": "bob", "created_at": "2026-01-02", "source": "honcho:2",
         "metadata": {"topic": "drinks", "origin": "x", "kind": "y", "peer": "z", "import_source": "w", "turn": "v"}},
        {"text": "from honcho:1 again", "source": "honcho:1"},
        {"text": "an export of this store", "source": f"mem0:{held_id}"},
        {"text": "   "},
        {"text": None},
        {"text": "likes tea twice", "source": "honcho:2"},
        {"text": "from the assistant", "user": "assistant"},
        MemoryRecord(text="a record object", kind="note", peer="assistant", source="builtin:3"),
        SimpleNamespace(text="an attribute object", kind=None, peer=None, source=None, metadata=None, created_at=None),
    ]
    assert portable.import_records(backend, records, user_id="ann", agent_id="hermes-test") == 4
    adds = bodies(platform, "/v3/memories/add/")[1:]
    assert [a["messages"] for a in adds] == [[{"role": "user", "content": t}] for t in ("likes tea", "from the assistant", "a record object", "an attribute object")]
    assert {(a["user_id"], a["agent_id"], a["infer"]) for a in adds} == {("ann", "hermes-test", False)}
    assert [a["metadata"] for a in adds] == [
        {"topic": "drinks", "origin": "import", "kind": "preference", "peer": "bob", "import_source": "honcho:2", "original_created_at": "2026-01-02"},
        {"origin": "import", "kind": "fact", "peer": "assistant"},
        {"origin": "import", "kind": "note", "peer": "assistant", "import_source": "builtin:3"},
        {"origin": "import", "kind": "fact", "peer": "user"},
    ]
    assert portable.import_records(backend, records, user_id="ann", agent_id="hermes-test") == 2, "the records without a source are added again"


# -- the local backend: mem0.Memory with the embedded store, against the loopback model server --


def local_settings(server: Any, home: Path, **changes: Any):
    import dataclasses

    from hermes_bundled_plugins.memory.mem0.settings import Mem0Settings, ModelEndpoint

    base = Mem0Settings(
        mode="local", home=home, user_id="ann", agent_id="hermes-test", timeout=2,
        llm=ModelEndpoint("openai", "chat-model", server.base_url, None), embedder=ModelEndpoint("openai", "hashed-bow", server.base_url, "ek", 64),
        store_path=home / "mem0" / "qdrant",
    )
    return dataclasses.replace(base, **changes)


def test_local_mode_names_the_model_or_embedder_it_lacks(server, hermes_home):
    backend = backend_module()
    with pytest.raises(backend.BackendError) as raised:
        backend.open_backend(local_settings(server, hermes_home, llm=None))
    assert str(raised.value) == (
        "local mode needs a model to extract memories with, and no chat model is configured -> "
        "'hermes config set model.name <model>' (and model.base_url), or 'hermes memory setup mem0 --set llm.model=<model> --set llm.base_url=<url>'"
    )
    with pytest.raises(backend.BackendError) as raised:
        backend.open_backend(local_settings(server, hermes_home, embedder=None))
    assert str(raised.value) == (
        "local mode needs an embedding endpoint -> 'hermes memory setup mem0 --set embedder.base_url=<OpenAI-compatible url> "
        "--set embedder.model=<model> --set embedder.dims=<size>'"
    )
    assert not (hermes_home / "mem0" / "qdrant").exists() and server.requests == []


def test_a_configuration_mem0_refuses_is_named(server, hermes_home):
    backend = backend_module()
    settings = local_settings(server, hermes_home, llm=None, native={"llm": {"provider": "no-such-provider", "config": {}}})
    with pytest.raises(backend.BackendError) as raised:
        backend.open_backend(settings)
    assert str(raised.value).startswith(f"mem0 refused the configuration: {type(raised.value.__cause__).__name__}: ")


def test_the_local_backend_bounds_every_model_call_and_keeps_its_store_under_hermes_home(server, hermes_home):
    opened = backend_module().open_backend(local_settings(server, hermes_home))
    try:
        assert (opened.mode, opened.location) == ("local", str(hermes_home / "mem0" / "qdrant"))
        config = opened.memory.config
        assert config.history_db_path == str(hermes_home / "mem0" / "history.db") and config.version == "v1.1"
        store = config.vector_store.config
        assert (store.collection_name, store.embedding_model_dims, store.path, store.on_disk) == ("hermes", 64, str(hermes_home / "mem0" / "qdrant"), True)
        llm, embedder = opened.memory.llm.client, opened.memory.embedding_model.client
        assert (llm.timeout, llm.max_retries, str(llm.base_url), llm.api_key) == (2, 0, server.base_url.rstrip("/") + "/", "unused")
        assert (embedder.timeout, embedder.max_retries, str(embedder.base_url), embedder.api_key) == (2, 0, server.base_url.rstrip("/") + "/", "ek")
        assert opened.memory.vector_store.collection_name == "hermes", "the serialized store still shows its attributes"
        assert not [r for r in server.requests_of("embeddings") if r.body["input"] == ["size check"]], "a configured size is not asked for"
        assert not (hermes_home / "mem0" / "qdrant" / ".write-check").exists()
    finally:
        opened.close()


def test_model_blocks_from_mem0_json_keep_their_own_address_and_are_bounded_too(server, hermes_home):
    """hermes' own endpoints are set as well, but mem0.json's blocks win: their address stays, only the waiting is bounded."""
    elsewhere = "http://127.0.0.1:9/v1"  # never asked while the store opens
    native = {"llm": {"provider": "openai", "config": {"model": "their-chat", "api_key": "lk", "openai_base_url": elsewhere}},
              "embedder": {"provider": "openai", "config": {"model": "their-embedder", "api_key": "nk", "openai_base_url": elsewhere,
                                                            "embedding_dims": 64}}}
    opened = backend_module().open_backend(local_settings(server, hermes_home, native=native))
    try:
        llm, embedder = opened.memory.llm.client, opened.memory.embedding_model.client
        assert (llm.timeout, llm.max_retries, str(llm.base_url), llm.api_key) == (2, 0, elsewhere + "/", "lk")
        assert (embedder.timeout, embedder.max_retries, str(embedder.base_url), embedder.api_key) == (2, 0, elsewhere + "/", "nk")
    finally:
        opened.close()


def test_an_openrouter_key_in_the_environment_never_reaches_the_configured_endpoints(server, hermes_home, monkeypatch):
    """mem0 switches its OpenAI clients to OpenRouter, with its key, whenever OPENROUTER_API_KEY is set: both are undone."""
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-secret")
    opened = backend_module().open_backend(local_settings(server, hermes_home))
    try:
        llm, embedder = opened.memory.llm.client, opened.memory.embedding_model.client
        assert (str(llm.base_url), llm.api_key) == (server.base_url.rstrip("/") + "/", "unused")
        assert (str(embedder.base_url), embedder.api_key) == (server.base_url.rstrip("/") + "/", "ek")
    finally:
        opened.close()


def test_the_embedder_is_asked_for_vectors_of_the_configured_size(server, hermes_home):
    opened = backend_module().open_backend(local_settings(server, hermes_home))
    try:
        opened.add([{"role": "user", "content": "I like coffee"}], user_id="ann", agent_id="hermes-test", infer=False)
    finally:
        opened.close()
    assert {r.body.get("dimensions") for r in server.requests_of("embeddings")} == {64}


def test_the_size_in_an_embedder_block_is_a_whole_number_of_at_least_one(tmp_path):
    backend = backend_module()
    assert backend._native_dims({"provider": "openai", "config": {"embedding_dims": 1}}, tmp_path, "hermes") == 1
    for config in ({"embedding_dims": 0}, {"embedding_dims": True}, {"embedding_dims": "64"}, "not an object", None):
        with pytest.raises(backend.BackendError, match="does not say its vector size"):
            backend._native_dims({"provider": "openai", "config": config}, tmp_path, "hermes")


def test_the_serialized_store_makes_each_call_under_its_lock_and_shows_its_attributes():
    """The background search and the writer share the embedded store: every method runs holding the one lock."""
    backend = backend_module()

    class Store:
        collection_name = "hermes"

        def get(self, vector_id: int) -> tuple[int, bool]:
            return vector_id, wrapped._lock._is_owned()

    wrapped = backend._Serialized(Store())
    assert wrapped.collection_name == "hermes"
    assert wrapped.get(7) == (7, True) and not wrapped._lock._is_owned()


def test_the_local_backend_finds_a_turn_and_releases_the_store_when_closed(server, hermes_home):
    backend = backend_module()
    settings = local_settings(server, hermes_home)
    opened = backend.open_backend(settings)
    opened.add([{"role": "user", "content": "likes tea"}], user_id="ann", agent_id="hermes-test", infer=False, metadata={"turn": "t1"})
    opened.add([{"role": "user", "content": "likes coffee"}], user_id="ann", agent_id="hermes-test", infer=False, metadata={"turn": "t2"})
    opened.add([{"role": "user", "content": "likes water"}], user_id="bob", agent_id="hermes-test", infer=False, metadata={"turn": "t1"})
    assert [m["memory"] for m in opened.turn_memories("ann", "t1")] == ["likes tea"]
    assert opened.turn_memories("ann", "t3") == []
    assert sorted(m["memory"] for m in opened.get_all(user_id="ann")) == ["likes coffee", "likes tea"]
    assert len(opened.get_all(user_id="ann", limit=1)) == 1
    (tea,) = opened.turn_memories("ann", "t1")
    opened.update(tea["id"], "likes green tea")
    assert [m["memory"] for m in opened.search("green tea", user_id="ann", top_k=1, rerank=False)] == ["likes green tea"]
    assert opened.memory.vector_store.get(tea["id"]).payload["data"] == "likes green tea"  # the serialized store passes positional arguments on
    opened.delete(tea["id"])
    opened.close()
    opened.close()
    again = backend.open_backend(settings)  # the store's lock was released
    try:
        assert [m["memory"] for m in again.get_all(user_id="ann")] == ["likes coffee"]
    finally:
        again.close()
    assert backend.store_size(settings.store_path) > 0


def test_an_embedded_store_from_mem0_json_that_cannot_be_made_is_named(server, hermes_home):
    backend = backend_module()
    (hermes_home / "a-file").write_text("where the store should go")
    native = {"vector_store": {"provider": "qdrant", "config": {"path": str(hermes_home / "a-file" / "q"), "collection_name": "c", "embedding_model_dims": 64}}}
    with pytest.raises(backend.BackendError) as raised:
        backend.open_backend(local_settings(server, hermes_home, native=native))
    assert str(raised.value) == (
        f"cannot open the mem0 store at qdrant (from mem0.json): [Errno 20] Not a directory: '{hermes_home / 'a-file' / 'q'}' "
        "-> make the directory writable or set memory.mem0.store.path"
    )


def test_a_platform_that_does_not_answer_in_time_fails_the_call(platform, hermes_home):
    backend = backend_module().PlatformBackend(platform_settings(platform, hermes_home, timeout=0.3))
    platform.search_gate = threading.Event()
    # the answer comes after 3 s: well past the 0.3 s bound, well before httpx's own default of 5 s
    late = threading.Timer(3, platform.search_gate.set)
    late.start()
    try:
        from mem0.exceptions import NetworkError

        with pytest.raises(NetworkError, match="Request timed out"):
            backend.search("tea", user_id="ann", top_k=3, rerank=False)
    finally:
        late.cancel()
        platform.search_gate.set()
        backend.close()


def test_the_size_check_is_bounded_by_the_timeout(model_server):
    from hermes_bundled_plugins.memory.mem0.settings import ModelEndpoint
    from hermes_core.testing_servers import hang_reply

    backend = backend_module()
    model_server.reset()
    model_server.fail_next("embeddings", hang_reply(20))
    with pytest.raises(backend.BackendError, match="did not answer a size check: APITimeoutError"):
        backend.probe_dims(ModelEndpoint("openai", "e", model_server.base_url, "k"), 0.3)


def test_the_local_search_and_a_turns_memories_are_bounded_as_asked(server, hermes_home):
    opened = backend_module().open_backend(local_settings(server, hermes_home))
    try:
        opened.add([{"role": "user", "content": f"likes tea number {n}"} for n in range(25)], user_id="ann", agent_id="hermes-test", infer=False, metadata={"turn": "t1"})
        assert len(opened.search("likes tea", user_id="ann", top_k=1, rerank=False)) == 1
        assert len(opened.search("likes tea", user_id="ann", top_k=25, rerank=False)) == 25
        assert len(opened.turn_memories("ann", "t1")) == 25, "more than mem0's default page of 20"
    finally:
        opened.close()


def test_every_memory_of_a_long_turn_is_seen_so_a_retry_stores_none_twice(server, hermes_home):
    from hermes_bundled_plugins.memory.mem0 import writes

    opened = backend_module().open_backend(local_settings(server, hermes_home))
    try:
        turn = [{"role": "user", "content": f"step {n} of the long import"} for n in range(130)]
        write = {"op": "add", "user_id": "ann", "agent_id": "hermes-test", "messages": turn, "infer": False,
                 "metadata": {"turn": "long"}}
        writes.apply(opened, write)
        assert len(opened.turn_memories("ann", "long")) == 130
        writes.apply(opened, write)  # the retry of a write whose answer was lost
        assert len(opened.get_all(user_id="ann")) == 130
    finally:
        opened.close()


def test_closing_releases_the_store_even_while_the_memory_object_is_still_held(server, hermes_home):
    backend = backend_module()
    settings = local_settings(server, hermes_home)
    opened = backend.open_backend(settings)
    held = opened.memory  # e.g. a search thread that has not let go of it yet
    opened.close()
    again = backend.open_backend(settings)
    again.close()
    assert held is not None


def test_an_embedder_block_from_mem0_json_gives_the_store_its_size_or_is_named(server, hermes_home):
    backend = backend_module()
    block = {"provider": "openai", "config": {"model": "hashed-bow", "api_key": "ek", "openai_base_url": server.base_url}}
    # no embedder of hermes' own: the block of mem0.json is the only one, and the embedded store is hermes'
    without_size = local_settings(server, hermes_home, embedder=None, native={"embedder": block})
    with pytest.raises(backend.BackendError) as raised:
        backend.open_backend(without_size)
    assert str(raised.value) == (
        f"the embedder block of mem0.json does not say its vector size, and the store {hermes_home / 'mem0' / 'qdrant'} "
        "(collection 'hermes') holds none yet -> add \"embedding_dims\": <size> to the block's \"config\" in mem0.json"
    )
    sized = dict(block, config=dict(block["config"], embedding_dims=64))
    opened = backend.open_backend(local_settings(server, hermes_home, embedder=None, native={"embedder": sized}))
    try:
        opened.add([{"role": "user", "content": "I like coffee"}], user_id="ann", agent_id="hermes-test", infer=False)
    finally:
        opened.close()
    assert backend.existing_dims(hermes_home / "mem0" / "qdrant", "hermes") == 64
    # the store's size now answers, whatever the block says
    reopened = backend.open_backend(local_settings(server, hermes_home, embedder=None, native={"embedder": block}))
    reopened.close()
