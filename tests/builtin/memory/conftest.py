"""Fixtures for the built-in memory tests: a provider on a fresh HERMES_HOME and a JSON-decoding tool caller."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_plugins_builtin.memory import BuiltinMemoryProvider


@pytest.fixture
def provider(hermes_home: Path) -> BuiltinMemoryProvider:
    return BuiltinMemoryProvider(hermes_home)


@pytest.fixture
def tool(provider: BuiltinMemoryProvider) -> Callable[..., dict[str, Any]]:
    """``tool(action="add", content="...")`` -> the decoded answer of the ``memory`` tool."""

    def call(_provider: BuiltinMemoryProvider | None = None, **args: Any) -> dict[str, Any]:
        answer = (_provider or provider).handle_tool_call("memory", args)
        assert isinstance(answer, str)
        return json.loads(answer)

    return call
