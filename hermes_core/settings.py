"""The settings hermes and its builtin plugins read: their types and allowed ranges, in one table.

``hermes config set`` reads a value by its setting's type (``model.name 3.10`` stays the
text ``"3.10"``), and the same table checks config.yaml when it is loaded, so a value out
of range is reported with its key, the value and what is allowed, instead of being
silently clamped or breaking a later command. Keys not listed (plugins' own settings
under ``plugins.entries``) are free-form.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hermes_core.errors import ConfigError

TEXT, BOOL, INT, NUMBER, NAMES, MAPPING, TEXT_OR_MAPPING = "text", "bool", "int", "number", "names", "mapping", "text or mapping"
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True)
class Setting:
    """One known key: its type and, for numbers and choices, what is allowed."""

    key: str
    kind: str
    minimum: float | None = None
    maximum: float | None = None
    #: ``minimum`` itself is not allowed (``threshold`` must be more than 0)
    above_minimum: bool = False
    choices: tuple[str, ...] = ()
    unit: str = ""
    #: a value to show in the fix (the default, where there is one)
    sample: str = ""
    #: the value used when config.yaml does not set the key, for keys whose default lives in the code that reads
    #: them (a builtin plugin, the model client) rather than in DEFAULT_CONFIG; None: no default (or in DEFAULT_CONFIG).
    #: tests/test_config_defaults.py checks each one against the code that applies it.
    default: Any = None

    def allowed(self) -> str:
        """What the setting accepts, in words."""
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind in (INT, NUMBER):
            noun = "a whole number" if self.kind == INT else "a number"
            low = "" if self.minimum is None else f"{'more than' if self.above_minimum else 'at least'} {self.minimum:g}"
            high = "" if self.maximum is None else f"at most {self.maximum:g}"
            if low and high and not self.above_minimum:
                text = f"{noun} from {self.minimum:g} to {self.maximum:g}"
            else:
                text = " ".join(part for part in (noun, ", ".join(p for p in (low, high) if p)) if part)
            return f"{text} ({self.unit})" if self.unit else text
        return {
            TEXT: "text",
            BOOL: "true or false",
            NAMES: "a list of names",
            MAPPING: "a mapping of settings",
            TEXT_OR_MAPPING: "text, or a mapping of settings",
        }[self.kind]

    def example(self) -> str:
        if self.sample:
            return self.sample
        if self.choices:
            return self.choices[0]
        return {TEXT: "NAME", BOOL: "true", NAMES: "'[a, b]'", INT: f"{self.minimum or 0:g}", NUMBER: f"{self.minimum or 0:g}"}.get(
            self.kind, ""
        )


_SETTINGS: tuple[Setting, ...] = (
    Setting("plugins", MAPPING),
    Setting("plugins.enabled", NAMES),
    Setting("plugins.disabled", NAMES),
    Setting("plugins.hook_callback_timeout", NUMBER, 0, 600, unit="seconds; 0 turns the guard off", sample="30"),
    Setting("plugins.entries", MAPPING),
    Setting("plugins.compat", BOOL),
    Setting("model", TEXT_OR_MAPPING),
    Setting("model.name", TEXT),
    Setting("model.provider", TEXT),
    Setting("model.base_url", TEXT),
    Setting("model.api_key", TEXT),
    Setting("model.timeout", NUMBER, 0, unit="seconds", sample="60", default=60.0),
    Setting("model.max_retries", INT, 0, sample="3", default=3),
    Setting("model.context_length", INT, 1, unit="tokens", sample="128000"),
    Setting("model.pricing", MAPPING),
    Setting("memory", MAPPING),
    Setting("memory.provider", TEXT),
    Setting("memory.memory_char_limit", INT, 1, unit="characters", sample="2200"),
    Setting("memory.user_char_limit", INT, 1, unit="characters", sample="1375"),
    Setting("context", MAPPING),
    Setting("context.engine", TEXT),
    Setting("compression", MAPPING),
    Setting("compression.enabled", BOOL, default=True),
    Setting("compression.threshold", NUMBER, 0, 1, above_minimum=True, sample="0.75", default=0.75),
    Setting("compression.protect_first_n", INT, 0, sample="3", default=3),
    Setting("compression.protect_last_n", INT, 0, sample="6", default=6),
    Setting("compression.target_ratio", NUMBER, 0, 1, above_minimum=True, sample="0.2", default=0.2),
    Setting("auxiliary", MAPPING),
    Setting("prompt_caching", MAPPING),
    Setting("prompt_caching.enabled", BOOL),
    Setting("prompt_caching.cache_ttl", TEXT, choices=("5m", "1h")),
    Setting("prompt_caching.strategy", TEXT, choices=("system_and_3", "turn_anchored"), default="system_and_3"),
    *(
        setting
        for section in ("compression", "session_search")
        for setting in (
            Setting(f"auxiliary.{section}", MAPPING),
            Setting(f"auxiliary.{section}.base_url", TEXT),
            Setting(f"auxiliary.{section}.model", TEXT),
            Setting(f"auxiliary.{section}.api_key", TEXT),
            Setting(f"auxiliary.{section}.timeout", NUMBER, 0, above_minimum=True, unit="seconds", sample="60", default=60.0),
        )
    ),
    Setting("auxiliary.session_search.max_concurrency", INT, 1, sample="3", default=3),
    Setting("auxiliary.session_search.max_chars", INT, 1000, unit="characters", sample="100000", default=100_000),
)

SETTINGS: dict[str, Setting] = {setting.key: setting for setting in _SETTINGS}


def _refuse(setting: Setting, value: Any, where: str) -> ConfigError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    command = f"hermes config set {setting.key} {setting.example()}"
    quoted = f'"{command}"' if "'" in command else f"'{command}'"
    fix = f"e.g. {quoted}" if setting.example() else f"set one of its keys, e.g. '{setting.key}.<name>'"
    if where and not setting.example():  # in config.yaml: 'config set' of a key below it is refused until it is gone
        fix = f"'hermes config unset {setting.key}' (its defaults apply again), then {fix}"
    return ConfigError(f"{where}{setting.key} is {shown}, but it must be {setting.allowed()} -> {fix}")


def check_value(setting: Setting, value: Any, where: str = "") -> Any:
    """``value`` if it fits ``setting`` (a single name given for a list becomes a list of one), else ConfigError."""
    kind = setting.kind
    if value is None:  # 'key:' with nothing after it: not set, the default applies
        return value
    if kind == BOOL:
        ok = isinstance(value, bool)
    elif kind in (INT, NUMBER):
        number = _number_in_text(value, kind) if isinstance(value, str) else value
        ok = (
            not isinstance(number, bool)
            and isinstance(number, (int, float) if kind == NUMBER else int)
            and math.isfinite(number)
            and (setting.minimum is None or number > setting.minimum or (number == setting.minimum and not setting.above_minimum))
            and (setting.maximum is None or number <= setting.maximum)
        )
    elif kind == NAMES:
        if isinstance(value, str):
            return [value] if value else []
        ok = isinstance(value, list) and all(isinstance(item, str) for item in value)
    elif kind == MAPPING:
        ok = isinstance(value, dict)
    elif kind == TEXT_OR_MAPPING:
        ok = isinstance(value, (str, dict))
    else:
        ok = isinstance(value, str) and (not setting.choices or value in setting.choices)
    if not ok:
        raise _refuse(setting, value, where)
    return value


def _number_in_text(text: str, kind: str) -> Any:
    """The number a text value holds (``${TIMEOUT:-60}`` expands to text), or ``None``."""
    try:
        return int(text.strip()) if kind == INT else float(text.strip())
    except ValueError:
        return None


def value_from_text(key: str, text: str) -> Any:
    """Read the command-line ``text`` for ``key`` by its setting's type; unknown keys are read as YAML."""
    setting = SETTINGS.get(key)
    if setting is None or setting.kind in (NAMES, MAPPING, TEXT_OR_MAPPING):
        value = parse_yaml_value(text)
        if setting is not None and setting.kind == TEXT_OR_MAPPING and not isinstance(value, dict):
            value = text
        return value if setting is None else check_value(setting, value)
    if setting.kind == TEXT:
        # 'null' clears a text setting; anything else is the text itself ('3.10', 'no', '0123')
        return "" if text.strip() in ("null", "~") else check_value(setting, text)
    if setting.kind == BOOL:
        word = text.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise _refuse(setting, text, "")
    try:
        number: float = int(text.strip()) if setting.kind == INT else float(text.strip())
    except ValueError:
        raise _refuse(setting, text, "") from None
    if setting.kind == NUMBER and float(number).is_integer() and "." not in text and "e" not in text.lower():
        number = int(number)
    return check_value(setting, number)


