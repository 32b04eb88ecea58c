"""Hook dispatch: per-callback isolation, kwargs filtering, return semantics, timeouts, tracing.

Plugins put their callbacks into one pluggy relay (module-level ``@hookimpl``
functions and ``ctx.register_hook`` callbacks alike). pluggy owns registration,
spec checking and tryfirst/trylast; this module owns the call loop, because
pluggy's loop stops at the first exception and the host must not.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pluggy

from hermes_core import hookspecs
from hermes_core.async_bridge import resolve_awaitable
from hermes_core.errors import HookCallbackTimeout, RegistrationError
from hermes_core.tracing import debug_enabled, trace

logger = logging.getLogger("hermes.plugins")

#: How long a callback that timed out is skipped before it gets another chance.
TIMEOUT_SUPPRESSION_SECONDS = 60.0
#: Threads left behind by one callback's timeouts before it is skipped for good.
MAX_ABANDONED_WORKERS_PER_CALLBACK = 3
MAX_HOOK_CALLBACK_TIMEOUT = 600.0


# --- pluggy side -------------------------------------------------------------------


def callback_argnames(function: Callable[..., Any]) -> tuple[str, ...] | None:
    """The keyword names ``function`` accepts, or ``None`` when it takes ``**kwargs``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    names: list[str] = []
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            names.append(parameter.name)
    return tuple(names)


def required_argnames(function: Callable[..., Any]) -> tuple[str, ...]:
    """Parameters of ``function`` without a default (which a call must supply)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return ()
    return tuple(
        p.name
        for p in signature.parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    )


class CallbackHolder:
    """Carries one ``ctx.register_hook`` callback into the pluggy relay as a plugin object.

    pluggy sees a ``**kwargs`` shim (so its spec check accepts any signature);
    the dispatcher calls :attr:`callback` directly with the kwargs it declares.
    """

    def __init__(self, hook_name: str, callback: Callable[..., Any], plugin_key: str) -> None:
        self.hermes_hook_name = hook_name
        self.hermes_plugin_key = plugin_key
        self.callback = callback

        def relay(**kwargs: Any) -> Any:  # only used if someone calls through pluggy directly
            names = callback_argnames(callback)
            return callback(**(kwargs if names is None else {k: kwargs[k] for k in names if k in kwargs}))

        self.__dict__[hook_name] = relay


class HermesPluginManager(pluggy.PluginManager):
    """The pluggy manager of the relay; it knows ``CallbackHolder`` and reports every change."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        super().__init__(hookspecs.PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self._on_change = on_change

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if isinstance(plugin, CallbackHolder):
            if name != plugin.hermes_hook_name:
                return None
            # optionalhook: a name this host does not know is kept for forward compatibility.
            return {"tryfirst": False, "trylast": False, "wrapper": False, "hookwrapper": False, "optionalhook": True, "specname": None}
        return super().parse_hookimpl_opts(plugin, name)

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        try:
            return super().register(plugin, name)
        finally:
            self._on_change()

    def unregister(self, plugin: Any = None, name: str | None = None) -> Any:
        try:
            return super().unregister(plugin, name)
        finally:
            self._on_change()


def unknown_hookimpls(plugin_module: Any, pm: HermesPluginManager) -> list[str]:
    """Names of ``@hookimpl`` functions in ``plugin_module`` that match no hook (likely typos)."""
    unknown = []
    for attr in dir(plugin_module):
        opts = pm.parse_hookimpl_opts(plugin_module, attr)
        if opts is None or opts.get("optionalhook"):
            continue
        hook_name = opts.get("specname") or attr
        caller = getattr(pm.hook, hook_name, None)
        if caller is None or not caller.has_spec():
            unknown.append(hook_name)
    return unknown


def wrapper_hookimpls(plugin_module: Any, pm: HermesPluginManager) -> list[str]:
    """Names of ``@hookimpl(wrapper=True)`` / ``hookwrapper`` functions, which hermes does not run."""
    found = []
    for attr in dir(plugin_module):
        opts = pm.parse_hookimpl_opts(plugin_module, attr)
        if opts and (opts.get("wrapper") or opts.get("hookwrapper")):
            found.append(attr)
    return found


