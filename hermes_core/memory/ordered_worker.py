"""One daemon thread that runs jobs in the order they were submitted, with a flush barrier.

The memory manager's writes (``sync_all``, ``queue_prefetch_all``) go through one of these so a
provider sees them in turn order without ever holding up a turn.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

__all__ = ["OrderedWorker"]


class OrderedWorker:
    """One daemon thread that runs submitted jobs in submission order."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def flush(self, timeout: float | None) -> bool:
        """Wait until every job submitted so far has run; ``False`` on timeout."""
        done = threading.Event()
        self._jobs.put(done.set)
        return done.wait(timeout)

    def stop(self) -> None:
        self._jobs.put(None)

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            job()  # jobs isolate their own errors
