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
        """One line of a subprocess's output (pip, git), indented under the current step."""
        line = line.rstrip("\n")
        self.tail.append(line)
        if not self.quiet:
            print(f"    {line}", file=self.out, flush=True)

    def replay_tail(self) -> None:
        """Under --quiet, show what the failed subprocess said before the error line."""
        if self.quiet:
            for line in self.tail:
                print(f"    {line}", file=self.err)
        self.tail.clear()
