"""PluginManager: discover -> validate -> policy -> load -> list, for every source alike."""

from __future__ import annotations

import logging
import os
import types
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from functools import cached_property
from typing import TYPE_CHECKING

from hermes_core._version import __version__
from hermes_core.config import Config, env_flag, get_hermes_home, load_config
from hermes_core.discovery import DiscoveryResult, discover_plugins
from hermes_core.active_parts import BUILTIN_MEMORY_PROVIDER, ActiveParts
from hermes_core.errors import PluginLoadError
from hermes_core.plugin_candidate import command_word, normal_name
from hermes_core.plugin_record import PluginRecord
from hermes_core.policy import decide, enabled_parts
from hermes_core.tools import ToolRegistry
from hermes_core.tracing import debug_enabled, trace

if TYPE_CHECKING:
    # Listing plugins never needs these; they load with the first plugin (see `hooks`, `load`).
    from hermes_core.context import CliCommand, Registrations, SlashCommand, Skill
    from hermes_core.context_engine import ContextEngine
    from hermes_core.hooks import CallbackHolder, HookDispatcher
    from hermes_core.memory.provider import MemoryProvider

logger = logging.getLogger("hermes.plugins")

__all__ = ["PluginManager", "PluginRecord", "BUILTIN_MEMORY_PROVIDER"]


