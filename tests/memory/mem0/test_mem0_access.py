"""The one door to mem0 (``BackendAccess``): opening on first use, failed opens counted by the breaker and
recorded, warned about once per cause in a session, calls paused while the breaker is open, closing.

The real ``mem0.MemoryClient`` talks to the loopback platform server; its key check (``GET /v1/ping/``)
is what an open does, so a wrong key, a dead address or a reply mem0 cannot read are real failed opens.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from mem0_platform_server import PlatformServer

LOGGER = "hermes.plugins.memory.mem0"


@pytest.fixture
def platform() -> Iterator[PlatformServer]:
    with PlatformServer() as server:
        yield server


@pytest.fixture
def access_module():
    from hermes_bundled_plugins.memory.mem0 import access

    return access


def settings_for(server: PlatformServer, home: Path, **changes):
    from hermes_bundled_plugins.memory.mem0.settings import Mem0Settings

    base = Mem0Settings(mode="platform", home=home, user_id="u", agent_id="a", api_key=server.api_key, host=server.url, timeout=2)
    return dataclasses.replace(base, **changes)


def opened_access(access_module, settings, in_session: bool = True):
    access = access_module.BackendAccess(lambda: in_session)
    access.configure(settings)
    return access


def pings(server: PlatformServer) -> int:
    return server.paths().count("GET /v1/ping/")


def access_log(caplog) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == LOGGER and r.module == "access"]


def test_before_configuration_nothing_is_opened_and_nothing_fails(access_module, tmp_path: Path):
    from hermes_bundled_plugins.memory.mem0.settings import Mem0Settings

    access = access_module.BackendAccess(lambda: True)
    defaults = {f.name: f.default for f in dataclasses.fields(Mem0Settings)}
    assert (access.breaker.threshold, access.breaker.cooldown) == (defaults["breaker_threshold"], defaults["breaker_cooldown"])
    assert (access.settings, access.status, access.backend, access.backend_error, access.last_error) == (None, None, None, "", "")
    assert not access.opened.is_set()
    assert access.open() is None
    assert access.opened.is_set()  # a first recall waiting on the open is not kept waiting
    assert access.attempt("search", lambda backend: ["never called"]) == (None, "mem0 is not open")
    access.record_error("search", "Timeout")  # no status file yet: only remembered
    assert access.last_error == "search: Timeout"
    assert access.breaker_message() == "Mem0 is paused after 0 consecutive failures (last: search: Timeout); it is retried in 0 s"
    access.close()  # nothing to close
    assert access.backend is None


def test_the_backend_is_opened_once_and_reused(access_module, platform, tmp_path: Path):
    from hermes_bundled_plugins.memory.mem0.backend import PlatformBackend

    access = opened_access(access_module, settings_for(platform, tmp_path))
    backend = access.open()
    assert isinstance(backend, PlatformBackend) and access.opened.is_set()
    assert access.open() is backend and access.backend is backend
    assert pings(platform) == 1
    assert (access.backend_error, access.last_error, access.breaker.failures) == ("", "", 0)


def test_failed_opens_are_recorded_counted_and_warned_once_per_cause_in_a_session(access_module, platform, tmp_path: Path, caplog):
    settings = settings_for(platform, tmp_path, api_key="m0-wrong-key", breaker_threshold=10, breaker_cooldown=0.0)
    access = opened_access(access_module, settings)
    good_ping = platform.ping_answer
    refused = f"the Mem0 platform at {platform.url} refused the key: Error: Invalid API key -> check MEM0_API_KEY"
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        assert access.open() is None
        assert access.opened.is_set()
        assert (access.backend_error, access.last_error, access.breaker.failures) == (refused, f"open: {refused}", 1)
        recorded = access.status.read()["last_error"]
        assert (recorded["operation"], recorded["message"]) == ("open", refused)
        assert access.open() is None  # the same cause again: tried (the breaker allows), not warned again
        platform.api_key = "m0-wrong-key"  # the key is accepted now, but the reply is not what mem0 reads
        platform.ping_answer = (200, ["not", "an", "object"])
        assert access.open() is None
        assert access.open() is None
    not_started = "mem0 could not start: AttributeError: 'list' object has no attribute 'get'"
    assert (access.backend_error, access.last_error, access.breaker.failures) == (not_started, f"open: {not_started}", 4)
    assert access.status.read()["last_error"]["message"] == not_started
    assert access_log(caplog) == [
        ("WARNING", f"mem0: {refused}"), ("DEBUG", f"mem0: {refused}"),
        ("WARNING", f"mem0: {not_started}"), ("DEBUG", f"mem0: {not_started}"),
    ]
    assert pings(platform) == 4
    platform.ping_answer = good_ping
    assert access.open() is not None  # the endpoint came back: picked up without a new session
    assert (access.backend_error, access.breaker.failures, access.last_error) == ("", 0, f"open: {not_started}")


def test_outside_a_session_a_failed_open_is_logged_quietly(access_module, tmp_path: Path, caplog):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    from hermes_bundled_plugins.memory.mem0.settings import Mem0Settings

    settings = Mem0Settings(mode="platform", home=tmp_path, user_id="u", agent_id="a", api_key="k", host=dead, timeout=2)
    access = opened_access(access_module, settings, in_session=False)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        assert access.open() is None
    assert access.backend_error.startswith(f"the Mem0 platform at {dead} is unreachable: ConnectError: ")
    assert access_log(caplog) == [("DEBUG", f"mem0: {access.backend_error}")]


def test_a_failed_open_is_not_tried_again_while_the_breaker_is_open(access_module, platform, tmp_path: Path):
    access = opened_access(access_module, settings_for(platform, tmp_path, api_key="m0-wrong-key", breaker_threshold=1, breaker_cooldown=600.0))
    assert access.open() is None
    error = access.backend_error
    assert access.open() is None and pings(platform) == 1  # not asked again during the pause
    assert access.backend_error == error and access.breaker.failures == 1
    assert access.attempt("search", lambda backend: ["never called"]) == (None, f"paused after 1 consecutive failures (last: open: {error})")
    assert access.breaker_message() == f"Mem0 is paused after 1 consecutive failures (last: open: {error}); it is retried in 600 s"
    assert pings(platform) == 1


def test_a_backend_error_is_the_reason_a_call_was_not_made(access_module, platform, tmp_path: Path):
    access = opened_access(access_module, settings_for(platform, tmp_path, api_key="", breaker_threshold=3))
    called: list[object] = []
    why = "platform mode needs MEM0_API_KEY -> 'hermes memory setup mem0' (it is stored in $HERMES_HOME/.env)"
    assert access.attempt("search", called.append) == (None, why)
    assert called == [] and access.breaker.failures == 1 and access.last_error == f"open: {why}"


def test_an_open_after_failed_calls_is_not_held_back_by_the_breaker(access_module, platform, tmp_path: Path):
    access = opened_access(access_module, settings_for(platform, tmp_path, breaker_threshold=1, breaker_cooldown=600.0))

    def refused(backend):
        raise ConnectionError("refused")

    assert access.attempt("search", refused) == (None, "ConnectionError: refused")
    assert not access.breaker.allows()
    access.close()
    # the breaker pauses calls; opening (what status and inspection do) is held back only after a failed open
    assert access.open() is not None and pings(platform) == 2


def test_close_releases_the_backend_and_the_next_use_opens_a_new_one(access_module, platform, tmp_path: Path):
    access = opened_access(access_module, settings_for(platform, tmp_path))
    first = access.open()
    assert first._http is not None
    access.close()
    assert access.backend is None and first._http is None  # the HTTP client is closed
    second = access.open()
    assert second is not None and second is not first and pings(platform) == 2
    assert access.attempt("profile", lambda backend: backend.get_all(user_id="u")) == ([], "")


def test_a_backend_that_fails_to_close_is_logged_and_let_go(access_module, platform, tmp_path: Path, caplog, monkeypatch):
    access = opened_access(access_module, settings_for(platform, tmp_path))
    backend = access.open()

    def failing_close() -> None:
        # Injected: neither mem0's client nor its embedded store can be made to fail closing on demand.
        raise OSError("disk I/O error")

    monkeypatch.setattr(backend, "close", failing_close)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        access.close()
    assert access_log(caplog) == [("DEBUG", "mem0: close failed: disk I/O error")]
    assert access.backend is None
    assert access.open() is not backend


def test_failed_calls_are_recorded_logged_and_pause_calls_at_the_threshold(access_module, platform, tmp_path: Path, caplog):
    access = opened_access(access_module, settings_for(platform, tmp_path, breaker_threshold=2, breaker_cooldown=600.0))
    calls: list[str] = []

    def refused(backend):
        calls.append("called")
        raise ConnectionError("refused")

    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        assert access.attempt("search", refused) == (None, "ConnectionError: refused")
        assert access.attempt("profile", lambda backend: backend.get_all(user_id="u")) == ([], "")
        assert access.breaker.failures == 0  # a success starts the count over
        assert access.attempt("search", refused) == (None, "ConnectionError: refused")
        assert access.attempt("write (add)", refused) == (None, "ConnectionError: refused")
        assert access.attempt("search", refused) == (None, "paused after 2 consecutive failures (last: write (add): ConnectionError: refused)")
    assert calls == ["called"] * 3
    assert access.last_error == "write (add): ConnectionError: refused"
    recorded = access.status.read()["last_error"]
    assert (recorded["operation"], recorded["message"]) == ("write (add)", "ConnectionError: refused")
    assert access_log(caplog) == [
        ("INFO", "mem0 search failed: ConnectionError: refused"),
        ("INFO", "mem0 search failed: ConnectionError: refused"),
        ("WARNING", "mem0: 2 consecutive failures (last: ConnectionError: refused); calls paused for 600 s, writes are queued meanwhile"),
    ]
