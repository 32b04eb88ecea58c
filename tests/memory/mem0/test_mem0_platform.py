"""The Mem0 provider in platform mode: the real mem0.MemoryClient against a loopback platform server."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from mem0_platform_server import PlatformServer


@pytest.fixture
def platform(hermes_home: Path) -> Iterator[PlatformServer]:
    with PlatformServer() as fake:
        (hermes_home / ".env").write_text(f"MEM0_API_KEY={fake.api_key}\nMEM0_BASE_URL={fake.url}\n")
        (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    agent_id: hermes-test\n")
        yield fake


def test_a_key_selects_platform_mode_and_turns_reach_the_platform(open_provider, platform):
    provider = open_provider()
    assert provider.settings.mode == "platform" and provider.settings.host == platform.url
    provider.sync_turn("postgres listens on port 5433", "Noted.")
    assert provider.flush(30)
    method, path, body, headers = next(r for r in platform.requests if r[1] == "/v3/memories/add/")
    assert headers["Authorization"] == f"Token {platform.api_key}"
    assert body["messages"] == [{"role": "user", "content": "postgres listens on port 5433"}, {"role": "assistant", "content": "Noted."}]
    assert (body["user_id"], body["agent_id"], body["infer"]) == ("hermes-user", "hermes-test", True)
    recalled = provider.prefetch("which port does postgres use")
    assert recalled == "## Mem0 Memory\n- postgres listens on port 5433"
    search = next(r for r in platform.requests if r[1] == "/v3/memories/search/")
    assert search[2]["filters"] == {"user_id": "hermes-user"} and search[2]["top_k"] == 5


def test_tools_on_the_platform(open_provider, platform):
    provider = open_provider()
    assert json.loads(provider.handle_tool_call("mem0_conclude", {"conclusion": "Prefers tabs"}))["result"] == "Fact stored."
    add = [r for r in platform.requests if r[1] == "/v3/memories/add/"][-1]
    assert add[2]["infer"] is False
    found = json.loads(provider.handle_tool_call("mem0_search", {"query": "tabs", "rerank": True, "top_k": 3}))
    assert found["results"][0]["memory"] == "Prefers tabs"
    assert [r for r in platform.requests if r[1] == "/v3/memories/search/"][-1][2]["rerank"] is True
    assert json.loads(provider.handle_tool_call("mem0_profile", {}))["count"] == 1


def test_mirroring_and_export_page_through_the_listing(open_provider, platform):
    provider = open_provider()
    assert provider.import_memories([{"text": f"fact number {n}", "kind": "memory"} for n in range(130)]) == 130
    provider.on_memory_write("add", "user", "User prefers vim")
    provider.on_memory_write("replace", "user", "User prefers emacs", {"old_entry": "User prefers vim"})
    assert provider.flush(30)
    texts = [r["text"] for r in provider.export_memories()]
    assert len(texts) == 131 and "User prefers emacs" in texts and "User prefers vim" not in texts
    assert any(r[0] == "PUT" for r in platform.requests)
    assert provider.status_details()["memories"] == 131


def test_platform_errors_are_queued_and_reported(open_provider, platform, hermes_home):
    provider = open_provider()
    platform.failures.append((500, {"detail": "boom"}))
    provider.sync_turn("will be retried", "")
    assert provider.flush(30)
    assert (hermes_home / "mem0" / "pending.jsonl").exists()
    details = provider.status_details()
    assert details["mode"] == "platform" and details["store"] == platform.url and details["pending_writes"] == 1
    provider.sync_turn("goes through", "")
    assert provider.flush(30)
    assert not (hermes_home / "mem0" / "pending.jsonl").exists()
    assert [m["memory"] for m in platform.memories.values()] == ["will be retried", "goes through"]


def test_a_wrong_key_is_clear(open_provider, platform, hermes_home):
    (hermes_home / ".env").write_text(f"MEM0_API_KEY=wrong\nMEM0_BASE_URL={platform.url}\n")
    provider = open_provider()
    answer = json.loads(provider.handle_tool_call("mem0_search", {"query": "x"}))
    assert answer["error"].startswith("Mem0 is unavailable: the Mem0 platform at") and "MEM0_API_KEY" in answer["error"]


def test_an_unreachable_platform_is_clear(open_provider, hermes_home):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    (hermes_home / ".env").write_text(f"MEM0_API_KEY=k\nMEM0_BASE_URL={dead}\n")
    provider = open_provider("s2")
    assert provider.prefetch("what is the postgres port") == ""
    assert "unreachable" in provider.status_details()["open_error"]


def test_without_mem0_installed_the_provider_says_how_to_install(open_provider, platform, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "mem0", None)  # what an environment without mem0ai looks like to imports
    provider = open_provider()
    assert not provider.is_available()
    assert "pip install 'hermes-host[mem0]'" in provider.unavailable_reason()
    answer = json.loads(provider.handle_tool_call("mem0_search", {"query": "x"}))
    assert "mem0ai library is not installed" in answer["error"]


def test_status_reports_an_unreachable_platform_unavailable(run_hermes, hermes_home):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    (hermes_home / ".env").write_text(f"MEM0_API_KEY=k\nMEM0_BASE_URL={dead}\n")
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n")
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 1, result.stdout
    status = result.json()
    assert status["available"] is False and status["connection"] == "failed"
    assert dead in status["reason"] and "unreachable" in status["reason"] and "MEM0_BASE_URL" in status["reason"]
    offline = run_hermes("memory", "status", "--offline", "--json")  # no round-trip: only what the files say
    assert offline.exit_code == 0 and "connection" not in offline.json()


def test_status_reports_a_reachable_platform_available(run_hermes, platform):
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 0, result.stdout
    assert result.json()["available"] is True and result.json()["connection"] == "ok"


def test_a_count_that_fails_shows_no_number_and_is_recorded_as_the_last_error(open_provider, platform):
    provider = open_provider()
    assert provider.flush(30)  # the session's first replay is over: the next request is the status count
    platform.failures.append((500, {"detail": "listing exploded"}))
    details = provider.status_details()
    assert details["memories"] is None and "open_error" not in details
    assert platform.requests[-1][0] in ("GET", "POST") and "memories" in platform.requests[-1][1]
    at, rest = details["last_error"].split(" ", 1)
    # the operation, then the class of the client's error (mem0's own MemoryError) and its message
    assert at.endswith("Z") and rest == "count: MemoryError: listing exploded"
