"""Opening the session store for ``hermes sessions`` and its neighbours, and reading stored rows back."""

from __future__ import annotations

import inspect
import json
import re
import time
from collections.abc import Callable
from typing import Any

from hermes_core.errors import HermesError

#: Messages written per transaction by ``hermes sessions import``; more than this shows progress.
IMPORT_BATCH = 500
#: The roles a stored message may have (search filters by them, import checks them).
_ROLES = {"system", "user", "assistant", "tool"}


def _accepts_progress(factory: Callable[..., Any]) -> bool:
    # the host's contract is factory(hermes_home); the builtin store also takes progress=
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    keyword = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return any((p.name == "progress" and p.kind in keyword) or p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters)


#: The module the builtin ``state`` entry point names (pyproject.toml; a test checks the two agree).
#: Imported by that name rather than found by an entry-point scan, which alone costs more than a
#: sessions command: the core still reaches the store only through the plugin's own entry module.
STATE_PLUGIN_MODULE = "hermes_plugins_builtin.state"


def _open_store() -> Any:
    """The configured session store, opened the way the builtin ``state`` plugin's factory
    opens it, without loading any plugin.

    A sessions command needs nothing else, and loading every builtin costs more than
    the command itself (the model clients' HTTP library, the schema validator).
    Opening an older state.db migrates it, which indexes every stored message
    (minutes on a big store); that shows progress on stderr.
    """
    import importlib
    import os

    from hermes_core.cli.progress import Progress
    from hermes_core.config import ensure_home, get_hermes_home, load_config

    state = importlib.import_module(STATE_PLUGIN_MODULE)
    home = get_hermes_home()
    ensure_home(home)  # state.db lives there: a home that cannot be created is named as such
    with Progress("indexing state.db for search", unit="messages", minimum=IMPORT_BATCH) as progress:
        return state.open_configured_store(home, load_config(home), os.environ, progress=progress)


def open_session_store(manager: Any) -> Any:
    """The store of a loaded plugin manager, showing progress if opening it migrates an older state.db."""
    factory = manager.session_store_factory
    if factory is None:
        raise HermesError("no session store is loaded (the builtin 'state' plugin) -> run 'hermes plugins list --load' to see why")
    if not _accepts_progress(factory):
        return factory(manager.home)
    from hermes_core.cli.progress import Progress

    with Progress("indexing state.db for search", unit="messages", minimum=IMPORT_BATCH) as progress:
        return factory(manager.home, progress=progress)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _when(timestamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp)) if timestamp else "-"


#: What a session id prefix may look like: the start of a UUID, long enough not to be a guess.
_ID_PREFIX = re.compile(r"[0-9a-f-]{6,35}")


def _session_or_fail(store: Any, session_id: str) -> dict[str, Any]:
    """The session ``session_id`` names: its full id, or (like git) a unique start of it."""
    row = store.get_session(session_id)
    if row is not None:
        return row
    prefix = session_id.strip().lower()
    if _ID_PREFIX.fullmatch(prefix) and callable(getattr(store, "iter_sessions", None)):
        # only after the exact lookup failed: one pass over the ids, no index needed
        matches = [str(found["id"]) for found in store.iter_sessions() if str(found["id"]).startswith(prefix)]
        if len(matches) == 1:
            return store.get_session(matches[0])
        if matches:
            shown = ", ".join(matches[:3]) + (", ..." if len(matches) > 3 else "")
            raise HermesError(f"{len(matches)} sessions start with {session_id!r} ({shown}) -> give more of the id")
    if re.fullmatch(r"[0-9a-f-]{1,5}", prefix) and any(str(found["id"]).startswith(prefix) for found in _ids(store)):
        raise HermesError(f"{session_id!r} is too short to name a session: a start of an id needs 6 characters or more "
                          "-> give more of the id ('hermes sessions list' shows them)")
    raise HermesError(f"no session {session_id!r} -> 'hermes sessions list' shows the ids")


def _ids(store: Any) -> Any:
    return store.iter_sessions() if callable(getattr(store, "iter_sessions", None)) else ()


def _tool_calls(stored: Any) -> list[tuple[str | None, str]]:
    """Stored tool calls as (name, arguments); a call of any other shape as (None, its JSON).

    The store keeps whatever a writer gave it (older versions, other programs, raw
    SQL), so show and export must cope with any value here.
    """
    if not stored:
        return []
    out: list[tuple[str | None, str]] = []
    for call in stored if isinstance(stored, list) else [stored]:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            arguments = function.get("arguments", "")
            out.append((function["name"], arguments if isinstance(arguments, str) else _json_text(arguments)))
        else:
            out.append((None, call if isinstance(call, str) else _json_text(call)))
    return out
