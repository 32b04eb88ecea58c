"""Helpers for the session-store tests, including code run in spawned child processes."""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import traceback
from typing import Any, Callable

import pytest

from hermes_plugins_builtin.state import SessionStore


def tool_call(name: str, arguments: str, call_id: str = "call_1") -> dict:
    """One OpenAI-style tool call."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def append_worker(db_path: str, worker: int, n_messages: int, sessions: int, barrier: Any, results: Any,
                  durable: bool = False) -> None:
    """Open its own store, wait for every worker, append, report per-session successes
    (and, durable, how many times the store flushed the WAL)."""
    try:
        store = SessionStore(db_path, durable=durable)
        sids = [store.create_session(f"w{worker}-s{k}", "cli") for k in range(sessions)]
        barrier.wait(timeout=120)
        ok: dict[str, int] = {}
        errors: list[str] = []
        for i in range(n_messages):
            sid = sids[i % sessions]
            text = f"worker {worker} message {i} payload-{worker}-{i} 数据库 部署"
            try:
                if i % 7 == 0:
                    store.append_message(sid, "assistant", None, tool_calls=[{
                        "id": f"c{i}", "type": "function",
                        "function": {"name": "terminal", "arguments": json.dumps({"command": text})}}])
                else:
                    store.append_message(sid, "user" if i % 2 else "assistant", text)
                ok[sid] = ok.get(sid, 0) + 1
            except Exception as exc:  # recorded, the test asserts there are none
                errors.append(f"{type(exc).__name__}: {exc}")
        flush = store._conn.commit_sync
        flushes = flush.flushes if flush is not None else 0
        store.close()
        results.put({"worker": worker, "ok": ok, "errors": errors, "flushes": flushes})
    except Exception:
        results.put({"worker": worker, "ok": {}, "errors": [traceback.format_exc()]})


def run_workers(target: Callable[..., None], workers: int, args: Callable[[int, Any, Any], tuple]) -> list[dict]:
    """Start *workers* spawned processes on *target* (args(w, barrier, results) each), wait for
    every report, check each exited cleanly, and return the reports."""
    spawn = mp.get_context("spawn")
    barrier, results = spawn.Barrier(workers), spawn.Queue()
    procs = [spawn.Process(target=target, args=args(w, barrier, results)) for w in range(workers)]
    for p in procs:
        p.start()
    reports = [results.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return reports


def killed_mid_batch_worker(db_path: str, batch: int, conn_pipe: Any) -> None:
    """Commit one full batch, then start a second and block inside its transaction.

    The parent SIGKILLs this process once it reports that the second batch's
    INSERTs are under way, so the kill lands inside an open write transaction.
    """
    store = SessionStore(db_path)
    sid = store.create_session("victim", "cli")
    messages = [{"role": "user", "content": f"committed row {i} 数据库"} for i in range(batch)]
    store.append_messages(sid, messages)
    inserts = 0

    def on_statement(sql: str) -> None:
        nonlocal inserts
        if sql.startswith("INSERT INTO messages ("):
            inserts += 1
            if inserts == batch // 2:
                conn_pipe.send("inside")
                conn_pipe.recv()  # never answered: the parent kills us here

    store._conn.set_trace_callback(on_statement)
    store.append_messages(sid, [{"role": "user", "content": f"doomed row {i}"} for i in range(batch)])


#: For tests of what only the SQLite file has (the batched index, WAL, file modes, raw SQL):
#: they run on the SQLite backend only instead of once per backend.
sqlite_only = pytest.mark.parametrize("backend", ["sqlite"])


def open_any(target: str) -> Any:
    """A store on *target*: a postgresql:// URL or a state.db path."""
    if target.startswith("postgresql://"):
        from hermes_plugins_builtin.state.postgres import open_postgres_store

        return open_postgres_store(target, pool_size=2)
    return SessionStore(target)


def pg_append_worker(url: str, worker: int, n_messages: int, batch: int, barrier: Any, results: Any) -> None:
    """Append *n_messages* in batches of *batch* to its own session; report what it committed."""
    try:
        store = open_any(url)
        sid = store.create_session(f"pw{worker}", "cli")
        barrier.wait(timeout=120)
        errors: list[str] = []
        for start in range(0, n_messages, batch):
            rows = [{"role": "user", "content": f"worker {worker} message {i} payload-{worker}-{i} 数据库 部署"}
                    for i in range(start, min(start + batch, n_messages))]
            try:
                store.append_messages(sid, rows)
            except Exception as exc:  # recorded, the test asserts there are none
                errors.append(f"{type(exc).__name__}: {exc}")
        store.close()
        results.put({"worker": worker, "session": sid, "errors": errors})
    except Exception:
        results.put({"worker": worker, "session": None, "errors": [traceback.format_exc()]})


def pg_endless_batches_worker(url: str, batch: int, conn_pipe: Any) -> None:
    """Append batches forever, telling the parent after each commit; the parent SIGKILLs it."""
    store = open_any(url)
    sid = store.create_session("victim", "cli")
    n = 0
    while True:
        store.append_messages(sid, [{"role": "user", "content": f"batch {n} row {i} 数据库"} for i in range(batch)])
        n += 1
        conn_pipe.send(n)


def killed_while_indexing_worker(db_path: str, batch: int, conn_pipe: Any) -> None:
    """Append a batch of single messages, each acknowledged, and block the indexer thread inside its work.

    The parent SIGKILLs this process once the batch's rows are going into the word
    index: the kill lands inside the indexer's own write transaction, after every
    append has returned.
    """
    import threading

    store = SessionStore(db_path, background_index=True)
    sid = store.create_session("victim", "cli")

    def on_statement(sql: str) -> None:
        if sql.startswith("INSERT INTO messages_fts(rowid"):
            conn_pipe.send("indexing")
            threading.Event().wait()  # never set: the parent kills us here

    store._conn.set_trace_callback(on_statement)
    for i in range(batch):
        store.append_message(sid, "user", f"acknowledged row {i} 数据库")
    threading.Event().wait()  # the indexer thread is the one that reports


def sigkill_when_it_says(worker: Callable[..., None], args: tuple, signal_word: str) -> None:
    """Run *worker*(*args*, pipe) in a spawned process and SIGKILL it once it sends *signal_word*."""
    parent_end, child_end = mp.get_context("spawn").Pipe()
    proc = mp.get_context("spawn").Process(target=worker, args=(*args, child_end))
    proc.start()
    assert parent_end.poll(120), f"the worker never got to {signal_word!r}"
    assert parent_end.recv() == signal_word
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=60)
    assert proc.exitcode == -signal.SIGKILL
