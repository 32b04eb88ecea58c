"""The Mem0 provider in local mode: the real mem0.Memory, an embedded store in tmp_path, a loopback model."""

from __future__ import annotations

import json

from hermes_core.memory.manager import MemoryManager

POSTGRES = "postgres listens on port 5433 on the staging box"
CAT = "the office cat is called Miso and likes tuna"


def _plant(provider, *facts: str) -> None:
    for fact in facts:
        answer = json.loads(provider.handle_tool_call("mem0_conclude", {"conclusion": fact}))
        assert answer == {"result": "Fact stored.", "count": 1}, answer


def _embedding_calls(server) -> int:
    return len(server.requests_of("embeddings"))


def test_first_turn_recalls_by_meaning_and_not_unrelated_things(open_provider, server, mem0_home):
    provider = open_provider()
    _plant(provider, POSTGRES, CAT)
    provider.shutdown()

    fresh = open_provider("s2")
    recalled = fresh.prefetch("which port does postgres use?")
    assert recalled.startswith("## Mem0 Memory\n- ")
    assert POSTGRES in recalled and CAT not in recalled
    assert fresh.recall_status().count >= 1
    # The store is under $HERMES_HOME, never mem0's shared /tmp default.
    assert (mem0_home / "mem0" / "qdrant").is_dir() and (mem0_home / "mem0" / "history.db").is_file()


def test_later_turns_use_the_background_search_and_search_nothing_on_the_turn(open_provider, server):
    provider = open_provider()
    _plant(provider, POSTGRES)
    assert provider.prefetch("hello there, what is the postgres port") != ""  # first turn: a real search
    provider.queue_prefetch("postgres port for staging?")
    assert provider.wait_for_prefetch(10)
    before = _embedding_calls(server)
    recalled = provider.prefetch("and the cat?")
    assert POSTGRES in recalled
    assert _embedding_calls(server) == before, "a later turn's prefetch must not search"
    # Consumed: a turn with no background result searches itself (bounded), as the first turn does.
    assert POSTGRES in provider.prefetch("the postgres port again?")
    assert _embedding_calls(server) == before + 1


def test_sync_turn_writes_in_order_in_the_background_and_drains_at_session_end(open_provider, server, mem0_home):
    (mem0_home / "config.yaml").write_text((mem0_home / "config.yaml").read_text() + "    infer: false\n")
    provider = open_provider()
    for n in range(4):
        provider.sync_turn(f"turn {n} question about topic{n}", f"turn {n} answer")
    provider.on_session_end([])
    memories = provider.export_memories()
    texts = [m["text"] for m in sorted(memories, key=lambda m: m["created_at"])]
    assert texts == [t for n in range(4) for t in (f"turn {n} question about topic{n}", f"turn {n} answer")]
    assert all(m["kind"] == "message" and m["metadata"].get("session_id") == "s1" for m in memories)
    assert [m["peer"] for m in sorted(memories, key=lambda m: m["created_at"])][:2] == ["user", "assistant"]


def test_sync_turn_with_extraction_stores_what_the_model_extracted(open_provider, server):
    provider = open_provider()
    provider.sync_turn("my favourite editor is helix", "Good choice.")
    assert provider.flush(30)
    extraction = server.requests_of("extraction")
    assert len(extraction) == 1 and "my favourite editor is helix" in extraction[0].body["messages"][-1]["content"]
    assert [m["text"] for m in provider.export_memories()] == ["my favourite editor is helix"]


def test_builtin_memory_writes_are_mirrored_add_replace_remove(open_provider, server):
    provider = open_provider()
    provider.on_memory_write("add", "user", "User prefers vim")
    provider.on_memory_write("add", "memory", "Deploys go through ansible")
    provider.on_memory_write("replace", "user", "User prefers emacs", {"old_entry": "User prefers vim", "write_origin": "tool"})
    provider.on_memory_write("remove", "memory", "Deploys go through ansible", {"old_text": "ansible"})
    assert provider.flush(30)
    records = provider.export_memories()
    assert [(r["text"], r["kind"], r["peer"]) for r in records] == [("User prefers emacs", "profile", "user")]


def test_the_memory_manager_mirrors_edits_through_the_builtin_provider(open_provider, server, mem0_home):
    from hermes_core.manager import PluginManager

    plugins = PluginManager()
    plugins.load_all()
    memory = MemoryManager.from_plugins(plugins)
    memory.initialize_all("s1", hermes_home=str(mem0_home), platform="cli")
    answer = json.loads(memory.handle_tool_call("memory", {"action": "add", "target": "memory", "content": "The build server is ci-7"}))
    assert answer["success"], answer
    memory.shutdown_all()
    provider = open_provider("s2")
    assert [r["text"] for r in provider.export_memories()] == ["The build server is ci-7"]