def check_callback_signature(hook_name: str, callback: Callable[..., Any]) -> None:
    """Refuse a ``register_hook`` callback that requires an argument the hook never passes."""
    if not callable(callback):
        raise RegistrationError(f"hook {hook_name!r}: the callback must be callable, got {type(callback).__name__}")
    spec = getattr(hookspecs, hook_name, None)
    if spec is None or hook_name not in hookspecs.HOOK_NAMES:
        return
    offered = set(inspect.signature(spec).parameters) | {"telemetry_schema_version"}
    missing = [name for name in required_argnames(callback) if name not in offered]
    if missing:
        raise RegistrationError(
            f"hook {hook_name!r}: the callback {getattr(callback, '__qualname__', callback)!r} requires "
            f"{', '.join(map(repr, missing))}, which the hook never passes -> give them defaults or accept **kwargs "
            f"(the hook passes: {', '.join(sorted(offered))})"
        )


# --- the call loop ---------------------------------------------------------------------


@dataclass(eq=False)
class HookCallback:
    """One callback of one hook, ready to call."""

    plugin: str
    hook: str
    function: Callable[..., Any]
    #: Keyword names the callback accepts; ``None`` means all (``**kwargs``).
    argnames: tuple[str, ...] | None
    suppressed_until: float = 0.0
    abandoned_workers: int = 0

    def invoke(self, kwargs: dict[str, Any]) -> Any:
        names = self.argnames
        if names is None:
            result = self.function(**kwargs)
        else:
            result = self.function(**{k: kwargs[k] for k in names if k in kwargs})
        if inspect.isawaitable(result):
            result = resolve_awaitable(result)
        return result


@dataclass
class HookOutcome:
    """What one callback did during one hook call."""

    callback: HookCallback
    value: Any = None
    error: BaseException | None = None
    timed_out: bool = False
    duration_ms: float = 0.0

    @property
    def plugin(self) -> str:
        return self.callback.plugin

    @property
    def failed(self) -> bool:
        return self.error is not None or self.timed_out


@dataclass(frozen=True)
class BlockDecision:
    """A ``pre_tool_call`` verdict that stops the tool."""

    message: str
    plugin: str


def block_message(value: Any) -> str | None:
    """The message of a block directive (either accepted shape), or ``None`` if ``value`` is not one."""
    if not isinstance(value, dict):
        return None
    if value.get("action") == "block":
        return str(value.get("message") or "blocked by a plugin")
    if value.get("decision") == "block":
        return str(value.get("reason") or value.get("message") or "blocked by a plugin")
    return None


