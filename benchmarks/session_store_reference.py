"""The reference store (hermes-agent 0.19.0 hermes_state.py) behind the shared adapter, at a chosen durability.

The reference opens its connection with SQLite's default ``synchronous=FULL``; for
the equal-terms comparison at NORMAL the runner asks for ``synchronous="normal"``
and this adapter sets that pragma on the reference's connection right after it
opens (a benchmark setting, not a change to its code). The reference itself is
built by ../shared/bench/setup_reference.sh into the ignored .bench/ref and never
committed.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict, List

def _bench_dir() -> Path:
    """$HERMES_BENCH_DIR, else the nearest shared/bench beside the checkout or one of its parents."""
    if os.environ.get("HERMES_BENCH_DIR"):
        return Path(os.environ["HERMES_BENCH_DIR"])
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "bench" / "bench_sessionstore.py").exists():
            return parent / "shared" / "bench"
    raise SystemExit("the shared benchmark (shared/bench/bench_sessionstore.py) was not found -> set HERMES_BENCH_DIR")


BENCH_DIR = _bench_dir()
if str(BENCH_DIR) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR))

import bench_sessionstore as shared  # noqa: E402


class ReferenceAdapter(shared.HermesRefAdapter):
    """HermesRefAdapter plus ``synchronous`` ("full", its default, or "normal")."""

    name = "hermes_ref"

    def open(self, path: str) -> None:
        super().open(path)
        mode = str(self.kwargs.get("synchronous", "full")).upper()
        if mode not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be full or normal, not {mode!r}")
        self.db._conn.execute(f"PRAGMA synchronous = {mode}")

    def append_turn(self, session_id: str, messages: List[Dict[str, Any]]) -> None:
        """The reference has no batch append: one transaction per message."""
        for message in messages:
            self.append_message(session_id, message)
