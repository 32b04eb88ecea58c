"""Changing honcho.json: the fields ``hermes memory setup honcho`` asks for, and safe edits of a host block.

Edits are checked with the same rules as loading, written atomically (mode 0600: the file may
hold the API key), and touch only the keys they change, so hand-written blocks of other hosts
and keys of other Honcho tools survive.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .config import KEYS, RECALL_MODES, SESSION_STRATEGIES, HonchoConfig, HonchoConfigError, _check, block_name, host_key, read_config_file, sanitize_id, writable_path

#: Settings that are Honcho IDs.
ID_KEYS = frozenset({"workspace", "peerName", "aiPeer"})

CONFIG_SCHEMA: list[dict[str, Any]] = [
    {"key": "apiKey", "description": "Honcho API key (app.honcho.dev); leave empty for a local server", "secret": True, "env_var": "HONCHO_API_KEY", "url": "https://app.honcho.dev", "required": False},
    {"key": "baseUrl", "description": "base URL of a self-hosted Honcho (empty: Honcho cloud)", "type": "str"},
    {"key": "workspace", "description": "workspace ID (default: the host key, e.g. hermes)", "type": "str"},
    {"key": "peerName", "description": "your peer name (how Honcho knows you)", "type": "str"},
    {"key": "aiPeer", "description": "this profile's AI peer name (default: the host key)", "type": "str"},
    {"key": "recallMode", "description": "hybrid (inject + tools), context (inject only) or tools (tools only)", "type": "str", "choices": list(RECALL_MODES)},
    {"key": "writeFrequency", "description": "async, turn, session, or a number of turns", "type": "str"},
    {"key": "sessionStrategy", "description": "per-directory, per-session, per-repo or global", "type": "str", "choices": list(SESSION_STRATEGIES)},
]


def config_schema(config: HonchoConfig) -> list[dict[str, Any]]:
    """The setup fields; the API key is left out when honcho.json holds one or the server needs none,
    so ``hermes memory status`` does not call HONCHO_API_KEY missing."""
    source = config.sources["apiKey"]
    keyless = source == "root" or source.startswith("host block") or (not config.api_key and config.is_local)
    return [f for f in CONFIG_SCHEMA if not (keyless and f["key"] == "apiKey")]


def read_raw(path: Path) -> dict[str, Any]:
    return read_config_file(path) if path.is_file() else {}


def write_raw(path: Path, data: Mapping[str, Any]) -> None:
    from hermes_core.config import atomic_write_text

    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o600)


def checked(key: str, value: Any, where: str) -> Any:
    """``value`` as honcho.json stores it, or :class:`HonchoConfigError` naming key, value and fix."""
    if key not in KEYS:
        raise HonchoConfigError(f"{key!r} is not a Honcho setting -> one of: {', '.join(KEYS)}")
    if KEYS[key].kind == "write" and isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    return _check(key, value, where)


def refuse_bad_ids(values: Mapping[str, Any], name: Mapping[str, str] | None = None) -> None:
    """Honcho takes IDs of letters, digits, '_' and '-': a value given for one that is not such an ID
    would be refused or changed on the way, so a command refuses it (a file edited by hand is left
    to the provider, which sanitizes what it reads). ``name`` maps a key to the flag that gave it."""
    for key in ID_KEYS:
        value = values.get(key)
        if isinstance(value, str) and value.strip() and sanitize_id(value) != value.strip():
            flag = (name or {}).get(key)  # hermes honcho setup's flag; else hermes memory setup's --set
            example = f"{flag} {sanitize_id(value)}" if flag else f"--set {key}={sanitize_id(value)}"
            raise HonchoConfigError(f"{flag or key} {value!r} may use only letters, digits, '_' and '-' -> e.g. {example}")


def edit_host_block(
    hermes_home: Path,
    updates: Mapping[str, Any],
    *,
    env: Mapping[str, str] | None = None,
    user_home: Path | None = None,
    root_keys: Mapping[str, Any] | None = None,
) -> Path:
    """Set ``updates`` in the active host's block (``None`` removes a key) and ``root_keys`` at the root."""
    env = os.environ if env is None else env
    path = writable_path(hermes_home, user_home)
    data = read_raw(path)
    hosts = data.setdefault("hosts", {})
    if not isinstance(hosts, dict):
        raise HonchoConfigError(f"{path}: hosts must be an object -> fix it by hand before changing settings")
    host = block_name(hosts, host_key(hermes_home, env))
    block = hosts.setdefault(host, {})
    for target, changes, prefix in ((block, updates, f"hosts.{host}."), (data, root_keys or {}, "")):
        for key, value in changes.items():
            if value is None:
                target.pop(key, None)
            else:
                target[key] = checked(key, value, f"{path}: {prefix}{key}")
    write_raw(path, data)
    return path


def save_settings(hermes_home: Path, values: Mapping[str, Any], *, env: Mapping[str, str] | None = None, user_home: Path | None = None) -> Path:
    """What ``hermes memory setup honcho`` collected (secrets went to .env), into the host block."""
    updates = {k: v for k, v in values.items() if k in KEYS and v not in (None, "")}
    refuse_bad_ids(updates)
    return edit_host_block(hermes_home, updates, env=env, user_home=user_home)
