"""What installs print: step lines, streamed tool output, warnings; ``--quiet`` keeps only the essentials."""

from __future__ import annotations

import sys
from collections import deque
from typing import TextIO


class Console:
    """Prints progress to stdout and warnings to stderr; keeps the tail of streamed output."""

    def __init__(self, *, quiet: bool = False, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.quiet = quiet
        self._out = out
        self._err = err
        #: The last lines a subprocess printed, shown again when it fails under --quiet.
        self.tail: deque[str] = deque(maxlen=40)
        #: In a Python traceback of the streamed output: its indentation and the lines held back so far.
        self._traceback: tuple[int, int] | None = None

    @property
    def out(self) -> TextIO:
        # Looked up at each use so redirected sys.stdout (tests, pipes) is honoured.
        return self._out or sys.stdout

    @property
    def err(self) -> TextIO:
        return self._err or sys.stderr

    def step(self, text: str) -> None:
        """A stage of long work, e.g. ``==> running pip``."""
        if not self.quiet:
            print(f"==> {text}", file=self.out, flush=True)

    def info(self, text: str) -> None:
        """A result the user asked for; printed even with --quiet."""
        print(text, file=self.out, flush=True)

    def warn(self, text: str) -> None:
        print(f"warning: {text}", file=self.err, flush=True)

    def stream(self, line: str) -> None:
        """One line of a subprocess's output (pip, git), indented under the current step.

        A Python traceback in it (pip crashing on a bad pyproject.toml, a build backend raising)
        is folded to one line saying so, then the exception line that names the cause: hermes
        prints no tracebacks, its error message says what failed.
        """
        line = line.rstrip("\n")
        indent = len(line) - len(line.lstrip())
        if line.strip() == "Traceback (most recent call last):":
            held = self._traceback[1] if self._traceback else 0
            self._traceback = (indent, held + 1)  # frames sit deeper than this; the exception line level with it
            return
        if self._traceback is not None:
            base, held = self._traceback
            chained = line.strip().startswith(("During handling of", "The above exception"))
            if not line.strip() or indent > base or chained:
                self._traceback = (base, held + 1)
                return
            self._traceback = None
            self._emit(" " * base + f"[a traceback of {held} lines left out]")
        self._emit(line)

    def _emit(self, line: str) -> None:
        self.tail.append(line)
        if not self.quiet:
            print(f"    {line}", file=self.out, flush=True)

    def replay_tail(self) -> None:
        """Under --quiet, show what the failed subprocess said before the error line."""
        if self.quiet:
            for line in self.tail:
                print(f"    {line}", file=self.err)
        self.tail.clear()