class PluginManager(ActiveParts):
    """Finds, checks, loads and lists plugins; owns the hook relay and the registries.

    :param home: ``$HERMES_HOME`` to use (default: from the environment).
    :param config: a loaded configuration (default: read from ``home``).
    :param env: environment mapping to read flags from (default: ``os.environ``).
    :param cwd: directory whose ``.hermes/plugins`` is the project source.
    :param strict: re-raise plugin failures (default: ``HERMES_STRICT_PLUGINS``).
    """

    def __init__(
        self,
        home: Path | None = None,
        *,
        config: Config | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        strict: bool | None = None,
    ) -> None:
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.home = get_hermes_home(self.env) if home is None else Path(home)
        self.config = load_config(self.home, env=self.env) if config is None else config
        self.cwd = cwd
        self.strict = env_flag("HERMES_STRICT_PLUGINS", self.env) if strict is None else strict
        self.tools = ToolRegistry()
        self.commands: dict[str, SlashCommand] = {}
        self.cli_commands: dict[str, CliCommand] = {}
        self.skills: dict[str, Skill] = {}
        self.memory_providers: dict[str, MemoryProvider] = {}
        self.context_engines: dict[str, ContextEngine] = {}
        self._engine_owners: dict[str, str] = {}
        self.middleware: dict[str, list[Callable[..., Any]]] = {}
        self.auxiliary_tasks: dict[str, dict[str, Any]] = {}
        #: Web search backends by name (``web.search_backend`` selects one).
        self.web_search_providers: dict[str, Any] = {}
        #: ``factory(hermes_home) -> store`` registered by the plugin that keeps sessions (the builtin ``state``).
        self.session_store_factory: Callable[[Path], Any] | None = None
        #: A runtime sets this to accept ``ctx.inject_message``; ``None`` means no session.
        self.message_sink: Callable[[str, str], bool] | None = None
        self._records: dict[str, PluginRecord] = {}
        self._discovery: DiscoveryResult | None = None
        self._env_exported = False

    @cached_property
    def hooks(self) -> HookDispatcher:
        """The hook relay and dispatcher (created on first use: listing plugins needs no pluggy)."""
        from hermes_core.hooks import HookDispatcher

        return HookDispatcher(strict=self.strict, timeout=_timeout_setting(self.config))

    # -- discovery and policy (no plugin code runs) --

    def discover(self, *, force: bool = False) -> list[PluginRecord]:
        """Find every plugin and decide which may load; imports nothing. Idempotent."""
        if self._discovery is not None and not force:
            return self.plugins
        if force:
            for key in [k for k, r in self._records.items() if r.loaded]:
                self.unload(key)
        self._discovery = discover_plugins(self.home, env=self.env, cwd=self.cwd, running_version=__version__)
        self._records = {}
        for candidate in self._discovery.candidates:
            decision = decide(candidate, self.config, self.env)
            record = PluginRecord(candidate, decision.enabled, decision.reason)
            if candidate.problems:
                record.error = "; ".join(str(p) for p in candidate.problems)
            self._records[candidate.key] = record
            if debug_enabled():
                state = "enabled" if decision.enabled else "skipped"
                trace(f"policy: {candidate.source} plugin '{candidate.key}' {state}: {decision.reason}")
        self._resolve_memory_selection()
        return self.plugins

    def _resolve_memory_selection(self) -> None:
        """Keep one external memory provider plugin: the last source wins, the others are told why."""
        # A plugin with two parts counts here only when memory.provider selects its provider part.
        chosen = [
            r
            for r in self._records.values()
            if r.enabled
            and r.candidate.source != "builtin"
            and (r.candidate.kind == "exclusive" or "provider" in enabled_parts(r.candidate, self.config))
        ]
        for loser in chosen[:-1]:
            loser.enabled = False
            loser.reason = (
                f"memory provider '{loser.name}' is shadowed by '{chosen[-1].key}' ({chosen[-1].candidate.source}); "
                "only one external memory provider runs (memory.provider)"
            )

    @property
    def home_path(self) -> Path:
        """``home`` under the name Hermes Agent's manager uses (plugins read it through ``ctx._manager``)."""
        return self.home

    @property
    def _discovered(self) -> bool:
        return self._discovery is not None

    @property
    def plugins(self) -> list[PluginRecord]:
        """Every discovered plugin, in discovery order."""
        return list(self._records.values())

    @property
    def clashes(self) -> list[str]:
        return list(self._discovery.clashes) if self._discovery else []

    def get(self, key_or_name: str) -> PluginRecord | None:
        """The record whose key (or, failing that, name) is ``key_or_name``."""
        self.discover()
        key_or_name = normal_name(key_or_name)
        if key_or_name in self._records:
            return self._records[key_or_name]
        by_name = [r for r in self._records.values() if r.name == key_or_name]
        return by_name[0] if len(by_name) == 1 else None

    # -- loading --

    def load_all(self) -> list[PluginRecord]:
        """Discover, then load every enabled plugin in discovery order; failures are recorded."""
        self.discover()
        for record in self.plugins:
            if not record.enabled or record.loaded:
                continue
            if record.error is None or self.strict:
                self.load(record.key)
            else:  # refused before import (unsafe path, bad manifest, requires_hermes): say so, once per load
                logger.warning(
                    "plugin '%s' (%s, %s) is enabled but was not loaded: %s",
                    record.key,
                    record.candidate.source,
                    record.candidate.path,
                    record.error,
                )
                if debug_enabled():
                    trace(f"load: plugin '{record.key}' refused: {record.error}")
        return self.plugins

    def load_builtins(self) -> list[PluginRecord]:
        """Discover, then load only the builtin plugins: what a command needs that must keep
        working whatever the user's own plugins do (the session store, the built-in memory)."""
        self.discover()
        return [self.load(record.key) for record in self.plugins if record.candidate.source == "builtin"]

    def load(self, key: str, *, for_command: bool = False) -> PluginRecord:
        """Load one plugin (even if policy would skip it); a failure is recorded, or raised when strict.

        ``for_command``: loaded only to run its own CLI command (an unselected memory provider's
        setup): the memory providers it offers are not registered, so none competes with the selected one.
        """
        record = self.get(key)
        if record is None:
            raise PluginLoadError(f"no plugin with key {key!r}")
        if record.loaded:
            return record
        if record.candidate.problems:
            record.error = "; ".join(str(p) for p in record.candidate.problems)
            if self.strict:
                raise PluginLoadError(record.error)  # each problem names the plugin, its source and its file
            return record
        from hermes_core.live import loading
        from hermes_core.loader import load_plugin

        self._export_env_file()
        try:
            with loading(self, record.key):
                module, staged = load_plugin(record.candidate, self, enabled_parts(record.candidate, self.config))
            if for_command:
                staged.memory_providers[:] = []
            self._commit(record, module, staged)
        except BaseException as exc:
            self._drop_direct_tools(key)
            if not isinstance(exc, Exception):  # the user's Ctrl-C (the loader made a plugin's own a failure): undone, then stop
                raise
            record.error, record.loaded = str(exc) if isinstance(exc, PluginLoadError) else f"{type(exc).__name__}: {exc}", False
            if self.strict:  # raised, not skipped: no "it was skipped" line
                raise PluginLoadError(f"plugin '{record.key}' ({record.candidate.source}, {record.candidate.path}) failed to load: {record.error}") from exc
            remedy = (
                "fix the setting or file it names (builtins cannot be disabled)"
                if record.candidate.source == "builtin"
                else f"disable it with 'hermes plugins disable {command_word(record.key)}'"
            )
            cause, _, own_fix = record.error.partition(" -> ")  # a cause that names its own fix keeps it first
            logger.warning(
                "plugin '%s' (%s, %s) failed to load: %s -> %s",
                record.key, record.candidate.source, record.candidate.path, cause,
                f"{own_fix}; until then it is skipped, or {remedy}" if own_fix else f"it was skipped; {remedy}",
                exc_info=exc if debug_enabled() else None,
            )
            return record
        if debug_enabled():
            trace(f"load: plugin '{record.key}' loaded: hooks={self.hooks_of(record)} tools={sorted(t.name for t in staged.tools)}")
        return record

    def _export_env_file(self) -> None:
        """Put ``$HERMES_HOME/.env`` into the process environment before plugin code runs.

        Plugins (and providers written for Hermes Agent) read their keys from ``os.environ``;
        a variable already set in the environment wins. Only the real process environment is
        filled: a manager given its own ``env`` mapping is left alone.
        """
        if self._env_exported or self.env is not os.environ:
            return
        self._env_exported = True
        from hermes_core.config import export_env_file

        export_env_file(self.home)

    def _commit(self, record: PluginRecord, module: types.ModuleType, staged: Registrations) -> None:
        """Apply staged registrations; the only step that can still fail (pluggy's checks) runs first."""
        from hermes_core.hooks import CallbackHolder
        from hermes_core.hooks.signatures import UNMET_ARGUMENTS_FIX
        from hermes_core.loader import forget_plugin_module

        key = record.key
        holders: list[CallbackHolder] = []
        try:
            if _has_own_hookimpls(module, self.hooks.pm):
                self.hooks.pm.register(module, name=key)
            for index, (hook_name, callback) in enumerate(staged.hooks):
                holder = CallbackHolder(hook_name, callback, key)
                self.hooks.pm.register(holder, name=f"{key}::{hook_name}::{index}")
                holders.append(holder)
        except Exception as exc:
            for holder in holders:
                self.hooks.pm.unregister(holder)
            if self.hooks.pm.get_plugin(key) is not None:
                self.hooks.pm.unregister(name=key)
            forget_plugin_module(module)
            from hermes_core.hooks.signatures import hookimpl_refusal

            raise PluginLoadError(hookimpl_refusal(module, self.hooks.pm, exc)) from exc
        for entry in staged.tools:
            replaced = self.tools.add(entry)
            if replaced is not None:
                record.replaced_tools[entry.name] = replaced
        for command in staged.commands:
            self.commands[command.name] = command
        for cli_command in staged.cli_commands:
            self.cli_commands[cli_command.name] = cli_command
        for skill in staged.skills:
            self.skills[skill.qualified_name] = skill
        for kind, callback in staged.middleware:
            self.middleware.setdefault(kind, []).append(callback)
        self.auxiliary_tasks.update(staged.auxiliary_tasks)
        for web_provider in staged.web_search_providers:
            self.web_search_providers.setdefault(str(web_provider.name), web_provider)
        if staged.session_stores:
            self.session_store_factory = staged.session_stores[0]
        kept_providers = [p for p in staged.memory_providers if self._accept_memory_provider(p, record, kept_earlier=staged.memory_providers)]
        staged.memory_providers[:] = kept_providers
        kept_engines = [e for e in staged.context_engines if self._accept_context_engine(e, record)]
        staged.context_engines[:] = kept_engines
        record.registrations = staged
        record.module = module
        record.holders = holders
        for _hook, _callback, why in staged.uncallable_hooks:
            message = f"plugin '{key}': {why}; it stays registered but is never called (in Hermes Agent every call of it fails) -> {UNMET_ARGUMENTS_FIX}"
            if message not in record.candidate.warnings:
                record.candidate.warnings.append(message)
                logger.warning("%s", message)
        record.loaded = True
        record.error = None

    def _accept_context_engine(self, engine: ContextEngine, record: PluginRecord) -> bool:
        """Builtin engines always register; of the others only the first, since one replaces the built-in."""
        if engine.name in self.context_engines:
            logger.warning("plugin '%s': context engine %r is already registered; ignored", record.key, engine.name)
            return False
        if record.candidate.source != "builtin":
            existing = next((name for name, owner in self._engine_owners.items() if owner != "builtin"), None)
            if existing is not None:
                logger.warning(
                    "plugin '%s': context engine %r ignored: %r is already registered and only one replaces the built-in",
                    record.key,
                    engine.name,
                    existing,
                )
                return False
        self.context_engines[engine.name] = engine
        self._engine_owners[engine.name] = record.candidate.source
        return True

    def unload(self, key: str) -> None:
        """Remove everything plugin ``key`` registered and forget its modules."""
        from hermes_core.loader import forget_plugin_module

        record = self._records.get(key)
        if record is None or not record.loaded or record.registrations is None:
            return
        staged = record.registrations
        for holder in record.holders:
            self.hooks.pm.unregister(holder)
        if self.hooks.pm.get_plugin(key) is not None:
            self.hooks.pm.unregister(name=key)
        for entry in staged.tools:
            if self.tools.get_entry(entry.name) is entry:
                self.tools.remove(entry.name, restore=record.replaced_tools.get(entry.name))
        for command in staged.commands:
            self.commands.pop(command.name, None)
        for cli_command in staged.cli_commands:
            self.cli_commands.pop(cli_command.name, None)
        for skill in staged.skills:
            self.skills.pop(skill.qualified_name, None)
        for kind, callback in staged.middleware:
            if callback in self.middleware.get(kind, []):
                self.middleware[kind].remove(callback)
        for task in staged.auxiliary_tasks:
            self.auxiliary_tasks.pop(task, None)
        for web_provider in staged.web_search_providers:
            if self.web_search_providers.get(str(web_provider.name)) is web_provider:
                del self.web_search_providers[str(web_provider.name)]
        self._drop_direct_tools(key)
        if staged.session_stores and self.session_store_factory is staged.session_stores[0]:
            self.session_store_factory = None
        for provider in staged.memory_providers:
            self.memory_providers.pop(provider.name, None)
        for engine in staged.context_engines:
            self.context_engines.pop(engine.name, None)
            self._engine_owners.pop(engine.name, None)
        forget_plugin_module(record.module)
        record.registrations = None
        record.holders = []
        record.replaced_tools = {}
        record.module = None
        record.loaded = False

    def _drop_direct_tools(self, key: str) -> None:
        """Remove tools plugin ``key`` put straight into the registry (``tools.registry.registry.register``)."""
        for name in self.tools.names():
            entry = self.tools.get_entry(name)
            if entry is not None and entry.plugin == key:
                self.tools.remove(name)


def _timeout_setting(config: Config) -> float:
    value = config.get("plugins.hook_callback_timeout", 30)
    try:
        return float(value)
    except (TypeError, ValueError):
        logger.warning("plugins.hook_callback_timeout must be a number of seconds, got %r; using 30", value)
        return 30.0


def _has_own_hookimpls(module: types.ModuleType, pm: Any) -> bool:
    return any(pm.parse_hookimpl_opts(module, attr) for attr in dir(module))
