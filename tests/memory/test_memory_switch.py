"""`hermes memory switch`: checks, memory.provider, and a backfill that survives SIGKILL without repeats."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from switch_support import build_history, install_ledger, ledger_rows  # noqa: E402


@pytest.fixture
def history(hermes_home):
    install_ledger(hermes_home)
    return build_history(hermes_home)


def _provider_setting(hermes_home: Path) -> str:
    path = hermes_home / "config.yaml"
    data = yaml.safe_load(path.read_text()) if path.exists() else {}
    return ((data or {}).get("memory") or {}).get("provider", "")


def _checkpoints(hermes_home: Path) -> list[tuple]:
    with sqlite3.connect(hermes_home / "state.db") as conn:
        return conn.execute("SELECT provider, item FROM memory_backfill_done ORDER BY item").fetchall()


def _stored_turns(hermes_home: Path) -> list[tuple[str, str, str, float]]:
    return ledger_rows(hermes_home, "SELECT session_id, user, assistant, timestamp FROM turns ORDER BY rowid")


def test_backfill_sends_entries_and_every_conversation_turn_once_oldest_first(history, run_hermes, hermes_home):
    assert run_hermes("memory", "add", "The user deploys with make release.").exit_code == 0
    assert run_hermes("memory", "add", "Name: Dana; prefers short answers.", "--target", "user").exit_code == 0
    result = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes", "--json")
    assert result.exit_code == 0, result.stderr
    summary = result.json()
    assert summary["provider"] == "ledger" and summary["memory.provider"] == "ledger-memory" and summary["changed"] is True
    assert summary["backfill"]["turns_sent"] == len(history) == 63 and summary["backfill"]["entries_sent"] == 2
    assert _provider_setting(hermes_home) == "ledger-memory"
    # oldest first, with the ids and completion times the provider would have seen live;
    # sub-agent and review sessions, the compression summary and the copied turn are left out
    assert _stored_turns(hermes_home) == [(t.session_id, t.user, t.assistant, t.timestamp) for t in history]
    assert {r[0] for r in ledger_rows(hermes_home, "SELECT user FROM turns")}.isdisjoint({"Sub-agent goal: grep for secretsubagentword", "Review the conversation above"})
    # messages= carried the history up to each turn (4 messages for a turn that used a tool)
    assert ledger_rows(hermes_home, "SELECT history FROM turns WHERE session_id = 'conv-00' ORDER BY rowid") == [(2,), (6,), (8,)]
    entries = ledger_rows(hermes_home, "SELECT action, target, content, origin FROM entries ORDER BY content")
    assert entries == [("add", "user", "Name: Dana; prefers short answers.", "backfill"), ("add", "memory", "The user deploys with make release.", "backfill")]
    # sessions that ended for real were closed; the compressed part was not
    ends = [r[0] for r in ledger_rows(hermes_home, "SELECT session_id FROM session_ends")]
    assert ends == [f"conv-{c:02d}" for c in range(20)]


def test_the_same_command_again_sends_nothing(history, run_hermes, hermes_home):
    assert run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes").exit_code == 0
    before = _stored_turns(hermes_home)
    again = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes", "--json")
    assert again.exit_code == 0
    assert again.json()["backfill"]["turns_sent"] == 0 and again.json()["backfill"]["already_done"] == len(before) + 20
    assert _stored_turns(hermes_home) == before
    assert again.json()["changed"] is False


def test_again_sends_everything_once_more_after_the_storage_was_replaced(history, run_hermes, hermes_home):
    assert run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes").exit_code == 0
    (hermes_home / "ledger_memory.db").unlink()  # the backend was emptied
    assert run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes", "--json").json()["backfill"]["turns_sent"] == 0
    again = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--again", "--yes", "--json")
    assert again.exit_code == 0 and again.json()["backfill"]["turns_sent"] == len(history)
    assert [u for _, u, _, _ in _stored_turns(hermes_home)] == [t.user for t in history]
    assert "--again goes with --backfill" in run_hermes("memory", "switch", "ledger-memory", "--again").stderr


def test_dry_run_writes_nothing(history, run_hermes, hermes_home):
    run_hermes("memory", "add", "The user deploys with make release.")
    config_before = (hermes_home / "config.yaml").read_bytes() if (hermes_home / "config.yaml").exists() else b""
    result = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    plan = result.json()["backfill"]
    assert (plan["turns_to_send"], plan["entries_to_send"], plan["sessions"]) == (len(history), 1, 22)
    assert not (hermes_home / "ledger_memory.db").exists()
    assert ((hermes_home / "config.yaml").read_bytes() if (hermes_home / "config.yaml").exists() else b"") == config_before
    assert _checkpoints(hermes_home) == []
    text = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--dry-run")
    assert "would send 1 of 1 built-in memory entries and 63 of 63 turns" in text.stdout and "nothing was changed" in text.stdout


def test_sessions_and_since_choose_the_conversations(history, run_hermes, hermes_home):
    last = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--sessions", "2", "--dry-run", "--json").json()["backfill"]
    assert (last["sessions"], last["turns"]) == (2, 3)  # the two parts of the compressed conversation
    since = history[31].timestamp - 3  # the user message of turn 31: the second turn of conv-10
    from datetime import datetime

    stamp = datetime.fromtimestamp(since).isoformat()
    result = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--since", stamp, "--yes", "--json")
    assert result.json()["backfill"]["turns_sent"] == len(history) - 31
    assert [r[1] for r in _stored_turns(hermes_home)] == [t.user for t in history[31:]]
    bad = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--since", "last tuesday")
    assert bad.exit_code == 1 and "--since 'last tuesday' is not a date" in bad.stderr


def test_an_unknown_or_unavailable_provider_changes_nothing(history, run_hermes, hermes_home, monkeypatch):
    unknown = run_hermes("memory", "switch", "nosuch", "--backfill", "--yes")
    assert unknown.exit_code == 1 and "no memory provider named 'nosuch'" in unknown.stderr and "Traceback" not in unknown.stderr
    monkeypatch.setenv("LEDGER_UNAVAILABLE", "1")
    unavailable = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes")
    assert unavailable.exit_code == 1
    assert "not available: LEDGER_UNAVAILABLE is set" in unavailable.stderr and "hermes memory setup ledger-memory" in unavailable.stderr
    assert _provider_setting(hermes_home) == "" and not (hermes_home / "ledger_memory.db").exists()


def test_backfill_without_a_terminal_needs_yes(history, run_hermes, hermes_home):
    result = run_hermes("memory", "switch", "ledger-memory", "--backfill")
    assert result.exit_code == 1 and "add --yes" in result.stderr
    assert _provider_setting(hermes_home) == ""


def test_switch_without_backfill_and_back_to_builtin(history, run_hermes, hermes_home):
    result = run_hermes("memory", "switch", "ledger")  # the provider's own name is accepted too
    assert result.exit_code == 0 and "set memory.provider = ledger-memory" in result.stdout and "--backfill" in result.stdout
    assert _provider_setting(hermes_home) == "ledger-memory" and not (hermes_home / "ledger_memory.db").exists()
    assert run_hermes("memory", "switch", "builtin").exit_code == 0
    assert _provider_setting(hermes_home) == ""
    refused = run_hermes("memory", "switch", "builtin", "--backfill")
    assert refused.exit_code == 1 and "always on" in refused.stderr


def test_a_failing_provider_stops_after_bounded_retries_and_the_rerun_resumes(history, run_hermes, hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text(yaml.safe_dump({"memory": {"backfill_retries": 2, "backfill_retry_delay": 0}}))
    monkeypatch.setenv("LEDGER_FAIL_AT", "11")
    failed = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes")
    assert failed.exit_code == 1
    assert "ConnectionError: ledger backend is down (gave up after 3 attempts)" in failed.stderr
    assert "10 of 63 turns and 0 of 0 memory entries are stored and checkpointed" in failed.stderr and "hermes memory switch ledger-memory --backfill --yes" in failed.stderr
    assert len(_stored_turns(hermes_home)) == 10
    monkeypatch.delenv("LEDGER_FAIL_AT")
    resumed = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes", "--json")
    assert resumed.exit_code == 0 and resumed.json()["backfill"]["turns_sent"] == len(history) - 10
    assert [r[1] for r in _stored_turns(hermes_home)] == [t.user for t in history]


@pytest.mark.parametrize("when", ["before", "after"])
def test_sigkill_half_way_then_the_same_command_finishes_with_every_turn_once(history, hermes_home, when):
    """A real process killed with SIGKILL inside the provider's write (before or after it stored the turn)."""
    command = [sys.executable, "-m", "hermes_core", "memory", "switch", "ledger-memory", "--backfill", "--yes", "--json"]
    env = dict(os.environ, HERMES_HOME=str(hermes_home), LEDGER_KILL_AT="30", LEDGER_KILL_WHEN=when)
    killed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(_stored_turns(hermes_home)) == (29 if when == "before" else 30)
    env.pop("LEDGER_KILL_AT")
    finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    report = json.loads(finished.stdout)["backfill"]
    assert report["turns_sent"] == len(history) - 29  # the interrupted turn is sent again, with its source
    (resent,) = report["resent_after_interruption"]
    # every turn stored exactly once, in order
    assert [(s, u) for s, u, _, _ in _stored_turns(hermes_home)] == [(t.session_id, t.user) for t in history]
    deliveries = Counter(r[0] for r in ledger_rows(hermes_home, "SELECT source FROM deliveries"))
    assert len(deliveries) == len(history)
    # only the turn in the provider's hands at the kill arrives twice, and only if it was stored before the kill;
    # it carries the same source both times, which is how the provider kept one copy
    repeated = {source: n for source, n in deliveries.items() if n != 1}
    message_id = resent.removeprefix("turn:")
    assert repeated == ({} if when == "before" else {next(s for s in deliveries if s.endswith(f":message:{message_id}")): 2})


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_keeps_the_checkpoint_and_says_how_to_resume(history, hermes_home):
    command = [sys.executable, "-m", "hermes_core", "memory", "switch", "ledger-memory", "--backfill", "--yes"]
    env = dict(os.environ, HERMES_HOME=str(hermes_home), LEDGER_KILL_AT="12", LEDGER_KILL_WHEN="after", LEDGER_KILL_SIGNAL="INT")
    # the child starts with Ctrl-C as a terminal delivers it, whatever the test runner's process did to SIGINT
    interrupted = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, preexec_fn=_default_sigint)
    assert interrupted.returncode == 130, interrupted.stderr
    assert "backfill interrupted; 11 of 63 turns and 0 of 0 memory entries are stored and checkpointed" in interrupted.stderr
    assert "run 'hermes memory switch ledger-memory --backfill --yes' to resume" in interrupted.stderr and "Traceback" not in interrupted.stderr
    env.pop("LEDGER_KILL_AT")
    finished = subprocess.run(command + ["--json"], env=env, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["backfill"]["turns_sent"] == len(history) - 11
    assert [u for _, u, _, _ in _stored_turns(hermes_home)] == [t.user for t in history]
    # without a terminal, progress is plain lines on stderr ending with the total
    remaining = len(history) - 11 + 17  # the turns left and the 17 conversations not closed yet
    assert f"backfilling ledger: {remaining}/{remaining} items, done in" in finished.stderr
    assert "items/s" in finished.stderr  # plain lines carry the rate


def test_a_provider_failing_to_start_is_reported_and_nothing_is_recorded(history, run_hermes, hermes_home):
    (hermes_home / "ledger_memory.db").mkdir()  # the provider's file cannot be opened
    result = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes")
    assert result.exit_code == 1 and "stopped at initialize (before anything was sent)" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert _checkpoints(hermes_home) == []


def test_a_second_backfill_into_the_same_provider_is_refused_while_one_runs(history, run_hermes, hermes_home):
    from filelock import FileLock

    running = FileLock(hermes_home / ".memory-backfill-ledger.lock")
    with running:  # what a running backfill holds
        refused = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes")
        assert refused.exit_code == 1 and "another backfill into ledger is running" in refused.stderr
        assert _provider_setting(hermes_home) == "" and not (hermes_home / "ledger_memory.db").exists()
        assert run_hermes("memory", "switch", "ledger-memory", "--backfill", "--dry-run").exit_code == 0  # reading needs no lock
    assert run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes").exit_code == 0
