"""The write queue on its own: when each writeFrequency sends, retries, chunking, and the journal of what a
session end or a failure leaves unsent (journalled, never dropped, sent again later)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from hermes_bundled_plugins.memory.honcho.client import HonchoCallError
from hermes_bundled_plugins.memory.honcho.writer import CONTINUED, FailureJournal, MessageWriter, PendingMessage, chunk_message, iso_time


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
    assert entry["cause"] == ("the session ended before Honcho accepted these messages (server slow or unreachable); "
                              "the first 1 were being sent and may arrive twice")
    release.set()


def test_turns_queued_behind_other_work_at_close_are_journalled_as_not_sent(tmp_path: Path) -> None:
    release = threading.Event()
    journal = FailureJournal(tmp_path / "failed.jsonl")
    sent, send = recorder()
    writer = MessageWriter(send, mode="async", journal=journal, retry_delays=())
    writer.submit(lambda: release.wait(30))  # background work (a journal replay) still running at close
    writer.add_turn(turn(1))
    assert writer.close(timeout=0) is False
    (entry,) = journal.entries()
    assert entry["cause"] == "the session ended before Honcho accepted these messages (server slow or unreachable)"
    assert [m["content"] for m in entry["messages"]] == ["user 1", "assistant 1"]
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


def recorder(fail: list[HonchoCallError] | None = None) -> tuple[list[list[str]], object]:
    """``send`` that records each request's contents; raises the queued errors first, one per call."""
    requests: list[list[str]] = []
    errors = list(fail or [])

    def send(messages: list[PendingMessage]) -> None:
        requests.append([m.content for m in messages])
        if errors:
            raise errors.pop(0)

    return requests, send


def turn(n: int) -> list[PendingMessage]:
    return [PendingMessage("s", "eri", f"user {n}"), PendingMessage("s", "hermes", f"assistant {n}")]


def test_each_write_frequency_sends_when_it_says(tmp_path: Path) -> None:
    journal = FailureJournal(tmp_path / "failed.jsonl")
    sent, send = recorder()
    per_turn = MessageWriter(send, mode="turn", journal=journal, retry_delays=())
    per_turn.add_turn([])  # nothing to send: no request
    per_turn.add_turn(turn(1))
    assert sent == [["user 1", "assistant 1"]]

    sent, send = recorder()
    every_two = MessageWriter(send, mode=2, journal=journal, retry_delays=())
    every_two.add_turn(turn(1))
    assert sent == []
    every_two.add_turn(turn(2))
    assert sent == [["user 1", "assistant 1", "user 2", "assistant 2"]]  # one request for both turns
    every_two.add_turn(turn(3))
    every_two.add_turn([])  # not a turn: does not count towards the next batch
    assert sent == [["user 1", "assistant 1", "user 2", "assistant 2"]]
    assert every_two.drain() is True  # the session ends with one turn kept
    assert sent[1:] == [["user 3", "assistant 3"]]

    sent, send = recorder()
    per_session = MessageWriter(send, mode="session", journal=journal, retry_delays=())
    for n in (1, 2, 3):
        per_session.add_turn(turn(n))
    assert sent == []
    assert per_session.close() is True
    assert sent == [[f"{who} {n}" for n in (1, 2, 3) for who in ("user", "assistant")]]
    per_session.flush_buffer()  # nothing left: no empty request
    assert len(sent) == 1 and per_session.sent_batches == 1 and journal.entries() == []


def test_async_writes_go_in_order_in_the_background_and_close_waits_for_them(tmp_path: Path) -> None:
    journal = FailureJournal(tmp_path / "failed.jsonl")
    sent, send = recorder()
    writer = MessageWriter(send, mode="async", journal=journal, retry_delays=())
    for n in range(1, 6):
        writer.add_turn(turn(n))
    # the background sender (alive until close) never keeps the process alive at exit: close journals what it has not sent
    (sender,) = [t for t in threading.enumerate() if t.name == "honcho-writer" and t is writer._thread]
    assert sender.daemon
    ran: list[str] = []
    writer.submit(lambda: ran.append("after the five turns" if len(sent) == 5 else "too early"))
    assert writer.close(timeout=30) is True
    assert sent == [[f"user {n}", f"assistant {n}"] for n in range(1, 6)] and ran == ["after the five turns"]
    assert journal.entries() == [] and writer.sent_batches == 5 and writer.failed_batches == 0


