"""Adapter exposing SessionStore through the shared benchmark's StoreAdapter methods."""
from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any, Dict, List

_REPO = Path(__file__).resolve().parent.parent
if str(_REPO) not in sys.path:  # spawned benchmark workers import this module by name
    sys.path.insert(0, str(_REPO))

from hermes_plugins_builtin.state import SessionStore  # noqa: E402


class SessionStoreAdapter:
    """Same eight methods as bench_sessionstore.StoreAdapter (duck-typed, no import needed)."""

    name = "hermes_session_store"

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.store: SessionStore | None = None

    def open(self, path: str) -> None:
        # synchronous: "normal" (the store's default) or "full", as the runner asks
        # HERMES_BENCH_INDEXER_THREAD=1: an indexer thread per store (background_index=True) instead of
        # the default, the append that leaves a batch waiting indexing it after its commit
        thread = os.environ.get("HERMES_BENCH_INDEXER_THREAD") == "1"
        self.store = SessionStore(path, durable=str(self.kwargs.get("synchronous", "normal")).lower() == "full",
                                  background_index=thread)

    def close(self) -> None:
        assert self.store is not None
        self.store.close()

    def create_session(self, session_id: str, source: str, model: str) -> None:
        assert self.store is not None
        self.store.create_session(session_id, source, model=model)

    def append_message(self, session_id: str, msg: Dict[str, Any]) -> None:
        assert self.store is not None
        self.store.append_message(session_id, msg["role"], msg.get("content"),
                                  tool_calls=msg.get("tool_calls"), tool_name=msg.get("tool_name"),
                                  tool_call_id=msg.get("tool_call_id"), finish_reason=msg.get("finish_reason"))

    def settle(self) -> None:
        """Wait until the indexer thread has caught up (fewer than a batch of rows waiting):
        the benchmark counts that time as part of the appends, so both stores do equal work."""
        assert self.store is not None
        self.store.wait_for_index()

    def flush_stats(self) -> tuple[int, float]:
        """(flushes, seconds spent in them) of a durable store: its own wait for the disk."""
        assert self.store is not None
        flush = self.store._conn.commit_sync
        return (flush.flushes, flush.seconds) if flush is not None else (0, 0.0)

    def index_status(self) -> Dict[str, Any]:
        """Rows waiting for the indexes, and the indexer thread's passes, rows and CPU seconds."""
        assert self.store is not None
        return self.store.index_status()

    def search(self, query: str, limit: int = 20) -> List[Dict[str, Any]]:
        assert self.store is not None
        return [dataclasses.asdict(hit) for hit in self.store.search(query, limit=limit)]

    def append_turn(self, session_id: str, messages: List[Dict[str, Any]]) -> None:
        """Several messages in one transaction (what the runtime does once per turn)."""
        assert self.store is not None
        self.store.append_messages(session_id, [{k: m.get(k) for k in ("role", "content", "tool_calls", "tool_name",
                                                                        "tool_call_id", "finish_reason")}
                                                for m in messages])

    def get_messages(self, session_id: str) -> List[Dict[str, Any]]:
        assert self.store is not None
        return self.store.get_messages(session_id)

    def count_messages(self) -> int:
        assert self.store is not None
        return self.store.message_count()

    def files(self, path: str) -> List[str]:
        return [path, path + "-wal", path + "-shm"]

    def info(self) -> Dict[str, Any]:
        info: Dict[str, Any] = {"adapter": self.name, "pid": os.getpid()}
        store = self.store
        if store is not None:
            info["schema_version"] = store.schema_version
            info["rank_window"] = store.rank_window
            conn = store._conn  # diagnostic only, never timed
            for pragma in ("journal_mode", "synchronous", "page_size", "cache_size", "busy_timeout",
                           "mmap_size", "secure_delete", "wal_autocheckpoint"):
                info["pragma_" + pragma] = conn.execute(f"PRAGMA {pragma}").fetchone()[0]
        return info
