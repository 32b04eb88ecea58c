"""Hook dispatch: per-callback isolation, kwargs filtering, return semantics, timeouts, tracing.

Plugins put their callbacks into one pluggy relay (module-level ``@hookimpl``
functions and ``ctx.register_hook`` callbacks alike). pluggy owns registration,
spec checking and tryfirst/trylast; this package owns the call loop, because
pluggy's loop stops at the first exception and the host must not.

The modules, each with one job: ``signatures`` (which kwargs a callback takes),
``relay`` (the pluggy side), ``outcomes`` (return semantics), ``calls`` (the
isolated call loop), ``workers`` and ``alarm`` (the two ways a callback is timed
out), ``quarantine`` (what happens to a plugin that overran) and ``dispatcher``
(HookDispatcher). Everything hermes and its plugins import is re-exported here.
"""

from __future__ import annotations

# the alarm and its exception are read by the timeout tests; the explicit aliases re-export them
from hermes_core.hooks.alarm import _ALARM as _ALARM
from hermes_core.hooks.alarm import _Alarm as _Alarm
from hermes_core.hooks.calls import _Overran as _Overran
from hermes_core.hooks.calls import run_callbacks
from hermes_core.hooks.dispatcher import MAX_HOOK_CALLBACK_TIMEOUT, HookDispatcher, logger
from hermes_core.hooks.outcomes import (
    QUARANTINED,
    TIMED_OUT,
    BlockDecision,
    Failures,
    HookCallback,
    HookOutcome,
    Monitor,
    block_message,
    context_text,
)
from hermes_core.hooks.relay import CallbackHolder, HermesPluginManager, unknown_hookimpls, wrapper_hookimpls
from hermes_core.hooks.signatures import (
    accepts_positional,
    callback_argnames,
    check_callback_signature,
    required_argnames,
    unmet_arguments,
)
from hermes_core.hooks.workers import _GuardedRunner as _GuardedRunner

__all__ = [
    "MAX_HOOK_CALLBACK_TIMEOUT",
    "QUARANTINED",
    "TIMED_OUT",
    "BlockDecision",
    "CallbackHolder",
    "Failures",
    "HermesPluginManager",
    "HookCallback",
    "HookDispatcher",
    "HookOutcome",
    "Monitor",
    "accepts_positional",
    "block_message",
    "callback_argnames",
    "check_callback_signature",
    "context_text",
    "logger",
    "required_argnames",
    "run_callbacks",
    "unknown_hookimpls",
    "unmet_arguments",
    "wrapper_hookimpls",
]
