"""Mem0 faults: model server down, 500, timeout, malformed replies, an unusable store, the circuit breaker.

Every failure must leave the turn going and no write lost: it is queued (and retried) or reported.
"""

from __future__ import annotations

import json
import socket
import time

from hermes_core.testing_servers import error_reply, hang_reply, raw_reply

from mem0_testkit import plugin_module, write_config


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _pending(home) -> list[dict]:
    path = home / "mem0" / "pending.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_model_server_down_queues_writes_and_a_later_session_makes_them(open_provider, server, mem0_home):
    write_config(mem0_home, _dead_url())
    provider = open_provider()
    assert provider.flush(30)  # mem0 is open (its import is slow on a loaded machine; that is not what is timed)
    started = time.monotonic()
    assert provider.prefetch("which port does postgres use?") == ""
    assert time.monotonic() - started < 5
    provider.sync_turn("postgres listens on 5433", "noted")
    provider.on_memory_write("add", "user", "User likes tea")
    provider.on_session_end([])
    queued = _pending(mem0_home)
    assert [q["op"] for q in queued] == ["add", "mirror"]
    assert "Connection" in queued[0]["error"]
    details = provider.status_details()
    assert details["pending_writes"] == 2 and "Connection" in details["last_error"]
    provider.shutdown()

    write_config(mem0_home, server.base_url)  # the server is back
    again = open_provider("s2")
    assert again.flush(30)
    assert _pending(mem0_home) == []
    assert sorted(r["text"] for r in again.export_memories()) == ["User likes tea", "postgres listens on 5433"]


def test_a_500_keeps_the_write_and_the_next_write_replays_it_first(open_provider, server, mem0_home):
    write_config(mem0_home, server.base_url, "    infer: false\n")
    provider = open_provider()
    server.fail_next("embeddings", error_reply(500, "embedder exploded"))
    provider.sync_turn("first question", "")
    assert provider.flush(30)
    assert [q["messages"][0]["content"] for q in _pending(mem0_home)] == ["first question"]
    assert "500" in provider.status_details()["last_error"]
    provider.sync_turn("second question", "")
    assert provider.flush(30)
    assert _pending(mem0_home) == []
    ordered = sorted(provider.export_memories(), key=lambda r: r["created_at"])
    assert [r["text"] for r in ordered] == ["first question", "second question"]


def test_a_hanging_model_times_out_and_the_turn_goes_on(open_provider, server, mem0_home):
    write_config(mem0_home, server.base_url, "    timeout: 0.5\n")
    provider = open_provider()
    assert provider.flush(30)
    server.fail_next("embeddings", hang_reply(5))
    started = time.monotonic()
    assert provider.prefetch("what is the postgres port") == ""
    assert time.monotonic() - started < 3
    assert "Timeout" in provider.status_details()["last_error"]


def test_malformed_replies_are_failures_not_crashes(open_provider, server):
    provider = open_provider()
    server.fail_next("embeddings", raw_reply(200, "this is not json"))
    answer = json.loads(provider.handle_tool_call("mem0_search", {"query": "postgres"}))
    assert answer["error"].startswith("Mem0 search failed:")
    server.fail_next("extraction", raw_reply(200, '{"choices": []}'))
    provider.sync_turn("my shell is fish", "ok")
    assert provider.flush(30)
    (queued,) = _pending(provider.settings.home)
    assert queued["messages"][0]["content"] == "my shell is fish" and "LLMError" in queued["error"]
    provider.sync_turn("my editor is helix", "ok")  # the model answers properly again: both are made, in order
    assert provider.flush(30)
    assert _pending(provider.settings.home) == []
    assert sorted(r["text"] for r in provider.export_memories()) == ["my editor is helix", "my shell is fish"]


def test_a_store_directory_that_cannot_be_created_is_reported(open_provider, server, mem0_home):
    (mem0_home / "not-a-dir").write_text("a file where the store should go")
    write_config(mem0_home, server.base_url, f"    store:\n      path: {mem0_home / 'not-a-dir' / 'qdrant'}\n")
    provider = open_provider()
    answer = json.loads(provider.handle_tool_call("mem0_search", {"query": "postgres"}))
    assert "not writable" in answer["error"] and "memory.mem0.store.path" in answer["error"]
    assert provider.prefetch("what is the postgres port") == ""
    provider.sync_turn("keep me", "")
    assert provider.flush(10)
    assert [q["messages"][0]["content"] for q in _pending(mem0_home)] == ["keep me"]
    details = provider.status_details()
    assert details["memories"] is None and "not writable" in details["open_error"] and details["pending_writes"] == 1
    # the failed open is the last error, under its own operation, with the same words
    assert details["last_error"].split(" ", 1)[1] == f"open: {details['open_error']}"


