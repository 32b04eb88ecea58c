"""The Mem0 provider's lifecycle and recall, against the loopback platform server (the real
``mem0.MemoryClient``; no model, no local store), so every request is seen as sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mem0_platform_server import PlatformServer


@pytest.fixture
def platform(hermes_home: Path) -> Iterator[PlatformServer]:
    with PlatformServer() as fake:
        (hermes_home / ".env").write_text(f"MEM0_API_KEY={fake.api_key}\nMEM0_BASE_URL={fake.url}\n")
        (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n    agent_id: hermes-test\n    user_id: ann\n")
        yield fake


def requests(platform: PlatformServer, path: str) -> list[dict[str, Any]]:
    return [body for _, seen, body, _ in platform.requests if seen == path]


def test_the_system_prompt_names_the_platform_the_user_and_the_tools(open_provider, platform):
    provider = open_provider()
    assert provider.system_prompt_block() == (
        f"# Mem0 memory (Mem0 platform ({platform.url}))\n"
        "Long-term memory about user ann. Relevant memories are recalled before each turn; "
        "use mem0_search to look something up, mem0_profile for everything known, mem0_conclude to store a durable fact."
    )
