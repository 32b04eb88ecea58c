"""``hermes_cli.config`` for plugins written for Hermes Agent."""

from __future__ import annotations

from typing import Any

from hermes_core.config import get_env_value, get_hermes_home, load_config as _load_config
from hermes_core.config import save_env_value as _save_env_value
from hermes_core.config import write_user_config

__all__ = ["load_config", "save_config", "cfg_get", "get_env_value", "save_env_value"]


def load_config() -> dict[str, Any]:
    return _load_config().as_dict()


def save_config(config: dict[str, Any]) -> None:
    write_user_config(get_hermes_home(), config)


def cfg_get(config: dict[str, Any], *keys: str, default: Any = None) -> Any:
    node: Any = config
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def save_env_value(name: str, value: str) -> None:
    _save_env_value(get_hermes_home(), name, value)
