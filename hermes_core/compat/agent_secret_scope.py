"""``agent.secret_scope`` for plugins written for Hermes Agent: credentials read per task.

A host serving several profiles from one process installs each profile's secrets for
the task at hand (:func:`set_secret_scope`); with multiplexing on, reading a secret
outside any scope fails closed instead of falling back to another profile's value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar, Token
from pathlib import Path

from hermes_core.config import read_env_file

__all__ = [
    "UnscopedSecretError", "get_secret", "set_secret_scope", "reset_secret_scope", "current_secret_scope",
    "set_multiplex_active", "is_multiplex_active", "load_env_file", "build_profile_secret_scope",
]

_multiplex_active = False
_scope: ContextVar[Mapping[str, str] | None] = ContextVar("hermes_secret_scope", default=None)
# Deployment settings every profile shares; never treated as profile secrets.
_GLOBAL_NAMES = frozenset({"HERMES_HOME", "HERMES_PROFILE", "PATH", "HOME", "USER", "LANG", "LC_ALL", "TZ", "PWD", "SHELL", "TMPDIR", "VIRTUAL_ENV", "PYTHONPATH", "SSL_CERT_FILE"})
_GLOBAL_PREFIXES = ("HERMES_KANBAN_", "TERMINAL_")


class UnscopedSecretError(RuntimeError):
    """A secret was read while multiplexing is on and no profile scope is installed."""


def set_multiplex_active(active: bool) -> None:
    global _multiplex_active
    _multiplex_active = bool(active)


def is_multiplex_active() -> bool:
    return _multiplex_active


def set_secret_scope(secrets: Mapping[str, str] | None) -> Token[Mapping[str, str] | None]:
    return _scope.set(secrets)


def reset_secret_scope(token: Token[Mapping[str, str] | None]) -> None:
    _scope.reset(token)


def current_secret_scope() -> Mapping[str, str] | None:
    return _scope.get()


def _is_global_env(name: str) -> bool:
    return name in _GLOBAL_NAMES or name.startswith(_GLOBAL_PREFIXES)


def get_secret(name: str, default: str | None = None) -> str | None:
    """A credential by variable name, from the task's scope, else the process environment.

    :raises UnscopedSecretError: multiplexing is on and no scope is installed.
    """
    if _is_global_env(name):
        return os.environ.get(name, default)
    scope = _scope.get()
    if scope is not None:
        if name in scope:
            return scope[name]
        return default if _multiplex_active else os.environ.get(name, default)
    if _multiplex_active:
        raise UnscopedSecretError(
            f"get_secret({name!r}) ran with no profile secret scope while multiplexing is on -> "
            "run the call inside set_secret_scope(...)"
        )
    return os.environ.get(name, default)


def load_env_file(env_path: Path, *, strict: bool = False) -> dict[str, str]:
    """The variables of a ``.env`` file, without touching ``os.environ``."""
    path = Path(env_path)
    if strict and not path.is_file():
        raise FileNotFoundError(path)
    return read_env_file(path.parent) if path.name == ".env" else _read_other(path)


def _read_other(path: Path) -> dict[str, str]:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch, ".env")
        try:
            target.write_bytes(path.read_bytes())
        except OSError:
            return {}
        return read_env_file(target.parent)


def build_profile_secret_scope(hermes_home: Path) -> dict[str, str]:
    """A profile's secrets from ``<home>/.env`` (shared deployment settings left out)."""
    return {k: v for k, v in read_env_file(Path(hermes_home)).items() if not _is_global_env(k)}
