"""Where the PostgreSQL URL comes from: ``HERMES_STATE_URL`` (environment or .env), or ``state.url``.

A password belongs in the environment or ``$HERMES_HOME/.env`` (mode 0600), never in
config.yaml, which is shared, copied and shown: a ``state.url`` that carries one
literally is refused with the fix; ``state.url: ${HERMES_STATE_URL}`` is fine.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from hermes_core.config import get_env_value, read_user_config

from ..errors import StateStoreError
from .connection import check_url, redact_url

ENV_NAME = "HERMES_STATE_URL"


def _literal_password(raw: object) -> bool:
    if not isinstance(raw, str) or "${" in raw:
        return False
    try:
        return bool(urlsplit(raw).password)
    except ValueError:
        return False


def resolve_url(hermes_home: Path, config: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The database URL, checked; errors name the setting and the fix, never the password."""
    from_env = get_env_value(ENV_NAME, hermes_home, env)
    if from_env:
        return check_url(from_env)
    raw = (read_user_config(hermes_home).get("state") or {}).get("url")
    if _literal_password(raw):
        raise StateStoreError(f"state.url in {hermes_home / 'config.yaml'} holds a password ({redact_url(raw)}) "
                              f"-> move the URL to {ENV_NAME} in {hermes_home / '.env'} "
                              f"(hermes config set {ENV_NAME} ...) and remove state.url")
    state = config.get("state") if isinstance(config.get("state"), Mapping) else {}
    return check_url(state.get("url"))
