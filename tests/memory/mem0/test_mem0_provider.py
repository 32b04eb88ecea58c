"""The Mem0 provider's lifecycle and recall, against the loopback platform server (the real
``mem0.MemoryClient``; no model, no local store), so every request is seen as sent."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import pytest

from mem0_platform_server import PlatformServer


def requests(platform: PlatformServer, path: str) -> list[dict[str, Any]]:
    return [body for _, seen, body, _ in platform.requests if seen == path]


def test_the_system_prompt_names_the_platform_the_user_and_the_tools(open_provider, platform):
    provider = open_provider()
    assert provider.system_prompt_block() == (
        f"# Mem0 memory (Mem0 platform ({platform.url}))\n"
        "Long-term memory about user ann. Relevant memories are recalled before each turn; "
        "use mem0_search to look something up, mem0_profile for everything known, mem0_conclude to store a durable fact."
    )


# -- recall: the Recall object itself, with a search function of the test's making (real threads) --


class Searches:
    """A search function that records each query and the thread it ran on, and can be held back."""

    def __init__(self, results: list[dict[str, Any]] | None = None) -> None:
        self.results = [{"memory": "postgres listens on 5433"}] if results is None else results
        self.queries: list[str] = []
        self.threads: list[tuple[str, bool]] = []
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, query: str) -> list[dict[str, Any]] | None:
        self.queries.append(query)
        self.threads.append((threading.current_thread().name, threading.current_thread().daemon))
        self.entered.set()
        self.gate.wait(30)
        return self.results


def recall_for(search: Searches, *, opened: bool = True, open_timeout: float = 5.0, search_timeout: float = 5.0):
    from hermes_bundled_plugins.memory.mem0.recall import Recall

    event = threading.Event()
    if opened:
        event.set()
    return Recall(search, event, open_timeout, search_timeout)


def test_a_turn_without_a_background_result_searches_now_on_a_thread_of_its_own():
    search = Searches([{"memory": "postgres listens on 5433"}, {"memory": "the cat is Miso"}])
    recall = recall_for(search)
    assert recall.wait() is True and recall.last_count == 0
    assert recall.for_turn("which port does postgres use") == "## Mem0 Memory\n- postgres listens on 5433\n- the cat is Miso"
    assert search.queries == ["which port does postgres use"] and recall.last_count == 2
    assert search.threads == [("mem0-recall", True)]
    search.results = []
    assert recall.for_turn("and the cat") == "" and recall.last_count == 0


def test_trivial_prompts_search_nothing_in_the_turn_or_in_the_background():
    search = Searches()
    recall = recall_for(search)
    for prompt in ("", "   ", "ok", "thanks"):
        assert recall.for_turn(prompt) == ""
        recall.start(prompt)
        assert recall.wait(5)
    assert search.queries == []


def test_a_failed_search_recalls_nothing_and_keeps_the_last_count():
    search = Searches()
    recall = recall_for(search)
    recall.for_turn("postgres port")
    search.results = None
    assert recall.for_turn("postgres port again") == "" and recall.last_count == 1


def test_a_backend_not_opened_in_time_is_not_searched_in_the_turn(caplog):
    search = Searches()
    recall = recall_for(search, opened=False, open_timeout=0.05, search_timeout=0.05)
    with caplog.at_level(logging.INFO, logger="hermes.plugins.memory.mem0"):
        assert recall.for_turn("which port does postgres use") == ""
    assert search.queries == []
    assert not [r for r in caplog.records if "recall took longer" in r.getMessage()]


def test_a_search_past_its_bound_leaves_the_turn_without_recall_and_says_so(caplog):
    search = Searches()
    search.gate.clear()
    recall = recall_for(search, open_timeout=0.2, search_timeout=0.1)
    with caplog.at_level(logging.INFO, logger="hermes.plugins.memory.mem0"):
        assert recall.for_turn("which port does postgres use") == ""
    assert [r.getMessage() for r in caplog.records if r.name == "hermes.plugins.memory.mem0"] == [
        "mem0: recall took longer than 0.3 s; the turn went on without it"
    ]
    assert search.queries == ["which port does postgres use"]
    search.gate.set()


def test_the_background_search_is_used_once_by_the_next_turn():
    search = Searches()
    recall = recall_for(search)
    recall.start("postgres port")
    assert recall.wait(10) is True
    assert search.threads == [("mem0-prefetch", True)]
    assert recall.for_turn("anything else") == "## Mem0 Memory\n- postgres listens on 5433"
    assert search.queries == ["postgres port"], "the turn used the background result"
    assert recall.for_turn("postgres port again") == "## Mem0 Memory\n- postgres listens on 5433"
    assert search.queries == ["postgres port", "postgres port again"], "used once: the next turn searched itself"


def test_a_background_search_that_found_nothing_is_still_the_turns_answer():
    search = Searches([])
    recall = recall_for(search)
    recall.start("postgres port")
    assert recall.wait(10)
    assert recall.for_turn("something else entirely") == ""
    assert search.queries == ["postgres port"]


def test_one_background_search_at_a_time_and_the_turn_waits_for_it():
    search = Searches()
    search.gate.clear()
    recall = recall_for(search)
    recall.start("postgres port")
    assert search.entered.wait(10)
    recall.start("the cat's name")  # the first still runs: no second thread
    assert recall.wait(0.01) is False
    search.gate.set()
    assert recall.for_turn("anything else") == "## Mem0 Memory\n- postgres listens on 5433"
    assert search.queries == ["postgres port"]


def test_a_turn_does_not_wait_past_the_bound_for_a_background_search():
    search = Searches()
    search.gate.clear()
    recall = recall_for(search, open_timeout=0.05, search_timeout=0.05)
    recall.start("postgres port")
    assert search.entered.wait(10)
    assert recall.for_turn("the cat's name") == ""
    search.gate.set()
    assert recall.wait(10)
    assert recall.for_turn("whatever") == "## Mem0 Memory\n- postgres listens on 5433"


def test_a_background_search_waits_for_the_open_then_searches_anyway():
    search = Searches()
    recall = recall_for(search, opened=False, open_timeout=0.01)
    recall.start("postgres port")
    assert recall.wait(10)
    assert search.queries == ["postgres port"]


def test_a_new_conversation_forgets_the_unused_background_result():
    search = Searches()
    recall = recall_for(search)
    recall.start("postgres port")
    assert recall.wait(10)
    recall.forget()
    recall.for_turn("the cat's name")
    assert search.queries == ["postgres port", "the cat's name"]


# -- the provider through the host, against the loopback platform --


def test_a_turn_is_stored_with_its_session_its_name_and_its_time(open_provider, platform):
    import hashlib

    provider = open_provider("sess-a")
    provider.sync_turn("my locker code is zx7q2", "  ", messages=[{}] * 3, timestamp=1700000000.5)
    provider.sync_turn("the office cat is Miso", "Noted.", session_id="sess-b", source="sess-b:7")
    provider.sync_turn("no name for this one", "ok")
    provider.sync_turn(" ", "")  # nothing said: nothing sent
    assert provider.flush(30)
    adds = requests(platform, "/v3/memories/add/")
    digest = hashlib.sha256("\0".join(["sess-a", "3", "my locker code is zx7q2"]).encode()).hexdigest()[:24]
    assert [a["messages"] for a in adds] == [
        [{"role": "user", "content": "my locker code is zx7q2"}],
        [{"role": "user", "content": "the office cat is Miso"}, {"role": "assistant", "content": "Noted."}],
        [{"role": "user", "content": "no name for this one"}, {"role": "assistant", "content": "ok"}],
    ]
    assert [a["metadata"] for a in adds] == [
        {"origin": "turn", "session_id": "sess-a", "turn": f"turn:{digest}", "turn_at": 1700000000.5},
        {"origin": "turn", "session_id": "sess-b", "turn": "sess-b:7"},
        {"origin": "turn", "session_id": "sess-a"},
    ]
    assert {(a["user_id"], a["agent_id"], a["infer"]) for a in adds} == {("ann", "hermes-test", True)}


def test_a_switched_session_names_later_turns_and_a_reset_drops_the_pending_recall(open_provider, platform):
    provider = open_provider("sess-a")
    provider.handle_tool_call("mem0_conclude", {"conclusion": "postgres listens on 5433"})
    provider.queue_prefetch("postgres port")
    assert provider.wait_for_prefetch(10)
    provider.on_session_switch("sess-b", parent_session_id="sess-a")
    assert provider.prefetch("something else") == "## Mem0 Memory\n- postgres listens on 5433", "kept across a plain switch"
    provider.queue_prefetch("postgres port")
    assert provider.wait_for_prefetch(10)
    provider.on_session_switch("sess-c", parent_session_id="sess-b", reset=True)
    searches = len(requests(platform, "/v3/memories/search/"))
    assert provider.prefetch("the weather today") == ""
    assert len(requests(platform, "/v3/memories/search/")) == searches + 1, "the reset dropped the result: the turn searched"
    provider.sync_turn("a turn after the switch", "")
    assert provider.flush(30)
    assert requests(platform, "/v3/memories/add/")[-1]["metadata"]["session_id"] == "sess-c"


def test_the_prefetch_query_is_cut_to_its_start(open_provider, platform, hermes_home):
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    user_id: ann\n    top_k: 7\n    rerank: true\n")
    provider = open_provider()
    assert provider.recall_status() is None
    provider.handle_tool_call("mem0_conclude", {"conclusion": "postgres listens on 5433"})
    assert provider.prefetch("postgres " + "x" * 5000) == "## Mem0 Memory\n- postgres listens on 5433"
    (search,) = requests(platform, "/v3/memories/search/")
    assert search["query"] == ("postgres " + "x" * 5000)[:2000]
    assert (search["top_k"], search["rerank"], search["filters"]) == (7, True, {"user_id": "ann"})
    status = provider.recall_status()
    assert (status.provider_label, status.count) == ("Mem0", 1)


def test_a_background_search_still_running_is_not_doubled(open_provider, platform):
    provider = open_provider()
    provider.handle_tool_call("mem0_conclude", {"conclusion": "postgres listens on 5433"})
    platform.search_gate = threading.Event()
    platform.search_arrived.clear()
    provider.queue_prefetch("postgres port")
    assert platform.search_arrived.wait(10)
    provider.queue_prefetch("postgres port, again")
    assert provider.wait_for_prefetch(0.01) is False
    platform.search_gate.set()
    assert provider.wait_for_prefetch(10) is True
    assert [s["query"] for s in requests(platform, "/v3/memories/search/")] == ["postgres port"]


def test_tool_answers_keep_their_characters_and_odd_arguments_are_no_arguments(open_provider, platform):
    provider = open_provider()
    answer = provider.handle_tool_call("mem0_conclude", {"conclusion": "Ann drinks café au lait ☕"})
    assert answer == '{"result": "Fact stored.", "count": 1}'
    found = provider.handle_tool_call("mem0_search", {"query": "café"})
    assert "Ann drinks café au lait ☕" in found
    assert json.loads(provider.handle_tool_call("mem0_search", ["query", "café"])) == {"error": "mem0_search needs a non-empty 'query' string"}
    assert [t["name"] for t in provider.get_tool_schemas()] == ["mem0_profile", "mem0_search", "mem0_conclude"]


def test_a_failing_background_job_is_logged_and_the_next_one_runs(open_provider, platform, caplog):
    provider = open_provider()

    def broken() -> None:
        raise OSError("the queue file is unreadable")

    provider._submit(broken)
    provider.sync_turn("made after the failure", "")
    assert provider.flush(30)
    assert [m["memory"] for m in platform.memories.values()] == ["made after the failure"]
    (record,) = [r for r in caplog.records if r.getMessage() == "mem0: background job failed"]
    assert record.levelname == "ERROR" and record.exc_info[1].args == ("the queue file is unreadable",)


def test_a_flush_that_times_out_says_how_many_writes_wait_and_where(open_provider, platform, hermes_home, caplog):
    provider = open_provider()
    assert provider.flush(30)
    held = threading.Event()
    # the worker is busy with a slow write, longer than the flushes below wait and shorter than the default 10 s
    provider._submit(lambda: held.wait(5))
    try:
        assert provider.flush(0.05) is False
        assert provider.flush_writes(0.05) is False
    finally:
        held.set()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "still running" in r.getMessage()]
    assert warnings[0] == f"mem0: writes still running after 0.05 s; 0 queued in {hermes_home / 'mem0' / 'pending.jsonl'} are retried next time"
    assert provider.flush(30) is True and provider.flush_writes() is True


def test_after_shutdown_writes_are_made_at_once_and_a_second_shutdown_is_harmless(open_provider, platform):
    provider = open_provider()
    provider.shutdown()
    assert provider.flush(0) is True
    provider.sync_turn("written after the session closed", "")
    assert [m["memory"] for m in platform.memories.values()] == ["written after the session closed"]
    provider.shutdown()


def test_a_second_initialize_keeps_the_worker_and_replays_again(open_provider, platform, hermes_home):
    provider = open_provider("s1")
    worker = provider._worker
    provider.initialize("s2", hermes_home=str(hermes_home), platform="cli")
    assert provider._worker is worker
    provider.sync_turn("after the resume", "")
    assert provider.flush(30)
    assert requests(platform, "/v3/memories/add/")[-1]["metadata"]["session_id"] == "s2"


def test_settings_notes_are_warned_when_a_session_starts(open_provider, platform, hermes_home, caplog):
    (hermes_home / "mem0.json").write_text("[1, 2]")
    open_provider()
    notes = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and r.name == "hermes.plugins.memory.mem0"]
    assert f"mem0: {hermes_home / 'mem0.json'} holds a list, not an object; it is ignored" in notes


def test_sub_agents_and_cron_runs_read_but_never_write(open_provider, platform):
    for context in ("subagent", "cron", "flush"):
        provider = open_provider(f"s-{context}", agent_context=context)
        provider.sync_turn("sub-agent chatter", "ok")
        provider.on_memory_write("add", "user", "not mirrored")
        assert provider.flush(30)
    assert requests(platform, "/v3/memories/add/") == []
    primary = open_provider("s-primary", agent_context="primary")
    primary.sync_turn("the primary writes", "")
    assert primary.flush(30)
    assert [m["memory"] for m in platform.memories.values()] == ["the primary writes"]


def test_memory_edits_other_than_add_replace_remove_are_not_mirrored(open_provider, platform):
    provider = open_provider()
    provider.on_memory_write("clear", "user", "everything")
    provider.on_memory_write("add", "user", "Ann prefers vim", None)
    assert provider.flush(30)
    assert [m["memory"] for m in platform.memories.values()] == ["Ann prefers vim"]


def test_a_user_id_from_the_gateway_and_the_platform_name_reach_the_writes(open_provider, platform, hermes_home):
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    user_ids:\n      telegram: tg-ann\n")
    provider = open_provider(platform="telegram")
    assert provider.settings.user_id == "tg-ann"
    gateway = open_provider("s2", platform="telegram", user_id="u-42")
    assert gateway.settings.user_id == "u-42"
    cli = open_provider("s3", platform=None, user_id="")
    assert cli.settings.user_id == "hermes-user"
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    user_ids:\n      cli: cli-ann\n")
    assert open_provider("s4", platform=None).settings.user_id == "cli-ann", "no platform named: the CLI's"


def fresh_provider():
    from hermes_bundled_plugins.memory.mem0.provider import Mem0MemoryProvider

    return Mem0MemoryProvider()


def test_what_each_mode_is_missing_is_the_reason_it_is_unavailable(hermes_home):
    provider = fresh_provider()
    assert provider.name == "mem0"
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: platform\n")
    assert provider.unavailable_reason() == "memory.mem0.mode is platform but MEM0_API_KEY is not set -> 'hermes memory setup mem0'"
    assert provider.is_available() is False
    (hermes_home / ".env").write_text("MEM0_API_KEY=k\n")
    assert provider.unavailable_reason() == "" and provider.is_available() is True
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: local\n")
    assert provider.unavailable_reason() == "local mode needs a model: configure the chat model (model.name, model.base_url) or memory.mem0.llm.model"
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: local\n    llm:\n      model: m\n")
    assert provider.unavailable_reason() == "local mode needs an embedding endpoint: set memory.mem0.embedder.base_url (or model.base_url)"
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: local\n    llm:\n      model: m\n    embedder:\n      base_url: http://127.0.0.1:9/v1\n")
    assert provider.unavailable_reason() == ""
    (hermes_home / "mem0.json").write_text('{"llm": {"provider": "ollama", "config": {"model": "x"}}, "embedder": {"provider": "ollama", "config": {"model": "y"}}}')
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: local\n")
    assert provider.unavailable_reason() == "", "mem0's own blocks from mem0.json are a model and an embedder"
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: nonsense\n")
    assert provider.unavailable_reason() == "memory.mem0.mode is 'nonsense' -> set it to one of auto, local, platform"
    assert provider.problems() == ["memory.mem0.mode is 'nonsense' -> set it to one of auto, local, platform"]


def test_an_initialized_provider_checks_its_own_settings_not_the_files(open_provider, platform, hermes_home):
    provider = open_provider()
    (hermes_home / ".env").write_text("")
    assert provider.unavailable_reason() == "", "the session's settings hold the key"


def test_export_and_import_name_why_mem0_cannot_be_opened(open_provider, platform, hermes_home):
    (hermes_home / ".env").write_text(f"MEM0_API_KEY=wrong\nMEM0_BASE_URL={platform.url}\n")
    provider = open_provider()
    for act in (provider.export_memories, lambda: provider.import_memories([{"text": "x"}])):
        with pytest.raises(RuntimeError) as raised:
            act()
        assert str(raised.value).startswith(f"mem0 cannot be opened: the Mem0 platform at {platform.url} refused the key")
        assert str(raised.value) == f"mem0 cannot be opened: {provider.backend_error()}"


def test_a_session_warns_that_mem0_cannot_be_opened_and_an_inspection_only_logs_it(open_provider, platform, hermes_home, caplog):
    import logging

    (hermes_home / ".env").write_text(f"MEM0_API_KEY=wrong\nMEM0_BASE_URL={platform.url}\n")
    caplog.set_level(logging.DEBUG, logger="hermes.plugins.memory.mem0")
    inspected = fresh_provider()
    inspected.initialize_for_inspection("s-status", hermes_home=str(hermes_home))
    assert inspected.status_details()["mode"] == "platform"
    inspected.backend_error()
    refused = [r for r in caplog.records if "refused the key" in r.getMessage()]
    assert refused and {r.levelname for r in refused} == {"DEBUG"}, "status shows the error in its own output"
    caplog.clear()
    provider = open_provider()
    assert provider.flush(30)
    refused = [r for r in caplog.records if "refused the key" in r.getMessage()]
    assert [r.levelname for r in refused] == ["WARNING"] and refused[0].getMessage() == f"mem0: {provider.backend_error()}"


def test_backup_paths_are_the_store_directory_and_mem0_json(open_provider, platform, hermes_home):
    assert fresh_provider().backup_paths() == []
    provider = open_provider()
    assert provider.backup_paths() == [str(hermes_home / "mem0"), str(hermes_home / "mem0.json")]
    assert provider.get_config_schema()[0]["key"] == "mode"


def test_the_connection_check_asks_the_platform_only(platform, hermes_home, tmp_path):
    provider = fresh_provider()
    assert provider.check_connection() == "" and platform.paths().count("GET /v1/ping/") == 1
    (hermes_home / ".env").write_text(f"MEM0_API_KEY=wrong\nMEM0_BASE_URL={platform.url}\n")
    refused = fresh_provider()
    assert refused.check_connection().startswith(f"the Mem0 platform at {platform.url} refused the key")
    local = tmp_path / "local-home"
    local.mkdir()
    (local / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: local\n")
    provider = fresh_provider()
    provider.initialize_for_inspection("s", hermes_home=str(local))
    pings = platform.paths().count("GET /v1/ping/")
    assert provider.check_connection() == "" and platform.paths().count("GET /v1/ping/") == pings


def test_save_config_writes_the_settings_the_next_session_reads(hermes_home):
    provider = fresh_provider()
    provider.save_config({"mode": "local", "top_k": "9"}, str(hermes_home))
    provider.initialize_for_inspection("s", hermes_home=str(hermes_home))
    assert (provider.settings.mode, provider.settings.top_k) == ("local", 9)


def test_without_a_session_there_is_no_prompt_block_no_recall_and_no_export():
    provider = fresh_provider()
    assert provider.system_prompt_block() == "" and provider.recall_status() is None
    assert provider.prefetch("which port does postgres use") == "" and provider.wait_for_prefetch(0) is True
    provider.queue_prefetch("which port does postgres use")
    for act in (provider.export_memories, lambda: provider.import_memories([{"text": "x"}])):
        with pytest.raises(AssertionError, match="^initialize first$"):
            act()
    provider.shutdown()  # a provider never initialized shuts down without complaint


def test_the_local_prompt_block_names_the_local_store(mem0_home):
    provider = fresh_provider()
    provider.initialize_for_inspection("s", hermes_home=str(mem0_home))
    assert provider.system_prompt_block().startswith("# Mem0 memory (local store)\nLong-term memory about user hermes-user.")


def test_imports_are_made_for_the_configured_user_and_agent(open_provider, platform):
    provider = open_provider()
    assert provider.import_memories([{"text": "likes tea", "source": "honcho:1"}, {"text": "likes coffee"}]) == 2
    adds = requests(platform, "/v3/memories/add/")
    assert [(a["user_id"], a["agent_id"], a["infer"]) for a in adds] == [("ann", "hermes-test", False)] * 2
    assert [r["text"] for r in provider.export_memories()] == ["likes tea", "likes coffee"]


def test_a_failed_recall_is_recorded_as_a_failed_search(open_provider, platform):
    provider = open_provider()
    assert provider.flush(30)
    platform.failures.append((500, {"detail": "search exploded"}))
    assert provider.prefetch("which port does postgres use") == ""
    assert provider.last_error() == "search: MemoryError: search exploded"


def test_a_write_moved_to_the_outbox_at_shutdown_is_not_made_again_when_the_worker_reaches_it(open_provider, platform, hermes_home, monkeypatch, caplog):
    from mem0_testkit import plugin_module

    provider = open_provider()
    assert provider.flush(30)
    held = threading.Event()
    provider._submit(lambda: held.wait(30))  # the worker is busy with a slow write
    provider.sync_turn("never started", "")
    monkeypatch.setattr(plugin_module(provider, "provider"), "DRAIN_TIMEOUT", 0.05)
    worker = provider._worker
    provider.shutdown()
    held.set()
    worker._thread.join(30)
    assert not worker._thread.is_alive()
    pending = [json.loads(line) for line in (hermes_home / "mem0" / "pending.jsonl").read_text().splitlines()]
    assert [p["messages"][0]["content"] for p in pending] == ["never started"]
    assert pending[0]["error"] == "not made before the session ended; the next session makes it"
    assert platform.memories == {}, "made once, by the next session's replay, not now"
    assert not [r for r in caplog.records if r.getMessage() == "mem0: background job failed"]


def test_a_sub_agent_leaves_queued_writes_to_the_primary_and_counts_them_when_a_flush_times_out(
    open_provider, platform, hermes_home, monkeypatch, caplog
):
    from mem0_testkit import plugin_module

    first = open_provider("s-first")
    assert first.flush(30)
    held = threading.Event()
    first._submit(lambda: held.wait(30))  # busy, so the next write is moved to the outbox at shutdown
    first.sync_turn("queued for the next session", "")
    monkeypatch.setattr(plugin_module(first, "provider"), "DRAIN_TIMEOUT", 0.05)
    worker = first._worker
    first.shutdown()
    held.set()
    worker._thread.join(30)
    outbox = hermes_home / "mem0" / "pending.jsonl"
    assert len(outbox.read_text().splitlines()) == 1

    sub = open_provider("s-sub", agent_context="subagent")
    assert sub.flush(30)
    assert platform.memories == {} and len(outbox.read_text().splitlines()) == 1, "a sub-agent never writes, queued writes neither"
    busy = threading.Event()
    sub._submit(lambda: busy.wait(5))
    try:
        assert sub.flush(0.05) is False
    finally:
        busy.set()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "still running" in r.getMessage()]
    assert warnings[-1] == f"mem0: writes still running after 0.05 s; 1 queued in {outbox} are retried next time"

    primary = open_provider("s-primary")
    assert primary.flush(30)
    assert [m["memory"] for m in platform.memories.values()] == ["queued for the next session"]


def test_status_after_a_failed_inspection_reads_the_home_it_was_given(platform, hermes_home, tmp_path):
    from hermes_bundled_plugins.memory.mem0.settings import SettingsError

    other = tmp_path / "other-home"
    other.mkdir()
    (other / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    mode: nonsense\n")
    provider = fresh_provider()
    with pytest.raises(SettingsError):
        provider.initialize_for_inspection("s", hermes_home=str(other))
    (other / ".env").write_text(f"MEM0_API_KEY={platform.api_key}\nMEM0_BASE_URL={platform.url}\n")
    (other / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    user_ids:\n      cli: cli-ann\n")
    assert provider.check_connection() == "" and platform.paths().count("GET /v1/ping/") == 1
    details = provider.status_details()
    assert (details["mode"], details["store"], details["user_id"]) == ("platform", platform.url, "cli-ann")
