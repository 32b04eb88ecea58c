"""What the ``hermes memory`` commands share: the built-in memory, and finding, loading and checking providers."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from hermes_core.errors import HermesError
# ``(is_available(), reason)``; a provider whose check raises counts as unavailable. The runtime asks the same.
from hermes_core.memory.provider import availability as provider_available

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager, PluginRecord
    from hermes_core.memory.provider import MemoryProvider


TARGETS = ("memory", "user")


BUILTIN_ONLY = {"", "builtin", "none", "built-in"}
#: Field ``type`` spellings in get_config_schema() -> the kind the value is coerced to.


def plugin_manager() -> PluginManager:
    from hermes_core.manager import PluginManager

    return PluginManager()


def builtin_memory(manager: PluginManager) -> Any:
    """Load the built-in memory plugin (none of the user's, nor the other builtins) and return its provider.

    Showing memory or its status needs nothing else: loading every builtin cost these commands the session
    search and the compressor too.
    """
    record = manager.get("memory")
    if record is not None and record.candidate.source == "builtin":
        manager.load(record.key)
    provider = manager.memory_providers.get("builtin")
    if provider is None:
        raise HermesError("the built-in memory plugin did not load -> run 'hermes plugins list --load' to see why")
    return provider


def memory_live_state(provider: Any, target: str) -> dict[str, Any]:
    """``live_state`` of the built-in provider; an unreadable file raises a HermesError (one line, the fix named)."""
    return provider.live_state(target)


def refuse_undecodable_memory_file(provider: Any, target: str) -> None:
    """An edit rewrites the whole file: bytes that are not UTF-8 would come back as U+FFFD, lost for good."""
    path = provider.path(target)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HermesError(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}), and an edit would "
            "replace what cannot be read -> convert it to UTF-8 (e.g. with iconv) or move it aside; memory was not changed"
        ) from None



def provider_records(manager: PluginManager) -> list[PluginRecord]:
    manager.discover()
    return [r for r in manager.plugins if r.candidate.provides_memory and r.candidate.source != "builtin"]


def disabled_plugin_names(manager: PluginManager) -> list[str]:
    from hermes_core.policy import name_list

    return name_list(manager.config.get("plugins.disabled", [])) or []


def plugin_is_disabled(manager: PluginManager, record: PluginRecord) -> bool:
    return bool({record.key, record.name} & set(disabled_plugin_names(manager)))


def plugin_disabled_error(manager: PluginManager, record: PluginRecord) -> str:
    """Why a disabled provider plugin will not run, and the command that turns it back on.

    The fix edits plugins.disabled itself: 'hermes plugins enable' would also select the provider.
    """
    remaining = [n for n in disabled_plugin_names(manager) if n not in {record.key, record.name}]
    command = f"hermes config set plugins.disabled {shlex.quote(json.dumps(remaining))}"
    return f"memory provider plugin '{record.key}' is disabled in plugins.disabled ({manager.home / 'config.yaml'}) -> remove it from that list: {command}"


def provider_loadable(manager: PluginManager, record: PluginRecord) -> bool:
    return record.error is None and not plugin_is_disabled(manager, record)


def first_provider_of(record: PluginRecord) -> MemoryProvider | None:
    providers = record.registrations.memory_providers if record.loaded and record.registrations else []
    return providers[0] if providers else None


def owner_of_provider(manager: PluginManager, records: list[PluginRecord], name: str) -> tuple[PluginRecord, MemoryProvider] | None:
    """The plugin that registers a provider called ``name``: each candidate is loaded, kept if it matches.

    Disabled and refused plugins are not loaded. Only one external provider may be registered at
    a time, so a plugin that does not match is unloaded before the next is tried.
    """
    for record in records:
        if not provider_loadable(manager, record):
            continue
        manager.load(record.key)
        provider = first_provider_of(record)
        if provider is not None and provider.name == name:
            return record, provider
        manager.unload(record.key)
    return None


def standalone_owner(manager: PluginManager, name: str) -> tuple[PluginRecord, MemoryProvider] | None:
    """An enabled plugin of another kind that offers the provider ``name`` selects (a standalone plugin may register
    one, and the runtime runs it when ``memory.provider`` names the provider or the plugin), loaded; ``None`` when
    there is none. Plugins that do not offer it are unloaded again, so they hold no provider slot."""
    manager.discover()
    for record in manager.plugins:
        if record.candidate.provides_memory or record.candidate.source == "builtin" or not record.enabled or record.error is not None:
            continue
        was_loaded = record.loaded
        manager.load(record.key)
        offered = record.registrations.memory_providers if record.loaded and record.registrations else []
        provider = next((p for p in offered if p.name == name or name in (record.key, record.name)), None)
        if provider is not None:
            return record, provider
        if not was_loaded and record.loaded:
            manager.unload(record.key)
    return None


def described_miss(manager: PluginManager, choice: str) -> tuple[str, bool]:
    """Why no provider plugin answers to ``choice`` when a plugin of that name or directory exists ("" otherwise),
    and whether that reason carries the whole fix (the plugin's own name to use), so no other fix follows it."""
    manager.discover()
    for record in manager.plugins:
        directory = record.candidate.directory
        if record.key == choice or record.name == choice:
            if record.error is not None:
                return f"; plugin '{record.key}' is there but cannot be read: {record.error}", False
            if not record.candidate.provides_memory and not record.enabled:
                return (f"; plugin '{record.key}' is there but not enabled (if it offers a memory provider, enable it: "
                        f"hermes plugins enable {record.key}; a plugin that is only a memory provider says 'kind: exclusive')"), False
            if not record.candidate.provides_memory:
                return (f"; plugin '{record.key}' is there but is a {record.candidate.kind} plugin that registers no memory "
                        "provider (a memory provider's plugin.yaml says 'kind: exclusive')"), False
        elif directory is not None and directory.name == choice and record.candidate.provides_memory and record.error is None:
            return f"; the plugin in {directory} is named {record.name!r} in its plugin.yaml -> use that name", True
    return "", False


def provider_config_schema(provider: MemoryProvider) -> list[dict[str, Any]]:
    try:
        schema = provider.get_config_schema()
    except Exception as exc:  # provider code
        raise HermesError(f"memory provider '{provider.name}': get_config_schema() raised {type(exc).__name__}: {exc} -> report it to the provider's author") from exc
    if not isinstance(schema, list) or not all(isinstance(f, dict) and isinstance(f.get("key"), str) and f["key"] for f in schema):
        raise HermesError(
            f"memory provider '{provider.name}': get_config_schema() must return a list of fields with a 'key' -> "
            "the provider's author must fix get_config_schema()"
        )
    return schema


def missing_secrets(manager: PluginManager, provider: MemoryProvider, *, available: bool = False, reason: str = "") -> list[str]:
    """Secret fields whose env_var is set neither in the environment nor in $HERMES_HOME/.env.

    A secret marked ``required: False`` (a key only one mode needs) counts only while the provider
    is unavailable, and, when the provider says why (*reason*), only if the reason names it: a
    provider that works without it, or lacks something else (Mem0's local mode without a model),
    is not missing the key.
    """
    from hermes_core.config import get_env_value

    try:
        schema = provider_config_schema(provider)
    except HermesError:
        return []
    names = [
        f["env_var"] for f in schema
        if f.get("secret") and isinstance(f.get("env_var"), str) and f["env_var"]
        and (f.get("required") is not False or not available and (not reason or f["env_var"] in reason))
    ]
    return [name for name in names if not get_env_value(name, manager.home, manager.env)]


def missing_required_env(manager: PluginManager, record: PluginRecord, already: list[str], *, available: bool) -> list[str]:
    """``already`` and then, for an unavailable provider plugin, the variables its manifest lists under
    ``requires_env`` that are set neither in the environment nor in $HERMES_HOME/.env (a provider often says only
    'not available' when one is missing). A standalone plugin's variables may be for its other parts: not named."""
    from hermes_core.config import get_env_value

    if available or not record.candidate.provides_memory:
        return already
    manifest = record.candidate.manifest
    wanted = [env.name for env in (manifest.requires_env if manifest else [])]
    return already + [name for name in wanted if name not in already and not get_env_value(name, manager.home, manager.env)]


def provider_connection_problem(provider: MemoryProvider) -> str:
    """The provider's own connection check (``check_connection()``, when it offers one): ``""`` when it answers."""
    check = getattr(provider, "check_connection", None)
    if not callable(check):
        return ""
    try:
        found = check()
    except Exception as exc:  # provider code: a check that crashes did not show the service answers
        return f"check_connection() raised {type(exc).__name__}: {exc}"
    return str(found) if found else ""


def provider_problems(provider: MemoryProvider) -> list[str]:
    """What the provider says needs the user's attention (e.g. writes that failed for good)."""
    try:
        found = provider.problems() if callable(getattr(provider, "problems", None)) else []
    except Exception as exc:  # provider code: its failure is itself worth reporting
        return [f"problems() raised {type(exc).__name__}: {exc}"]
    return [str(p) for p in found] if isinstance(found, list) else []


def selection_for(records: list[PluginRecord], record: PluginRecord) -> str:
    """The value of memory.provider that makes the load policy pick ``record``: its name, or its key if the name is shared."""
    from hermes_core.policy import selected_by

    others = [r for r in records if r is not record]
    if not any(selected_by(r.candidate, record.name) for r in others):
        return record.name
    return record.key


def find_setup_target(manager: PluginManager, records: list[PluginRecord], choice: str,
                       unknown_fix: str = "name one of them, or 'builtin'") -> tuple[PluginRecord, MemoryProvider]:
    """The provider plugin ``choice`` names (plugin key or name first, else a provider name), loaded.

    ``unknown_fix`` ends the error for a name nothing provides (it differs when the name came from config).
    """
    from hermes_core.policy import selected_by

    named = [r for r in records if selected_by(r.candidate, choice)]
    if named:
        record = next((r for r in named if r.key == choice), named[-1])  # as the policy does: an exact key, else the last source
        if plugin_is_disabled(manager, record):
            raise HermesError(plugin_disabled_error(manager, record))
        if record.error is not None:
            raise HermesError(f"memory provider plugin '{record.key}' cannot load: {record.error} -> fix it, then run this again")
        manager.load(record.key)
        if not record.loaded:
            raise HermesError(f"memory provider plugin '{record.key}' failed to load: {record.error} -> 'hermes plugins info {record.key}' shows why; fix it, then run this again")
        provider = first_provider_of(record)
        if provider is None:
            raise HermesError(f"plugin '{record.key}' loaded but registered no memory provider -> check its register(ctx)")
        return record, provider
    owner = owner_of_provider(manager, records, choice) or standalone_owner(manager, choice)
    if owner is not None:
        return owner
    found = ", ".join(sorted(r.name + (" (disabled)" if plugin_is_disabled(manager, r) else "") for r in records)) or "none"
    why, whole_fix = described_miss(manager, choice)
    if whole_fix:
        raise HermesError(f"no memory provider named {choice!r}{why}")
    raise HermesError(f"no memory provider named {choice!r}{why}; found: {found} -> {unknown_fix}")
