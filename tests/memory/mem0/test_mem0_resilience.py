"""The parts that keep mem0 trouble from losing writes: the circuit breaker, the outbox files, the status file.

The breaker takes its clock as an argument (the provider passes ``time.monotonic``); the tests pass
a clock they move by hand, so a cooldown is crossed without waiting for it.
"""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

import pytest

from mem0_testkit import DIMS, plugin_module


@pytest.fixture
def resilience():
    """The plugin's resilience module (importing it never imports mem0)."""
    from hermes_bundled_plugins.memory.mem0 import resilience

    return resilience


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_opens_at_the_threshold_waits_its_cooldown_and_closes_on_success(resilience):
    clock = Clock()
    breaker = resilience.CircuitBreaker(3, 10.0, clock=clock)
    assert breaker.allows() and breaker.seconds_left() == 0.0
    assert [breaker.failed(), breaker.failed()] == [False, False]
    assert breaker.allows() and breaker.failures == 2 and breaker.seconds_left() == 0.0  # below the threshold
    assert breaker.failed() is True  # the third failure opens it
    assert not breaker.allows() and breaker.seconds_left() == 10.0
    clock.now += 9.5
    assert not breaker.allows() and breaker.seconds_left() == pytest.approx(0.5)
    clock.now += 0.5
    assert breaker.allows() and breaker.seconds_left() == 0.0  # half-open: one call may try
    assert breaker.failed() is True  # that call failed: open again, for a whole cooldown from now
    assert breaker.failures == 4 and not breaker.allows() and breaker.seconds_left() == 10.0
    clock.now += 10.0
    breaker.succeeded()
    assert breaker.failures == 0 and breaker.allows() and breaker.seconds_left() == 0.0
    assert breaker.failed() is False  # counting starts over


def test_a_failure_while_open_extends_the_pause_without_reporting_a_new_opening(resilience):
    clock = Clock()
    breaker = resilience.CircuitBreaker(1, 10.0, clock=clock)
    assert breaker.failed() is True
    clock.now += 4.0
    assert breaker.failed() is False  # still open: no second "paused" warning
    assert breaker.seconds_left() == 10.0


def test_writes_wait_in_order_with_their_cause_and_are_made_in_that_order(resilience, tmp_path: Path):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=3)
    assert outbox.pending() == [] and outbox.failed() == []
    assert outbox.put({"op": "add", "n": 1}, "ConnectionError: refused")
    assert outbox.put({"op": "add", "n": 2, "attempts": 1, "queued_at": 5.0}, "queued behind earlier writes")
    pending = outbox.pending()
    assert [(p["n"], p["attempts"], p["error"]) for p in pending] == [(1, 0, "ConnectionError: refused"), (2, 1, "queued behind earlier writes")]
    assert pending[1]["queued_at"] == 5.0 and pending[0]["queued_at"] > 5.0  # a requeued write keeps its first time
    assert stat.S_IMODE(outbox.pending_path.stat().st_mode) == 0o600  # the writes carry the user's words

    made: list[int] = []
    assert outbox.replay(lambda record: made.append(record["n"]), lambda: True) == (2, "")
    assert made == [1, 2]
    assert not outbox.pending_path.exists() and outbox.pending() == []


def test_replay_stops_at_the_first_failure_and_keeps_the_rest_in_order(resilience, tmp_path: Path):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=3)
    for n in (1, 2, 3):
        outbox.put({"op": "add", "n": n}, "down")
    tried: list[int] = []

    def make(record: dict) -> None:
        tried.append(record["n"])
        if record["n"] == 2:
            raise ConnectionError("refused again")

    assert outbox.replay(make, lambda: True) == (1, "ConnectionError: refused again")
    assert tried == [1, 2]  # 3 is not tried behind a failed 2: the order of writes is kept
    assert [(p["n"], p["attempts"], p["error"]) for p in outbox.pending()] == [(2, 1, "ConnectionError: refused again"), (3, 0, "down")]
    assert outbox.failed() == []


def test_a_write_failing_max_attempts_times_moves_to_failed_and_the_next_one_is_made(resilience, tmp_path: Path, caplog):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=2)
    outbox.put({"op": "add", "n": 1}, "down")
    outbox.put({"op": "add", "n": 2}, "down")
    made: list[int] = []

    def make(record: dict) -> None:
        if record["n"] == 1:
            raise ValueError("rejected")
        made.append(record["n"])

    assert outbox.replay(make, lambda: False) == (0, "")  # the breaker is open: nothing is tried
    assert [p["attempts"] for p in outbox.pending()] == [0, 0]
    assert outbox.replay(make, lambda: True) == (0, "ValueError: rejected")  # first failure: kept
    assert made == [] and [p["n"] for p in outbox.pending()] == [1, 2]
    with caplog.at_level(logging.ERROR, logger="hermes.plugins.memory.mem0"):
        assert outbox.replay(make, lambda: True) == (1, "ValueError: rejected")  # second: given up, 2 goes through
    assert made == [2] and outbox.pending() == []
    failed = outbox.failed()
    assert [(f["n"], f["attempts"], f["error"]) for f in failed] == [(1, 2, "ValueError: rejected")]
    assert [r.getMessage() for r in caplog.records if r.name == "hermes.plugins.memory.mem0"] == [
        f"mem0: giving up on a write after 2 attempts (ValueError: rejected); kept in {outbox.failed_path}"]


