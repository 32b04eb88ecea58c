"""HERMES_HOME, profiles, layered config.yaml and the .env secrets file.

Layers, lowest first: built-in defaults < ``$HERMES_HOME/config.yaml`` (deep-merged)
< ``${VAR}`` expansion from the environment < runtime overrides given by the caller.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hermes_core.errors import ConfigError

#: The defaults every key falls back to. Plugins read their own keys with defaults
#: of their own, so only keys the host itself reads live here.
DEFAULT_CONFIG: dict[str, Any] = {
    "plugins": {
        # Opt-in allow-list of plugin keys or names; builtins are always on.
        "enabled": [],
        # Deny-list; wins over ``enabled``.
        "disabled": [],
        # Seconds a callback of a hot-path hook may run; 0 turns the guard off.
        "hook_callback_timeout": 30,
        # Per-plugin settings: ``plugins.entries.<key>.{settings, allow_tool_override}``.
        "entries": {},
        # Import aliases (agent.memory_provider, tools.registry, ...) so plugins written for Hermes Agent
        # load unmodified; false turns them off (an installed package of the same name always wins).
        "compat": True,
    },
    "memory": {
        "provider": "",
        "memory_char_limit": 2200,
        "user_char_limit": 1375,
        # `hermes memory switch --backfill`: attempts after a provider's first failure on one item, and
        # the pause before the first of them in seconds (doubling each time).
        "backfill_retries": 3,
        "backfill_retry_delay": 1.0,
    },
    "context": {"engine": "compressor"},
    "prompt_caching": {"enabled": True, "cache_ttl": "5m"},
    # The session store: "sqlite" ($HERMES_HOME/state.db) or "postgres" (the URL in HERMES_STATE_URL).
    "state": {"backend": "sqlite", "url": "", "synchronous": "normal"},
}

CONFIG_FILE_NAME = "config.yaml"
ENV_FILE_NAME = ".env"  # hermes_core.env_file reads and writes it
_VAR_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def get_hermes_home(env: Mapping[str, str] | None = None) -> Path:
    """Return ``$HERMES_HOME`` or ``~/.hermes``; profiles set HERMES_HOME for the process."""
    env = os.environ if env is None else env
    home = env.get("HERMES_HOME")
    if home:
        return Path(home).expanduser()
    return Path.home() / ".hermes"


def profile_home(profile: str, env: Mapping[str, str] | None = None) -> Path:
    """Return the home of profile ``profile``: ``<default home>/profiles/<profile>``."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", profile) or ".." in profile:
        raise ConfigError(
            f"profile name {profile!r} is not valid: use letters, digits, '-', '_' or '.' "
            "(at most 64 characters) -> e.g. 'hermes -p work'"
        )
    env = os.environ if env is None else env
    base = Path(env["HERMES_HOME"]).expanduser() if env.get("HERMES_HOME") else Path.home() / ".hermes"
    return base / "profiles" / profile


def deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``base`` updated by ``override``; nested mappings merge, everything else replaces."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def expand_env_vars(value: Any, env: Mapping[str, str]) -> Any:
    """Replace ``${VAR}`` and ``${VAR:-default}`` in every string of ``value``.

    An unset variable without a default expands to the empty string, as in a shell.
    """
    if isinstance(value, str):
        if "${" not in value:
            return value
        # As in a shell, ${VAR:-default} also applies the default when VAR is set but empty.
        return _VAR_PATTERN.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)
    if isinstance(value, dict):
        return {k: expand_env_vars(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env_vars(v, env) for v in value]
    return value


def _split_key(key: str) -> list[str]:
    parts = key.split(".")
    if not key or any(not p for p in parts):
        raise ConfigError(f"config key {key!r} is not valid (empty, or with an empty part between dots) -> use dotted names like 'memory.provider'")
    return parts


class Config(Mapping[str, Any]):
    """A read-only view of the merged configuration with dotted-key access."""

    def __init__(self, data: dict[str, Any], path: Path | None = None) -> None:
        self._data = data
        #: The config.yaml this view was read from, if any.
        self.path = path

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        """Return the value at dotted ``key`` (``"plugins.enabled"``), or ``default``."""
        node: Any = self._data
        for part in _split_key(key):
            if not isinstance(node, Mapping) or part not in node:
                return default
            node = node[part]
        return node

    def as_dict(self) -> dict[str, Any]:
        """Return a deep copy of the whole configuration."""
        return copy.deepcopy(self._data)


#: config.yaml is a few kilobytes; a file this large is a mistake (or an attack), not settings.
MAX_CONFIG_BYTES = 1 << 20


def describe_home_problem(home: Path) -> str | None:
    """Why ``home`` cannot serve as HERMES_HOME, worded for the user, or ``None`` when it is usable."""
    try:
        if home.is_dir():
            return None
        if home.exists():
            return f"HERMES_HOME ({home}) is a file, not a directory -> point HERMES_HOME at a directory, or move the file away"
    except OSError as exc:
        return f"HERMES_HOME ({home}) cannot be examined ({exc.strerror}) -> check the path and its permissions"
    parent = home.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"HERMES_HOME ({home}) cannot be created: {parent} is a file, not a directory -> point HERMES_HOME at a directory"
    return None


def ensure_home(home: Path) -> Path:
    """Create HERMES_HOME (mode 0700, whatever the umask) if missing; a HermesError saying why it cannot be."""
    from hermes_core.files import make_private_dirs

    problem = describe_home_problem(home)
    if problem:
        raise ConfigError(problem)
    try:
        make_private_dirs(home)
    except OSError as exc:
        raise ConfigError(
            f"HERMES_HOME ({home}) cannot be created ({exc.strerror}: {exc.filename or home}) -> "
            "point HERMES_HOME at a directory you can write, e.g. export HERMES_HOME=~/.hermes"
        ) from exc
    return home


def read_yaml_mapping(path: Path, *, use_cache: bool = True) -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (``{}`` when missing or empty); ConfigError naming the
    line for bad YAML. ``use_cache=False`` neither reads nor writes the parse cache, for callers
    that must leave ``$HERMES_HOME`` untouched. FIFOs, devices and files over MAX_CONFIG_BYTES are refused."""
    from hermes_core.files import UnreadableFileError, read_limited_text

    try:
        text = read_limited_text(path, MAX_CONFIG_BYTES, what="config file")
    except FileNotFoundError:
        return {}
    except UnreadableFileError as exc:
        problem = describe_home_problem(path.parent)
        raise ConfigError(problem or str(exc)) from None
    if not text.strip():
        return {}
    cached = _cached_parse(path, text) if use_cache else None
    if cached is not None:
        return cached
    import yaml  # deferred: keeps `hermes --help` from paying for the YAML parser

    from hermes_core.yaml_limits import describe_yaml_error, load_yaml

    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: {describe_yaml_error(exc)} -> fix the file or move it aside") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: the top level must be a mapping of keys, got {type(data).__name__} -> "
            "start the file with keys such as 'plugins:'"
        )
    if use_cache:
        _store_parse(path, text, data)
    return data


# Importing the YAML parser costs ~20 ms, more than the rest of `hermes plugins list`;
# the parse of an unchanged config.yaml is kept as JSON in $HERMES_HOME/cache, keyed
# by a digest of the text, and only used while that digest matches.
def parse_cache_enabled() -> bool:
    """``HERMES_NO_PARSE_CACHE=1`` makes every run parse and validate from scratch."""
    return os.environ.get("HERMES_NO_PARSE_CACHE", "").strip().lower() not in {"1", "true", "yes", "on"}


def _parse_cache_file(path: Path) -> Path:
    return path.parent / "cache" / f"{path.name}.json"


def _text_digest(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def _cached_parse(path: Path, text: str) -> dict[str, Any] | None:
    import json

    if not parse_cache_enabled():
        return None
    try:
        entry = json.loads(_parse_cache_file(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("sha1") != _text_digest(text) or not isinstance(entry.get("data"), dict):
        return None
    return entry["data"]


def _store_parse(path: Path, text: str, data: dict[str, Any]) -> None:
    import json

    if not parse_cache_enabled():
        return
    try:
        encoded = json.dumps({"sha1": _text_digest(text), "data": data})
    except (TypeError, ValueError):
        return  # dates and other YAML-only types: parse every time
    try:
        atomic_write_text(_parse_cache_file(path), encoded, mode=0o600)
    except OSError:
        pass  # a read-only home only costs speed


_VALUE_NOUNS = {list: "a list", int: "a whole number", float: "a number", str: "text", bool: "true or false"}


def set_dotted(data: dict[str, Any], key: str, value: Any) -> None:
    """Set ``value`` at dotted ``key`` inside ``data``, creating mappings on the way."""
    parts = _split_key(key)
    node = data
    for depth, part in enumerate(parts[:-1]):
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        elif not isinstance(child, dict):
            shown = repr(child) if len(repr(child)) <= 40 else repr(child)[:37] + "..."
            raise ConfigError(
                f"cannot set {key!r}: {part!r} holds {shown} ({_VALUE_NOUNS.get(type(child), type(child).__name__)}), not a mapping -> "
                f"'hermes config unset {'.'.join(parts[: depth + 1])}' first, or choose another key"
            )
        node = child
    node[parts[-1]] = value


def unset_dotted(data: dict[str, Any], key: str) -> bool:
    """Remove dotted ``key`` from ``data``; return whether it was there."""
    parts = _split_key(key)
    node: Any = data
    for part in parts[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return False
    if isinstance(node, dict) and parts[-1] in node:
        del node[parts[-1]]
        return True
    return False


def load_config(
    home: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """Read the layered configuration of ``home`` (default: :func:`get_hermes_home`).

    :param overrides: runtime values keyed by dotted names, e.g. ``{"memory.provider": "mem0"}``.
    """
    env = os.environ if env is None else env
    home = get_hermes_home(env) if home is None else home
    path = home / CONFIG_FILE_NAME
    from hermes_core.settings import check_tree

    merged = deep_merge(DEFAULT_CONFIG, read_yaml_mapping(path))
    # ${VAR} may name a secret kept in $HERMES_HOME/.env; the process environment wins.
    merged = expand_env_vars(merged, {**read_env_file(home), **env} if "${" in repr(merged) else env)
    # after expansion, so 'timeout: ${MODEL_TIMEOUT:-60}' is checked as the number it becomes
    check_tree(merged, where=f"{path}: ")
    for key, value in (overrides or {}).items():
        set_dotted(merged, key, value)
    return Config(merged, path)


def read_user_config(home: Path) -> dict[str, Any]:
    """Return config.yaml exactly as the user wrote it (no defaults, no expansion)."""
    return read_yaml_mapping(home / CONFIG_FILE_NAME)


def atomic_write_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` so readers see the old or the new file, never half of one.

    ``mode`` applies to a new file only: an existing file keeps the mode its owner gave it
    (see :mod:`hermes_core.files`, the one implementation).
    """
    from hermes_core.files import atomic_write_text as write

    write(path, text, new_mode=mode)


def _dump(data: Any) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)


