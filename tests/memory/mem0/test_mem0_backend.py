"""The two backends and the portable records, with the real mem0 library: ``MemoryClient`` against the
loopback platform server, and the helpers that read an embedded store's files."""

from __future__ import annotations

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
