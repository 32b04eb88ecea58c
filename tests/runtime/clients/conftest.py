"""Fixtures for the model-client tests: retry policies that never really wait, and a sample tool."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from hermes_core.models.clients.transport import RetryPolicy


@pytest.fixture
def waits() -> list[float]:
    """Every backoff the client asked for, in order (the client does not actually sleep)."""
    return []


@pytest.fixture
def retry(waits: list[float]) -> RetryPolicy:
    return RetryPolicy(backoff_base=0.25, backoff_max=2.0, max_total_wait=30.0, sleep=waits.append, random=lambda: 1.0)


@pytest.fixture
def weather_tool() -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }


@pytest.fixture
def refused_base_url() -> Iterator[str]:
    """A 127.0.0.1 address whose port is bound but not listening, so connecting is refused."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{holder.getsockname()[1]}/v1"
    finally:
        holder.close()
