"""Which keyword arguments a hook callback accepts, and whether a hook can ever satisfy it.

The dispatcher passes each callback only the kwargs it declares, so a plugin written for an
older hook signature keeps working when the hook gains arguments.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from hermes_core import hookspecs
from hermes_core.errors import RegistrationError


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


def unmet_arguments(hook_name: str, callback: Callable[..., Any]) -> str | None:
    """Why ``callback`` can never be called by hook ``hook_name`` (it requires an argument the hook
    never passes), or ``None``. A callback that is not callable is refused outright.
    """
    if not callable(callback):
        raise RegistrationError(f"hook {hook_name!r}: the callback must be callable, got {type(callback).__name__}")
    spec = getattr(hookspecs, hook_name, None)
    if spec is None or hook_name not in hookspecs.HOOK_NAMES:
        return None
    offered = set(inspect.signature(spec).parameters) | {"telemetry_schema_version"}
    missing = [name for name in required_argnames(callback) if name not in offered]
    if not missing:
        return None
    return (
        f"hook {hook_name!r}: the callback {getattr(callback, '__qualname__', callback)!r} requires "
        f"{', '.join(map(repr, missing))}, which the hook never passes (the hook passes: {', '.join(sorted(offered))})"
    )


#: What the author of a callback :func:`unmet_arguments` reports should do.
UNMET_ARGUMENTS_FIX = "give those parameters defaults or accept **kwargs"


def check_callback_signature(hook_name: str, callback: Callable[..., Any]) -> None:
    """Refuse a callback that requires an argument the hook never passes (:func:`unmet_arguments`)."""
    why = unmet_arguments(hook_name, callback)
    if why:
        raise RegistrationError(f"{why} -> {UNMET_ARGUMENTS_FIX}")


def hookimpl_refusal(module: Any, pm: Any, exc: Exception) -> str:
    """Why pluggy refused the plugin's ``@hookimpl`` functions, worded for its author: pluggy's own message spans
    several lines and names neither the file nor the arguments the hook does pass."""
    import difflib
    import inspect

    for attr in dir(module):
        opts = pm.parse_hookimpl_opts(module, attr)
        caller = getattr(pm.hook, (opts or {}).get("specname") or attr, None) if opts is not None else None
        if caller is None or caller.spec is None:
            continue
        function = getattr(module, attr)
        # pluggy refuses a required positional argument its spec does not name (defaults and keyword-only ones pass)
        offered = set(caller.spec.argnames)
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        try:
            parameters = inspect.signature(function).parameters.values()
        except (TypeError, ValueError):  # no signature to read (a builtin): pluggy's own words then
            continue
        taken = [p.name for p in parameters if p.kind in positional and p.default is p.empty and p.name != "self"]
        unknown = [name for name in taken if name not in offered]
        if not unknown:
            continue
        if unknown == ["telemetry_schema_version"]:  # passed only by hosts that know it: it needs a default
            return (f"@hookimpl {attr} requires 'telemetry_schema_version', which not every caller passes -> give it a "
                    "default: telemetry_schema_version=None")
        try:
            where = f" ({inspect.getsourcefile(function)}:{inspect.getsourcelines(function)[1]})"
        except (OSError, TypeError):
            where = ""
        hints = [f"{name!r} -> did you mean {close[0]!r}?" for name in unknown if (close := difflib.get_close_matches(name, offered, n=1))]
        return (
            f"@hookimpl {attr}{where} takes {', '.join(map(repr, unknown))}, which hook {caller.name!r} does not pass"
            + (f" ({'; '.join(hints)})" if hints else "")
            + f" -> take only arguments it passes: {', '.join(sorted(offered))} (or **kwargs)"
        )
    return "hook registration failed: " + " ".join(str(exc).split())


# --- the call loop ---------------------------------------------------------------------