def test_a_queued_write_without_a_count_of_attempts_counts_its_first_failure_as_one(resilience, tmp_path: Path):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=3)
    _jsonl(outbox.pending_path, [{"op": "add", "n": 1}])  # written by hand, or by an older version

    def make(record: dict) -> None:
        raise ValueError("rejected")

    assert outbox.replay(make, lambda: True) == (0, "ValueError: rejected")
    assert [(p["attempts"], p["error"]) for p in outbox.pending()] == [(1, "ValueError: rejected")]


def test_queued_and_failed_writes_keep_their_text_readable_for_whoever_moves_the_lines(resilience, tmp_path: Path):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=2)
    outbox.put({"op": "add", "text": "café ☕ 東京"}, "down")

    def make(record: dict) -> None:
        raise ValueError("rejected")

    outbox.replay(make, lambda: True)  # the outbox is rewritten with the count of attempts
    assert "café ☕ 東京" in outbox.pending_path.read_text(encoding="utf-8")
    outbox.replay(make, lambda: True)  # given up: moved to failed.jsonl, which the fix asks people to edit
    assert "café ☕ 東京" in outbox.failed_path.read_text(encoding="utf-8")


def test_damaged_lines_in_the_outbox_are_skipped_and_the_good_ones_kept(resilience, tmp_path: Path, caplog):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=3)
    outbox.directory.mkdir(parents=True)
    outbox.pending_path.write_text('{"op": "add", "n": 1}\n\n{"op": "add", "n"\n[1, 2]\n{"op": "add", "n": 3}\n')
    with caplog.at_level(logging.WARNING, logger="hermes.plugins.memory.mem0"):
        assert [p["n"] for p in outbox.pending()] == [1, 3]
    assert [r.getMessage() for r in caplog.records if r.name == "hermes.plugins.memory.mem0"] == [
        f"{outbox.pending_path} line 3 is not JSON and is skipped"]


def test_a_write_that_cannot_even_be_queued_is_reported_lost(resilience, tmp_path: Path, caplog):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    outbox = resilience.Outbox(blocker / "mem0", max_attempts=3)
    with caplog.at_level(logging.ERROR, logger="hermes.plugins.memory.mem0"):
        assert outbox.put({"op": "add", "messages": [{"content": "the turn's words"}]}, "ConnectionError: refused") is False
    (lost,) = [r.getMessage() for r in caplog.records]
    assert lost.startswith(f"mem0: a write could not be made (ConnectionError: refused) nor queued in {outbox.pending_path} (")
    assert "Not a directory" in lost and lost.endswith('it is lost: {"op": "add", "messages": [{"content": "the turn\'s words"}]}')


def test_the_status_file_keeps_the_last_error_and_the_last_success(resilience, tmp_path: Path):
    status = resilience.StatusFile(tmp_path / "home" / "mem0")  # a home not made yet
    assert status.path == tmp_path / "home" / "mem0" / "state.json"  # where earlier versions left it
    assert status.read() == {}
    status.record_error("write (add)", "ConnectionError: refused")
    status.record_success()
    data = status.read()
    assert data["last_error"]["operation"] == "write (add)" and data["last_error"]["message"] == "ConnectionError: refused"
    assert data["last_error"]["at"].endswith("Z") and data["last_success_at"].endswith("Z")
    assert json.loads(status.path.read_text()) == data
    status.path.write_text("[1, 2]")
    assert status.read() == {}  # not an object: nothing known
    status.path.write_text("{not json")
    assert status.read() == {}
    status.record_success()  # a damaged file is replaced, not a crash
    assert set(status.read()) == {"last_success_at"}