def test_a_retry_after_a_timeout_is_checked_against_what_landed_and_a_retry_that_succeeds_loses_nothing(tmp_path: Path) -> None:
    journal = FailureJournal(tmp_path / "failed.jsonl")
    marks: list[list[bool]] = []
    failures = [HonchoCallError("did not answer within 8 s", retryable=True)]

    def send(messages: list[PendingMessage]) -> None:
        marks.append([m.may_be_stored for m in messages])
        if failures:
            raise failures.pop(0)

    writer = MessageWriter(send, mode="turn", journal=journal, retry_delays=(0.0, 0.0))
    writer.add_turn(turn(1))
    # the first attempt is plain; the retry is marked: the server may have stored the batch before it timed out
    assert marks == [[False, False], [True, True]]
    assert writer.sent_batches == 1 and writer.failed_batches == 0 and journal.entries() == []


def test_a_write_failing_every_retry_is_journalled_with_its_cause_and_logged(tmp_path: Path, caplog) -> None:
    import logging

    journal = FailureJournal(tmp_path / "honcho" / "failed.jsonl")
    sent, send = recorder([HonchoCallError(f"HTTP 503 try {i}", retryable=True) for i in range(10)])
    writer = MessageWriter(send, mode="turn", journal=journal, retry_delays=(0.0, 0.0, 0.0))
    with caplog.at_level(logging.WARNING, logger="hermes.plugins.honcho"):
        writer.add_turn(turn(1))
    assert len(sent) == 4  # one attempt and three retries, then it stops
    (entry,) = journal.entries()
    assert entry["cause"] == "HTTP 503 try 3" and [m["content"] for m in entry["messages"]] == ["user 1", "assistant 1"]
    assert all(m["may_be_stored"] for m in entry["messages"])
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "hermes.plugins.honcho"]
    assert warning == (f"honcho: 2 message(s) could not be saved: HTTP 503 try 3; they are kept in {journal.path} and sent again "
                       "when the next session starts ('hermes memory status' shows them)")
    assert oct(journal.path.stat().st_mode & 0o777) == "0o600"  # it holds the conversation
    assert writer.failed_batches == 1 and writer.sent_batches == 0


@pytest.mark.parametrize("limit", [20, 25, 40, 100])
def test_long_messages_are_cut_at_spaces_into_marked_pieces_within_the_limit(limit: int) -> None:
    text = " ".join(f"word{i}" for i in range(60))
    pieces = chunk_message(text, limit)
    assert all(len(p) <= limit for p in pieces)
    assert not pieces[0].startswith(CONTINUED) and all(p.startswith(CONTINUED) for p in pieces[1:])
    assert " ".join(p.removeprefix(CONTINUED) for p in pieces) == text  # cut between words: nothing lost
    assert all(not p.removeprefix(CONTINUED).startswith(" ") and not p.endswith(" ") for p in pieces)


def test_a_message_at_the_limit_is_one_piece_and_a_word_longer_than_the_limit_is_cut_hard() -> None:
    assert chunk_message("x" * 30, 30) == ["x" * 30]
    assert chunk_message("", 30) == [""]
    pieces = chunk_message("y" * 50, 30)
    assert pieces == ["y" * 30, CONTINUED + "y" * 18, CONTINUED + "y" * 2]
    assert chunk_message("aaaa " + "b" * 40, 30) == ["aaaa " + "b" * 25, CONTINUED + "b" * 15]  # no space in the second half
    assert chunk_message("a" * 11 + " " + "b" * 29, 30) == ["a" * 11 + " " + "b" * 18, CONTINUED + "b" * 11]  # nor here


def test_each_piece_is_filled_up_to_the_last_space_that_fits() -> None:
    assert chunk_message("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda", 30) == [
        "alpha beta gamma delta epsilon", CONTINUED + "zeta eta theta", CONTINUED + "iota kappa lambda"]
    assert chunk_message("x" * 20 + " abcde fg", 20) == ["x" * 20, CONTINUED + "abcde fg"]  # the rest fits exactly: not cut again
    assert chunk_message("x" * 14 + "  " + "y" * 18, 30) == ["x" * 14, CONTINUED + "y" * 18]  # no blank left at a cut


