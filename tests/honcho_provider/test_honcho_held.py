"""A turn Honcho already holds is not stored again: replayed history, retries and journalled resends."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hermes_core.testing.honcho_server import HonchoServer


def contents(sdk: Any, name: str) -> list[str]:
    return [m.content for m in sdk.session(name).messages()]


def lists_of(fake: HonchoServer, workspace: str, name: str) -> int:
    return len(fake.calls("POST", f"{workspace}/sessions/{name}/messages/list$"))


def store_then(fake: HonchoServer, after_storing: Any) -> None:
    """Message writes are stored, then ``after_storing()`` decides the reply (the client may never see it)."""
    route = fake.api.route

    def routed(request: Any) -> Any:
        answer = route(request)
        if request.method == "POST" and request.path.endswith("/messages"):
            return after_storing() or answer
        return answer

    fake.api.route = routed  # type: ignore[method-assign]


@pytest.fixture
def plain_route(fake: HonchoServer) -> Any:
    """The server's own routing, put back after the test (and by tests that stop scripting midway)."""
    route = fake.api.route
    yield route
    fake.api.route = route  # type: ignore[method-assign]


def test_a_replayed_source_is_stored_once_and_the_session_is_listed_once(make_provider: Any, fake: HonchoServer, sdk: Any, workspace: str) -> None:
    first = make_provider(writeFrequency="turn")
    name = first.session_name.name
    for n in (1, 2):
        first.sync_turn(f"question {n}", f"answer {n}", timestamp=1735732800.0 + n, source=f"session:old:message:{n}")
    first.sync_turn("live question", "live answer")  # no source: no lookup, always sent
    first.shutdown()
    assert lists_of(fake, workspace, name) == 1  # the first sourced turn listed the session; the rest came from the cache

    again = make_provider(writeFrequency="turn")  # another run replays the same history, and one turn more
    for n in (1, 2, 3):
        again.sync_turn(f"question {n}", f"answer {n}", timestamp=1735732800.0 + n, source=f"session:old:message:{n}")
    again.shutdown()
    assert lists_of(fake, workspace, name) == 2
    assert contents(sdk, name) == ["question 1", "answer 1", "question 2", "answer 2", "live question", "live answer", "question 3", "answer 3"]
    assert again.held is not None and again.held.lookups == 1


def test_a_write_stored_before_its_reply_failed_is_not_stored_by_the_retry(make_provider: Any, fake: HonchoServer, sdk: Any, plain_route: Any) -> None:
    failures = [(503, {"detail": "stored, but the reply was lost"})]
    store_then(fake, lambda: failures.pop() if failures else None)
    provider = make_provider(writeFrequency="turn")
    provider.sync_turn("what did we decide?", "Canary first.")
    assert provider.journal().entries() == []
    assert contents(sdk, provider.session_name.name) == ["what did we decide?", "Canary first."]