def dump_user_config(home: Path, data: Mapping[str, Any]) -> str:
    """config.yaml text for ``data``, checked to read back as ``data`` before anything is written."""
    import yaml

    from hermes_core.files import check_utf8
    from hermes_core.yaml_limits import load_yaml

    path = home / CONFIG_FILE_NAME
    try:
        text = _dump(dict(data))
    except (yaml.YAMLError, RecursionError) as exc:
        raise ConfigError(f"{path}: not written, the settings cannot be written as YAML ({exc}) -> give plain values") from None
    check_utf8(text, "the new config.yaml", "give keys and values as UTF-8 text; the file was not changed")
    try:  # compared as text, so a .nan (never equal to itself) still counts as the same
        same = _dump(load_yaml(text)) == text
    except (yaml.YAMLError, RecursionError):
        same = False
    if not same:
        raise ConfigError(f"{path}: not written, the new settings would not read back as given -> give plain text, numbers and lists")
    return text


def write_user_config(home: Path, data: Mapping[str, Any]) -> Path:
    """Replace config.yaml with ``data`` atomically; return its path. Nothing is written unless it reads back."""
    from hermes_core.config_roundtrip import commented_config  # the user's comments kept, when the file has any

    text = dump_user_config(home, data)
    ensure_home(home)
    path = home / CONFIG_FILE_NAME
    atomic_write_text(path, commented_config(path, data) or text)
    return path


def update_user_config(home: Path, key: str, value: Any) -> Path:
    """Set one dotted ``key`` in config.yaml, keeping every other key as it was."""
    data = read_user_config(home)
    set_dotted(data, key, value)
    return write_user_config(home, data)


# --- .env secrets (hermes_core.env_file; re-exported: plugins and the compat layer import them from here)

from hermes_core.env_file import (  # noqa: E402
    check_env_value,
    export_env_file,
    get_env_value,
    read_env_file,
    save_env_value,
)


def env_flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Return whether environment variable ``name`` is set to a true value (1/true/yes/on)."""
    env = os.environ if env is None else env
    return env.get(name, "").strip().lower() in {"1", "true", "yes", "on"}
