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
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pluggy

from hermes_core import hookspecs
from hermes_core.async_bridge import resolve_awaitable
from hermes_core.errors import HookCallbackTimeout, RegistrationError
from hermes_core.tracing import debug_enabled, trace

logger = logging.getLogger("hermes.plugins")

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


def accepts_positional(function: Callable[..., Any]) -> bool:
    """Whether every named parameter of ``function`` can be given by position."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters)


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
    #: Whether ``argnames`` can be passed by position, in order (the cheaper call).
    positional: bool = False


class _TimedOut:
    """Marks a callback that overran the timeout, in place of an exception."""

    def __repr__(self) -> str:
        return "TIMED_OUT"


TIMED_OUT = _TimedOut()
#: Stands for a callback of a quarantined plugin that a fail-closed hook did not call.
QUARANTINED = _TimedOut()

#: ``failures`` maps the index of a callback in the call to its exception (or TIMED_OUT).
Failures = dict[int, "BaseException | _TimedOut"]


@dataclass
class HookOutcome:
    """What one callback did during one hook call (built for monitors and :meth:`HookDispatcher.call`)."""

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


def _is_block(value: Any) -> bool:
    return block_message(value) is not None


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


Monitor = tuple[Callable[[str, dict[str, Any]], None], Callable[[str, dict[str, Any], list[HookOutcome]], None]]


def run_callbacks(
    callbacks: tuple[HookCallback, ...] | list[HookCallback],
    kwargs: dict[str, Any],
    stop_on: Callable[[Any], bool] | None,
    stop_on_failure: bool,
    durations: list[float] | None = None,
    alarm: _Alarm | None = None,
) -> tuple[list[Any], Failures | None]:
    """Call ``callbacks`` in order, each isolated; return their values and failures.

    This is the hot loop: the success path allocates nothing per callback
    beyond what the call itself needs. With ``alarm``, each callback's start is
    noted so the alarm can tell which one overran.
    """
    values: list[Any] = []
    failures: Failures | None = None
    for index, callback in enumerate(callbacks):
        names = callback.argnames
        started = time.perf_counter() if durations is not None else 0.0
        if alarm is not None:
            alarm.started = time.monotonic()
            alarm.calling = True
        try:
            try:
                if names is None:
                    value = callback.function(**kwargs)
                elif callback.positional:
                    try:
                        args = [kwargs[k] for k in names]
                    except KeyError:  # an optional argument the caller did not pass
                        value = callback.function(**{k: kwargs[k] for k in names if k in kwargs})
                    else:
                        value = callback.function(*args)
                else:
                    value = callback.function(**{k: kwargs[k] for k in names if k in kwargs})
                if value is not None and value.__class__ is not str and value.__class__ is not dict and inspect.isawaitable(value):
                    value = resolve_awaitable(value)
            finally:
                # the alarm raises only while this is True (and clears it when it does), so an
                # _Overran can only come from inside this inner block and the clause below catches it
                if alarm is not None:
                    alarm.calling = False
        except (Exception, SystemExit, _Overran) as exc:  # isolation: one plugin must not break the others (sys.exit included)
            if durations is not None:
                durations.append((time.perf_counter() - started) * 1000)
            if failures is None:
                failures = {}
            failures[index] = TIMED_OUT if exc.__class__ is _Overran else exc
            values.append(None)
            if stop_on_failure:
                break
            continue
        if durations is not None:
            durations.append((time.perf_counter() - started) * 1000)
        values.append(value)
        if stop_on is not None and stop_on(value):
            break
    return values, failures


class HookDispatcher:
    """Calls the callbacks of a hook one by one, each in isolation, in discovery order."""

    def __init__(self, *, strict: bool = False, timeout: float = 30.0) -> None:
        self.pm = HermesPluginManager(on_change=self._invalidate)
        #: Re-raise callback errors instead of logging them (``HERMES_STRICT_PLUGINS=1``).
        self.strict = strict
        self.timeout = min(max(float(timeout), 0.0), MAX_HOOK_CALLBACK_TIMEOUT)
        #: ``HERMES_PLUGINS_DEBUG`` is read once: checking the environment per call costs more than the call.
        self.trace = debug_enabled()
        self._callbacks: dict[str, tuple[HookCallback, ...]] = {}
        self._known: dict[int, HookCallback] = {}
        self._logged_failures: set[tuple[str, str, str, str]] = set()
        self._monitors: list[Monitor] = []
        self._guard = _GuardedRunner()
        #: Plugins that overran the timeout once, with the hook where they did: none of their
        #: callbacks runs again on this dispatcher, so one hung plugin costs one timeout, not one per hook.
        self.quarantined: dict[str, str] = {}
        #: Bound guarded callbacks with SIGALRM, inline, when called on the main thread (see _Alarm);
        #: False always uses worker threads.
        self.inline_timeouts = True

    # -- callback lists --

    def _invalidate(self) -> None:
        self._callbacks = {}

    def _callback_for(self, impl: Any, hook_name: str) -> HookCallback:
        function = _impl_function(impl)
        existing = self._known.get(id(impl))
        if existing is not None and existing.function is function:
            return existing
        plugin_key = impl.plugin.hermes_plugin_key if isinstance(impl.plugin, CallbackHolder) else impl.plugin_name
        callback = HookCallback(plugin_key, hook_name, function, callback_argnames(function), accepts_positional(function))
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

    def has_listeners(self, hook_name: str) -> bool:
        """Whether calling ``hook_name`` would reach anything: a callback or a monitor.

        Hosts use it to skip building expensive arguments (copies of a conversation) for nobody.
        """
        return bool(self._monitors) or bool(self.callbacks(hook_name))

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

    def _dispatch(
        self,
        hook_name: str,
        kwargs: dict[str, Any],
        stop_on: Callable[[Any], bool] | None = None,
        stop_on_failure: bool = False,
        timed: bool = False,
    ) -> tuple[tuple[HookCallback, ...] | list[HookCallback], list[Any], Failures | None, list[float] | None]:
        """Run the callbacks of ``hook_name``; return those called, their values, failures and
        (when ``timed``, tracing or monitored) durations in ms."""
        callbacks = self._callbacks.get(hook_name)
        if callbacks is None:
            callbacks = self.callbacks(hook_name)
        monitors = self._monitors
        if not callbacks and not monitors:
            return (), [], None, None
        kwargs.setdefault("telemetry_schema_version", hookspecs.TELEMETRY_SCHEMA_VERSION)
        for before, _ in monitors:
            before(hook_name, kwargs)
        closed: HookCallback | None = None
        if self.quarantined:
            quarantined = self.quarantined
            if hook_name in hookspecs.FAIL_CLOSED_HOOKS:
                # A quarantined plugin's policy hook keeps failing closed: skipping it would let
                # tools run without the check.
                first = next((i for i, c in enumerate(callbacks) if c.plugin in quarantined), None)
                if first is not None:
                    closed, callbacks = callbacks[first], callbacks[:first]
            else:
                callbacks = [c for c in callbacks if c.plugin not in quarantined]
        durations: list[float] | None = [] if (timed or self.trace or monitors) else None
        if self.timeout > 0 and callbacks and hook_name in hookspecs.GUARDED_HOOKS:
            if self.inline_timeouts and _ALARM.usable():
                values, failures = _ALARM.run(callbacks, kwargs, self.timeout, stop_on, stop_on_failure, durations)
            else:
                values, failures = self._guard.run(callbacks, kwargs, self.timeout, stop_on, stop_on_failure, durations)
            for index, failure in (failures or {}).items():
                if failure is TIMED_OUT:
                    self.quarantined.setdefault(callbacks[index].plugin, hook_name)
        else:
            values, failures = run_callbacks(callbacks, kwargs, stop_on, stop_on_failure, durations)
        called = callbacks[: len(values)]
        if closed is not None and len(values) == len(callbacks) and not failures and not (values and stop_on and stop_on(values[-1])):
            called = [*called, closed]
            values = [*values, None]
            failures = {len(values) - 1: QUARANTINED}
            if durations is not None:
                durations.append(0.0)
        if failures:
            for index, failure in failures.items():
                self._report_failure(called[index], failure)
        if durations is not None:
            outcomes = _outcomes(called, values, failures, durations)
            if self.trace:
                for outcome in outcomes:
                    trace(f"hook {hook_name}: plugin '{outcome.plugin}' {outcome.duration_ms:.3f} ms -> {_result_kind(outcome)}")
            for _, after in monitors:
                after(hook_name, kwargs, outcomes)
        return called, values, failures, durations

    def call(self, hook_name: str, kwargs: dict[str, Any]) -> list[HookOutcome]:
        """Call every callback of ``hook_name``; return one outcome per callback that ran."""
        called, values, failures, durations = self._dispatch(hook_name, kwargs, timed=True)
        return _outcomes(called, values, failures, durations)

    def _report_failure(self, callback: HookCallback, failure: BaseException | _TimedOut) -> None:
        if isinstance(failure, _TimedOut):
            cause = (
                f"timed out after {self.timeout:g} s (plugins.hook_callback_timeout); the plugin is quarantined: "
                "none of its hooks runs again until hermes restarts"
                + (" and its pre_tool_call blocks every tool" if "pre_tool_call" in self.hooks_of(callback.plugin) else "")
                + f" -> fix or update the plugin, raise plugins.hook_callback_timeout, or disable it: "
                f"hermes plugins disable {callback.plugin}"
            )
            # one warning per plugin: its other hooks are skipped, not timed out again
            signature = (callback.plugin, "", "timeout", "")
        else:
            cause = f"{type(failure).__name__}: {failure}"
            signature = (callback.plugin, callback.hook, type(failure).__name__, str(failure))
        if self.strict:
            if isinstance(failure, _TimedOut):
                raise HookCallbackTimeout(f"plugin '{callback.plugin}' hook '{callback.hook}' {cause}")
            raise failure
        message = f"plugin '{callback.plugin}' hook '{callback.hook}' failed: {cause}"
        if signature in self._logged_failures:
            logger.debug(message)
        else:
            self._logged_failures.add(signature)
            exc_info = failure if (self.trace and isinstance(failure, BaseException)) else None
            logger.warning(message, exc_info=exc_info)

    def invoke(self, hook_name: str, **kwargs: Any) -> list[Any]:
        """Call a hook for its side effects; return the non-``None`` results in order."""
        _, values, failures, _ = self._dispatch(hook_name, kwargs)
        return [v for i, v in enumerate(values) if v is not None and not (failures and i in failures)]

    def notify(self, hook_name: str, **kwargs: Any) -> None:
        """Call an observer hook; results are ignored."""
        self._dispatch(hook_name, kwargs)

    def pre_tool_call(self, **kwargs: Any) -> BlockDecision | None:
        """Return the first block directive, or ``None`` to let the tool run.

        Fails closed: a callback that raises or times out blocks the tool.
        """
        called, values, failures, _ = self._dispatch("pre_tool_call", kwargs, _is_block, True)
        if failures:
            index, failure = next(iter(failures.items()))
            plugin = called[index].plugin
            if failure is QUARANTINED:
                return BlockDecision(
                    f"blocked: plugin '{plugin}' is quarantined since its {self.quarantined.get(plugin)} hook timed out, "
                    f"so its pre_tool_call check cannot run and the tool was not run -> restart hermes after fixing "
                    f"or disabling the plugin (hermes plugins disable {plugin})",
                    plugin,
                )
            if isinstance(failure, _TimedOut):
                return BlockDecision(
                    f"blocked: plugin '{plugin}' did not answer pre_tool_call within {self.timeout:g} s, so the tool was not run",
                    plugin,
                )
            return BlockDecision(
                f"blocked: plugin '{plugin}' pre_tool_call failed ({type(failure).__name__}: {failure}), so the tool was not run",
                plugin,
            )
        if values:
            message = block_message(values[-1])
            if message is not None:
                return BlockDecision(message, called[len(values) - 1].plugin)
        return None

    def pre_llm_call(self, **kwargs: Any) -> str:
        """Every callback's context, in order, joined by a blank line ("" when none)."""
        _, values, failures, _ = self._dispatch("pre_llm_call", kwargs)
        parts = [text for i, v in enumerate(values) if not (failures and i in failures) and (text := context_text(v))]
        return "\n\n".join(parts)

    def transform(self, hook_name: str, **kwargs: Any) -> str | None:
        """The first string a ``transform_*`` callback returned, or ``None`` to keep the original."""
        _, values, _, _ = self._dispatch(hook_name, kwargs, _is_str)
        if values and isinstance(values[-1], str):
            return values[-1]
        return None


