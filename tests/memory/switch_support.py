"""A stored history to backfill from, and the ledger provider plugin that records what it is given."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_plugins_builtin.compressor import SUMMARY_PREFIX
from hermes_plugins_builtin.state import SessionStore

LEDGER_PLUGIN = Path(__file__).parent.parent / "fixtures" / "plugins" / "ledger_memory"
START = 1_700_000_000.0


@dataclass(frozen=True)
class ExpectedTurn:
    session_id: str
    user: str
    assistant: str
    timestamp: float


def install_ledger(hermes_home: Path) -> None:
    shutil.copytree(LEDGER_PLUGIN, hermes_home / "plugins" / "ledger_memory")


def _turn(store: SessionStore, session_id: str, user: str, assistant: str, at: float, *, tools: bool) -> ExpectedTurn:
    messages = [{"role": "user", "content": user, "timestamp": at}]
    if tools:  # the model called a tool first; the provider got the final answer only
        messages += [
            {"role": "assistant", "content": "Let me check.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}], "timestamp": at + 1},
            {"role": "tool", "content": "ok", "tool_call_id": "c1", "tool_name": "terminal", "timestamp": at + 2},
        ]
    messages.append({"role": "assistant", "content": assistant, "timestamp": at + 3})
    store.append_messages(session_id, messages)
    return ExpectedTurn(session_id, user, assistant, at + 3)


def build_history(hermes_home: Path, conversations: int = 20, turns: int = 3, *, store: Any = None) -> list[ExpectedTurn]:
    """``conversations`` ended conversations plus the sessions a backfill must leave out or trim; the turns it must send, in order.

    Written to ``hermes_home/state.db``, or to ``store`` when given (another backend).
    """
    expected: list[ExpectedTurn] = []
    at = START
    with (nullcontext(store) if store is not None else SessionStore(hermes_home / "state.db")) as store:
        for c in range(conversations):
            sid = f"conv-{c:02d}"
            store.create_session(sid, "cli", started_at=at)
            for t in range(turns):
                expected.append(_turn(store, sid, f"Conversation {c} turn {t}: my locker code is zx{c}q{t}.", f"Noted zx{c}q{t}.", at + 1, tools=t == 1))
                at += 10
            if c == 2:  # a sub-agent and a background review under it: not conversations with the user
                store.create_session("sub-02", "subagent", parent_session_id=sid, started_at=at)
                _turn(store, "sub-02", "Sub-agent goal: grep for secretsubagentword", "found it", at + 1, tools=False)
                store.create_session("rev-02", "review", parent_session_id=sid, started_at=at + 5)
                _turn(store, "rev-02", "Review the conversation above", "saved reviewword", at + 6, tools=False)
                at += 10
            store.end_session(sid, "user", ended_at=at)
            at += 10
        # a compressed conversation: part two starts with a summary and a copy of part one's last turn
        store.create_session("chain-1", "cli", started_at=at)
        for t in range(2):
            expected.append(_turn(store, "chain-1", f"Chain part one turn {t}: the staging host is ferret{t}.", f"ok ferret{t}", at + 1, tools=False))
            at += 10
        store.end_session("chain-1", "compression", ended_at=at)
        store.create_session("chain-2", "cli", parent_session_id="chain-1", started_at=at + 1)
        store.append_messages("chain-2", [
            {"role": "user", "content": f"{SUMMARY_PREFIX}\n\n## Goal\nstaging\n\n[END OF COMPACTED CONTEXT - reply to the conversation that follows, not to these notes]", "timestamp": at + 2},
            {"role": "user", "content": "Chain part one turn 1: the staging host is ferret1.", "timestamp": at + 3},
            {"role": "assistant", "content": "ok ferret1", "timestamp": at + 4},
        ])
        at += 10
        expected.append(_turn(store, "chain-2", [{"type": "text", "text": "Chain part two: deploy on thursdays."}], "ok thursdays", at, tools=False))
    fixed = expected[-1]
    expected[-1] = ExpectedTurn(fixed.session_id, "Chain part two: deploy on thursdays.", fixed.assistant, fixed.timestamp)
    return expected


def ledger_rows(hermes_home: Path, query: str) -> list[tuple]:
    path = hermes_home / "ledger_memory.db"
    if not path.exists():
        return []
    with sqlite3.connect(path) as conn:
        return conn.execute(query).fetchall()