def context_text(value: Any) -> str | None:
    """The context a ``pre_llm_call`` callback returned (a str or ``{"context": str}``)."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, dict) and isinstance(value.get("context"), str) and value["context"].strip():
        return value["context"]
    return None


Monitor = tuple[Callable[[str, dict[str, Any]], None], Callable[[str, dict[str, Any], list[HookOutcome]], None]]


class HookDispatcher:
    """Calls the callbacks of a hook one by one, each in isolation, in discovery order."""

    def __init__(self, *, strict: bool = False, timeout: float = 30.0) -> None:
        self.pm = HermesPluginManager(on_change=self._invalidate)
        #: Re-raise callback errors instead of logging them (``HERMES_STRICT_PLUGINS=1``).
        self.strict = strict
        self.timeout = min(max(float(timeout), 0.0), MAX_HOOK_CALLBACK_TIMEOUT)
        self._callbacks: dict[str, tuple[HookCallback, ...]] = {}
        self._known: dict[int, HookCallback] = {}
        self._logged_failures: set[tuple[str, str, str, str]] = set()
        self._monitors: list[Monitor] = []
        self._guard = _GuardedRunner()

    # -- callback lists --

    def _invalidate(self) -> None:
        self._callbacks = {}

    def _callback_for(self, impl: Any, hook_name: str) -> HookCallback:
        existing = self._known.get(id(impl))
        if existing is not None and existing.function is _impl_function(impl):
            return existing
        function = _impl_function(impl)
        plugin_key = impl.plugin.hermes_plugin_key if isinstance(impl.plugin, CallbackHolder) else impl.plugin_name
        callback = HookCallback(plugin_key, hook_name, function, callback_argnames(function))
        self._known[id(impl)] = callback
        return callback

    def callbacks(self, hook_name: str) -> tuple[HookCallback, ...]:
        """The callbacks of ``hook_name`` in call order: tryfirst, normal, trylast; each in load order."""
        cached = self._callbacks.get(hook_name)
        if cached is not None:
            return cached
        caller = getattr(self.pm.hook, hook_name, None)
        impls = [i for i in caller.get_hookimpls() if not (i.wrapper or i.hookwrapper)] if caller else []
        # pluggy keeps trylast impls in reverse registration order; undo that.
        ordered = [i for i in impls if i.tryfirst] + [i for i in impls if not i.tryfirst and not i.trylast]
        ordered += list(reversed([i for i in impls if i.trylast]))
        result = tuple(self._callback_for(impl, hook_name) for impl in ordered)
        self._callbacks[hook_name] = result
        return result

    def hooks_of(self, plugin_key: str) -> list[str]:
        """Sorted names of the hooks plugin ``plugin_key`` implements."""
        names = set()
        for caller in self.pm.hook.__dict__.values():
            if isinstance(caller, pluggy.HookCaller):
                for impl in caller.get_hookimpls():
                    owner = impl.plugin.hermes_plugin_key if isinstance(impl.plugin, CallbackHolder) else impl.plugin_name
                    if owner == plugin_key:
                        names.add(caller.name)
        return sorted(names)

    def add_monitor(
        self,
        before: Callable[[str, dict[str, Any]], None],
        after: Callable[[str, dict[str, Any], list[HookOutcome]], None],
    ) -> Callable[[], None]:
        """Call ``before(hook, kwargs)`` and ``after(hook, kwargs, outcomes)`` around every hook call.

        :return: a function that removes the monitor again.
        """
        monitor: Monitor = (before, after)
        self._monitors.append(monitor)

        def undo() -> None:
            if monitor in self._monitors:
                self._monitors.remove(monitor)

        return undo

    # -- calling --

    def call(
        self,
        hook_name: str,
        kwargs: dict[str, Any],
        stop_when: Callable[[HookOutcome], bool] | None = None,
    ) -> list[HookOutcome]:
        """Call every callback of ``hook_name``; return one outcome per callback that ran."""
        callbacks = self._callbacks.get(hook_name)
        if callbacks is None:
            callbacks = self.callbacks(hook_name)
        if not callbacks and not self._monitors:
            return []
        kwargs.setdefault("telemetry_schema_version", hookspecs.TELEMETRY_SCHEMA_VERSION)
        for before, _ in self._monitors:
            before(hook_name, kwargs)
        now = time.monotonic()
        active = [c for c in callbacks if c.suppressed_until <= now] if self._guard.any_suppressed else list(callbacks)
        if self.timeout > 0 and hook_name in hookspecs.GUARDED_HOOKS and active:
            outcomes = self._guard.run(active, kwargs, self.timeout, stop_when)
        else:
            outcomes = _run_inline(active, kwargs, stop_when)
        for outcome in outcomes:
            if outcome.failed:
                self._report_failure(outcome)
        if debug_enabled():
            for outcome in outcomes:
                trace(f"hook {hook_name}: plugin '{outcome.plugin}' {outcome.duration_ms:.3f} ms -> {_result_kind(outcome)}")
        for _, after in self._monitors:
            after(hook_name, kwargs, outcomes)
        return outcomes

    def _report_failure(self, outcome: HookOutcome) -> None:
        callback = outcome.callback
        if outcome.timed_out:
            cause = f"timed out after {self.timeout:g} s (plugins.hook_callback_timeout); skipped for {TIMEOUT_SUPPRESSION_SECONDS:g} s"
            signature = (callback.plugin, callback.hook, "timeout", "")
        else:
            error = outcome.error
            cause = f"{type(error).__name__}: {error}"
            signature = (callback.plugin, callback.hook, type(error).__name__, str(error))
        if self.strict:
            if outcome.timed_out:
                raise HookCallbackTimeout(f"plugin '{callback.plugin}' hook '{callback.hook}' {cause}")
            raise outcome.error  # type: ignore[misc]
        message = f"plugin '{callback.plugin}' hook '{callback.hook}' failed: {cause}"
        if signature in self._logged_failures:
            logger.debug(message)
        else:
            self._logged_failures.add(signature)
            logger.warning(message, exc_info=outcome.error if debug_enabled() else None)

    def invoke(self, hook_name: str, **kwargs: Any) -> list[Any]:
        """Call a hook for its side effects; return the non-``None`` results in order."""
        return [o.value for o in self.call(hook_name, kwargs) if not o.failed and o.value is not None]

    def notify(self, hook_name: str, **kwargs: Any) -> None:
        """Call an observer hook; results are ignored."""
        self.call(hook_name, kwargs)

    def pre_tool_call(self, **kwargs: Any) -> BlockDecision | None:
        """Return the first block directive, or ``None`` to let the tool run.

        Fails closed: a callback that raises or times out blocks the tool.
        """
        def blocks(outcome: HookOutcome) -> bool:
            return outcome.failed or block_message(outcome.value) is not None

        for outcome in self.call("pre_tool_call", kwargs, stop_when=blocks):
            if outcome.timed_out:
                return BlockDecision(
                    f"blocked: plugin '{outcome.plugin}' did not answer pre_tool_call within {self.timeout:g} s, so the tool was not run",
                    outcome.plugin,
                )
            if outcome.error is not None:
                return BlockDecision(
                    f"blocked: plugin '{outcome.plugin}' pre_tool_call failed ({type(outcome.error).__name__}: {outcome.error}), so the tool was not run",
                    outcome.plugin,
                )
            message = block_message(outcome.value)
            if message is not None:
                return BlockDecision(message, outcome.plugin)
        return None

    def pre_llm_call(self, **kwargs: Any) -> str:
        """Every callback's context, in order, joined by a blank line ("" when none)."""
        parts = [text for o in self.call("pre_llm_call", kwargs) if not o.failed and (text := context_text(o.value))]
        return "\n\n".join(parts)

    def transform(self, hook_name: str, **kwargs: Any) -> str | None:
        """The first string a ``transform_*`` callback returned, or ``None`` to keep the original."""
        def replaces(outcome: HookOutcome) -> bool:
            return not outcome.failed and isinstance(outcome.value, str)

        for outcome in self.call(hook_name, kwargs, stop_when=replaces):
            if replaces(outcome):
                return outcome.value
        return None


