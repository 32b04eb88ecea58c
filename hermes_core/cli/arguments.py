"""Argument types the command groups share."""

from __future__ import annotations

import argparse
from pathlib import Path


def path_argument(text: str) -> Path:
    """A path given on the command line; an empty one is refused instead of meaning the current directory.

    ``Path("")`` is ``Path(".")``, so ``hermes plugins validate "$DIR"`` with ``DIR`` unset would
    quietly check (or write into) whatever directory the command ran in.
    """
    if not text:
        raise argparse.ArgumentTypeError("the path is empty -> give a file or directory (is a shell variable unset?)")
    return Path(text)
