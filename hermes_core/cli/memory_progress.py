"""Progress of long memory commands on stderr: a rich bar with rate and ETA on a terminal, plain lines otherwise.

rich is imported only when a bar is actually shown.
"""

from __future__ import annotations

import sys
import time
from typing import Any

#: Seconds between two plain progress lines.
PLAIN_EVERY = 5.0


class ItemProgress:
    """``progress(done, total)``; a context manager that closes the bar."""

    def __init__(self, label: str, *, enabled: bool = True) -> None:
        self.label = label
        self.enabled = enabled
        self._bar: Any = None
        self._task: Any = None
        self._last_line = 0.0
        self._started = time.monotonic()

    def __enter__(self) -> ItemProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        if sys.stderr.isatty():
            self._rich(done, total)
            return
        now = time.monotonic()
        if done == total or now - self._last_line >= PLAIN_EVERY:
            self._last_line = now
            elapsed = max(now - self._started, 1e-9)
            rate = done / elapsed
            eta = (total - done) / rate if rate > 0 else 0.0
            print(f"{self.label}: {done}/{total} ({rate:.0f}/s, {eta:.0f} s left)", file=sys.stderr, flush=True)

    def _rich(self, done: int, total: int) -> None:
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
                TextColumn("{task.fields[rate]}/s"), TimeRemainingColumn(), console=Console(stderr=True), transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=total, rate="0")
        elapsed = max(time.monotonic() - self._started, 1e-9)
        self._bar.update(self._task, completed=done, total=total, rate=f"{done / elapsed:.0f}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
