"""PluginContext: everything ``register(ctx)`` may do, staged until ``register`` returns.

Registrations are collected first and applied only when ``register(ctx)`` has
returned without an exception, so a plugin that fails half-way leaves nothing
behind: no half-registered plugin, by construction.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core import hookspecs
from hermes_core.context_engine import ContextEngine
from hermes_core.context_extras import HermesAgentRegistrars
from hermes_core.errors import RegistrationError
from hermes_core.hooks import unmet_arguments
from hermes_core.memory.provider import MemoryProvider
from hermes_core.tools import ToolEntry

if TYPE_CHECKING:
    from hermes_core.discovery import PluginCandidate
    from hermes_core.manager import PluginManager
    from hermes_core.manifest import PluginManifest

logger = logging.getLogger("hermes.plugins")

#: Slash commands the host itself answers; plugins cannot take these names.
BUILTIN_SLASH_COMMANDS = frozenset(
    {"help", "new", "reset", "exit", "quit", "title", "compress", "memory", "sessions", "model", "resume", "plugins", "tools"}
)
#: ``hermes <name>`` commands of the host; plugins cannot take these names.
CORE_CLI_COMMANDS = frozenset({"plugins", "config", "sessions", "memory", "chat", "help", "version"})
_SKILL_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_CLI_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


@dataclass
class SlashCommand:
    """An in-session ``/name`` command."""

    name: str
    handler: Callable[[str], Any]
    description: str
    args_hint: str
    plugin: str


@dataclass
class CliCommand:
    """A ``hermes <name>`` subcommand (argparse)."""

    name: str
    help: str
    setup_fn: Callable[[Any], None]
    handler_fn: Callable[[Any], Any] | None
    description: str
    plugin: str


@dataclass
class Skill:
    """A read-only skill, resolvable as ``<plugin>:<name>``."""

    name: str
    path: Path
    description: str
    plugin: str

    @property
    def qualified_name(self) -> str:
        return f"{self.plugin}:{self.name}"


@dataclass
class Registrations:
    """What one plugin registered (or asked to register), in order."""

    tools: list[ToolEntry] = field(default_factory=list)
    hooks: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    #: Callbacks registered for a hook that can never call them: (hook, callback, why).
    uncallable_hooks: list[tuple[str, Callable[..., Any], str]] = field(default_factory=list)
    commands: list[SlashCommand] = field(default_factory=list)
    cli_commands: list[CliCommand] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    memory_providers: list[MemoryProvider] = field(default_factory=list)
    context_engines: list[ContextEngine] = field(default_factory=list)
    middleware: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    auxiliary_tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    session_stores: list[Callable[[Path], Any]] = field(default_factory=list)
    web_search_providers: list[Any] = field(default_factory=list)
    #: Providers of kinds this host lists but does not run: (kind, provider), e.g. ("platform", ...).
    other_providers: list[tuple[str, Any]] = field(default_factory=list)


def _accepted(offered: Any, accepted: Any, required: tuple[str, ...], method: str, base: str) -> Any:
    """``accepted`` (the offered object, or its duck-typed adapter); ``None`` means it was refused: say what it lacks."""
    if accepted is None:
        from hermes_core.duck import missing_members

        if isinstance(offered, type):  # the class itself, however complete: the fix is to call it
            name = offered.__name__
            raise RegistrationError(f"{method} was given the class {name}, not an instance of it -> pass {name}()")
        lacking = missing_members(offered, required)
        raise RegistrationError(
            f"{method} expects a {base} instance (or an object with its members), got {type(offered).__name__} "
            f"(missing {', '.join(lacking)}) -> subclass hermes_core.{base}, or add what is missing"
        )
    return accepted


class PluginContext(HermesAgentRegistrars):
    """The object a plugin's ``register(ctx)`` receives."""

    def __init__(self, candidate: PluginCandidate, manager: PluginManager) -> None:
        self._candidate = candidate
        self._manager = manager
        #: What this plugin has asked to register so far (applied after ``register`` returns).
        self.staged = Registrations()

    # -- who and where --

    @property
    def manifest(self) -> PluginManifest | None:
        return self._candidate.manifest

    @property
    def plugin_id(self) -> str:
        """The plugin's key, as used by config and the CLI."""
        return self._candidate.key

    @property
    def hermes_home(self) -> Path:
        return self._manager.home

    @property
    def config(self) -> Any:
        """The whole merged configuration (read-only)."""
        return self._manager.config

    def get_config(self, key: str, default: Any = None) -> Any:
        """Read ``plugins.entries.<plugin_id>.settings.<key>``."""
        node: Any = self._manager.plugin_entry(self.plugin_id).get("settings") or {}
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    @property
    def logger(self) -> logging.Logger:
        return logging.getLogger(f"hermes.plugins.{self.plugin_id}")

    # -- registrars --

    def register_tool(
        self,
        name: str,
        toolset: str = "",
        schema: dict[str, Any] | None = None,
        handler: Callable[..., Any] | None = None,
        check_fn: Callable[[], bool] | None = None,
        requires_env: list[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        override: bool = False,
        parameters: dict[str, Any] | None = None,
        **_ignored: Any,
    ) -> None:
        """Register a tool; ``handler(args: dict, **kwargs) -> str`` (a JSON string).

        ``schema`` may be replaced by ``parameters=`` (plus ``description=``), as some
        published plugins call it; the toolset then defaults to the plugin's key.

        :raises RegistrationError: invalid schema, or the name is taken (``override=True``
            also needs ``plugins.entries.<key>.allow_tool_override: true``).
        """
        if schema is None and parameters is not None:
            schema = {"name": name, "description": description, "parameters": parameters}
        toolset = toolset or self.plugin_id
        allowed = bool(self._manager.plugin_entry(self.plugin_id).get("allow_tool_override", False))
        entry = self._manager.tools.prepare(
            name,
            toolset,
            schema,
            handler,
            check_fn=check_fn,
            requires_env=requires_env,
            is_async=is_async,
            description=description,
            emoji=emoji,
            override=override,
            override_allowed=allowed,
            plugin=self.plugin_id,
            pending=[t.name for t in self.staged.tools],
            # hermes' own schemas are constants its tests check against JSON Schema; the check would cost every
            # command that loads the builtins ~100 ms of importing jsonschema
            schema_checked=self._candidate.source == "builtin",
        )
        self.staged.tools.append(entry)

    def register(self, name: str, toolset: str = "", schema: dict[str, Any] | None = None, handler: Callable[..., Any] | None = None, **options: Any) -> None:
        """``tools.registry.registry.register``'s spelling of :meth:`register_tool`, for plugins whose
        ``register(registry)`` expects the tool registry rather than a context."""
        self.register_tool(name, toolset, schema, handler, **options)

    def register_hook(self, hook_name: str, callback: Callable[..., Any]) -> None:
        """Add ``callback`` to hook ``hook_name``. Unknown names are kept, with a warning.

        A callback requiring an argument the hook never passes is kept as registered but never
        called: Hermes Agent registers it too, and each of its calls fails there with a
        ``TypeError``; the plugin still loads, with a warning naming the argument.
        """
        unmet = unmet_arguments(hook_name, callback)
        if unmet:
            self.staged.uncallable_hooks.append((hook_name, callback, unmet))
            return
        if hook_name not in hookspecs.HOOK_NAMES and hook_name not in hookspecs.KNOWN_EXTRA_HOOKS:
            import difflib

            close = difflib.get_close_matches(hook_name, hookspecs.HOOK_NAMES, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            logger.warning(
                "plugin '%s' registered a callback for unknown hook %r%s; it is kept in case a later "
                "hermes calls that hook",
                self.plugin_id,
                hook_name,
                hint,
            )
        self.staged.hooks.append((hook_name, callback))

    def register_command(self, name: str, handler: Callable[[str], Any], description: str = "", args_hint: str = "") -> None:
        """Add an in-session slash command ``/name``; ``handler(raw_args) -> str | None``."""
        normalized = name.lower().strip().lstrip("/").replace(" ", "-")
        if not normalized:
            raise RegistrationError(f"slash command name {name!r} is empty")
        if not callable(handler):
            raise RegistrationError(f"slash command /{normalized}: the handler must be callable")
        if normalized in BUILTIN_SLASH_COMMANDS:
            logger.warning("plugin '%s': /%s is a built-in command; the plugin's version is ignored", self.plugin_id, normalized)
            return
        owner = self._manager.commands.get(normalized)
        if owner is not None or any(c.name == normalized for c in self.staged.commands):
            who = owner.plugin if owner else self.plugin_id
            logger.warning("plugin '%s': /%s is already registered by plugin '%s'; ignored", self.plugin_id, normalized, who)
            return
        self.staged.commands.append(SlashCommand(normalized, handler, description, args_hint, self.plugin_id))

    def register_cli_command(
        self,
        name: str,
        help: str,
        setup_fn: Callable[[Any], None],
        handler_fn: Callable[[Any], Any] | None = None,
        description: str = "",
    ) -> None:
        """Add ``hermes <name>``: ``setup_fn(subparser)`` builds its argparse arguments."""
        if not _CLI_NAME.match(name):
            raise RegistrationError(f"CLI command name {name!r} must be lowercase letters, digits and '-'")
        if name in CORE_CLI_COMMANDS:
            raise RegistrationError(f"'hermes {name}' is a core command; choose another name")
        owner = self._manager.cli_commands.get(name)
        if owner is not None:
            raise RegistrationError(f"'hermes {name}' is already provided by plugin '{owner.plugin}'")
        if not callable(setup_fn):
            raise RegistrationError(f"'hermes {name}': setup_fn must be callable")
        self.staged.cli_commands.append(CliCommand(name, help, setup_fn, handler_fn, description, self.plugin_id))

    def register_skill(self, name: str, path: Path | str, description: str = "") -> None:
        """Offer a read-only skill (a SKILL.md file or its directory) as ``<plugin>:<name>``."""
        if not isinstance(name, str) or not _SKILL_NAME.match(name):
            raise RegistrationError(f"skill name {name!r} must match [A-Za-z0-9_-]+")
        skill_path = Path(path)
        if not skill_path.exists():
            raise RegistrationError(f"skill {name!r}: {skill_path} does not exist")
        self.staged.skills.append(Skill(name, skill_path, description, self.plugin_id))

    def register_memory_provider(self, provider: MemoryProvider) -> None:
        """Offer a memory provider; it runs only when ``memory.provider`` selects its name.

        Any object with the contract's required members is accepted (see :mod:`hermes_core.duck`).
        """
        from hermes_core.duck import MEMORY_PROVIDER_REQUIRED, as_memory_provider

        accepted = _accepted(provider, as_memory_provider(provider), MEMORY_PROVIDER_REQUIRED,
                             "register_memory_provider", "MemoryProvider")
        self.staged.memory_providers.append(accepted)

    def register_context_engine(self, engine: ContextEngine) -> None:
        """Offer a context engine; it replaces the built-in one when ``context.engine`` selects it."""
        from hermes_core.duck import CONTEXT_ENGINE_REQUIRED, as_context_engine

        accepted = _accepted(engine, as_context_engine(engine), CONTEXT_ENGINE_REQUIRED,
                             "register_context_engine", "ContextEngine")
        self.staged.context_engines.append(accepted)

    def register_session_store(self, factory: Callable[[Path], Any]) -> None:
        """Offer the store sessions and messages are kept in: ``factory(hermes_home) -> store``.

        One store serves the host; the built-in ``state`` plugin provides it.
        """
        if not callable(factory):
            raise RegistrationError("register_session_store expects a callable factory(hermes_home)")
        if self._manager.session_store_factory is not None or self.staged.session_stores:
            raise RegistrationError("a session store is already registered; only one serves the host")
        self.staged.session_stores.append(factory)

    def register_middleware(self, kind: str, callback: Callable[..., Any]) -> None:
        """Add middleware of ``kind`` (e.g. ``llm_request``); kinds the host does not use are kept."""
        if not callable(callback):
            raise RegistrationError(f"middleware {kind!r}: the callback must be callable")
        self.staged.middleware.append((kind, callback))

    def register_auxiliary_task(
        self,
        key: str,
        *,
        display_name: str,
        description: str,
        defaults: dict[str, Any] | None = None,
    ) -> None:
        """Declare an ``auxiliary.<key>`` model task with default settings."""
        if key in self._manager.auxiliary_tasks or key in self.staged.auxiliary_tasks:
            raise RegistrationError(f"auxiliary task {key!r} is already declared")
        settings = {"provider": "auto", "model": "", "base_url": "", "api_key": "", "timeout": 60, "extra_body": {}}
        settings.update(defaults or {})
        self.staged.auxiliary_tasks[key] = {"display_name": display_name, "description": description, "defaults": settings}

    # -- using the host --

    def dispatch_tool(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run any registered tool, as the agent would; returns its result string."""
        return self._manager.tools.dispatch(tool_name, args, **kwargs)

    def inject_message(self, content: str, role: str = "user") -> bool:
        """Queue a message into the running session; ``False`` when no session accepts one."""
        sink = self._manager.message_sink
        if sink is None:
            return False
        return bool(sink(content, role))
