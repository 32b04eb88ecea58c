"""The model clients' earlier import path: they live in :mod:`hermes_core.models.clients`.

Plugins and programs written against ``hermes_core.runtime.clients`` (or one of its modules) keep
working; every name here is the object in ``hermes_core.models.clients``. Importing stays cheap: the
clients, and httpx with them, load on first use, as there.
"""

from __future__ import annotations

from typing import Any

from hermes_core.models import clients as _clients

__all__ = list(_clients.__all__)


def __getattr__(name: str) -> Any:
    return getattr(_clients, name)