def test_status_times_are_utc_whatever_the_local_zone(resilience, tmp_path: Path, monkeypatch):
    import calendar
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")  # UTC+9, no daylight saving
    time.tzset()
    try:
        status = resilience.StatusFile(tmp_path / "mem0")
        status.record_success()
        status.record_error("search", "Timeout")
    finally:
        monkeypatch.undo()
        time.tzset()
    for stamp in (status.read()["last_success_at"], status.read()["last_error"]["at"]):
        assert abs(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")) - time.time()) < 600


def test_status_bookkeeping_that_cannot_be_written_never_breaks_the_turn(resilience, tmp_path: Path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    status = resilience.StatusFile(blocker / "mem0")
    status.record_error("search", "Timeout")  # no exception
    assert status.read() == {}


def _jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_status_names_waiting_and_given_up_writes_with_their_files_and_the_fix(open_provider, mem0_home):
    provider = open_provider()
    assert provider.flush(30)  # the session's first replay of the outbox is over before the test writes it
    assert provider.problems() == []
    details = provider.status_details()
    assert (details["pending_writes"], details["failed_writes"], details["last_error"]) == (0, 0, None)
    assert "failed_writes_file" not in details
    pending, failed = mem0_home / "mem0" / "pending.jsonl", mem0_home / "mem0" / "failed.jsonl"
    _jsonl(pending, [{"op": "add", "error": "Timeout: first"}, {"op": "add", "error": "ConnectionError: refused"}])
    _jsonl(failed, [{"op": "mirror", "error": "ValueError: old"}, {"op": "add", "error": "ValueError: rejected"}])
    assert provider.problems() == [
        f"2 write(s) wait in {pending} (last error: ConnectionError: refused); they are retried first at the next write "
        "or session -> fix the cause ('hermes memory status' shows the last error)",
        f"2 write(s) to mem0 failed 5 times (last: ValueError: rejected); they are kept in {failed} -> fix the cause, "
        f"then move those lines to {pending} to retry them",
    ]
    details = provider.status_details()
    assert (details["pending_writes"], details["failed_writes"], details["failed_writes_file"]) == (2, 2, str(failed))
    _jsonl(pending, [{"op": "add"}])
    _jsonl(failed, [{"op": "add"}])
    waiting, given_up = provider.problems()
    assert "(last error: ?)" in waiting and "(last: ?)" in given_up


def test_status_shows_the_store_the_models_and_the_last_error(open_provider, server, mem0_home):
    provider = open_provider()
    assert provider.flush(30)
    provider.sync_turn("the deploy is on Friday", "noted")
    assert provider.flush(30)
    details = provider.status_details()
    assert (details["user_id"], details["agent_id"], details["store"]) == (provider.settings.user_id, provider.settings.agent_id, provider.settings.location)
    assert details["mode"] == "local" and details["memories"] >= 1 and details["store_size"].split()[1] in ("KB", "MB")
    assert details["llm"] == f"chat-model @ {server.base_url}" and details["embedder"] == f"hashed-bow (64 dims) @ {server.base_url}"
    status = plugin_module(provider, "resilience").StatusFile(mem0_home / "mem0")
    status.record_error("search", "Timeout: 2 s")
    assert details["last_error"] is None
    at = status.read()["last_error"]["at"]
    assert provider.status_details()["last_error"] == f"{at} search: Timeout: 2 s"
    status.path.write_text(json.dumps({"last_error": {}}))
    assert provider.status_details()["last_error"] == "? ?: "


def test_sizes_are_shown_in_the_largest_unit_below_1024():
    from hermes_bundled_plugins.memory.mem0.status import _human_size as human

    assert [human(n) for n in (0, 1023, 1024, 1536 * 1024, 3 * 1024**3, 5 * 1024**4)] == ["0 B", "1023 B", "1.0 KB", "1.5 MB", "3.0 GB", "5120.0 GB"]


def test_status_says_auto_for_an_embedder_whose_size_is_asked_of_the_endpoint(open_provider, server, mem0_home):
    config = mem0_home / "config.yaml"
    config.write_text(config.read_text().replace(f"      dims: {DIMS}\n", ""))
    provider = open_provider()
    assert provider.settings.embedder.dims == 0
    assert provider.status_details()["embedder"] == f"hashed-bow (auto dims) @ {server.base_url}"


def _mem0_log(caplog) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "hermes.plugins.memory.mem0"]


def test_status_that_cannot_be_written_is_logged_for_debugging_with_the_file_and_the_cause(resilience, tmp_path: Path, caplog):
    # root ignores file modes, so the writes are made to fail by what is in their way
    in_the_way = resilience.StatusFile(tmp_path / "a" / "mem0")
    in_the_way.path.mkdir(parents=True)  # a directory where state.json goes: the rename onto it fails
    under_a_file = tmp_path / "b"
    under_a_file.write_text("")
    blocked = resilience.StatusFile(under_a_file / "mem0")  # its directory cannot be made
    with caplog.at_level(logging.DEBUG, logger="hermes.plugins.memory.mem0"):
        in_the_way.record_error("search", "Timeout")
        blocked.record_success()
    (first, second) = _mem0_log(caplog)
    assert first[0] == "DEBUG" and first[1].startswith(f"mem0: cannot write {in_the_way.path}: [Errno 21] Is a directory: ")
    assert second == ("DEBUG", f"mem0: cannot write {blocked.path}: [Errno 20] Not a directory: '{under_a_file / 'mem0'}'")
    assert in_the_way.path.is_dir() and list(in_the_way.path.parent.iterdir()) == [in_the_way.path]  # no temporary file left


def test_an_outbox_that_cannot_be_rewritten_after_a_replay_is_logged_as_an_error(resilience, tmp_path: Path, caplog):
    some_left = resilience.Outbox(tmp_path / "a", max_attempts=3)
    all_made = resilience.Outbox(tmp_path / "b", max_attempts=3)
    for outbox, numbers in ((some_left, (1, 2)), (all_made, (1,))):
        for n in numbers:
            outbox.put({"op": "add", "n": n}, "down")

    def replacing_the_file_of(outbox):
        def make(record: dict) -> None:
            if record["n"] == 1:
                # something puts a directory where pending.jsonl was: it can be neither replaced nor removed
                outbox.pending_path.unlink()
                outbox.pending_path.mkdir()
                return
            raise ValueError("rejected")
        return make

    with caplog.at_level(logging.DEBUG, logger="hermes.plugins.memory.mem0"):
        assert some_left.replay(replacing_the_file_of(some_left), lambda: True) == (1, "ValueError: rejected")
        assert all_made.replay(replacing_the_file_of(all_made), lambda: True) == (1, "")
    (rewrite, removal) = _mem0_log(caplog)
    assert rewrite[0] == "ERROR" and rewrite[1].startswith(f"mem0: cannot update {some_left.pending_path}: [Errno 21] Is a directory: ")
    assert removal == ("ERROR", f"mem0: cannot update {all_made.pending_path}: [Errno 21] Is a directory: '{all_made.pending_path}'")


def test_a_write_given_up_that_cannot_be_moved_to_failed_stays_first_in_line(resilience, tmp_path: Path, caplog):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=1)
    for n in (1, 2, 3):
        outbox.put({"op": "add", "n": n}, "down")
    outbox.failed_path.mkdir()  # failed.jsonl cannot be read nor written
    made: list[int] = []

    def make(record: dict) -> None:
        if record["n"] == 2:
            raise ValueError("rejected")
        made.append(record["n"])

    with caplog.at_level(logging.DEBUG, logger="hermes.plugins.memory.mem0"):
        assert outbox.replay(make, lambda: True) == (1, "ValueError: rejected")
    assert made == [1]  # 1 is made once: the outbox no longer holds it
    assert [(p["n"], p["attempts"], p.get("error")) for p in outbox.pending()] == [(2, 1, "ValueError: rejected"), (3, 0, "down")]
    ((level, message),) = _mem0_log(caplog)
    assert level == "ERROR" and message.startswith(
        f"mem0: cannot move a write given up after 1 attempts to {outbox.failed_path} ([Errno 21] Is a directory: ")
    assert message.endswith("); it stays queued")
    outbox.failed_path.rmdir()
    assert outbox.replay(make, lambda: True) == (1, "ValueError: rejected")  # moved now, and 3 goes through
    assert made == [1, 3] and outbox.pending() == [] and [f["n"] for f in outbox.failed()] == [2]


def test_text_that_is_not_utf8_is_queued_escaped_and_read_back_as_it_was(resilience, tmp_path: Path):
    outbox = resilience.Outbox(tmp_path / "mem0", max_attempts=3)
    typed = "caf\udce9 from a latin-1 terminal, ☕ kept"  # surrogateescape'd byte 0xe9
    assert outbox.put({"op": "add", "text": typed}, "down") is True
    assert outbox.put({"op": "add", "text": "☕"}, "down") is True
    lines = outbox.pending_path.read_text(encoding="utf-8").splitlines()
    assert "\\udce9" in lines[0] and "\\u2615" in lines[0] and "☕" in lines[1]  # only the line that needs it is escaped
    assert [p["text"] for p in outbox.pending()] == [typed, "☕"]


def test_replaying_an_empty_outbox_writes_and_logs_nothing(resilience, tmp_path: Path, caplog):
    never_used = resilience.Outbox(tmp_path / "mem0", max_attempts=3)
    with caplog.at_level(logging.DEBUG, logger="hermes.plugins.memory.mem0"):
        assert never_used.replay(lambda record: None, lambda: True) == (0, "")
    assert _mem0_log(caplog) == []
    assert [p.name for p in never_used.directory.iterdir()] == ["outbox.lock"]