def _impl_function(impl: Any) -> Callable[..., Any]:
    return impl.plugin.callback if isinstance(impl.plugin, CallbackHolder) else impl.function


def _result_kind(outcome: HookOutcome) -> str:
    if outcome.timed_out:
        return "timeout"
    if outcome.error is not None:
        return f"error ({type(outcome.error).__name__}: {outcome.error})"
    value = outcome.value
    if block_message(value) is not None:
        return "block"
    if value is None:
        return "none"
    return type(value).__name__


def _run_one(callback: HookCallback, kwargs: dict[str, Any]) -> HookOutcome:
    started = time.perf_counter()
    try:
        value = callback.invoke(kwargs)
    except Exception as exc:  # isolation: one plugin must not break the others
        return HookOutcome(callback, error=exc, duration_ms=(time.perf_counter() - started) * 1000)
    return HookOutcome(callback, value, duration_ms=(time.perf_counter() - started) * 1000)


def _run_inline(
    callbacks: Iterable[HookCallback],
    kwargs: dict[str, Any],
    stop_when: Callable[[HookOutcome], bool] | None,
) -> list[HookOutcome]:
    outcomes = []
    for callback in callbacks:
        outcome = _run_one(callback, kwargs)
        outcomes.append(outcome)
        if stop_when is not None and stop_when(outcome):
            break
    return outcomes


# --- timeouts ----------------------------------------------------------------------------


