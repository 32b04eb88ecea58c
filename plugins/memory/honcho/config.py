"""honcho.json: which file, which host block, and every key resolved with its source.

Files, first existing wins: ``$HERMES_HOME/honcho.json``, ``~/.hermes/honcho.json``,
``~/.honcho/config.json``. Per key: host block (``hosts.<host>``) > root > environment > default.
The host is ``hermes`` for the default profile and ``hermes.<profile>`` for ``hermes -p <profile>``
(``HERMES_HONCHO_HOST`` overrides). Values are checked here, once, so a wrong type or an unknown
choice is one error naming the file, the key path, the value and the fix.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REASONING_LEVELS = ("minimal", "low", "medium", "high", "max")
RECALL_MODES = ("hybrid", "context", "tools")
SESSION_STRATEGIES = ("per-directory", "per-session", "per-repo", "global")
ENV_KEYS = {"apiKey": "HONCHO_API_KEY", "baseUrl": "HONCHO_BASE_URL", "environment": "HONCHO_ENVIRONMENT"}
HOST_ENV = "HERMES_HONCHO_HOST"
DEFAULT_HOST = "hermes"


class HonchoConfigError(ValueError):
    """A honcho.json that cannot be used; the message names file, place and fix."""


@dataclass(frozen=True)
class Key:
    """One setting: its kind, default, allowed choices and what it means."""

    kind: str  # str | url | bool | int | enum | levels | write | object | sessions
    default: Any = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    help: str = ""


KEYS: dict[str, Key] = {
    "apiKey": Key("str", None, help="API key (app.honcho.dev); falls back to HONCHO_API_KEY"),
    "baseUrl": Key("url", None, help="base URL of a self-hosted Honcho; local URLs need no API key"),
    "environment": Key("enum", "production", ("production", "local"), help="SDK environment"),
    "enabled": Key("bool", None, help="master switch; on when apiKey or baseUrl is set"),
    "workspace": Key("str", None, help="workspace ID shared by every profile that names it (default: host key)"),
    "peerName": Key("str", None, help="the user's peer ID"),
    "aiPeer": Key("str", None, help="this profile's AI peer ID (default: host key)"),
    "recallMode": Key("enum", "hybrid", RECALL_MODES, help="hybrid: inject + tools; context: inject only; tools: tools only"),
    "observationMode": Key("enum", "directional", ("directional", "unified"), help="observation preset"),
    "observation": Key("object", None, help="per-peer observeMe/observeOthers; overrides observationMode"),
    "writeFrequency": Key("write", "async", ("async", "turn", "session"), help="async, turn, session or every N turns"),
    "saveMessages": Key("bool", True, help="send conversation messages to Honcho"),
    "sessionStrategy": Key("enum", "per-directory", SESSION_STRATEGIES, help="how the Honcho session is named"),
    "sessionPeerPrefix": Key("bool", False, help="prefix session names with the user's peer name"),
    "sessions": Key("sessions", {}, help="directory -> session name"),
    "dialecticDepth": Key("int", 1, minimum=1, help="dialectic passes per firing (1-3, clamped)"),
    "dialecticDepthLevels": Key("levels", None, REASONING_LEVELS, help="reasoning level per pass"),
    "dialecticReasoningLevel": Key("enum", "low", REASONING_LEVELS, help="base reasoning level of .chat()"),
    "dialecticDynamic": Key("bool", True, help="let honcho_reasoning choose its reasoning level"),
    "dialecticMaxChars": Key("int", 600, minimum=1, help="max chars of dialectic result injected"),
    "dialecticMaxInputChars": Key("int", 10000, minimum=1, help="max chars of a dialectic query"),
    "contextTokens": Key("int", None, minimum=1, help="token budget of context() and of the injected block"),
    "messageMaxChars": Key("int", 25000, minimum=100, help="longer messages are sent in [continued] chunks"),
    "contextCadence": Key("int", 1, minimum=1, help="turns between base-context refreshes"),
    "dialecticCadence": Key("int", 1, minimum=1, help="turns between dialectic firings"),
    "injectionFrequency": Key("enum", "every-turn", ("every-turn", "first-turn"), help="inject every turn or the first only"),
    "reasoningLevelCap": Key("enum", None, REASONING_LEVELS[:4], help="hard cap on any reasoning level"),
    "timeout": Key("int", 8, minimum=1, help="seconds one Honcho call may take (hermes extension)"),
}
#: Keys other Honcho integrations write; accepted and ignored rather than reported as typos.
FOREIGN_KEYS = frozenset({"hosts", "reasoningHeuristic", "pinUserPeer", "userPeerAliases", "runtimePeerPrefix", "linkedHosts", "memoryMode", "$schema"})
_LEGACY = {"recallMode": {"auto": "hybrid"}}
_LOCAL_HOSTS = re.compile(r"^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|::1|[^.]+\.local|host\.docker\.internal)$", re.IGNORECASE)


def default_profile_home(hermes_home: Path) -> Path:
    """The home of the default profile: ``<root>`` for a profile home ``<root>/profiles/NAME``, else the home itself."""
    return hermes_home.parent.parent if active_profile(hermes_home) else hermes_home


def config_paths(hermes_home: Path, user_home: Path | None = None) -> list[Path]:
    """Where honcho.json is looked for, in order: the profile's own, the default profile's (where host
    blocks of every profile accumulate, also under a custom root), ``~/.hermes``'s, ``~/.honcho``'s."""
    user_home = user_home or Path.home()
    paths = [hermes_home / "honcho.json", default_profile_home(hermes_home) / "honcho.json", user_home / ".hermes" / "honcho.json", user_home / ".honcho" / "config.json"]
    return list(dict.fromkeys(paths))


def active_profile(hermes_home: Path) -> str | None:
    """The profile of a home made by ``hermes -p NAME`` (``<base>/profiles/NAME``), else ``None``."""
    return hermes_home.name if hermes_home.parent.name == "profiles" else None


def host_key(hermes_home: Path, env: Mapping[str, str] | None = None, profile: str | None = None) -> str:
    env = os.environ if env is None else env
    override = (env.get(HOST_ENV) or "").strip()
    if override:
        return override
    profile = profile or active_profile(hermes_home)
    return f"{DEFAULT_HOST}.{profile}" if profile and profile != "default" else DEFAULT_HOST


def block_name(hosts: Mapping[str, Any], host: str) -> str:
    """The key of ``host``'s block: ``hermes.<profile>``, or ``hermes_<profile>`` (newer Honcho tools) when only that exists."""
    underscored = host.replace(".", "_", 1)
    return underscored if host not in hosts and underscored in hosts else host


