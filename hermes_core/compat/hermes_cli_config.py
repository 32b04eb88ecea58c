"""``hermes_cli.config`` for plugins written for Hermes Agent: config.yaml and .env of HERMES_HOME."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hermes_core.compat.hermes_constants import get_hermes_home
from hermes_core.config import DEFAULT_CONFIG as _DEFAULT_CONFIG
from hermes_core.config import deep_merge, read_env_file, read_user_config, write_user_config
from hermes_core.config import load_config as _load_config
from hermes_core.config import save_env_value as _save_env_value

__all__ = [
    "DEFAULT_CONFIG", "load_config", "load_config_readonly", "save_config", "cfg_get", "get_env_value",
    "save_env_value", "remove_env_value", "get_config_path", "get_env_path", "get_hermes_home", "read_raw_config",
]

#: The defaults every config is merged over (a copy: plugins may not change the host's).
DEFAULT_CONFIG: dict[str, Any] = copy.deepcopy(_DEFAULT_CONFIG)


def get_config_path() -> Path:
    return get_hermes_home() / "config.yaml"


def get_env_path() -> Path:
    return get_hermes_home() / ".env"


def load_config() -> dict[str, Any]:
    """The merged configuration (defaults, config.yaml, ${VAR} expanded) as a new dict."""
    return _load_config(get_hermes_home()).as_dict()


def load_config_readonly() -> dict[str, Any]:
    """Same as :func:`load_config`; the result is a copy, so changing it changes nothing."""
    return load_config()


def read_raw_config() -> dict[str, Any]:
    """config.yaml exactly as written (no defaults, no expansion)."""
    return read_user_config(get_hermes_home())


read_user_config_raw = read_raw_config


def save_config(config: dict[str, Any]) -> None:
    """Write ``config`` to config.yaml atomically (values equal to the defaults are kept)."""
    write_user_config(get_hermes_home(), config)


def cfg_get(config: Any, *keys: str, default: Any = None) -> Any:
    """``cfg_get(cfg, "memory", "provider")`` or ``cfg_get(cfg, "memory.provider")``; ``default`` when absent."""
    parts = [p for key in keys for p in str(key).split(".")]
    node: Any = config
    for key in parts:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def get_env_value(name: str) -> str | None:
    """``name`` from the process environment, else from ``$HERMES_HOME/.env``."""
    import os

    if name in os.environ:
        return os.environ[name]
    return read_env_file(get_hermes_home()).get(name)


def get_env_value_prefer_dotenv(name: str) -> str | None:
    value = read_env_file(get_hermes_home()).get(name)
    return value if value is not None else get_env_value(name)


def save_env_value(name: str, value: str) -> None:
    """Set ``name`` in ``$HERMES_HOME/.env`` (mode 0600) and in this process."""
    import os

    _save_env_value(get_hermes_home(), name, value)
    os.environ[name] = value


def remove_env_value(name: str) -> bool:
    """Remove ``name`` from ``$HERMES_HOME/.env``; whether it was there."""
    import os

    from hermes_core.config import atomic_write_text

    path = get_env_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return False
    kept = [line for line in lines if line.split("=", 1)[0].strip().removeprefix("export ").strip() != name]
    if len(kept) == len(lines):
        return False
    atomic_write_text(path, "\n".join(kept) + ("\n" if kept else ""), mode=0o600)
    os.environ.pop(name, None)
    return True


def _deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    return deep_merge(base, override)


def get_config_value(key: str, default: Any = None) -> Any:
    """A dotted setting (``memory.provider``) of the merged configuration."""
    return cfg_get(load_config(), key, default=default)


def ensure_hermes_home() -> Path:
    home = get_hermes_home()
    home.mkdir(parents=True, exist_ok=True)
    return home


def load_env() -> dict[str, str]:
    """The variables of ``$HERMES_HOME/.env``."""
    return read_env_file(get_hermes_home())


def is_managed() -> bool:
    """Whether a package manager owns this install (it never does here)."""
    return False


def get_missing_env_vars(required: list[str] | None = None) -> list[str]:
    import os

    env = load_env()
    return [name for name in required or [] if not (os.environ.get(name) or env.get(name))]