class _Job:
    """Callbacks handed to a worker thread, with the progress the caller watches."""

    __slots__ = ("callbacks", "kwargs", "stop_when", "index", "started", "outcomes", "done", "lock", "abandoned", "finished")

    def __init__(self, callbacks: list[HookCallback], kwargs: dict[str, Any], stop_when: Callable[[HookOutcome], bool] | None) -> None:
        self.callbacks = callbacks
        self.kwargs = kwargs
        self.stop_when = stop_when
        self.index = -1
        self.started = 0.0
        self.outcomes: list[HookOutcome] = []
        self.done = threading.Lock()
        self.done.acquire()
        self.lock = threading.Lock()
        self.abandoned = False
        self.finished = False


class _Worker:
    """A thread that runs jobs until one of its callbacks hangs and it is abandoned."""

    def __init__(self, pool: list[_Worker], pool_lock: threading.Lock) -> None:
        self._pool = pool
        self._pool_lock = pool_lock
        self._wakeup = threading.Lock()
        self._wakeup.acquire()
        self._job: _Job | None = None
        self._context: contextvars.Context | None = None
        threading.Thread(target=self._loop, name="hermes-hook-worker", daemon=True).start()

    def submit(self, job: _Job) -> None:
        self._job = job
        # The callbacks see the caller's context variables (tracing spans, request ids).
        self._context = contextvars.copy_context()
        self._wakeup.release()

    def _loop(self) -> None:
        while True:
            self._wakeup.acquire()
            job, context = self._job, self._context
            assert job is not None and context is not None
            context.run(self._run, job)
            if job.abandoned:
                return  # the caller moved on without this thread; let it end
            with self._pool_lock:
                self._pool.append(self)

    @staticmethod
    def _run(job: _Job) -> None:
        try:
            for index, callback in enumerate(job.callbacks):
                with job.lock:
                    if job.abandoned:
                        return
                    job.index = index
                    job.started = time.monotonic()
                outcome = _run_one(callback, job.kwargs)
                with job.lock:
                    if job.abandoned:
                        return
                    job.outcomes.append(outcome)
                if job.stop_when is not None and job.stop_when(outcome):
                    break
        finally:
            with job.lock:
                job.finished = True
            job.done.release()


class _GuardedRunner:
    """Runs a hook's callbacks on a worker thread so a hung one can be left behind."""

    def __init__(self) -> None:
        self._idle: list[_Worker] = []
        self._idle_lock = threading.Lock()
        #: Set once any callback has been suppressed, so calls only then pay for the check.
        self.any_suppressed = False

    def _worker(self) -> _Worker:
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return _Worker(self._idle, self._idle_lock)

    def run(
        self,
        callbacks: list[HookCallback],
        kwargs: dict[str, Any],
        timeout: float,
        stop_when: Callable[[HookOutcome], bool] | None,
    ) -> list[HookOutcome]:
        outcomes: list[HookOutcome] = []
        remaining = callbacks
        while remaining:
            job = _Job(remaining, kwargs, stop_when)
            self._worker().submit(job)
            hung = self._wait(job, timeout)
            outcomes.extend(job.outcomes)
            if hung is None:
                return outcomes
            hung.suppressed_until = time.monotonic() + TIMEOUT_SUPPRESSION_SECONDS
            hung.abandoned_workers += 1
            if hung.abandoned_workers >= MAX_ABANDONED_WORKERS_PER_CALLBACK:
                hung.suppressed_until = float("inf")
            self.any_suppressed = True
            timeout_outcome = HookOutcome(hung, timed_out=True, duration_ms=timeout * 1000)
            outcomes.append(timeout_outcome)
            if stop_when is not None and stop_when(timeout_outcome):
                return outcomes
            remaining = remaining[remaining.index(hung) + 1 :]
        return outcomes

    @staticmethod
    def _wait(job: _Job, timeout: float) -> HookCallback | None:
        """Wait for ``job``; return the callback that overran, after abandoning the job."""
        while True:
            with job.lock:
                if job.finished:
                    return None
                index, started = job.index, job.started
            wait_for = timeout if index < 0 else started + timeout - time.monotonic()
            if job.done.acquire(timeout=max(wait_for, 0.0)):
                return None
            with job.lock:
                if job.finished:
                    return None
                if job.index == index and index >= 0 and time.monotonic() - job.started >= timeout:
                    job.abandoned = True
                    return job.callbacks[index]