def parse_yaml_value(text: str) -> Any:
    """A command-line value read as YAML (numbers, booleans, lists keep their type); bad YAML stays text."""
    if not text.strip():
        return ""
    from hermes_core.yaml_limits import YamlLimitError, describe_yaml_error, load_yaml
    import yaml

    try:
        return load_yaml(text)
    except YamlLimitError as exc:
        raise ConfigError(f"the value is {describe_yaml_error(exc)} -> give a smaller value") from None
    except yaml.YAMLError as exc:
        stripped = text.strip()
        # Text that opens a flow mapping or list was meant as one: stored as a string, the mistake would surface only
        # when a plugin reads a string where it wants a mapping.
        if stripped[0] in "{[":
            kind, example = ("mapping", "{a: 1, b: [1, 2]}") if stripped[0] == "{" else ("list", "[1, 2]")
            raise ConfigError(
                f"{text!r} opens a YAML {kind} but is not valid YAML: {getattr(exc, 'problem', None) or exc} "
                f"-> close it (e.g. '{example}'), or quote it to store the text itself: '\"{stripped}\"'"
            ) from None
        return text


def check_tree(data: Mapping[str, Any], where: str = "", prefix: str = "") -> None:
    """Check every known key in ``data`` (a config.yaml mapping, or the value set at ``prefix``)."""
    stack: list[tuple[str, Any]] = [(prefix, data)]
    while stack:
        key, value = stack.pop()
        setting = SETTINGS.get(key)
        if setting is not None:
            check_value(setting, value, where)
        if isinstance(value, dict) and (not key or setting is not None):
            # below a known mapping: only known keys are checked (plugins' own settings are free-form)
            stack.extend((f"{key}.{child}" if key else str(child), item) for child, item in value.items())


def code_defaults() -> dict[str, Any]:
    """The defaults that live in the code reading them, as a nested mapping (``config show`` merges it under the
    file; DEFAULT_CONFIG's own defaults are merged by :func:`hermes_core.config.load_config`)."""
    tree: dict[str, Any] = {}
    for setting in _SETTINGS:
        if setting.default is None:
            continue
        node = tree
        *parents, leaf = setting.key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = setting.default
    return tree