def test_tools_have_hermes_agent_names_and_parameters(open_provider, server):
    provider = open_provider()
    schemas = {s["name"]: s for s in provider.get_tool_schemas()}
    assert set(schemas) == {"mem0_search", "mem0_profile", "mem0_conclude"}
    assert set(schemas["mem0_search"]["parameters"]["properties"]) == {"query", "rerank", "top_k"}
    assert schemas["mem0_search"]["parameters"]["required"] == ["query"]
    assert schemas["mem0_conclude"]["parameters"]["required"] == ["conclusion"]
    assert schemas["mem0_profile"]["parameters"]["properties"] == {}


def test_search_profile_and_conclude(open_provider, server):
    provider = open_provider()
    _plant(provider, POSTGRES, CAT, "the deploy window is friday afternoon")
    found = json.loads(provider.handle_tool_call("mem0_search", {"query": "postgres port", "top_k": 1}))
    assert found["count"] == 1 and found["results"][0]["memory"] == POSTGRES and found["results"][0]["score"] > 0
    clamped = json.loads(provider.handle_tool_call("mem0_search", {"query": "cat tuna postgres deploy", "top_k": 500}))
    assert clamped["count"] <= 50
    assert server.requests_of("embeddings")[-1].body["input"] == ["cat tuna postgres deploy"]
    profile = json.loads(provider.handle_tool_call("mem0_profile", {}))
    assert profile["count"] == 3 and f"- {CAT}" in profile["result"].splitlines()
    for name, args in (("mem0_search", {}), ("mem0_search", {"query": "  "}), ("mem0_conclude", {"conclusion": 7}), ("nope", {})):
        assert "error" in json.loads(provider.handle_tool_call(name, args)), name


def test_user_ids_per_platform_and_from_the_gateway(open_provider, server, mem0_home):
    (mem0_home / "config.yaml").write_text((mem0_home / "config.yaml").read_text() + "    user_id: alice\n    user_ids:\n      telegram: tg-alice\n")
    cli = open_provider("a", platform="cli")
    telegram = open_provider("b", platform="telegram")
    gateway = open_provider("c", platform="discord", user_id="discord-42")
    assert (cli.settings.user_id, telegram.settings.user_id, gateway.settings.user_id) == ("alice", "tg-alice", "discord-42")


def test_hermes_agent_mem0_json_is_read_and_config_yaml_wins(open_provider, server, mem0_home):
    (mem0_home / "mem0.json").write_text(json.dumps({"user_id": "from-json", "agent_id": "json-agent", "api_key": "leaked"}))
    provider = open_provider()
    assert provider.settings.user_id == "from-json" and provider.settings.agent_id == "json-agent"
    assert provider.settings.mode == "local", "a key in mem0.json is not a secret source"
    assert any("api_key in mem0.json is ignored" in note for note in provider.settings.notes)
    (mem0_home / "config.yaml").write_text((mem0_home / "config.yaml").read_text() + "    user_id: from-yaml\n")
    assert open_provider("s2").settings.user_id == "from-yaml"


def test_sub_agents_read_but_do_not_write(open_provider, server):
    provider = open_provider(agent_context="subagent")
    provider.sync_turn("secret sub-agent chatter", "ok")
    provider.on_memory_write("add", "memory", "also not mirrored")
    assert provider.flush(10)
    assert provider.export_memories() == []


def test_export_and_import_round_trip_verbatim(open_provider, server):
    provider = open_provider()
    records = [
        {"text": "Prefers dark mode", "kind": "preference", "peer": "user", "created_at": "2026-01-02T03:04:05Z", "source": "honcho:abc"},
        {"text": "Project uses postgres 16", "kind": "note", "user": "assistant", "source": "builtin:memory"},
        {"text": "   ", "kind": "fact"},
    ]
    before = len(server.requests_of("extraction"))
    assert provider.import_memories(records) == 2
    assert len(server.requests_of("extraction")) == before, "imports are verbatim: no extraction call"
    assert provider.import_memories(records) == 0, "records already held (same source) are skipped"
    exported = {r["text"]: r for r in provider.export_memories()}
    assert set(exported) == {"Prefers dark mode", "Project uses postgres 16"}
    dark = exported["Prefers dark mode"]
    assert (dark["kind"], dark["peer"], dark["metadata"]["imported_from"]) == ("preference", "user", "honcho:abc")
    assert dark["source"] == f"mem0:{dark['metadata']['mem0_id']}" and dark["metadata"]["original_created_at"] == "2026-01-02T03:04:05Z"
    assert exported["Project uses postgres 16"]["peer"] == "assistant"
    assert all(r["metadata"]["user_id"] == "hermes-user" and r["created_at"] for r in exported.values())
    assert provider.import_memories(list(exported.values())) == 0, "an export imported into its own store adds nothing"


