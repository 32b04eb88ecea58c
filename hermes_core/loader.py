"""Import one discovered plugin and run its ``register(ctx)``; undo everything if any step fails."""

from __future__ import annotations

import contextlib
import difflib
import importlib
import importlib.util
import inspect
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core import hookspecs, interrupts
from hermes_core.context import PluginContext, Registrations
from hermes_core.errors import PluginLoadError
from hermes_core.hooks import unknown_hookimpls, wrapper_hookimpls
from hermes_core.memory.provider import MemoryProvider

if TYPE_CHECKING:
    from hermes_core.discovery import EntryPointRef, PluginCandidate
    from hermes_core.manager import PluginManager

#: Directory plugins import as ``hermes_plugins.<slug>`` under this synthetic package.
NAMESPACE_PACKAGE = "hermes_plugins"
#: Memory providers in ``$HERMES_HOME/plugins/`` import as ``_hermes_user_memory.<directory>``, the
#: name Hermes Agent's memory loader gives them: published providers test ``__name__`` for it,
#: or import their siblings relative to it.
USER_MEMORY_PACKAGE = "_hermes_user_memory"
_SYNTHETIC_PACKAGES = (NAMESPACE_PACKAGE, USER_MEMORY_PACKAGE)


def module_slug(key: str) -> str:
    """``image_gen/open-ai`` -> ``image_gen__open_ai``: a valid module name for a plugin key."""
    return key.replace("/", "__").replace("-", "_").replace(".", "_")


def _ensure_namespace_package(namespace: str = NAMESPACE_PACKAGE) -> None:
    if namespace not in sys.modules:
        package = types.ModuleType(namespace)
        package.__path__ = []  # a package with no files; children are added one by one
        package.__package__ = namespace
        sys.modules[namespace] = package


def directory_module_name(candidate: PluginCandidate) -> str:
    """The module name a directory plugin imports as (see ``USER_MEMORY_PACKAGE``)."""
    assert candidate.directory is not None
    if candidate.kind == "exclusive" and candidate.source == "user":
        return f"{USER_MEMORY_PACKAGE}.{candidate.directory.name}"
    return f"{NAMESPACE_PACKAGE}.{module_slug(candidate.key)}"


def _forget_modules(name: str) -> None:
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]