def _outcomes(
    called: tuple[HookCallback, ...] | list[HookCallback],
    values: list[Any],
    failures: Failures | None,
    durations: list[float] | None,
) -> list[HookOutcome]:
    outcomes = []
    for index, callback in enumerate(called):
        failure = failures.get(index) if failures else None
        duration = durations[index] if durations and index < len(durations) else 0.0
        if isinstance(failure, _TimedOut):
            outcomes.append(HookOutcome(callback, timed_out=True, duration_ms=duration))
        elif failure is not None:
            outcomes.append(HookOutcome(callback, error=failure, duration_ms=duration))
        else:
            outcomes.append(HookOutcome(callback, values[index], duration_ms=duration))
    return outcomes


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


# --- timeouts ----------------------------------------------------------------------------


class _Job:
    """Callbacks handed to a worker thread, with the progress the caller watches."""

    __slots__ = (
        "callbacks", "kwargs", "stop_on", "stop_on_failure", "durations",
        "index", "started", "values", "failures", "done", "lock", "abandoned", "finished",
    )

    def __init__(
        self,
        callbacks: list[HookCallback] | tuple[HookCallback, ...],
        kwargs: dict[str, Any],
        stop_on: Callable[[Any], bool] | None,
        stop_on_failure: bool,
        durations: list[float] | None,
    ) -> None:
        self.callbacks = callbacks
        self.kwargs = kwargs
        self.stop_on = stop_on
        self.stop_on_failure = stop_on_failure
        self.durations = durations
        self.index = -1
        self.started = 0.0
        self.values: list[Any] = []
        self.failures: Failures = {}
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
                durations: list[float] | None = [] if job.durations is not None else None
                values, failures = run_callbacks((callback,), job.kwargs, None, False, durations)
                with job.lock:
                    if job.abandoned:
                        return
                    job.values.append(values[0])
                    if durations is not None and job.durations is not None:
                        job.durations.extend(durations)
                    if failures:
                        job.failures[index] = failures[0]
                if failures and job.stop_on_failure:
                    break
                if not failures and job.stop_on is not None and job.stop_on(values[0]):
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

    def _worker(self) -> _Worker:
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return _Worker(self._idle, self._idle_lock)

    def run(
        self,
        callbacks: list[HookCallback] | tuple[HookCallback, ...],
        kwargs: dict[str, Any],
        timeout: float,
        stop_on: Callable[[Any], bool] | None,
        stop_on_failure: bool,
        durations: list[float] | None,
    ) -> tuple[list[Any], Failures | None]:
        values: list[Any] = []
        failures: Failures = {}
        offset = 0
        remaining = callbacks
        while remaining:
            job = _Job(remaining, kwargs, stop_on, stop_on_failure, durations)
            self._worker().submit(job)
            hung_index = self._wait(job, timeout)
            with job.lock:
                values.extend(job.values)
                failures.update({offset + i: f for i, f in job.failures.items()})
            if hung_index is None:
                break
            failures[offset + hung_index] = TIMED_OUT
            values.append(None)
            if durations is not None:
                durations.append(timeout * 1000)
            if stop_on_failure:
                break
            offset += hung_index + 1
            remaining = remaining[hung_index + 1 :]
        return values, failures or None

    @staticmethod
    def _wait(job: _Job, timeout: float) -> int | None:
        """Wait for ``job``; return the index of the callback that overran, after abandoning the job."""
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
                    return index


