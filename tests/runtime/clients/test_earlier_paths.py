"""The model clients moved to hermes_core.models; the runtime paths plugins import still give the same objects."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

EARLIER = Path(__file__).resolve().parents[3] / "hermes_core" / "runtime" / "clients"
MODULES = sorted(p.stem for p in EARLIER.glob("*.py") if p.stem != "__init__")


def test_every_module_of_the_earlier_package_is_kept():
    # the clients package as it was when it moved: a plugin may import any of these
    assert MODULES == ["anthropic_format", "anthropic_messages", "base", "errors", "from_config", "openai_chat",
                       "openai_format", "protocol", "response", "sanitize", "sse", "tool_calls", "transport", "visible"]


@pytest.mark.parametrize("name", MODULES + ["pricing", "usage"])
def test_an_earlier_module_path_is_the_moved_module(name):
    package = "" if name in ("pricing", "usage") else "clients."
    earlier = importlib.import_module(f"hermes_core.runtime.{package}{name}")
    assert earlier is importlib.import_module(f"hermes_core.models.{package}{name}")


def test_the_earlier_package_path_gives_the_same_objects():
    from hermes_core.models import clients
    from hermes_core.runtime import clients as earlier

    assert sorted(earlier.__all__) == sorted(clients.__all__)
    for name in clients.__all__:
        assert getattr(earlier, name) is getattr(clients, name), name


def test_an_error_raised_under_one_path_is_caught_under_the_other():
    # Run fresh, so the earlier path is imported first: a module loaded twice would give two classes.
    code = (
        "from hermes_core.runtime.clients.errors import ModelAPIError as Earlier\n"
        "from hermes_core.runtime.usage import estimate_usage_cost\n"
        "from hermes_core.models.clients import ModelAPIError\n"
        "from hermes_core.models.usage import estimate_usage_cost as moved\n"
        "try:\n    raise Earlier('x', provider='openai', reason='server_error')\nexcept ModelAPIError:\n    print('caught', moved is estimate_usage_cost)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "caught True", result.stderr
