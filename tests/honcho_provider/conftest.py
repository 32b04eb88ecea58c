"""The Honcho provider's tests: the real honcho-ai SDK over real HTTP to a Honcho-protocol server.

By default each test module starts :class:`hermes_core.testing.honcho_server.HonchoServer` on 127.0.0.1.
With ``HONCHO_TEST_BASE_URL`` set (and ``HONCHO_TEST_API_KEY`` if it needs one) the same tests run
against that real server instead; tests that script faults or read the server's state directly
are skipped there (``needs_fake``). Every test gets its own workspace, so runs never mix.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_bundled_plugins.memory.honcho.provider import HonchoMemoryProvider
from hermes_core.testing.honcho_server import HonchoServer

REAL_URL = os.environ.get("HONCHO_TEST_BASE_URL", "").strip()
REAL_KEY = os.environ.get("HONCHO_TEST_API_KEY", "").strip() or None
_HONCHO_ENV = ("HONCHO_API_KEY", "HONCHO_BASE_URL", "HONCHO_ENVIRONMENT", "HERMES_HONCHO_HOST", "HONCHO_URL", "HONCHO_WORKSPACE_ID")


class RealServer:
    """A Honcho server started elsewhere: only its URL is known."""

    fake = False

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


@pytest.fixture(scope="module")
def honcho_server() -> Iterator[Any]:
    if REAL_URL:
        yield RealServer(REAL_URL)
        return
    with HonchoServer() as server:
        server.fake = True  # type: ignore[attr-defined]
        yield server


@pytest.fixture
def server(honcho_server: Any) -> Iterator[Any]:
    """The module's server with scripted faults, delays and chat answers cleared after each test."""
    yield honcho_server
    if honcho_server.fake:
        honcho_server.heal()
        honcho_server.delay = 0.0
        honcho_server.chat_replies.clear()


@pytest.fixture
def fake(server: Any) -> HonchoServer:
    """The loopback server, for tests that script it; skipped against a real server."""
    if not server.fake:
        pytest.skip("scripts faults or reads server state: runs against the loopback Honcho server only")
    return server


@pytest.fixture(autouse=True)
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``~`` of the test (so ~/.hermes and ~/.honcho are the test's own), Honcho env cleared."""
    home = tmp_path / "user_home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in _HONCHO_ENV:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def workspace() -> str:
    return "ws-" + uuid.uuid4().hex[:12]


def write_json(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def honcho_config(hermes_home: Path, server: Any, workspace: str) -> Callable[..., Path]:
    """``honcho_config(**host_settings)`` writes $HERMES_HOME/honcho.json pointing at the server."""

    def write(root: dict[str, Any] | None = None, **host: Any) -> Path:
        data: dict[str, Any] = {"baseUrl": server.base_url, "workspace": workspace, "peerName": "eri", "timeout": 2}
        if REAL_KEY:
            data["apiKey"] = REAL_KEY
        data.update(root or {})
        data["hosts"] = {"hermes": {"aiPeer": "hermes", **host}}
        return write_json(hermes_home / "honcho.json", data)

    return write


@pytest.fixture
def make_provider(hermes_home: Path, honcho_config: Callable[..., Path], tmp_path: Path) -> Iterator[Callable[..., HonchoMemoryProvider]]:
    """A provider initialized against the server; ``make_provider(writeFrequency="turn", ...)``."""
    made: list[HonchoMemoryProvider] = []
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)

    def make(session_id: str = "20260415_a3f2b1", init: dict[str, Any] | None = None, **host: Any) -> HonchoMemoryProvider:
        honcho_config(**host)
        provider = HonchoMemoryProvider(retry_delays=(0.0, 0.0))
        kwargs = {"hermes_home": str(hermes_home), "platform": "cli", "agent_context": "primary", "cwd": str(project), **(init or {})}
        provider.initialize(session_id, **kwargs)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        provider.shutdown()


@pytest.fixture
def sdk(server: Any, workspace: str) -> Any:
    """An SDK client on the test's workspace, to read what the provider stored (works on both servers)."""
    import honcho

    return honcho.Honcho(base_url=server.base_url, workspace_id=workspace, api_key=REAL_KEY or "local", max_retries=0, timeout=5)


@pytest.fixture
def turn() -> Callable[..., str]:
    """``turn(provider, n, user, assistant)``: one turn as the host drives it; returns the recall."""

    def run(provider: HonchoMemoryProvider, number: int, user: str, assistant: str = "ok") -> str:
        provider.on_turn_start(number, user)
        recalled = provider.prefetch(user)
        provider.sync_turn(user, assistant)
        provider.queue_prefetch(user)
        return recalled

    return run


@pytest.fixture
def provider_for_fuzz(make_provider: Callable[..., HonchoMemoryProvider]) -> HonchoMemoryProvider:
    return make_provider(writeFrequency="turn")
