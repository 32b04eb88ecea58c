"""``utils`` for plugins written for Hermes Agent: atomic files and small parsing helpers."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["atomic_json_write", "atomic_write_text", "atomic_yaml_write", "atomic_replace", "read_json_or_empty", "safe_json_loads", "is_truthy_value", "env_var_enabled", "env_int", "env_float"]

_TRUE = {"1", "true", "yes", "on", "y"}


def atomic_replace(tmp_path: str | os.PathLike[str], target: str | os.PathLike[str]) -> str:
    """Move ``tmp_path`` over ``target`` in one step, keeping the target's mode when it exists."""
    target = Path(target)
    try:
        os.chmod(tmp_path, target.stat().st_mode & 0o7777)
    except OSError:
        pass
    os.replace(tmp_path, target)
    return str(target)


def atomic_write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` so that readers see the old or the new file, never half of one."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding=encoding) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        atomic_replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_json_write(path: str | os.PathLike[str], data: Any, indent: int | None = 2, **dump_kwargs: Any) -> None:
    """Write ``data`` as JSON atomically (see :func:`atomic_write_text`)."""
    dump_kwargs.setdefault("ensure_ascii", False)
    atomic_write_text(path, json.dumps(data, indent=indent or None, **dump_kwargs) + "\n")


def atomic_yaml_write(path: str | os.PathLike[str], data: Any, **dump_kwargs: Any) -> None:
    import yaml

    dump_kwargs.setdefault("sort_keys", False)
    atomic_write_text(path, yaml.safe_dump(data, **dump_kwargs))


def read_json_or_empty(path: str | os.PathLike[str], default: Any = None) -> Any:
    """The JSON in ``path``; ``{}`` (or ``default``) when it is missing, unreadable or not JSON."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {} if default is None else default


def safe_json_loads(text: Any, default: Any = None) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default


def is_truthy_value(value: Any, default: bool = False) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE


def env_var_enabled(name: str, default: str = "") -> bool:
    return is_truthy_value(os.environ.get(name, default))


def env_int(name: str, default: int = 0) -> int:
    try:
        return int(os.environ.get(name, default))
    except (TypeError, ValueError):
        return default


def env_float(name: str, default: float = 0.0) -> float:
    try:
        return float(os.environ.get(name, default))
    except (TypeError, ValueError):
        return default


TRUTHY_STRINGS = frozenset(_TRUE)


def env_bool(name: str, default: bool = False) -> bool:
    return is_truthy_value(os.environ.get(name), default)


def fast_safe_load(text: str) -> Any:
    """YAML with the C loader when available."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def base_url_hostname(base_url: str) -> str:
    from urllib.parse import urlparse

    return (urlparse(base_url or "").hostname or "").lower()


def base_url_host_matches(base_url: str, *hosts: str) -> bool:
    """Whether the URL's host is one of ``hosts`` or a subdomain of one."""
    host = base_url_hostname(base_url)
    return any(host == h.lower() or host.endswith("." + h.lower()) for h in hosts)
