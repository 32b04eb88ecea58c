"""What a memory backfill reads from the store and the checkpoints it keeps there, on both backends."""
from __future__ import annotations

import pytest


def _conversation(store, sid, source="cli", *, at, turns=2, parent=None):
    store.create_session(sid, source, started_at=at, parent_session_id=parent)
    for n in range(turns):
        store.append_messages(sid, [{"role": "user", "content": f"{sid} q{n}", "timestamp": at + 10 * n + 1},
                                    {"role": "assistant", "content": f"{sid} a{n}", "timestamp": at + 10 * n + 2}])


def test_replay_reads_conversations_oldest_first_within_the_bound(store):
    _conversation(store, "old", at=100)
    _conversation(store, "sub", "subagent", at=150, parent="old")
    _conversation(store, "new", at=200)
    bound = store.max_message_id()
    _conversation(store, "later", at=300)  # stored after the job started: not part of it
    found = store.replay_sessions(upto_message_id=bound, exclude_sources=("subagent",))
    assert [s["id"] for s in found] == ["old", "new"]
    assert [s["id"] for s in store.replay_sessions(upto_message_id=bound, exclude_sources=("subagent",), last=1)] == ["new"]
    assert [s["id"] for s in store.replay_sessions(upto_message_id=bound, since=205)] == ["new"]
    messages = store.replay_messages("old", upto_message_id=bound)
    assert [(m["role"], m["content"]) for m in messages] == [("user", "old q0"), ("assistant", "old a0"), ("user", "old q1"), ("assistant", "old a1")]
    light = store.replay_messages("old", upto_message_id=bound, full=False)
    assert [(m["id"], m["role"], m["content"], m["timestamp"]) for m in light] == [(m["id"], m["role"], m["content"], m["timestamp"]) for m in messages]
    assert store.replay_messages("later", upto_message_id=bound) == []


def test_the_ledger_keeps_the_bound_one_item_in_flight_and_its_checkpoints_apart_per_provider(store):
    ledger = store.memory_backfill_ledger("mem0")
    assert ledger.job() is None and ledger.done_items() == set()
    assert ledger.start(7).upto_message_id == 7
    assert ledger.start(99).upto_message_id == 7  # resuming covers the same messages
    ledger.confirm([], next_item="turn:1")
    ledger.confirm(["turn:1"], next_item="turn:2")
    job = ledger.job()
    assert (job.in_flight, job.done, job.finished_at) == ("turn:2", 1, None)
    ledger.confirm(["turn:2", "turn:1"], next_item=None)  # a repeat is recorded once
    ledger.record_done(["import:ab"])
    ledger.finish()
    assert ledger.done_items() == {"turn:1", "turn:2", "import:ab"}
    assert ledger.done_items("turn:") == {"turn:1", "turn:2"}
    assert ledger.job().finished_at is not None and ledger.job().in_flight is None
    other = store.memory_backfill_ledger("honcho")
    assert other.job() is None and other.done_items() == set()
    assert ledger.forget(["turn", "entry"]) == 2
    assert ledger.job() is None and ledger.done_items() == {"import:ab"}
    assert ledger.forget() == 1 and ledger.done_items() == set()


def test_a_ledger_needs_a_provider_name(store):
    with pytest.raises(ValueError):
        store.memory_backfill_ledger("")


def test_switch_backfills_from_a_postgresql_store_and_resumes_there(pg_url, hermes_home, run_hermes, monkeypatch):
    import sqlite3
    import sys
    from pathlib import Path

    import yaml

    from hermes_plugins_builtin.state.postgres import open_postgres_store

    sys.path.insert(0, str(Path(__file__).parent.parent / "memory"))
    from switch_support import build_history, install_ledger

    install_ledger(hermes_home)
    (hermes_home / "config.yaml").write_text(yaml.safe_dump({"state": {"backend": "postgres"}, "memory": {"backfill_retry_delay": 0, "backfill_retries": 0}}))
    monkeypatch.setenv("HERMES_STATE_URL", pg_url)
    with open_postgres_store(pg_url) as store:
        history = build_history(hermes_home, conversations=4, store=store)
    monkeypatch.setenv("LEDGER_FAIL_AT", "5")
    failed = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes")
    assert failed.exit_code == 1 and f"4 of {len(history)} turns" in failed.stderr
    monkeypatch.delenv("LEDGER_FAIL_AT")
    done = run_hermes("memory", "switch", "ledger-memory", "--backfill", "--yes", "--json")
    assert done.exit_code == 0, done.stderr
    assert done.json()["backfill"]["turns_sent"] == len(history) - 4
    with sqlite3.connect(hermes_home / "ledger_memory.db") as conn:
        assert [r[0] for r in conn.execute("SELECT user FROM turns ORDER BY rowid")] == [t.user for t in history]
    assert not (hermes_home / "state.db").exists()  # the checkpoints live in PostgreSQL