class _Overran(BaseException):
    """Raised inside a callback by the alarm when the callback overran the timeout.

    A BaseException, so that a plugin's own ``except Exception`` does not swallow it.
    """


class _Alarm:
    """Bounds guarded callbacks inline on the main thread: a watchdog thread signals an overrun.

    A worker-thread hand-off costs 20-30 µs per hook call. Here the caller only notes
    when each callback starts; a daemon watchdog thread, which sleeps at most one
    timeout at a time, sends SIGALRM to the main thread when the running callback has
    overrun, and the handler raises :class:`_Overran` inside it. The signal interrupts
    what a hung callback realistically waits on (a socket read, a lock, a sleep, a
    Python loop), and the callback is unwound instead of being left running on an
    abandoned thread. No signal is sent unless a callback overran.
    Used only where it is safe: ``pthread_kill`` available, the main thread (Python
    runs signal handlers there only), SIGALRM not claimed by the application (its
    handler is still the default or ours), and no guarded call already in progress.
    Everywhere else the worker threads of :class:`_GuardedRunner` serve.
    """

    def __init__(self) -> None:
        #: When the running callback started, and whether one is running (set by run_callbacks).
        self.started = 0.0
        self.calling = False
        self._timeout = 0.0
        self._busy = False
        self._installed = False
        self._supported = hasattr(signal, "pthread_kill") and hasattr(signal, "SIGALRM")
        self._handler = self._on_alarm  # one bound method, so that getsignal() can be compared by identity
        self._signum = int(getattr(signal, "SIGALRM", 0))
        self._main_thread = threading.main_thread().ident
        self._watchdog: threading.Thread | None = None
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._after_fork)
        self._wake = threading.Event()
        #: The timeout the watchdog's current sleep is based on; a call with a shorter one wakes it.
        self._sleep_basis = float("inf")

    def usable(self) -> bool:
        if not self._supported or self._busy or threading.get_ident() != self._main_thread:
            return False
        current = _raw_getsignal(self._signum)
        if current is self._handler and self._watchdog is not None:
            return True
        if current is not self._handler and (self._installed or current != signal.SIG_DFL):
            return False  # the application has SIGALRM (or took it back): stay out of its way
        try:
            signal.signal(signal.SIGALRM, self._handler)
            self._watchdog = threading.Thread(target=self._watch, name="hermes-hook-watchdog", daemon=True)
            self._watchdog.start()
        except (ValueError, OSError, RuntimeError):
            self._supported = False
            return False
        self._installed = True
        return True

    def _after_fork(self) -> None:
        # a forked child has only the thread that forked, now its main thread: no watchdog yet
        self._watchdog = None
        self._busy = self.calling = False
        self._main_thread = threading.main_thread().ident

    def _on_alarm(self, signum: int, frame: Any) -> None:
        # re-checked here, on the main thread: the watchdog's view may be a moment old
        if self._busy and self.calling and time.monotonic() - self.started >= self._timeout:
            self.calling = False  # once per callback; a plugin that catches BaseException defeats the bound
            raise _Overran()

    def _watch(self) -> None:
        while True:
            timeout = self._timeout or 1.0
            self._sleep_basis = timeout
            if self._timeout and self._timeout < timeout:
                continue  # a call with a shorter timeout began while this one was read
            wait = timeout
            if self._busy and self.calling:
                wait = self.started + timeout - time.monotonic()
                if wait <= 0:
                    try:
                        signal.pthread_kill(self._main_thread, self._signum)
                    except OSError:
                        return  # the main thread is gone: the interpreter is shutting down
                    wait = min(timeout, 0.05)  # look again soon, in case the main thread had moved on
            # any callback that starts during this sleep has its deadline after the wake-up
            # (sleeps are at most one timeout long; run() wakes us for a shorter one)
            self._wake.wait(max(wait, 0.001))
            self._wake.clear()

    def run(
        self,
        callbacks: list[HookCallback] | tuple[HookCallback, ...],
        kwargs: dict[str, Any],
        timeout: float,
        stop_on: Callable[[Any], bool] | None,
        stop_on_failure: bool,
        durations: list[float] | None,
    ) -> tuple[list[Any], Failures | None]:
        self._timeout = timeout
        if timeout < self._sleep_basis:
            self._wake.set()
        self._busy = True
        try:
            return run_callbacks(callbacks, kwargs, stop_on, stop_on_failure, durations, self)
        finally:
            self._busy = False


try:  # signal.getsignal() wraps the answer in an enum, which costs 5 µs; the C function costs 0.1
    from _signal import getsignal as _raw_getsignal
except ImportError:  # another Python implementation
    _raw_getsignal = signal.getsignal

_ALARM = _Alarm()
