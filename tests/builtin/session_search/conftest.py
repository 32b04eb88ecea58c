"""Fixtures for the session_search tests: a real state.db filled through SessionStore, and the tool on it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from hermes_plugins_builtin.session_search import SearchSettings, SessionSearch
from hermes_plugins_builtin.state import SessionStore

Message = tuple[str, str] | dict[str, Any]


@pytest.fixture
def db_path(hermes_home: Path) -> Path:
    return hermes_home / "state.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SessionStore]:
    """The writer's store; the tool opens its own connection to the same file, as in real use."""
    with SessionStore(db_path) as opened:
        yield opened


@pytest.fixture
def add_session(store: SessionStore) -> Callable[..., str]:
    """``add_session(id, [(role, text) | message dict, ...], started_at=, title=, source=, parent=, ended=)``.

    Messages get timestamps one second apart from ``started_at``; ``ended=(when, reason)`` ends the session.
    """

    def add(
        session_id: str,
        messages: Sequence[Message] = (),
        *,
        started_at: float,
        title: str | None = None,
        source: str = "cli",
        parent: str | None = None,
        ended: tuple[float, str] | None = None,
    ) -> str:
        store.create_session(session_id, source, title=title, parent_session_id=parent, started_at=started_at)
        rows = []
        for offset, message in enumerate(messages, 1):
            row = dict(message) if isinstance(message, dict) else {"role": message[0], "content": message[1]}
            row.setdefault("timestamp", started_at + offset)
            rows.append(row)
        store.append_messages(session_id, rows)
        if ended is not None:
            store.end_session(session_id, ended[1], ended_at=ended[0])
        return session_id

    return add


@pytest.fixture
def make_search(db_path: Path) -> Iterator[Callable[..., SessionSearch]]:
    """``make_search(aggregate_timeout=..., **settings)`` -> a SessionSearch on the test's state.db."""
    made: list[SessionSearch] = []

    def make(*, aggregate_timeout: float | None = None, **settings: Any) -> SessionSearch:
        options = {} if aggregate_timeout is None else {"aggregate_timeout": aggregate_timeout}
        search = SessionSearch(db_path, SearchSettings(**settings), **options)
        made.append(search)
        return search

    yield make
    for search in made:
        search.close()


@pytest.fixture
def call() -> Callable[..., dict[str, Any]]:
    """``call(search, {"query": ...}, session_id=...)`` -> the tool's answer, decoded from its JSON string."""

    def run(search: SessionSearch, args: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        raw = search.handle(args or {}, **kwargs)
        assert isinstance(raw, str)
        return json.loads(raw)

    return run