def import_directory_plugin(candidate: PluginCandidate) -> types.ModuleType:
    """Import a directory plugin as a submodule of a synthetic package, so relative imports work."""
    name = directory_module_name(candidate)
    _ensure_namespace_package(name.partition(".")[0])
    _forget_modules(name)  # a reload after a fix must not see the broken module
    init_file = candidate.directory / "__init__.py"
    spec = importlib.util.spec_from_file_location(name, init_file, submodule_search_locations=[str(candidate.directory)])
    if spec is None or spec.loader is None:
        raise PluginLoadError(f"cannot create an import spec for {init_file}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        _forget_modules(name)
        raise
    return module


def import_entry_point_plugin(candidate: PluginCandidate, ref: EntryPointRef | None = None) -> tuple[types.ModuleType, Any]:
    """Import the module an entry point names; return it and the object after ``:``, if any."""
    ref = ref or candidate.entry_point
    assert ref is not None
    module = importlib.import_module(ref.module)
    target: Any = module
    for part in filter(None, ref.attr.split(".")):
        target = getattr(target, part)
    return module, target


def _find_register(module: types.ModuleType, target: Any) -> Any:
    if inspect.isclass(target):
        return _class_register(target)
    if target is not module and callable(target):
        return target
    return getattr(target, "register", None)


def _class_register(cls: type) -> Any:
    """An entry point naming a provider or engine class (``pkg.provider:VaultProvider``): register an instance."""

    def register(ctx: PluginContext) -> None:
        from hermes_core.duck import as_context_engine, as_memory_provider

        instance = cls()
        if as_memory_provider(instance) is not None:
            ctx.register_memory_provider(instance)
        elif as_context_engine(instance) is not None:
            ctx.register_context_engine(instance)
        else:
            raise PluginLoadError(f"the entry point names class {cls.__name__}, which is neither a memory provider nor a context engine")

    return register


def _has_hookimpls(module: types.ModuleType) -> bool:
    marker = f"{hookspecs.PROJECT_NAME}_impl"
    return any(hasattr(getattr(module, attr, None), marker) for attr in dir(module))


def _fallback_provider(module: types.ModuleType) -> MemoryProvider | None:
    """The reference host's fallback for memory plugins without ``register``: the first provider class.

    A class counts when it subclasses this host's base or has the contract's members (duck typing).
    """
    from hermes_core.duck import MEMORY_PROVIDER_REQUIRED, as_memory_provider

    for value in vars(module).values():
        if not inspect.isclass(value) or inspect.isabstract(value):
            continue
        if issubclass(value, MemoryProvider) or all(hasattr(value, m) for m in MEMORY_PROVIDER_REQUIRED):
            try:
                provider = as_memory_provider(value())
            except Exception:
                continue
            if provider is not None:
                return provider
    return None


def _unusable_provider_class(module: types.ModuleType) -> str:
    """Why the module's own ``MemoryProvider`` subclass could not stand in for ``register`` (see
    :func:`_fallback_provider`), or ``""`` when it has none."""
    for value in vars(module).values():
        if not (inspect.isclass(value) and issubclass(value, MemoryProvider) and value.__module__ == module.__name__):
            continue
        if inspect.isabstract(value):
            missing = ", ".join(sorted(getattr(value, "__abstractmethods__", ())))
            return (f"the memory provider class {value.__name__} has no register(ctx) to offer it and cannot be made as it "
                    f"is: it does not define {missing} -> define {missing}, or add def register(ctx): ctx.register_memory_provider(...)")
        try:
            value()
        except Exception as exc:  # noqa: BLE001 - the plugin's constructor: its failure is the reason to report
            return (f"the memory provider class {value.__name__} has no register(ctx) to offer it, and {value.__name__}() "
                    f"failed ({type(exc).__name__}: {exc}) -> give every constructor argument a default, or add "
                    f"def register(ctx): ctx.register_memory_provider({value.__name__}(...))")
    return ""


def _describe_unknown_hooks(names: list[str]) -> str:
    parts = []
    for name in names:
        close = difflib.get_close_matches(name, (*hookspecs.HOOK_NAMES, *sorted(hookspecs.KNOWN_EXTRA_HOOKS)), n=1)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return (
        f"@hookimpl function(s) {', '.join(parts)} match no hermes hook -> rename them to one of "
        f"{', '.join(hookspecs.HOOK_NAMES)} or of the other hosts' hooks hermes knows (docs/hooks.md), "
        "or use ctx.register_hook for a name of your own"
    )


def load_plugin(candidate: PluginCandidate, manager: PluginManager, parts: tuple[str, ...] = ("general",)) -> tuple[types.ModuleType, Registrations]:
    """Import ``candidate`` and collect its registrations (what it prints goes to stderr); nothing is applied yet.

    stdout belongs to the host: a plugin that prints while it imports or registers would
    otherwise break ``--json`` output, ``hermes chat -q`` answers and hosts speaking a protocol there.
    """
    with contextlib.redirect_stdout(sys.stderr), interrupts.watch() as interrupt:
        return _load_plugin(candidate, manager, parts, interrupt)


def _load_plugin(candidate: PluginCandidate, manager: PluginManager, parts: tuple[str, ...],
                 interrupt: interrupts.Watch) -> tuple[types.ModuleType, Registrations]:
    """Import ``candidate`` and collect its registrations; nothing is applied yet.

    Any exception of the plugin's, ``BaseException`` included (``SystemExit``, ``GeneratorExit``, a
    ``KeyboardInterrupt`` it raised itself), is its failure; only the user's Ctrl-C goes on up.

    :raises PluginLoadError: with the cause worded for the user; the original
        exception is chained for ``--debug``.
    """
    module_name = ""
    try:
        if candidate.directory is not None:
            module = import_directory_plugin(candidate)
            module_name, target = module.__name__, module
        else:
            general = "general" in parts or candidate.provider_entry_point is None
            module, target = import_entry_point_plugin(candidate, None if general else candidate.provider_entry_point)
    except PluginLoadError:
        raise
    except BaseException as exc:  # SystemExit in a plugin's import must not end the host either
        if interrupt.by_user(exc):
            raise
        raise PluginLoadError(_import_failure(exc, candidate)) from exc

    try:
        wrappers = wrapper_hookimpls(module, manager.hooks.pm)
        if wrappers:
            raise PluginLoadError(
                f"@hookimpl wrappers are not supported ({', '.join(wrappers)}) -> use plain @hookimpl functions"
            )
        unknown = unknown_hookimpls(module, manager.hooks.pm)
        if unknown:
            raise PluginLoadError(_describe_unknown_hooks(unknown))
        register = _find_register(module, target)
        context = PluginContext(candidate, manager)
        if register is None:
            provider = _fallback_provider(module) if candidate.kind == "exclusive" else None
            if provider is not None:
                context.register_memory_provider(provider)
            elif not _has_hookimpls(module):
                unusable = _unusable_provider_class(module) if candidate.kind == "exclusive" else ""
                raise PluginLoadError(unusable or "the module has no register(ctx) function and no @hookimpl functions -> add def register(ctx): ...")
        else:
            _run_register(register, context, interrupt)
        if candidate.provider_entry_point is not None and candidate.directory is None:
            _load_provider_part(candidate, parts, register, context, interrupt)
        return module, context.staged
    except BaseException:
        if module_name:
            _forget_modules(module_name)
        raise


def _import_failure(exc: BaseException, candidate: PluginCandidate) -> str:
    """Why the import failed, worded for the plugin's author.

    Published plugins often import their own code in two ways, ``try: from .pkg import x``
    ``except ImportError: from pkg import x``: when the first fails for a reason of its own
    (a missing dependency, a name a module lacks), the second fails only because the first
    did, and its error would hide the real cause. That first failure is named first.
    """
    from hermes_core.aliases import describe_missing_module

    first = exc.__context__ if isinstance(exc, ImportError) and not exc.__suppress_context__ else None
    cause_exc = first if isinstance(first, ImportError) else exc
    why = describe_missing_module(cause_exc)
    said = f": {cause_exc}" if str(cause_exc) else ""
    cause = f"import failed: {type(cause_exc).__name__}{said}{raised_at(cause_exc, candidate)}"
    if cause_exc is not exc:
        cause += f"; the fallback import then failed too ({type(exc).__name__}: {exc}{raised_at(exc, candidate)})"
    return cause + (f"; {why}" if why else "")


def _run_register(register: Any, context: PluginContext, interrupt: interrupts.Watch) -> None:
    try:
        register(context)
    except PluginLoadError:
        raise
    except BaseException as exc:  # sys.exit(), GeneratorExit, ... in register must not end the host
        if interrupt.by_user(exc):
            raise
        where = raised_at(exc, context._candidate)
        said = f": {exc}" if str(exc) else ""  # KeyboardInterrupt() and GeneratorExit() usually say nothing
        raise PluginLoadError(f"register(ctx) raised {type(exc).__name__}{said}{where}{_unset_env_hint(context)}") from exc


_HERMES_CORE_DIR = str(Path(__file__).resolve().parent)


def _plugin_root(candidate: PluginCandidate) -> Path | None:
    """The directory holding the plugin's own code: its directory, or its entry point's top-level package."""
    if candidate.directory is not None:
        return candidate.directory
    ref = candidate.entry_point
    if ref is None:
        return None
    from hermes_core.plugin_locations import locate_module_dir

    return locate_module_dir(ref.module.partition(".")[0].partition(":")[0])


def raised_at(exc: BaseException, candidate: PluginCandidate) -> str:
    """`` (at FILE:LINE)``: the line of the plugin's own code that raised ``exc``, so its author need not rerun with --debug.

    The innermost frame inside the plugin's directory; without one (a single-module entry point),
    the first frame of code that is not hermes' own, which is where hermes called into the plugin.
    """
    import traceback

    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        return f" (at {exc.filename}:{exc.lineno})"
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if not frame.filename.startswith("<")]
    root = _plugin_root(candidate)
    if root is not None:
        prefix = str(root).rstrip("/") + "/"
        own = [frame for frame in frames if frame.filename.startswith(prefix)]
        if own:
            return f" (at {own[-1].filename}:{own[-1].lineno})"
    outside = [frame for frame in frames if not frame.filename.startswith(_HERMES_CORE_DIR + "/")]
    return f" (at {outside[0].filename}:{outside[0].lineno})" if outside else ""


