"""Progress of long CLI jobs (import, reindex, install, backfill, migrate) on stderr.

At a terminal the bar is drawn by rich, imported only when a job is long enough to show
one. When stderr is not a terminal (a log file, CI, a pipe) a few plain lines are written
instead: one at the start, one per tenth of the work at most, and one at the end, with
no ``\\r`` and no colour.

    with Progress("importing", unit="messages") as progress:
        progress.start(total)
        for chunk in chunks:
            ...
            progress.advance(len(chunk))

``Progress`` is also a ``progress(done, total)`` callable, the form store methods take.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import IO, Any

#: Jobs with less work than this show nothing: they end before a bar would help.
DEFAULT_MINIMUM = 1
#: Plain mode writes at most this many intermediate lines.
PLAIN_STEPS = 10


class Progress:
    """One job's progress: a rich bar at a terminal, a few plain lines otherwise."""

    def __init__(self, label: str, *, unit: str = "items", minimum: int = DEFAULT_MINIMUM, stream: IO[str] | None = None, plain: bool | None = None) -> None:
        self.label = label
        self.unit = unit
        self.minimum = minimum
        self.stream = stream if stream is not None else sys.stderr
        self.plain = plain if plain is not None else not _is_terminal(self.stream)
        self.total = 0
        self.done = 0
        self._active = False
        self._called = False
        self._next_plain_step = 1
        self._started = 0.0
        self._bar: Any = None
        self._task: Any = None

    # -- the two ways of reporting ------------------------------------------------

    def start(self, total: int) -> None:
        """Begin a job of ``total`` units; shows nothing when ``total`` is under the minimum."""
        self.total, self.done = total, 0
        self._active = total >= self.minimum and total > 0
        self._started = time.monotonic()
        if not self._active:
            return
        if self.plain:
            self._line(f"{self.label}: 0/{total:,} {self.unit}")
            self._next_plain_step = 1
            return
        from rich.console import Console  # deferred: rich costs ~50 ms, paid only by long jobs at a terminal
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(self.unit),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=Console(file=self.stream),
            transient=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=total, rate="")

    def advance(self, amount: int = 1) -> None:
        """Record ``amount`` more units done."""
        self.update(self.done + amount)

    def update(self, done: int) -> None:
        """Record that ``done`` units of the total are done."""
        self.done = done
        if not self._active:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=done, rate=self._rate_text())
            return
        # plain: at most a line per tenth of the work, never one per item (the end has its own line)
        passed = self._next_plain_step
        while passed < PLAIN_STEPS and done * PLAIN_STEPS >= self.total * passed:
            passed += 1
        if passed != self._next_plain_step and done < self.total:
            self._line(f"{self.label}: {done:,}/{self.total:,} {self.unit} ({self._rate_text()}, {self._eta_text()})")
        self._next_plain_step = passed

    def __call__(self, done: int, total: int) -> None:
        """``progress(done, total)``: the callback form; starts the job on the first call."""
        if not self._called:
            self._called = True
            self.start(total)
        elif total != self.total:
            self.total = total
            if self._bar is not None:
                self._bar.update(self._task, total=total)
        self.update(done)

    def finish(self) -> None:
        """End the job: the bar is closed, or a final plain line is written."""
        if not self._active:
            return
        self._active = False
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)
            self._bar.stop()
            self._bar = None
            return
        seconds = time.monotonic() - self._started
        self._line(f"{self.label}: {self.done:,}/{self.total:,} {self.unit}, done in {seconds:.1f} s")

    # -- context manager -----------------------------------------------------------

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        if kind is None:
            self.finish()
            return
        if self._bar is not None:
            self._bar.stop()  # leave the terminal usable for the error message
            self._bar = None
        elif self._active:  # a log must not say "done" for a job Ctrl-C or an error cut short
            seconds = time.monotonic() - self._started
            self._line(f"{self.label}: {self.done:,}/{self.total:,} {self.unit}, stopped after {seconds:.1f} s")
        self._active = False

    def _rate(self) -> float:
        return self.done / max(time.monotonic() - self._started, 1e-9)

    def _rate_text(self) -> str:
        return f"{self._rate():,.0f} {self.unit}/s"

    def _eta_text(self) -> str:
        rate = self._rate()
        return f"{(self.total - self.done) / rate:,.0f} s left" if rate > 0 else "time left unknown"

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
