"""Telling a real Ctrl-C from a ``KeyboardInterrupt`` that plugin code raised itself.

Python's SIGINT handler raises ``KeyboardInterrupt`` wherever the main thread happens to be, so a Ctrl-C
while a plugin imports or registers surfaces inside the plugin's code. A plugin can also raise
``KeyboardInterrupt`` on its own (code written for a console, a misuse). The first must stop the command
(exit 130, as anywhere else); the second is that plugin's failure, isolated and reported like any other.

While plugin code runs under :func:`watch`, SIGINT goes through a handler that counts it and then calls
the handler that was there before (Python's, or the embedding program's), so nothing else changes. A
``KeyboardInterrupt`` is the user's when a SIGINT arrived since the watch began. Where no Python handler
raises on SIGINT (ignored, or the process default) or off the main thread (signals reach only the main
thread), no Ctrl-C can become a ``KeyboardInterrupt`` there, so one that appears came from the plugin.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

_received = 0
_installed = False


class Watch:
    """What :func:`watch` yields: whether a ``KeyboardInterrupt`` is the user's Ctrl-C."""

    def __init__(self) -> None:
        self._start = _received

    def by_user(self, exc: BaseException) -> bool:
        """Whether ``exc`` stops the command: a ``KeyboardInterrupt`` with a SIGINT received since the watch began."""
        return isinstance(exc, KeyboardInterrupt) and _received > self._start


def user_interrupted(exc: BaseException) -> bool:
    """For plugin code run where no :class:`Watch` is kept (hook callbacks, on every turn's path).

    Off the main thread a ``KeyboardInterrupt`` never comes from a signal. On it, under a :func:`watch`
    (the ``hermes`` command keeps one for its whole run), it is the user's once any SIGINT arrived; without
    one (an embedding program's own loop) it cannot be told apart, so it is taken as the user's, unless SIGINT
    is ignored or left to the process default (a background job, nohup): then no Ctrl-C raises anything.
    """
    if not isinstance(exc, KeyboardInterrupt) or threading.current_thread() is not threading.main_thread():
        return False
    if _installed:
        return _received > 0
    return callable(signal.getsignal(signal.SIGINT))


def _counting(previous: Any) -> Any:
    def handler(signum: int, frame: FrameType | None) -> Any:
        global _received
        _received += 1
        return previous(signum, frame)

    return handler


@contextmanager
def watch() -> Iterator[Watch]:
    """Count SIGINTs while the block runs (nested watches share the outer one's handler)."""
    global _installed, _received
    install = not _installed and threading.current_thread() is threading.main_thread()
    previous: Any = signal.getsignal(signal.SIGINT) if install else None
    install = install and callable(previous)
    if install:
        signal.signal(signal.SIGINT, _counting(previous))
        _installed, _received = True, 0  # counted from here: a Ctrl-C an earlier watch saw is not this one's
    try:
        yield Watch()
    finally:
        if install:
            signal.signal(signal.SIGINT, previous)
            _installed = False
