"""Faults never break a turn; failed writes are kept, reported and sent later; the API key never leaks."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import Any

import pytest

from hermes_core.memory.manager import MemoryManager
from hermes_core.models.clients import OpenAIChatClient
from hermes_core.runtime.session import AgentSession
from hermes_core.testing.honcho_server import HonchoServer
from hermes_core.testing_servers import OpenAIServer, text_reply

SECRET = "hk_live_" + "Zq9" * 10


def dead_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def run_turn(provider: Any) -> tuple[str, bool]:
    """One turn through the MemoryManager, as the runtime drives it; returns (recall, writes drained)."""
    manager = MemoryManager(prefetch_timeout=10)
    manager.add_provider(provider)
    manager.on_turn_start(1, "what did we decide about the deploy?")
    recalled = manager.prefetch_all("what did we decide about the deploy?")
    manager.sync_all("what did we decide about the deploy?", "Canary first.")
    manager.queue_prefetch_all("what did we decide about the deploy?")
    return recalled, manager.flush(30)


def test_server_down_the_turn_completes_and_the_write_is_kept_then_replayed(make_provider: Any, hermes_home: Path, sdk: Any, run_hermes: Any) -> None:
    provider = make_provider(writeFrequency="turn", root={"baseUrl": dead_url()})
    recalled, drained = run_turn(provider)
    assert recalled == "" and drained
    provider.shutdown()
    (entry,) = provider.journal().entries()
    assert "unreachable" in entry["cause"] and [m["content"] for m in entry["messages"]] == ["what did we decide about the deploy?", "Canary first."]
    (hermes_home / "config.yaml").write_text("memory:\n  provider: honcho\n")
    status = run_hermes("memory", "status", "--json")
    problems = status.json()["problems"]
    assert len(problems) == 1 and "2 message(s)" in problems[0] and "unreachable" in problems[0]
    assert "problem:" in run_hermes("memory", "status").stdout
    assert run_hermes("honcho", "status", "--json").json()["failed_writes"] == 2
    back = make_provider(writeFrequency="turn")  # the server is back: the next session sends what was kept
    assert back.replay_thread is not None
    back.replay_thread.join(30)
    assert back.journal().entries() == []
    assert [m.content for m in sdk.session(back.session_name.name).messages()] == ["what did we decide about the deploy?", "Canary first."]
    assert run_hermes("memory", "status", "--json").json()["problems"] == []


def test_a_wrong_api_key_is_reported_and_never_shown(make_provider: Any, caplog: pytest.LogCaptureFixture, hermes_home: Path, run_hermes: Any) -> None:
    with HonchoServer(api_key="the-right-key") as guarded:
        caplog.set_level(logging.DEBUG)
        provider = make_provider(writeFrequency="turn", root={"baseUrl": guarded.base_url.replace("127.0.0.1", "localhost"), "apiKey": SECRET})
        recalled, _ = run_turn(provider)
        answer = json.loads(provider.handle_tool_call("honcho_profile", {}))
        provider.shutdown()
        assert guarded.requests and all(r.headers["authorization"] == f"Bearer {SECRET}" for r in guarded.requests)
    assert recalled == "" and "refused the API key" in answer["error"] and "HTTP 401" in answer["error"]
    (hermes_home / "config.yaml").write_text("memory:\n  provider: honcho\n")
    outputs = [
        caplog.text, json.dumps(answer), provider.journal().path.read_text(),
        run_hermes("honcho", "status").stdout, run_hermes("honcho", "status", "--json").stdout,
        run_hermes("memory", "status", "--json").stdout,
    ]
    assert "refused the API key" in caplog.text
    assert all(SECRET not in text for text in outputs)
    assert all(SECRET[:-4] not in text for text in outputs[3:5])  # status shows only the last four characters


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        ({"pattern": r"POST .*/sessions$", "status": 404}, "no such resource"),
        ({"pattern": r"POST .*/messages$", "status": 429, "retry_after": "0"}, "rate-limiting"),
        ({"pattern": r"POST .*/messages$", "status": 503}, "HTTP 503"),
        ({"pattern": r"POST .*/messages$", "status": 200, "body": b"{not json"}, "not valid JSON"),
    ],
)
def test_http_faults_on_writes_are_retried_then_journalled(make_provider: Any, fake: Any, fault: dict, cause: str) -> None:
    fake.fail(**fault)
    provider = make_provider(writeFrequency="turn")
    _, drained = run_turn(provider)
    assert drained
    (entry,) = provider.journal().entries()
    assert cause in entry["cause"]
    attempts = len(fake.calls("POST", f"{provider.config().workspace}/sessions/.*/messages$"))
    assert attempts == (3 if fault["status"] != 404 else 0)  # retryable faults: 1 + 2 retries; a 404 session: none sent


def test_a_passing_rate_limit_is_retried_and_nothing_is_lost(make_provider: Any, fake: Any, sdk: Any) -> None:
    fake.fail(r"POST .*/messages$", 429, times=1, retry_after="0")
    provider = make_provider(writeFrequency="turn")
    run_turn(provider)
    assert provider.journal().entries() == []
    assert [m.content for m in sdk.session(provider.session_name.name).messages()] == ["what did we decide about the deploy?", "Canary first."]


def test_slow_and_malformed_context_replies_leave_the_turn_with_what_is_known(make_provider: Any, fake: Any, workspace: str, caplog: pytest.LogCaptureFixture) -> None:
    fake.add_conclusion(workspace, "hermes", "eri", "Eri deploys on Fridays")
    fake.fail(r"GET .*/sessions/.*/context", 200, delay=1.5)  # longer than timeout: 1 s
    provider = make_provider(writeFrequency="turn", timeout=1)
    provider.on_turn_start(1, "what did we decide about the deploy?")
    recalled = provider.prefetch("what did we decide about the deploy?")  # waits for the fetch initialize started
    assert "Eri deploys on Fridays" in recalled and "## Dialectic" in recalled and "## Session summary" not in recalled
    fake.heal()
    fake.fail(r"GET .*/peers/.*/context", 200, body=b"<html>proxy error</html>")
    provider.on_turn_start(2, "next")
    assert "Eri deploys on Fridays" in provider.prefetch("next")  # dialectic still answers
    assert "did not answer within 1 s" in caplog.text and "not valid JSON" in caplog.text


def test_unavailable_reasons_name_the_fix(hermes_home: Path, honcho_config: Any) -> None:
    from hermes_bundled_plugins.memory.honcho.provider import HonchoMemoryProvider

    provider = HonchoMemoryProvider()
    assert "hermes honcho setup" in provider.unavailable_reason() and not provider.is_available()
    honcho_config(enabled=False)
    assert "hermes honcho enable" in provider.unavailable_reason()
    honcho_config(root={"baseUrl": "https://honcho.example.com"})
    assert "needs an API key" in provider.unavailable_reason()
    (hermes_home / "honcho.json").write_text("{ broken")
    assert "line 1" in provider.unavailable_reason() and provider.get_tool_schemas() == []
    provider.initialize("s", hermes_home=str(hermes_home))
    assert provider.prefetch("anything at all") == "" and provider.system_prompt_block() == ""


def test_a_real_session_keeps_the_key_out_of_state_db_and_hook_kwargs(hermes_home: Path, honcho_config: Any, plugin_manager: Any, hook_recorder: Any, fake: Any, workspace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_plugins_builtin.state import SessionStore

    fake.add_conclusion(workspace, "hermes", "eri", "Eri deploys on Fridays")
    honcho_config(root={"baseUrl": fake.base_url.replace("127.0.0.1", "localhost")}, writeFrequency="turn")
    monkeypatch.setenv("HONCHO_API_KEY", SECRET)  # from the environment: root has no apiKey
    plugins = plugin_manager(config={"memory": {"provider": "honcho"}})
    recorder = hook_recorder(plugins)
    memory = MemoryManager.from_plugins(plugins)
    store = SessionStore(hermes_home / "state.db")
    try:
        with OpenAIServer([text_reply("Noted."), text_reply("Sure.")]) as model:
            session = AgentSession(plugins=plugins, client=OpenAIChatClient(model.base_url, "m1"), store=store, memory=memory, cwd=hermes_home)
            session.run_turn("I deploy on Fridays")
            session.run_turn("anything else?")
            bodies = model.bodies
            session.finalize()
        memory.shutdown_all()
    finally:
        store.close()
    assert memory.external is not None and memory.external.name == "honcho"
    assert "# Honcho memory" in bodies[0]["messages"][0]["content"]
    assert "<memory-context>" in bodies[0]["messages"][-1]["content"] and "Eri deploys on Fridays" in bodies[1]["messages"][-1]["content"]
    assert any(r.headers.get("authorization") == f"Bearer {SECRET}" for r in fake.requests)
    db = b"".join(p.read_bytes() for p in hermes_home.glob("state.db*"))
    assert SECRET.encode() not in db
    assert SECRET not in repr([call.kwargs for call in recorder.calls])


def test_status_details_name_the_session_and_the_waiting_writes(make_provider: Any, workspace: str) -> None:
    provider = make_provider(writeFrequency="turn", root={"baseUrl": dead_url()})
    run_turn(provider)
    provider.shutdown()
    inspected = type(provider)()
    inspected.initialize_for_inspection("status-1", hermes_home=str(provider.hermes_home), cwd=str(provider.hermes_home.parent / "project"))
    details = inspected.status_details()
    assert details["workspace"] == workspace and details["session"] == "project" and details["failed writes"] == 2
    assert inspected.replay_thread is None  # inspection resends nothing
    inspected.shutdown()


@pytest.mark.parametrize("body", [b"[]", b'{"peer_card": 5}', b'"text"', b"{\"peer_card\": [1, {}]}", b"\xff\xfe", b""])
def test_replies_of_the_wrong_shape_are_errors_not_crashes(make_provider: Any, fake: Any, body: bytes) -> None:
    provider = make_provider(writeFrequency="turn")
    provider.on_turn_start(1, "hello")
    provider.prefetch("hello")
    fake.fail(r"GET .*/peers/eri/card", 200, body=body)
    answer = json.loads(provider.handle_tool_call("honcho_profile", {}))
    assert set(answer) <= {"error", "peer", "peer_id", "card"}
    if "error" in answer:
        assert answer["error"].startswith("Honcho at")
    else:
        assert answer["card"] == []  # an empty reply means no card


@pytest.mark.parametrize(
    ("status", "cause", "attempts"),
    [
        (403, "refused the API key (HTTP 403) -> set a valid apiKey", 1),  # retrying cannot help: not retried
        (422, "rejected the request with HTTP 422", 1),
        (500, "failed with HTTP 500", 3),
    ],
)
def test_each_http_status_is_retried_or_not_as_it_can_pass_or_not(make_provider: Any, fake: Any, status: int, cause: str, attempts: int) -> None:
    fake.fail(r"POST .*/messages$", status)
    provider = make_provider(writeFrequency="turn")
    _, drained = run_turn(provider)
    assert drained
    (entry,) = provider.journal().entries()
    assert cause in entry["cause"] and f"Honcho at {fake.base_url}" in entry["cause"]
    assert len(fake.calls("POST", f"{provider.config().workspace}/sessions/.*/messages$")) == attempts


def test_a_session_of_many_turns_is_sent_in_requests_of_at_most_100_messages_in_order(make_provider: Any, fake: Any, sdk: Any) -> None:
    provider = make_provider(writeFrequency="session")
    writes = f"{provider.config().workspace}/sessions/.*/messages$"
    for n in range(60):
        provider.sync_turn(f"question {n}", f"answer {n}")
    assert fake.calls("POST", writes) == []  # session mode: nothing sent before the end
    provider.on_session_end([])
    assert provider.flush_writes(30)
    assert [len(r.body["messages"]) for r in fake.calls("POST", writes)] == [100, 20]
    stored = [m.content for m in sdk.session(provider.session_name.name).messages()]
    assert stored == [f"{kind} {n}" for n in range(60) for kind in ("question", "answer")]
    assert provider.journal().entries() == []


def _config(hermes_home: Path, **settings: Any) -> Any:
    from hermes_bundled_plugins.memory.honcho.config import load_config

    (hermes_home / "honcho.json").write_text(json.dumps(settings))
    return load_config(hermes_home, {})


def test_every_sdk_failure_becomes_one_message_with_the_server_the_cause_and_whether_to_retry(hermes_home: Path) -> None:
    """The SDK's own exception classes, as it raises them, through ``describe_error``."""
    import honcho

    from hermes_bundled_plugins.memory.honcho.client import describe_error

    cloud = _config(hermes_home, apiKey=SECRET)
    local = _config(hermes_home, environment="local", timeout=3)
    own = _config(hermes_home, baseUrl="http://honcho.internal:9000")

    def described(exc: BaseException, config: Any) -> tuple[str, bool, int | None]:
        error = describe_error(exc, config)
        return str(error), error.retryable, error.status

    assert described(honcho.ConnectionError("Connection failed"), cloud) == (
        "Honcho unreachable at https://api.honcho.dev (Connection failed) -> start the server or fix baseUrl in honcho.json", True, None)
    assert described(honcho.TimeoutError(), local) == (
        "Honcho at http://localhost:8000 did not answer within 3 s -> check the server, or raise 'timeout' in honcho.json", True, None)
    assert described(honcho.ConnectionError("Expecting value: line 1"), own)[0].startswith("Honcho at http://honcho.internal:9000 sent a reply that is not valid JSON")
    for garbled in ("Invalid JSON in response body", "failed to decode the reply"):
        assert "sent a reply that is not valid JSON" in described(honcho.ConnectionError(garbled), own)[0]
    assert described(honcho.ConnectionError("json? no"), own)[0].startswith("Honcho unreachable at")
    assert described(honcho.APIError("no such peer", status=401), own)[1:] == (False, 401)
    assert described(honcho.APIError("no such peer", status=404), own) == (
        "Honcho at http://honcho.internal:9000 has no such resource (no such peer); workspace 'hermes' may not exist there -> check workspace and baseUrl in honcho.json", False, 404)
    assert described(honcho.HonchoError("stream closed"), own) == ("Honcho call failed: stream closed", True, None)
    assert described(honcho.APIError("teapot", status=418), own) == ("Honcho at http://honcho.internal:9000 rejected the request with HTTP 418 (teapot)", False, 418)
    assert described(honcho.APIError("boom", status=500), own)[1:] == (True, 500)
    assert described(honcho.APIError("overloaded", status=599), own)[1:] == (True, 599)
    assert described(honcho.APIError("closed", status=499), own)[1:] == (False, 499)
    assert described(honcho.APIError("forbidden", status=403), own)[1:] == (False, 403)
    assert described(honcho.APIError("slow down", status=429), own)[1:] == (True, 429)
    assert described(ValueError("1 validation error for Peer"), own) == (
        "Honcho at http://honcho.internal:9000 sent an unexpected reply (ValueError: 1 validation error for Peer) -> check that baseUrl is a Honcho v3 server", True, None)
    assert f"(ValueError: {'v' * 200}) -> check" in described(ValueError("v" * 300), own)[0]  # a long reply is cut
    leaked = [described(cls(f"request with key {SECRET} failed"), cloud)[0] for cls in (honcho.ConnectionError, honcho.HonchoError, ValueError)]
    leaked.append(described(honcho.APIError(f"bad key {SECRET}", status=400), cloud)[0])
    assert all(SECRET not in text and "***" in text for text in leaked)



def test_without_the_sdk_the_backend_names_the_install_and_is_not_retried(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from hermes_bundled_plugins.memory.honcho.client import INSTALL_HINT, HonchoBackend, HonchoCallError

    monkeypatch.setitem(sys.modules, "honcho", None)  # how Python blocks an import: as if honcho-ai were not installed
    with pytest.raises(HonchoCallError) as missing:
        HonchoBackend(_config(hermes_home, baseUrl="http://localhost:8000"))
    assert str(missing.value) == INSTALL_HINT and missing.value.retryable is False


def test_without_a_base_url_the_sdk_is_pointed_at_the_environment(hermes_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.client import HonchoBackend

    assert HonchoBackend(_config(hermes_home, environment="local")).client.base_url == "http://localhost:8000"
    assert HonchoBackend(_config(hermes_home, apiKey=SECRET)).client.base_url == "https://api.honcho.dev"
