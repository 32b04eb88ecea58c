"""Shared setup for the Mem0 provider tests: one model server per test run, a configured home per test.

The real mem0 library runs against the loopback model server (chat completions + deterministic
embeddings); the embedded store lives in the test's own HERMES_HOME. Embeddings are 64-dimensional
to keep the stores small.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_core.testing_openai_embeddings import EmbeddingModelServer

sys.path.insert(0, str(Path(__file__).parent))
from mem0_testkit import DIMS, write_config  # noqa: E402
from mem0_platform_server import PlatformServer  # noqa: E402



@pytest.fixture(scope="session")
def model_server() -> Iterator[EmbeddingModelServer]:
    with EmbeddingModelServer(dims=DIMS) as server:
        yield server


@pytest.fixture(autouse=True)
def _mem0_env(monkeypatch: pytest.MonkeyPatch, hermes_home: Path) -> None:
    # mem0 reads these when first imported; per-test values keep every write inside tmp_path.
    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    monkeypatch.setenv("MEM0_DIR", str(hermes_home / "mem0"))
    for name in ("OPENROUTER_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "MEM0_API_KEY", "MEM0_BASE_URL", "MEM0_HOST", "MEM0_USER_ID", "MEM0_AGENT_ID", "HERMES_MODEL", "HERMES_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server(model_server: EmbeddingModelServer) -> Iterator[EmbeddingModelServer]:
    model_server.reset()
    yield model_server
    model_server.reset()


@pytest.fixture
def mem0_home(hermes_home: Path, server: EmbeddingModelServer) -> Path:
    write_config(hermes_home, server.base_url)
    return hermes_home


@pytest.fixture
def open_provider(mem0_home: Path) -> Iterator[Callable[..., Any]]:
    """``open_provider(**initialize_kwargs)``: the provider as the host loads it, initialized; shut down after."""
    from hermes_core.manager import PluginManager

    opened: list[Any] = []

    def open_(session_id: str = "s1", **kwargs: Any) -> Any:
        plugins = PluginManager()
        plugins.load_all()
        provider = plugins.active_memory_provider()
        assert provider is not None and provider.name == "mem0", plugins.plugins
        kwargs.setdefault("hermes_home", str(mem0_home))
        kwargs.setdefault("platform", "cli")
        provider.initialize(session_id, **kwargs)
        opened.append(provider)
        return provider

    yield open_
    for provider in opened:
        provider.shutdown()


@pytest.fixture
def platform(hermes_home: Path) -> Iterator[PlatformServer]:
    """The loopback Mem0 platform, with the key, address and a user (ann) set in the home."""
    with PlatformServer() as fake:
        (hermes_home / ".env").write_text(f"MEM0_API_KEY={fake.api_key}\nMEM0_BASE_URL={fake.url}\n")
        (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    agent_id: hermes-test\n    user_id: ann\n")
        yield fake
