"""hook_log: one JSON line per hook call, so authors can see exactly what their hooks receive."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from hermes_core.hookspecs import HOOK_NAMES

_DEFAULT_PATH = "logs/hooks.jsonl"
_DEFAULT_MAX_CHARS = 2000


def _shorten(value: Any, limit: int) -> Any:
    """Cut long strings (tool output, prompts) so one hook call stays one readable line."""
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + f"... [{len(value) - limit} more chars]"
    if isinstance(value, dict):
        return {str(k): _shorten(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shorten(v, limit) for v in value]
    return value


class HookLog:
    """Appends hook calls to a JSONL file; one lock keeps lines whole across threads."""

    def __init__(self, path: Path, max_chars: int) -> None:
        self.path = path
        self.max_chars = max_chars
        self._lock = threading.Lock()

    def callback_for(self, hook_name: str):
        def record(**kwargs: Any) -> None:
            entry = {"ts": round(time.time(), 6), "hook": hook_name}
            entry.update(_shorten(kwargs, self.max_chars))
            line = json.dumps(entry, ensure_ascii=False, default=repr)
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(line + "\n")

        record.__qualname__ = f"hook_log.{hook_name}"
        return record


def register(ctx) -> None:
    path = Path(ctx.hermes_home) / str(ctx.get_config("path", _DEFAULT_PATH))
    log = HookLog(path, int(ctx.get_config("max_field_chars", _DEFAULT_MAX_CHARS)))
    for hook_name in HOOK_NAMES:
        ctx.register_hook(hook_name, log.callback_for(hook_name))