def test_a_journalled_write_that_landed_meanwhile_is_not_stored_again(
    make_provider: Any, fake: HonchoServer, sdk: Any, plain_route: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored, release = threading.Event(), threading.Event()

    def hold_the_reply() -> None:
        stored.set()
        release.wait(30)  # the session ends while the request is still out

    store_then(fake, hold_the_reply)
    provider = make_provider(writeFrequency="async")
    name = provider.session_name.name
    provider.sync_turn("is the deploy on Friday?", "No, Thursday.")
    assert stored.wait(30)
    monkeypatch.setattr(provider, "_drain_timeout", lambda: 0.0)
    provider.shutdown()
    (entry,) = provider.journal().entries()
    assert "may arrive twice" in entry["cause"]
    release.set()
    fake.api.route = plain_route  # type: ignore[method-assign]
    back = make_provider(writeFrequency="turn")  # the next session sends the journal again
    assert back.replay_thread is not None
    back.replay_thread.join(30)
    assert back.journal().entries() == []
    assert contents(sdk, name) == ["is the deploy on Friday?", "No, Thursday."]


def test_the_server_filters_messages_by_metadata_as_honcho_does(fake: HonchoServer, sdk: Any) -> None:
    session = sdk.session("filters")
    alice, bob = sdk.peer("alice"), sdk.peer("bob")
    session.add_messages([alice.message("one", metadata={"kind": "a", "n": 1}), bob.message("two", metadata={"kind": "b"}), alice.message("three", metadata={"kind": "a", "n": 2})])
    assert [m.content for m in session.messages(filters={"metadata": {"kind": "a"}})] == ["one", "three"]
    assert [m.content for m in session.messages(filters={"metadata": {"kind": "a", "n": 2}})] == ["three"]
    assert [m.content for m in session.messages(filters={"OR": [{"peer_id": "bob"}, {"metadata": {"n": 1}}]})] == ["one", "two"]
    assert [m.content for m in session.messages(filters={"NOT": [{"peer_id": "alice"}]})] == ["two"]
    import honcho

    with pytest.raises(honcho.UnprocessableEntityError, match="equal values only"):
        session.messages(filters={"metadata": {"n": {"gte": 1}}})


def test_the_turn_and_part_of_a_message_are_read_from_its_metadata() -> None:
    from hermes_bundled_plugins.memory.honcho.held import WHOLE_TURN, message_key

    assert message_key({"hermes_turn": "turn:1", "hermes_part": 2}) == ("turn:1", 2)
    assert message_key({"hermes_turn": "turn:1", "hermes_part": 0}) == ("turn:1", 0)
    assert message_key({"hermes_turn": "turn:1"}) == ("turn:1", WHOLE_TURN)
    assert message_key({"hermes_turn": "turn:1", "hermes_part": True}) == ("turn:1", WHOLE_TURN)  # a bool is no part number
    assert message_key({"hermes_turn": "turn:1", "hermes_part": "2"}) == ("turn:1", WHOLE_TURN)
    assert message_key({"hermes_source": "import:42"}) == ("import:42", WHOLE_TURN)  # written before turns were numbered
    assert message_key({"hermes_turn": "", "hermes_source": "import:42"}) == ("import:42", WHOLE_TURN)
    assert [message_key(m) for m in ({}, {"hermes_turn": 7}, {"hermes_source": ""}, {"source": "hermes"})] == [None] * 4


def test_only_a_write_that_may_have_landed_is_looked_up_and_the_lookup_is_kept() -> None:
    from hermes_bundled_plugins.memory.honcho.held import HeldTurns
    from hermes_bundled_plugins.memory.honcho.writer import PendingMessage

    stored = [{"hermes_turn": "t1", "hermes_part": 0}, {"hermes_source": "old"}, None, {"source": "hermes"}]
    listed: list[str] = []

    def list_marked(session: Any) -> list[dict | None]:
        listed.append(session)
        return stored

    def message(turn: str, part: int, may_be_stored: bool = True) -> PendingMessage:
        return PendingMessage("s", "eri", f"{turn}/{part}", {"hermes_turn": turn, "hermes_part": part}, may_be_stored=may_be_stored)

    held = HeldTurns(list_marked)
    held.remember("s", [message("t9", 0)])  # never listed yet: nothing to keep up to date
    fresh = [message("t1", 0, False), message("t2", 0, False)]
    assert held.unsent("s", "session-object", fresh) == fresh and listed == [] and held.lookups == 0
    unmarked = PendingMessage("s", "eri", "no key", may_be_stored=True)
    assert held.unsent("s", "session-object", [unmarked]) == [unmarked] and listed == []  # nothing to compare it with

    batch = [message("t1", 0), message("t1", 1), message("old", 3), message("t9", 0), message("t1", 0, False), unmarked]
    kept = held.unsent("s", "session-object", batch)
    # t1/0 is stored; the legacy "old" covers every part of its turn; t9 was never listed; unmarked and fresh go out
    assert [m.content for m in kept] == ["t1/1", "t9/0", "t1/0", "no key"]
    assert listed == ["session-object"] and held.lookups == 1
    held.remember("s", [message("t1", 1), unmarked])
    assert [m.content for m in held.unsent("s", "session-object", [message("t1", 1), message("t1", 2)])] == ["t1/2"]
    assert held.lookups == 1  # the second check costs no request
    held.forget()
    held.unsent("s", "session-object", [message("t1", 1)])
    assert held.lookups == 2 and len(listed) == 2


def test_a_failed_lookup_is_not_kept() -> None:
    from hermes_bundled_plugins.memory.honcho.client import HonchoCallError
    from hermes_bundled_plugins.memory.honcho.held import HeldTurns
    from hermes_bundled_plugins.memory.honcho.writer import PendingMessage

    answers: list[Any] = [HonchoCallError("down", retryable=True), [{"hermes_turn": "t1", "hermes_part": 0}]]

    def list_marked(session: Any) -> list[dict]:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    held = HeldTurns(list_marked)
    pending = [PendingMessage("s", "eri", "x", {"hermes_turn": "t1", "hermes_part": 0}, may_be_stored=True)]
    with pytest.raises(HonchoCallError):
        held.unsent("s", None, pending)
    assert held.unsent("s", None, pending) == [] and held.lookups == 1
