"""Shared test setup: every test gets its own HERMES_HOME, and pip can never reach an index."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _isolated_home(hermes_home):
    """No test may read or write the real ~/.hermes."""
    return hermes_home


@pytest.fixture(autouse=True)
def _no_package_index(monkeypatch):
    """Point pip at a dead local port so no test installs from the internet by accident."""
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")


def pytest_configure(config):
    # tests/venv_support.py is imported by name from the packaging tests.
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
