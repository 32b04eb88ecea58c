"""Let plugin authors write sync or async callbacks: run an awaitable to completion from sync code."""

from __future__ import annotations

import inspect
from typing import Any


def resolve_awaitable(value: Any) -> Any:
    """Return ``value``, or the result of awaiting it when it is awaitable.

    Outside an event loop the awaitable runs on a fresh loop in this thread;
    inside a running loop (where ``asyncio.run`` is forbidden) it runs on a
    private loop in a short-lived thread, and this call waits for it.
    """
    if not inspect.isawaitable(value):
        return value
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_as_coroutine(value))
    import threading

    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(_as_coroutine(value))
        except BaseException as exc:  # handed back to the calling thread below
            box["error"] = exc

    worker = threading.Thread(target=run, name="hermes-await", daemon=True)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def _as_coroutine(awaitable: Any) -> Any:
    return await awaitable