def test_the_breaker_opens_after_consecutive_failures_and_stops_calling(open_provider, server, mem0_home):
    write_config(mem0_home, server.base_url, "    breaker:\n      threshold: 2\n      cooldown: 600\n")
    provider = open_provider()
    server.fail_next("embeddings", error_reply(500), error_reply(500))
    for _ in range(2):
        assert "error" in json.loads(provider.handle_tool_call("mem0_search", {"query": "postgres"}))
    calls = len(server.requests_of("embeddings"))
    paused = json.loads(provider.handle_tool_call("mem0_search", {"query": "postgres"}))
    assert paused["error"].startswith("Mem0 is paused after 2 consecutive failures")
    provider.queue_prefetch("postgres?")
    assert provider.wait_for_prefetch(10)
    provider.sync_turn("written while paused", "")
    assert provider.flush(10)
    assert len(server.requests_of("embeddings")) == calls, "an open breaker must not call mem0"
    assert _pending(mem0_home)[0]["error"].startswith("paused after 2 consecutive failures")


def test_the_breaker_closes_after_its_cooldown(open_provider):
    CircuitBreaker = plugin_module(open_provider(), "resilience").CircuitBreaker

    now = [100.0]
    breaker = CircuitBreaker(threshold=3, cooldown=120, clock=lambda: now[0])
    assert [breaker.failed() for _ in range(3)] == [False, False, True]
    assert not breaker.allows() and breaker.seconds_left() == 120
    now[0] += 121
    assert breaker.allows()  # half-open: one try
    assert breaker.failed() is True and not breaker.allows()
    now[0] += 121
    breaker.succeeded()
    assert breaker.allows() and breaker.failures == 0


def test_writes_that_keep_failing_end_in_failed_jsonl_and_status(open_provider, server, mem0_home):
    write_config(mem0_home, server.base_url, "    infer: false\n    max_attempts: 2\n")
    provider = open_provider()
    server.fail_next("embeddings", *[error_reply(400, "input rejected")] * 3)
    provider.sync_turn("doomed", "")
    provider.sync_turn("fine later", "")
    provider.sync_turn("also fine", "")
    assert provider.flush(30)
    failed = [json.loads(line) for line in (mem0_home / "mem0" / "failed.jsonl").read_text().splitlines()]
    assert [f["messages"][0]["content"] for f in failed] == ["doomed"] and "input rejected" in failed[0]["error"]
    details = provider.status_details()
    assert details["failed_writes"] == 1 and details["failed_writes_file"].endswith("failed.jsonl")
    (problem,) = provider.problems()
    assert "1 write(s) to mem0 failed 2 times" in problem and "input rejected" in problem and "pending.jsonl" in problem
    # Moving the lines back, as the problem says, makes the next write retry them first.
    (mem0_home / "mem0" / "pending.jsonl").write_text((mem0_home / "mem0" / "failed.jsonl").read_text().replace('"attempts": 2', '"attempts": 0'))
    (mem0_home / "mem0" / "failed.jsonl").unlink()
    provider.sync_turn("after the fix", "")
    assert provider.flush_writes(30)
    assert {"doomed", "fine later", "also fine", "after the fix"} == {r["text"] for r in provider.export_memories()}


def test_a_store_already_open_elsewhere_is_named_and_writes_wait(open_provider, server, mem0_home):
    first = open_provider()
    assert first.flush(30)  # its worker has opened the embedded store
    second = open_provider("s2")
    second.sync_turn("from the second chat", "")
    assert second.flush(30)
    details = second.status_details()
    assert details["open_error"] == (
        f"the mem0 store {mem0_home / 'mem0' / 'qdrant'} is in use by another hermes process or session (the embedded store "
        "allows one at a time) -> close the other chat, or give each a store with memory.mem0.store.path")
    assert details["pending_writes"] == 1
    first.shutdown()  # the store is released: the same session picks it up at its next write
    second.sync_turn("after the first chat ended", "")
    assert second.flush(30)
    assert _pending(mem0_home) == []
    ordered = sorted(second.export_memories(), key=lambda r: r["created_at"])
    assert [r["text"] for r in ordered] == ["from the second chat", "after the first chat ended"]