def test_message_times_are_iso_utc_or_unknown() -> None:
    assert iso_time(0) == "1970-01-01T00:00:00+00:00"
    assert iso_time(86400.5) == "1970-01-02T00:00:00.500000+00:00"
    assert iso_time("2026-01-02T03:04:05Z") == "2026-01-02T03:04:05+00:00"
    assert iso_time("2026-01-02T03:04:05+02:00") == "2026-01-02T03:04:05+02:00"
    assert [iso_time(v) for v in (None, "", True, False, "yesterday")] == [None] * 5


def test_the_journal_keeps_what_it_cannot_send_and_forgets_what_it_sent(tmp_path: Path) -> None:
    journal = FailureJournal(tmp_path / "home" / "honcho" / "failed.jsonl")  # a home not made yet
    assert journal.entries() == [] and journal.replay(lambda m: None) == 0 and not journal.path.exists()
    journal.record(turn(1), "unreachable")
    journal.record(turn(2), "HTTP 503")
    journal.record(turn(3), "HTTP 503")
    with journal.path.open("a") as handle:  # a line cut by a crash, and lines of another shape
        handle.write('{"at": "x", "messages": [')
        handle.write("\n[1, 2]\n{\"at\": \"x\"}\n")
    assert [e["cause"] for e in journal.entries()] == ["unreachable", "HTTP 503", "HTTP 503"]
    damaged = journal.path.read_text().splitlines(keepends=True)
    journal.path.write_text(damaged[0] + '{"at": "x", "mess\n' + "".join(damaged[1:]))  # a damaged line between good ones
    assert [e["cause"] for e in journal.entries()] == ["unreachable", "HTTP 503", "HTTP 503"]
    assert journal.entries()[0]["at"].endswith("+00:00")

    seen: list[tuple[str, bool]] = []

    def send(messages: list[PendingMessage]) -> None:
        seen.extend((m.content, m.may_be_stored) for m in messages)
        if messages[0].content == "user 2":
            raise HonchoCallError("still down", retryable=True)

    assert journal.replay(send) == 2
    assert seen == [(f"{who} {n}", True) for n in (1, 2, 3) for who in ("user", "assistant")]  # each checked before resending
    (kept,) = journal.entries()
    assert kept["cause"] == "still down" and [m["content"] for m in kept["messages"]] == ["user 2", "assistant 2"]
    assert oct(journal.path.stat().st_mode & 0o777) == "0o600"
    assert journal.replay(lambda m: None) == 1
    assert not journal.path.exists()


def test_every_write_still_failing_stays_in_the_journal(tmp_path: Path) -> None:
    journal = FailureJournal(tmp_path / "failed.jsonl")
    for n in (1, 2, 3):
        journal.record(turn(n), "unreachable")

    def down(messages: list[PendingMessage]) -> None:
        raise HonchoCallError("still unreachable", retryable=True)

    assert journal.replay(down) == 0
    assert [(e["cause"], e["messages"][0]["content"]) for e in journal.entries()] == [("still unreachable", f"user {n}") for n in (1, 2, 3)]


def test_a_journal_entry_of_a_newer_version_is_kept_for_it(tmp_path: Path) -> None:
    journal = FailureJournal(tmp_path / "failed.jsonl")
    journal.path.write_text(json.dumps({"at": "x", "cause": "c", "messages": [{"session": "s", "peer": "p", "content": "c", "priority": 1}]}) + "\n")
    journal.record(turn(1), "unreachable")
    sent, send = recorder()
    assert journal.replay(send) == 1
    assert sent == [["user 1", "assistant 1"]]
    (kept,) = journal.entries()
    assert kept["messages"][0]["priority"] == 1 and kept["cause"] == "c"


