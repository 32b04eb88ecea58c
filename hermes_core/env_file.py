"""``$HERMES_HOME/.env``: secrets as ``KEY=value`` lines, read and written with python-dotenv's parser.

python-dotenv is the de-facto reading of the format (``A=abc # note`` is ``abc``; quotes,
escapes and ``export`` as in a shell), so a file written for other tools means the same
here. ``${VAR}`` inside values is kept as written: hermes expands references in
config.yaml, not in secrets.

Variables that decide what code a process loads (``LD_PRELOAD``, ``PATH``, ``PYTHONPATH``,
``HERMES_HOME``...) are refused: .env is exported into plugins' and subprocesses'
environment, and a secrets file must not be able to change which code runs.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping, MutableMapping
from pathlib import Path

from hermes_core.errors import ConfigError

ENV_FILE_NAME = ".env"
#: A .env is a few lines of secrets; anything larger is not one.
MAX_ENV_FILE_BYTES = 1 << 20
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SAFE_UNQUOTED = re.compile(r"[A-Za-z0-9_./:@+-]+")

#: Exact names that change which code or libraries a process loads, or where hermes keeps its state.
_LOADER_NAMES = frozenset(
    {
        "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "LD_BIND_NOW", "LD_DEBUG",
        "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONEXECUTABLE", "PYTHONINSPECT",
        "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "PYTHONPLATLIBDIR", "PYTHONBREAKPOINT", "PYTHONWARNINGS",
        "HERMES_HOME", "HERMES_BUNDLED_PLUGINS", "HERMES_ENABLE_PROJECT_PLUGINS", "HERMES_SAFE_MODE",
        "HOME", "SHELL", "BASH_ENV", "ENV", "IFS", "PERL5LIB", "PERL5OPT", "RUBYLIB", "RUBYOPT",
        "NODE_OPTIONS", "NODE_PATH", "GCONV_PATH", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
        "PYTHON_GIL", "PYTHON_JIT", "PYTHON_COLORS", "PYTHON_BASIC_REPL", "PYTHON_HISTORY", "PYTHON_CPU_COUNT",
        "PYTHON_FROZEN_MODULES", "PYTHON_PERF_JIT_SUPPORT", "PYTHON_PRESITE",
    }
)
#: Prefixes of such names (DYLD_INSERT_LIBRARIES, LD_*, ...).
_LOADER_PREFIXES = ("LD_", "DYLD_", "MALLOC_", "GLIBC_TUNABLES", "BASH_FUNC_")
#: The interpreter's own variables are PYTHON + letters (PYTHONDONTWRITEBYTECODE, PYTHONIOENCODING, ...).
_PYTHON_VARIABLE = re.compile(r"PYTHON[A-Z]+")


def refusal_reason(name: str) -> str | None:
    """Why ``name`` may not be set from .env, or ``None`` if it may."""
    upper = name.upper()
    if upper in _LOADER_NAMES or upper.startswith(_LOADER_PREFIXES) or _PYTHON_VARIABLE.fullmatch(upper):
        return (
            f"{name} decides which programs, libraries or code a process loads (or where hermes keeps its files), "
            "and .env is exported into every plugin and subprocess"
        )
    return None


def _bindings(text: str) -> list:
    from dotenv.parser import parse_stream  # deferred: only runs when a .env exists

    return list(parse_stream(io.StringIO(text)))


def _read_text(home: Path) -> str | None:
    from hermes_core.files import read_limited_text

    try:
        return read_limited_text(home / ENV_FILE_NAME, MAX_ENV_FILE_BYTES, what=".env file")
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None


def parse_env_text(text: str) -> tuple[dict[str, str], list[str]]:
    """(values, refused names) of .env ``text``; lines python-dotenv cannot parse are skipped, as it does."""
    values: dict[str, str] = {}
    refused: list[str] = []
    for binding in _bindings(text):
        if binding.key is None or binding.error or "\0" in binding.key or "\0" in (binding.value or ""):
            continue  # as python-dotenv does with lines it cannot parse; a NUL cannot enter an environment
        if refusal_reason(binding.key):
            refused.append(binding.key)
            continue
        values[binding.key] = "" if binding.value is None else binding.value
    return values, refused


def read_env_file(home: Path) -> dict[str, str]:
    """The variables of ``$HERMES_HOME/.env`` (none when it is missing); refused names are left out."""
    text = _read_text(home)
    if not text:
        return {}
    return parse_env_text(text)[0]


def check_env_value(name: str, value: str) -> None:
    """Raise ConfigError unless :func:`save_env_value` would store ``name=value`` (same rules).

    Lets a caller check every value before it changes anything, instead of failing half way.
    """
    from hermes_core.files import check_utf8

    if not _NAME.fullmatch(name):
        raise ConfigError(f"environment variable name {name!r} is not valid -> use letters, digits and '_'")
    reason = refusal_reason(name)
    if reason:
        raise ConfigError(f"{name} cannot be set in .env: {reason} -> set it in your shell if you really mean to")
    check_utf8(value, f"the value for {name}")
    if "\n" in value or "\r" in value:
        raise ConfigError(f"the value for {name} contains a line break -> give it on one line")
    if "\0" in value:
        raise ConfigError(f"the value for {name} contains a NUL character -> remove it")


def _quote(value: str) -> str:
    if _SAFE_UNQUOTED.fullmatch(value):
        return value
    # single quotes: python-dotenv undoes only \\ and \' inside them, so '$', '#' and '"' stay literal
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def save_env_value(home: Path, name: str, value: str) -> Path:
    """Set ``name=value`` in ``$HERMES_HOME/.env``, written atomically; a new file is 0600.

    Every other line (comments, other variables, lines dotenv cannot parse) is kept as written.
    """
    from hermes_core.files import PRIVATE_FILE_MODE, atomic_write_text

    check_env_value(name, value)
    path = home / ENV_FILE_NAME
    text = _read_text(home) or ""
    new_line = f"{name}={_quote(value)}\n"
    parts: list[str] = []
    replaced = False
    for binding in _bindings(text):
        original = binding.original.string
        if binding.key == name and not binding.error:
            if replaced:
                continue  # a later duplicate would win when read: drop it
            original, replaced = new_line, True
        parts.append(original)
    if not replaced:
        if parts and not parts[-1].endswith("\n"):
            parts.append("\n")
        parts.append(new_line)
    atomic_write_text(path, "".join(parts), new_mode=PRIVATE_FILE_MODE)
    return path


def remove_env_value(home: Path, name: str) -> Path | None:
    """Drop every ``name=`` line from ``$HERMES_HOME/.env``, written atomically; None if it had none.

    Every other line (comments, other variables, lines dotenv cannot parse) is kept as written.
    """
    from hermes_core.files import PRIVATE_FILE_MODE, atomic_write_text

    path = home / ENV_FILE_NAME
    text = _read_text(home) or ""
    kept = [b.original.string for b in _bindings(text) if b.error or b.key != name]
    if len(kept) == len(_bindings(text)):
        return None
    atomic_write_text(path, "".join(kept), new_mode=PRIVATE_FILE_MODE)
    return path


def export_env_file(home: Path, env: MutableMapping[str, str] | None = None) -> list[str]:
    """Copy the variables of ``$HERMES_HOME/.env`` into ``env`` (default ``os.environ``) where unset.

    Returns the names that were set. A variable already in the environment is never overwritten;
    a refused name (see :func:`refusal_reason`) is skipped with a warning.
    """
    env = os.environ if env is None else env
    text = _read_text(home)
    if not text:
        return []
    values, refused = parse_env_text(text)
    if refused:
        import logging  # deferred: every command reads .env, few ever warn about it

        logger = logging.getLogger("hermes_core.config")
    for name in refused:
        logger.warning(
            "%s: %s was not exported: %s -> remove it from the file", home / ENV_FILE_NAME, name, refusal_reason(name)
        )
    added = []
    for name, value in values.items():
        if name not in env:
            env[name] = value
            added.append(name)
    return added


def get_env_value(name: str, home: Path | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """Return ``name`` from the process environment, else from ``$HERMES_HOME/.env``."""
    env = os.environ if env is None else env
    if name in env:
        return env[name]
    if home is None:  # as config.get_hermes_home resolves it (not imported: config imports this module)
        home = Path(env["HERMES_HOME"]).expanduser() if env.get("HERMES_HOME") else Path.home() / ".hermes"
    return read_env_file(home).get(name)
