"""``plugins.memory.config_schema`` for plugins written for Hermes Agent: declared provider settings.

A provider describes its settings as data (:class:`ProviderConfigSchema` in a
``CONFIG_SCHEMA`` constant); :func:`schema_fields` turns that into the field list
``hermes memory setup`` walks (the shape of ``MemoryProvider.get_config_schema``).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path
from typing import Any

KIND_TEXT = "text"
KIND_SELECT = "select"
KIND_SECRET = "secret"
KIND_BOOL = "bool"
KIND_NUMBER = "number"
KIND_JSON = "json"
STORAGE_FLAT_JSON = "flat_json"
STORAGE_HONCHO_HOST_BLOCK = "honcho_host_block"


@dataclass(frozen=True)
class ProviderFieldOption:
    value: str
    label: str
    description: str = ""


@dataclass(frozen=True)
class ProviderField:
    """One setting: stored in the provider's config, or (``secret``) in .env under ``env_key``."""

    key: str
    label: str
    kind: str = KIND_TEXT
    default: str = ""
    description: str = ""
    placeholder: str = ""
    options: tuple[ProviderFieldOption, ...] = ()
    env_key: str | None = None
    aliases: tuple[str, ...] = ()
    env_fallbacks: tuple[str, ...] = ()
    inline: bool = False
    group: str = ""
    info: str = ""
    scope: str = "host"
    when: dict[str, str] | None = None

    @property
    def is_secret(self) -> bool:
        return self.kind == KIND_SECRET

    def allowed_values(self) -> set[str]:
        return {option.value for option in self.options}


@dataclass(frozen=True)
class ProviderConfigSchema:
    name: str
    label: str
    storage: str = STORAGE_FLAT_JSON
    docs_url: str = ""
    fields: tuple[ProviderField, ...] = dataclass_field(default_factory=tuple)

    def inline_fields(self) -> tuple[ProviderField, ...]:
        return tuple(f for f in self.fields if f.inline)


def schema_fields(schema: ProviderConfigSchema) -> list[dict[str, Any]]:
    """The schema as ``get_config_schema()`` fields: key, description, secret, env_var, default, choices."""
    fields = []
    for item in schema.fields:
        entry: dict[str, Any] = {"key": item.key, "description": item.description or item.label, "default": item.default, "secret": item.is_secret}
        if item.is_secret:
            entry["env_var"] = item.env_key or item.key.upper()
        if item.options:
            entry["choices"] = [option.value for option in item.options]
        if item.when:
            entry["when"] = dict(item.when)
        fields.append(entry)
    return fields


def get_provider_config_schema(name: str) -> ProviderConfigSchema | None:
    """``CONFIG_SCHEMA`` from the ``config_schema.py`` beside provider ``name``'s code, if it has one."""
    from hermes_core.compat.plugins_memory import find_provider_dir

    directory = find_provider_dir(name)
    path = Path(directory, "config_schema.py") if directory else None
    if path is None or not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"_hermes_memory_config_schema.{name}", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "CONFIG_SCHEMA", None)