def test_a_turn_half_stored_when_it_failed_is_completed_not_duplicated(open_provider, server, mem0_home):
    from hermes_core.testing_openai_embeddings import embeddings_reply

    write_config(mem0_home, server.base_url, "    infer: false\n")
    provider = open_provider()
    server.fail_next("embeddings", lambda request: embeddings_reply(request.body), error_reply(500, "second message failed"))
    provider.sync_turn("the vpn gateway is gw-3", "Noted, gw-3.", source="session:x:message:1")
    assert provider.flush_writes(30) is False
    assert [r["text"] for r in provider.export_memories()] == ["the vpn gateway is gw-3"]  # half of the turn
    provider.sync_turn("thanks", "", source="session:x:message:3")  # the next write replays the queued one first
    assert provider.flush_writes(30) is True
    texts = sorted(r["text"] for r in provider.export_memories())
    assert texts == sorted(["the vpn gateway is gw-3", "Noted, gw-3.", "thanks"])


def test_writes_not_started_when_the_session_ends_wait_in_the_outbox(open_provider, server, mem0_home, monkeypatch):
    write_config(mem0_home, server.base_url, "    infer: false\n    timeout: 3\n")
    provider = open_provider()
    assert provider.flush(30)
    monkeypatch.setattr(plugin_module(provider, "provider"), "DRAIN_TIMEOUT", 0.2)
    server.fail_next("embeddings", hang_reply(5))
    provider.sync_turn("stuck behind a hanging model", "")
    provider.sync_turn("never started", "")
    provider.shutdown()
    assert "never started" in [q["messages"][0]["content"] for q in _pending(mem0_home)]


def test_failures_are_logged_and_recorded_with_their_operation_and_the_pause_announced_once(open_provider, server, mem0_home, caplog):
    import logging

    write_config(mem0_home, server.base_url, "    breaker:\n      threshold: 2\n      cooldown: 600\n")
    provider = open_provider()
    assert provider.flush(30)
    server.fail_next("embeddings", error_reply(500, "embedder down"), error_reply(500, "embedder down"))
    with caplog.at_level(logging.INFO, logger="hermes.plugins.memory.mem0"):
        for _ in range(2):
            provider.handle_tool_call("mem0_search", {"query": "postgres"})
    logged = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "hermes.plugins.memory.mem0"]
    state = json.loads((mem0_home / "mem0" / "state.json").read_text())
    error = state["last_error"]["message"]
    assert state["last_error"]["operation"] == "search" and "500" in error
    assert logged == [
        ("INFO", f"mem0 search failed: {error}"),
        ("WARNING", f"mem0: 2 consecutive failures (last: {error}); calls paused for 600 s, writes are queued meanwhile"),
    ]
    paused = json.loads(provider.handle_tool_call("mem0_search", {"query": "postgres"}))["error"]
    assert paused.startswith(f"Mem0 is paused after 2 consecutive failures (last: search: {error}); it is retried in ")


def test_a_memory_edit_queued_while_mem0_was_down_is_made_under_this_agent(open_provider, server, mem0_home):
    write_config(mem0_home, _dead_url())
    provider = open_provider()
    assert provider.flush(30)
    provider.on_memory_write("add", "user", "User likes tea")
    assert provider.flush(30)
    assert [q["op"] for q in _pending(mem0_home)] == ["mirror"]
    provider.shutdown()
    write_config(mem0_home, server.base_url)
    again = open_provider("s2")
    assert again.flush(30) and _pending(mem0_home) == []
    (record,) = again.export_memories()
    assert record["text"] == "User likes tea" and record["metadata"]["agent_id"] == again.settings.agent_id
    assert record["metadata"]["user_id"] == again.settings.user_id


def test_writes_queued_behind_a_failure_say_so_and_are_made_in_order_later(open_provider, server, mem0_home, caplog):
    import logging

    write_config(mem0_home, _dead_url(), "    infer: false\n")
    provider = open_provider()
    assert provider.flush(30)
    provider.sync_turn("first", "")
    provider.sync_turn("second", "")
    assert provider.flush(30)
    first, second = _pending(mem0_home)
    assert "Connection" in first["error"] and second["error"] == "queued behind earlier writes that are waiting"
    assert json.loads((mem0_home / "mem0" / "state.json").read_text())["last_error"]["operation"] == "write (add)"
    provider.shutdown()
    with (mem0_home / "mem0" / "pending.jsonl").open("a") as queued:  # a kind of write this version does not know
        queued.write(json.dumps({"op": "frobnicate", "user_id": "u", "agent_id": "a"}) + "\n")
    write_config(mem0_home, server.base_url, "    infer: false\n")
    with caplog.at_level(logging.INFO, logger="hermes.plugins.memory.mem0"):
        again = open_provider("s2")
        assert again.flush(30)
    assert "mem0: 2 queued write(s) made" in [r.getMessage() for r in caplog.records]
    assert sorted(r["text"] for r in again.export_memories()) == ["first", "second"]
    (left,) = _pending(mem0_home)
    assert left["op"] == "frobnicate" and left["error"] == "RuntimeError: ValueError: unknown queued write 'frobnicate'"
