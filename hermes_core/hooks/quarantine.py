"""Quarantine: a plugin whose callback overran the timeout once runs no more on its dispatcher.

One hung plugin then costs one timeout, not one per hook call. Its callbacks are left out of
every hook, except that a fail-closed hook (``pre_tool_call``) still answers for it, by
blocking: skipping the check would let tools run without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hermes_core import hookspecs
from hermes_core.hooks.outcomes import QUARANTINED, TIMED_OUT, BlockDecision, Failures, HookCallback

Callbacks = tuple[HookCallback, ...] | list[HookCallback]


def hold_back(
    hook_name: str, callbacks: Callbacks, quarantined: dict[str, str]
) -> tuple[HookCallback | None, Callbacks]:
    """Split off the callbacks of quarantined plugins: return the one a fail-closed hook stops at
    (or ``None``) and the callbacks still to run."""
    if hook_name in hookspecs.FAIL_CLOSED_HOOKS:
        # A quarantined plugin's policy hook keeps failing closed: skipping it would let
        # tools run without the check.
        first = next((i for i, c in enumerate(callbacks) if c.plugin in quarantined), None)
        if first is not None:
            return callbacks[first], callbacks[:first]
        return None, callbacks
    return None, [c for c in callbacks if c.plugin not in quarantined]


def quarantine_overrunners(
    quarantined: dict[str, str], hook_name: str, callbacks: Callbacks, failures: Failures | None
) -> None:
    """Note every plugin whose callback in this call timed out, with the hook where it did."""
    for index, failure in (failures or {}).items():
        if failure is TIMED_OUT:
            quarantined.setdefault(callbacks[index].plugin, hook_name)


def close_with(
    closed: HookCallback,
    callbacks: Callbacks,
    called: Callbacks,
    values: list[Any],
    failures: Failures | None,
    stop_on: Callable[[Any], bool] | None,
    durations: list[float] | None,
) -> tuple[Callbacks, list[Any], Failures | None]:
    """Add the held-back callback of a fail-closed hook as a QUARANTINED failure, unless the call
    already ended before it (a failure, or a result that stops the hook)."""
    if len(values) == len(callbacks) and not failures and not (values and stop_on and stop_on(values[-1])):
        called = [*called, closed]
        values = [*values, None]
        failures = {len(values) - 1: QUARANTINED}
        if durations is not None:
            durations.append(0.0)
    return called, values, failures


def quarantined_block(plugin: str, hook_that_timed_out: str | None) -> BlockDecision:
    """The verdict of ``pre_tool_call`` for a quarantined plugin's check that cannot run."""
    return BlockDecision(
        f"blocked: plugin '{plugin}' is quarantined since its {hook_that_timed_out} hook timed out, "
        f"so its pre_tool_call check cannot run and the tool was not run -> restart hermes after fixing "
        f"or disabling the plugin (hermes plugins disable {plugin})",
        plugin,
    )


def timeout_cause(timeout: float, plugin: str, blocks_tools: bool) -> str:
    """Why a plugin's callback failed when it overran: it is quarantined, and what to do about it."""
    return (
        f"timed out after {timeout:g} s (plugins.hook_callback_timeout); the plugin is quarantined: "
        "none of its hooks runs again until hermes restarts"
        + (" and its pre_tool_call blocks every tool" if blocks_tools else "")
        + f" -> fix or update the plugin, raise plugins.hook_callback_timeout, or disable it: "
        f"hermes plugins disable {plugin}"
    )