def _unset_env_hint(context: PluginContext) -> str:
    """Name the variables the plugin declares in ``requires_env`` that are not set: the likely cause."""
    manifest = context._candidate.manifest
    env = context._manager.env
    unset = [e.name for e in (manifest.requires_env if manifest else []) if not env.get(e.name)]
    if not unset:
        return ""
    names = ", ".join(unset)
    return f" -> the plugin requires {names} (its requires_env), which is not set: set it in the environment or in $HERMES_HOME/.env"


def _load_provider_part(candidate: PluginCandidate, parts: tuple[str, ...], first_register: Any, context: PluginContext,
                        interrupt: interrupts.Watch) -> None:
    """The memory-provider part of a plugin with two parts (see ``plugin_identity``).

    Loaded alone (only ``memory.provider`` selects the plugin), it keeps only what Hermes
    Agent's memory loader keeps: the memory providers. Loaded with the general part, its
    ``register`` runs too unless it is the same function, which then ran once.
    """
    staged = context.staged
    if "general" not in parts:
        context.staged = Registrations(memory_providers=list(staged.memory_providers))
        return
    if "provider" not in parts:
        return
    try:
        module, target = import_entry_point_plugin(candidate, candidate.provider_entry_point)
    except BaseException as exc:
        if interrupt.by_user(exc):
            raise
        raise PluginLoadError(f"import of its memory provider part failed: {type(exc).__name__}: {exc}") from exc
    register = _find_register(module, target)
    if register is None or register is first_register:
        return
    # Its own context: like Hermes Agent's memory loader, only the providers are taken from it.
    provider_context = PluginContext(candidate, context._manager)
    _run_register(register, provider_context, interrupt)
    staged.memory_providers.extend(provider_context.staged.memory_providers)


def forget_plugin_module(module: types.ModuleType | None) -> None:
    """Drop a directory plugin's modules from ``sys.modules`` (entry-point packages stay)."""
    if module is not None and module.__name__.startswith(tuple(f"{namespace}." for namespace in _SYNTHETIC_PACKAGES)):
        _forget_modules(module.__name__)
