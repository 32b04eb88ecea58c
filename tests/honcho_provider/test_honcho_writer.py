"""The write queue on its own: what a session end leaves unsent is journalled, never dropped."""

from __future__ import annotations

import threading
from pathlib import Path

from hermes_bundled_plugins.memory.honcho.client import HonchoCallError
from hermes_bundled_plugins.memory.honcho.writer import FailureJournal, MessageWriter, PendingMessage


def batch(n: int) -> list[PendingMessage]:
    return [PendingMessage("s", "eri", f"message {n}")]


def test_a_send_still_running_at_close_is_journalled_with_what_waited_behind_it(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()
    sent: list[str] = []

    def send(messages: list[PendingMessage]) -> None:
        started.set()
        release.wait(30)  # the server has not answered yet
        sent.extend(m.content for m in messages)

    journal = FailureJournal(tmp_path / "failed.jsonl")
    writer = MessageWriter(send, mode="async", journal=journal, retry_delays=())
    writer.add_turn(batch(1))
    assert started.wait(30)
    writer.add_turn(batch(2))
    writer.add_turn(batch(3))
    assert writer.close(timeout=0) is False
    (entry,) = journal.entries()
    assert [m["content"] for m in entry["messages"]] == ["message 1", "message 2", "message 3"]
    assert "may arrive twice" in entry["cause"]
    release.set()


def test_non_retryable_failures_are_not_retried_and_retryable_ones_are(tmp_path: Path) -> None:
    calls: list[str] = []

    def send(messages: list[PendingMessage]) -> None:
        calls.append(messages[0].content)
        raise HonchoCallError("refused", retryable=messages[0].content.endswith("1"))

    journal = FailureJournal(tmp_path / "failed.jsonl")
    writer = MessageWriter(send, mode="turn", journal=journal, retry_delays=(0.0, 0.0))
    writer.add_turn(batch(1))
    writer.add_turn(batch(2))
    assert calls == ["message 1"] * 3 + ["message 2"]
    assert [e["messages"][0]["content"] for e in journal.entries()] == ["message 1", "message 2"]
    assert writer.failed_batches == 2 and writer.sent_batches == 0