def test_a_resent_turn_is_stored_once(open_provider, server, mem0_home):
    (mem0_home / "config.yaml").write_text((mem0_home / "config.yaml").read_text() + "    infer: false\n")
    provider = open_provider()
    provider.sync_turn("my locker code is zx7q2", "Noted.", source="session:a:message:3")
    assert provider.flush_writes(30)
    provider.sync_turn("my locker code is zx7q2", "Noted.", source="session:a:message:3")  # a resumed backfill
    provider.sync_turn("ok", "Sure.", messages=[{}] * 4)
    provider.sync_turn("ok", "Sure.", messages=[{}] * 6)  # the same words later in the conversation: a new turn
    assert provider.flush_writes(30)
    texts = sorted(r["text"] for r in provider.export_memories())
    assert texts == sorted(["my locker code is zx7q2", "Noted.", "ok", "Sure.", "ok", "Sure."])


def test_flush_writes_is_false_while_writes_wait_for_a_retry(open_provider, server, mem0_home):
    from hermes_core.testing_servers import error_reply

    provider = open_provider()
    server.fail_next("embeddings", error_reply(500))
    provider.sync_turn("will wait", "")
    assert provider.flush_writes(30) is False
    provider.sync_turn("goes through", "")
    assert provider.flush_writes(30) is True


def test_odd_input_is_harmless(open_provider, server):
    provider = open_provider()
    assert provider.prefetch("x" * 20_000) == ""
    assert json.loads(provider.handle_tool_call("mem0_search", {"query": "ünïcödé — 東京 🙂" * 50}))["count"] == 0
    provider.sync_turn("", "")
    assert provider.flush(10)


def test_searches_and_writes_from_different_threads_do_not_disturb_each_other(open_provider, server, mem0_home):
    import threading

    (mem0_home / "config.yaml").write_text((mem0_home / "config.yaml").read_text() + "    infer: false\n")
    provider = open_provider()
    errors: list[str] = []

    def search() -> None:
        for n in range(30):
            answer = json.loads(provider.handle_tool_call("mem0_search", {"query": f"note {n} about service{n}"}))
            if "error" in answer:
                errors.append(answer["error"])

    searcher = threading.Thread(target=search)
    searcher.start()
    for n in range(30):
        provider.sync_turn(f"note {n} about service{n}", "")
    searcher.join(60)
    assert provider.flush(60)
    assert errors == [] and provider.status_details()["last_error"] is None
    assert len(provider.export_memories()) == 30


def test_the_vector_size_is_learned_from_the_endpoint_then_kept_by_the_store(open_provider, server, mem0_home):
    config = (mem0_home / "config.yaml").read_text().replace("      dims: 64\n", "")
    (mem0_home / "config.yaml").write_text(config)
    provider = open_provider()
    _plant(provider, POSTGRES)
    (probe,) = [r for r in server.requests_of("embeddings") if r.body["input"] == ["size check"]]
    assert "dimensions" not in probe.body, "servers that cannot shorten vectors reject the parameter"
    assert POSTGRES in provider.prefetch("which port does postgres use")
    provider.shutdown()

    (mem0_home / "config.yaml").write_text(config.replace("      model: hashed-bow\n", "      model: hashed-bow\n      dims: 32\n"))
    refused = open_provider("s2")
    answer = json.loads(refused.handle_tool_call("mem0_search", {"query": "postgres"}))
    assert "holds 64-dimensional vectors but memory.mem0.embedder.dims is 32" in answer["error"]


def test_an_openrouter_key_in_the_environment_does_not_redirect_extraction(open_provider, server, monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")  # mem0 alone would send extraction to openrouter.ai
    provider = open_provider()
    provider.sync_turn("my terminal is kitty", "ok")
    assert provider.flush(30)
    assert len(server.requests_of("extraction")) == 1
    assert [r["text"] for r in provider.export_memories()] == ["my terminal is kitty"]


def test_mem0_native_blocks_from_a_hermes_agent_mem0_json_are_used_and_kept_under_hermes_home(open_provider, server, mem0_home):
    (mem0_home / "config.yaml").write_text("memory:\n  provider: mem0\n")  # no chat model: everything comes from mem0.json
    (mem0_home / "mem0.json").write_text(json.dumps({
        "user_id": "agent-user",
        "vector_store": {"provider": "qdrant", "config": {"collection_name": "legacy", "embedding_model_dims": 64}},
        "llm": {"provider": "openai", "config": {"model": "m", "api_key": "k", "openai_base_url": server.base_url}},
        "embedder": {"provider": "openai", "config": {"model": "e", "api_key": "k", "openai_base_url": server.base_url, "embedding_dims": 64}},
    }))
    provider = open_provider()
    assert provider.is_available() and provider.settings.mode == "local"
    _plant(provider, POSTGRES)
    assert POSTGRES in provider.prefetch("which port does postgres use")
    assert (mem0_home / "mem0" / "qdrant" / "collection" / "legacy").is_dir(), "never mem0's shared /tmp/qdrant"
