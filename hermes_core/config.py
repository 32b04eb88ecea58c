"""HERMES_HOME, profiles, layered config.yaml and the .env secrets file.

Layers, lowest first: built-in defaults < ``$HERMES_HOME/config.yaml`` (deep-merged)
< ``${VAR}`` expansion from the environment < runtime overrides given by the caller.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterator, Mapping, MutableMapping
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
ENV_FILE_NAME = ".env"
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
        raise ConfigError(f"config key {key!r} is not valid: use dotted names like 'memory.provider'")
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


def read_yaml_mapping(path: Path, *, use_cache: bool = True) -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (``{}`` when missing or empty); ConfigError naming the
    line for bad YAML. ``use_cache=False`` neither reads nor writes the parse cache, for callers
    that must leave ``$HERMES_HOME`` untouched."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}) -> check its permissions") from exc
    if not text.strip():
        return {}
    cached = _cached_parse(path, text) if use_cache else None
    if cached is not None:
        return cached
    import yaml  # deferred: keeps `hermes --help` from paying for the YAML parser

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}: invalid YAML{where}: {problem} -> fix the file or move it aside") from exc
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


def set_dotted(data: dict[str, Any], key: str, value: Any) -> None:
    """Set ``value`` at dotted ``key`` inside ``data``, creating mappings on the way."""
    parts = _split_key(key)
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        elif not isinstance(child, dict):
            raise ConfigError(
                f"cannot set {key!r}: {part!r} holds a {type(child).__name__}, not a mapping -> "
                f"unset it first or choose another key"
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
    merged = deep_merge(DEFAULT_CONFIG, read_yaml_mapping(path))
    # ${VAR} may name a secret kept in $HERMES_HOME/.env; the process environment wins.
    merged = expand_env_vars(merged, {**read_env_file(home), **env} if "${" in repr(merged) else env)
    for key, value in (overrides or {}).items():
        set_dotted(merged, key, value)
    return Config(merged, path)


def read_user_config(home: Path) -> dict[str, Any]:
    """Return config.yaml exactly as the user wrote it (no defaults, no expansion)."""
    return read_yaml_mapping(home / CONFIG_FILE_NAME)


def atomic_write_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` so readers see the old or the new file, never half of one."""
    import tempfile  # deferred: only writers need it, and listing plugins writes nothing

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_user_config(home: Path, data: Mapping[str, Any]) -> Path:
    """Replace config.yaml with ``data`` atomically; return its path."""
    import yaml

    path = home / CONFIG_FILE_NAME
    text = yaml.safe_dump(dict(data), sort_keys=False, default_flow_style=False, allow_unicode=True)
    atomic_write_text(path, text)
    return path


def update_user_config(home: Path, key: str, value: Any) -> Path:
    """Set one dotted ``key`` in config.yaml, keeping every other key as it was."""
    data = read_user_config(home)
    set_dotted(data, key, value)
    return write_user_config(home, data)


# --- .env secrets ------------------------------------------------------------

_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


def read_env_file(home: Path) -> dict[str, str]:
    """Parse ``$HERMES_HOME/.env`` (``KEY=value`` lines, ``#`` comments, optional quotes)."""
    path = home / ENV_FILE_NAME
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}
    values: dict[str, str] = {}
    for line in lines:
        match = _ENV_LINE.match(line)
        if not match or line.lstrip().startswith("#"):
            continue
        raw = match.group(2).strip()
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            raw = re.sub(r'\\(["\\])', r"\1", raw[1:-1])  # undo _quote_env_value's escapes
        elif len(raw) >= 2 and raw[0] == raw[-1] == "'":
            raw = raw[1:-1]
        values[match.group(1)] = raw
    return values


def _quote_env_value(value: str) -> str:
    if value and re.fullmatch(r"[A-Za-z0-9_./:@+-]*", value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def check_env_value(name: str, value: str) -> None:
    """Raise ConfigError unless :func:`save_env_value` would store ``name=value`` (same rules).

    Lets a caller check every value before it changes anything, instead of failing half way.
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ConfigError(f"environment variable name {name!r} is not valid -> use letters, digits and '_'")
    if "\n" in value or "\r" in value:
        raise ConfigError(f"the value for {name} contains a line break -> give it on one line")


def save_env_value(home: Path, name: str, value: str) -> Path:
    """Set ``name=value`` in ``$HERMES_HOME/.env``, written atomically with mode 0600."""
    check_env_value(name, value)
    path = home / ENV_FILE_NAME
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    new_line = f"{name}={_quote_env_value(value)}"
    for index, line in enumerate(lines):
        match = _ENV_LINE.match(line)
        if match and match.group(1) == name and not line.lstrip().startswith("#"):
            lines[index] = new_line
            break
    else:
        lines.append(new_line)
    atomic_write_text(path, "\n".join(lines) + "\n", mode=0o600)
    return path


def export_env_file(home: Path, env: MutableMapping[str, str] | None = None) -> list[str]:
    """Copy the variables of ``$HERMES_HOME/.env`` into ``env`` (default ``os.environ``) where unset.

    Returns the names that were set. A variable already in the environment is never overwritten.
    """
    env = os.environ if env is None else env
    added = []
    for name, value in read_env_file(home).items():
        if name not in env:
            env[name] = value
            added.append(name)
    return added


def get_env_value(name: str, home: Path | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """Return ``name`` from the process environment, else from ``$HERMES_HOME/.env``."""
    env = os.environ if env is None else env
    if name in env:
        return env[name]
    return read_env_file(get_hermes_home(env) if home is None else home).get(name)


def env_flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Return whether environment variable ``name`` is set to a true value (1/true/yes/on)."""
    env = os.environ if env is None else env
    return env.get(name, "").strip().lower() in {"1", "true", "yes", "on"}