def test_close_after_everything_was_sent_journals_nothing(tmp_path: Path) -> None:
    journal = FailureJournal(tmp_path / "failed.jsonl")
    sent, send = recorder()
    writer = MessageWriter(send, mode="turn", journal=journal)
    assert writer.retry_delays == (0.25, 1.0)  # the default back-off: two retries
    writer.add_turn(turn(1))
    assert writer.close(timeout=0) is True and writer.drain(0) is True
    assert not journal.path.exists()


def test_an_entry_recorded_after_a_line_cut_by_a_crash_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "failed.jsonl"
    journal = FailureJournal(path)
    journal.record(turn(1), "server down")
    whole = path.read_bytes()
    path.write_bytes(whole + whole[: len(whole) // 2])  # the process died half-way through a second entry
    journal.record(turn(2), "server down again")
    assert [[m["content"] for m in e["messages"]] for e in journal.entries()] == [["user 1", "assistant 1"], ["user 2", "assistant 2"]]
    assert path.read_bytes().endswith(b"\n")


def test_entries_after_whole_lines_follow_them_without_a_blank_line(tmp_path: Path) -> None:
    path = tmp_path / "failed.jsonl"
    journal = FailureJournal(path)
    journal.record(turn(1), "server down")
    first = path.read_bytes()
    journal.record(turn(2), "server down again")
    lines = path.read_bytes().splitlines(keepends=True)
    assert lines[0] == first and len(lines) == 2 and b'"user 2"' in lines[1]  # no empty line between


def test_an_entry_after_a_line_cut_to_one_byte_starts_a_line_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "failed.jsonl"
    path.write_bytes(b"{")  # the process died after the first byte of the first entry
    journal = FailureJournal(path)
    journal.record(turn(1), "server down")
    assert path.read_bytes().startswith(b"{\n{")
    assert [[m["content"] for m in e["messages"]] for e in journal.entries()] == [["user 1", "assistant 1"]]


def test_close_waits_ten_seconds_by_default_and_journals_what_a_stuck_server_kept(tmp_path: Path) -> None:
    release = threading.Event()
    bounds: list[float | None] = []

    def wait(done: threading.Event, timeout: float | None) -> bool:
        bounds.append(timeout)  # the bound asked for; the stuck send below never ends within it
        return done.wait(0)

    started = threading.Event()

    def send(messages: list[PendingMessage]) -> None:
        started.set()
        release.wait(30)  # the server does not answer

    journal = FailureJournal(tmp_path / "failed.jsonl")
    writer = MessageWriter(send, mode="async", journal=journal, retry_delays=(), wait=wait)
    writer.add_turn(turn(1))
    assert started.wait(30)
    assert writer.drain() is False and writer.close() is False
    assert bounds == [None, 10.0]  # drain waits without bound unless told; close gives up after 10 s
    assert [m["content"] for m in journal.entries()[0]["messages"]] == ["user 1", "assistant 1"]
    release.set()


def test_a_message_with_a_byte_that_was_not_utf8_is_journalled_and_the_writer_goes_on(tmp_path: Path) -> None:
    typed = "caf\udce9 ☕"  # a latin-1 terminal's é, kept by surrogateescape; UTF-8 cannot hold it
    journal = FailureJournal(tmp_path / "failed.jsonl")
    sent, send = recorder([HonchoCallError("HTTP 400", retryable=False)])
    writer = MessageWriter(send, mode="async", journal=journal, retry_delays=())
    writer.add_turn([PendingMessage("s", "eri", typed)])
    writer.add_turn(turn(2))  # the background thread is still there to send it
    assert writer.close(timeout=30) is True
    assert sent == [[typed], ["user 2", "assistant 2"]]
    (entry,) = journal.entries()
    assert entry["messages"][0]["content"] == typed
    line = journal.path.read_text(encoding="utf-8")
    assert "\\udce9" in line and "☕" in line  # escaped only where UTF-8 cannot hold the text
    failing = [HonchoCallError("HTTP 400 again", retryable=False)]

    def send_again(messages: list[PendingMessage]) -> None:
        raise failing[0]

    assert journal.replay(send_again) == 0  # kept, with its new cause, rewritten the same way
    (kept,) = journal.entries()
    assert kept["messages"][0]["content"] == typed and kept["cause"] == "HTTP 400 again"
