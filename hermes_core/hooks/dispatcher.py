"""HookDispatcher: calls the callbacks of a hook one by one, each in isolation.

pluggy's own loop stops at the first exception and the host must not, so the dispatcher
reads the implementations out of the relay and runs them itself: kwargs filtering,
isolation, return semantics, timeouts, quarantine, tracing and monitors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pluggy

from hermes_core import hookspecs
from hermes_core.errors import HookCallbackTimeout
from hermes_core.hooks.alarm import _ALARM
from hermes_core.hooks.calls import run_callbacks
from hermes_core.hooks.outcomes import (
    QUARANTINED,
    BlockDecision,
    Failures,
    HookCallback,
    HookOutcome,
    Monitor,
    _TimedOut,
    block_message,
    context_text,
    is_block,
    is_str,
    outcomes_of,
    result_kind,
)
from hermes_core.hooks.quarantine import close_with, hold_back, quarantine_overrunners, quarantined_block, timeout_cause
from hermes_core.hooks.relay import HermesPluginManager, impl_function, impl_plugin_key
from hermes_core.hooks.signatures import accepts_positional, callback_argnames
from hermes_core.hooks.workers import _GuardedRunner
from hermes_core.tracing import debug_enabled, trace

logger = logging.getLogger("hermes.plugins")

MAX_HOOK_CALLBACK_TIMEOUT = 600.0


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
        self._unknown_warned: set[str] = set()
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
        function = impl_function(impl)
        existing = self._known.get(id(impl))
        if existing is not None and existing.function is function:
            return existing
        plugin_key = impl_plugin_key(impl)
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

    def _warn_if_unknown(self, hook_name: str) -> None:
        """Once per name: a host calling a hook no hermes release defines and no plugin registered has most likely
        misspelt it (``on_sesion_start``), and would otherwise wait in vain for callbacks that never run."""
        if hook_name in hookspecs.HOOK_NAMES or hook_name in hookspecs.KNOWN_EXTRA_HOOKS or hook_name in self._unknown_warned:
            return
        self._unknown_warned.add(hook_name)
        import difflib

        close = difflib.get_close_matches(hook_name, (*hookspecs.HOOK_NAMES, *hookspecs.KNOWN_EXTRA_HOOKS), n=1)
        logger.warning("hook %r was called, but it is no hermes hook and no plugin registered it%s; nothing ran",
                       hook_name, f" (did you mean {close[0]!r}?)" if close else "")

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
                    owner = impl_plugin_key(impl)
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
            if not callbacks:  # a call, not a lookup (has_hook): warned here, once per name
                self._warn_if_unknown(hook_name)
        monitors = self._monitors
        if not callbacks and not monitors:
            return (), [], None, None
        kwargs.setdefault("telemetry_schema_version", hookspecs.TELEMETRY_SCHEMA_VERSION)
        for before, _ in monitors:
            before(hook_name, kwargs)
        closed: HookCallback | None = None
        if self.quarantined:
            closed, callbacks = hold_back(hook_name, callbacks, self.quarantined)
        durations: list[float] | None = [] if (timed or self.trace or monitors) else None
        if self.timeout > 0 and callbacks and hook_name in hookspecs.GUARDED_HOOKS:
            if self.inline_timeouts and _ALARM.usable():
                values, failures = _ALARM.run(callbacks, kwargs, self.timeout, stop_on, stop_on_failure, durations)
            else:
                values, failures = self._guard.run(callbacks, kwargs, self.timeout, stop_on, stop_on_failure, durations)
            quarantine_overrunners(self.quarantined, hook_name, callbacks, failures)
        else:
            values, failures = run_callbacks(callbacks, kwargs, stop_on, stop_on_failure, durations)
        called = callbacks[: len(values)]
        if closed is not None:
            called, values, failures = close_with(closed, callbacks, called, values, failures, stop_on, durations)
        if failures:
            for index, failure in failures.items():
                self._report_failure(called[index], failure)
        if durations is not None:
            outcomes = outcomes_of(called, values, failures, durations)
            if self.trace:
                for outcome in outcomes:
                    trace(f"hook {hook_name}: plugin '{outcome.plugin}' {outcome.duration_ms:.3f} ms -> {result_kind(outcome)}")
            for _, after in monitors:
                after(hook_name, kwargs, outcomes)
        return called, values, failures, durations

    def call(self, hook_name: str, kwargs: dict[str, Any]) -> list[HookOutcome]:
        """Call every callback of ``hook_name``; return one outcome per callback that ran."""
        called, values, failures, durations = self._dispatch(hook_name, kwargs, timed=True)
        return outcomes_of(called, values, failures, durations)

    def _report_failure(self, callback: HookCallback, failure: BaseException | _TimedOut) -> None:
        if isinstance(failure, _TimedOut):
            cause = timeout_cause(self.timeout, callback.plugin, "pre_tool_call" in self.hooks_of(callback.plugin))
            # one warning per plugin: its other hooks are skipped, not timed out again
            signature = (callback.plugin, "", "timeout", "")
        else:
            cause = f"{type(failure).__name__}: {failure}" if str(failure) else type(failure).__name__
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
        called, values, failures, _ = self._dispatch("pre_tool_call", kwargs, is_block, True)
        if failures:
            index, failure = next(iter(failures.items()))
            plugin = called[index].plugin
            if failure is QUARANTINED:
                return quarantined_block(plugin, self.quarantined.get(plugin))
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
        _, values, _, _ = self._dispatch(hook_name, kwargs, is_str)
        if values and isinstance(values[-1], str):
            return values[-1]
        return None
