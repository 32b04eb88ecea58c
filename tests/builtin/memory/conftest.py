"""Fixtures for the built-in memory tests: a provider on a fresh HERMES_HOME and a JSON-decoding tool caller."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_plugins_builtin.memory import BuiltinMemoryProvider

# --import-mode=importlib keeps test directories off sys.path; test_concurrency imports
# concurrent_writers by name (so does benchmarks/memory_concurrency.py)
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))


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


@pytest.fixture(autouse=True)
def _fresh_scan_results() -> None:
    """Each test judges the scanner itself, never a verdict another test left in its result cache
    (which would also hide a mutant of the scanner from the test meant to catch it)."""
    from hermes_plugins_builtin.memory.scanner import _scan_cached

    _scan_cached.cache_clear()
