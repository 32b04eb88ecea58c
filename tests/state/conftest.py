"""Fixtures for the session-store tests: a real state.db in a temporary directory."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

from hermes_plugins_builtin.state import SessionStore

# --import-mode=importlib keeps test directories off sys.path; the tests import
# state_support by name, and so do the worker processes they spawn
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "state.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SessionStore]:
    s = SessionStore(db_path)
    try:
        yield s
    finally:
        s.close()