def is_local_url(url: str | None) -> bool:
    host = urlsplit(url or "").hostname or ""
    return bool(host) and bool(_LOCAL_HOSTS.match(host))


def sanitize_id(value: str) -> str:
    """An ID Honcho accepts: letters, digits, '_' and '-' only (others become '-')."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", value.strip())[:100].strip("-") or "default"


def read_config_file(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; a syntax error names line and column."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Notepad's "UTF-8 with BOM") is not JSON's
    except UnicodeDecodeError as exc:
        raise HonchoConfigError(f"{path}: not UTF-8 text ({exc.reason}) -> save it as UTF-8 JSON") from None
    except OSError as exc:
        raise HonchoConfigError(f"{path}: cannot be read ({exc.strerror}) -> check its permissions") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HonchoConfigError(f"{path}: line {exc.lineno}, column {exc.colno}: {exc.msg} -> fix the JSON (a trailing comma or a missing quote is the usual cause)") from None
    if not isinstance(data, dict):
        raise HonchoConfigError(f"{path}: the top level must be a JSON object {{...}}, not {type(data).__name__} -> wrap the settings in {{ }}")
    return data


@dataclass
class HonchoConfig:
    """Resolved settings: ``values[key]`` and ``sources[key]`` ("host block hosts.X", "root", "env NAME", "default")."""

    path: Path | None
    host: str
    values: dict[str, Any]
    sources: dict[str, str]
    warnings: list[str] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    @property
    def api_key(self) -> str | None:
        return self.values["apiKey"]

    @property
    def is_local(self) -> bool:
        """A local server (a local baseUrl, or environment "local" without one): no API key needed."""
        url = self.values["baseUrl"]
        return is_local_url(url) if url else self.values["environment"] == "local"

    def redacted(self) -> dict[str, Any]:
        """Values safe to print: the API key is reduced to its last four characters."""
        shown = dict(self.values)
        key = shown.get("apiKey")
        if key:
            shown["apiKey"] = "***" + key[-4:] if len(key) > 12 else "***"
        return shown

    def redact(self, text: str) -> str:
        """``text`` with the API key replaced, for logs and error messages."""
        key = self.values.get("apiKey")
        return text.replace(key, "***") if key and len(key) >= 4 else text


def _where(path: Path | None, layer: str, key: str) -> str:
    return f"{path or '(no file)'}: {layer}{key}"


def _check(key: str, value: Any, where: str) -> Any:
    """``value`` of ``key`` as the resolved type; an error names where it was found and the fix."""
    spec = KEYS[key]
    value = _LEGACY.get(key, {}).get(value, value) if isinstance(value, str) else value
    expected = {
        "str": "a string", "url": "an http:// or https:// URL, e.g. http://localhost:8000", "bool": "true or false", "int": "a whole number", "object": "an object",
        "sessions": "an object of directory -> session name", "levels": f"a list of {', '.join(REASONING_LEVELS)}",
        "enum": "one of " + ", ".join(f'"{c}"' for c in spec.choices),
        "write": 'one of "async", "turn", "session" or a whole number of turns >= 1',
    }[spec.kind]

    def bad(detail: str = "") -> HonchoConfigError:
        return HonchoConfigError(f"{where} = {json.dumps(value)} is not valid{detail}: it must be {expected} -> edit the file or run 'hermes honcho status' to see the resolved settings")

    if value is None:
        return None
    if spec.kind == "str":
        if not isinstance(value, str):
            raise bad()
        return value.strip() or None
    if spec.kind == "url":
        parts = urlsplit(value.strip()) if isinstance(value, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise bad()
        return value.strip().rstrip("/")
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise bad()
        return value
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad()
        if spec.minimum is not None and value < spec.minimum:
            raise bad(f" (at least {spec.minimum})")
        return value
    if spec.kind == "enum":
        if value not in spec.choices:
            raise bad()
        return value
    if spec.kind == "write":
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
        if value in spec.choices:
            return value
        raise bad()
    if spec.kind == "levels":
        if not isinstance(value, list) or not value or any(v not in REASONING_LEVELS for v in value):
            raise bad()
        return list(value)
    if spec.kind == "sessions":
        if not isinstance(value, dict) or any(not isinstance(v, str) or not v.strip() for v in value.values()):
            raise bad()
        return dict(value)
    if not isinstance(value, dict):  # object: observation
        raise bad()
    return _check_observation(value, where)


def _check_observation(value: dict[str, Any], where: str) -> dict[str, dict[str, bool]]:
    result: dict[str, dict[str, bool]] = {}
    for peer, flags in value.items():
        if peer not in ("user", "ai") or not isinstance(flags, dict):
            raise HonchoConfigError(f"{where}.{peer} is not valid: observation has only 'user' and 'ai' objects -> e.g. \"user\": {{\"observeMe\": true, \"observeOthers\": true}}")
        for flag, setting in flags.items():
            if flag not in ("observeMe", "observeOthers") or not isinstance(setting, bool):
                raise HonchoConfigError(f"{where}.{peer}.{flag} = {json.dumps(setting)} is not valid: only observeMe and observeOthers, each true or false -> fix the file")
        result[peer] = {"observeMe": flags.get("observeMe", True), "observeOthers": flags.get("observeOthers", True)}
    return result


def load_config(hermes_home: Path, env: Mapping[str, str] | None = None, *, profile: str | None = None, user_home: Path | None = None) -> HonchoConfig:
    """Resolve every key for the active host; raises :class:`HonchoConfigError` for a bad file."""
    env = os.environ if env is None else env
    host = host_key(hermes_home, env, profile)
    path = next((p for p in config_paths(hermes_home, user_home) if p.is_file()), None)
    data = read_config_file(path) if path else {}
    hosts = data.get("hosts", {})
    if not isinstance(hosts, dict):
        raise HonchoConfigError(f"{path}: hosts must be an object of host name -> settings, not {type(hosts).__name__} -> e.g. \"hosts\": {{\"hermes\": {{...}}}}")
    host = block_name(hosts, host)
    block = hosts.get(host) or {}
    if not isinstance(block, dict):
        raise HonchoConfigError(f"{path}: hosts.{host} must be an object of settings -> e.g. \"{host}\": {{\"aiPeer\": \"{host}\"}}")
    warnings = [
        f"{path}: {prefix}{key} is not a Honcho setting of hermes; it is ignored (settings: 'hermes honcho status')"
        for prefix, layer in (("", data), (f"hosts.{host}.", block))
        for key in layer
        if key not in KEYS and key not in FOREIGN_KEYS
    ]
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, spec in KEYS.items():
        if key in block and block[key] is not None:
            values[key], sources[key] = _check(key, block[key], _where(path, f"hosts.{host}.", key)), f"host block hosts.{host}"
        elif key in data and data[key] is not None:
            values[key], sources[key] = _check(key, data[key], _where(path, "", key)), "root"
        elif key in ENV_KEYS and (env.get(ENV_KEYS[key]) or "").strip():
            values[key] = _check(key, env[ENV_KEYS[key]].strip(), f"environment variable {ENV_KEYS[key]}")
            sources[key] = f"env {ENV_KEYS[key]}"
        else:
            values[key], sources[key] = spec.default, "default"
    if values["enabled"] is None:
        values["enabled"] = bool(values["apiKey"] or values["baseUrl"])
        sources["enabled"] = "auto (apiKey or baseUrl set)" if values["enabled"] else "auto (no apiKey or baseUrl)"
    for key in ("workspace", "aiPeer"):
        if values[key] is None:
            values[key], sources[key] = sanitize_id(host), "default (host key)"
    values["dialecticDepth"] = max(1, min(3, values["dialecticDepth"]))
    return HonchoConfig(path, host, values, sources, warnings)


def writable_path(hermes_home: Path, user_home: Path | None = None) -> Path:
    """The file the CLI edits: the one in use, else ``$HERMES_HOME/honcho.json``."""
    return next((p for p in config_paths(hermes_home, user_home) if p.is_file()), hermes_home / "honcho.json")
