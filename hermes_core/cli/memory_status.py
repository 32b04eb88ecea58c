"""``hermes memory status``: the active provider, whether it can work (with the fix when not), and memory usage."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager

from hermes_core.cli.memory_common import (
    TARGETS,
    builtin_memory,
    described_miss,
    memory_live_state,
    missing_required_env,
    missing_secrets,
    owner_of_provider,
    plugin_disabled_error,
    plugin_is_disabled,
    plugin_manager,
    provider_available,
    provider_connection_problem,
    provider_loadable,
    provider_problems,
    provider_records,
    standalone_owner,
)


def _provider_status(manager: PluginManager, selection: str) -> dict[str, Any]:
    """What the runtime will run for ``memory.provider``: the load policy's verdict, then the plugin itself."""
    from hermes_core.policy import selected_by

    status: dict[str, Any] = {"plugin": "", "available": False, "reason": "", "missing_env": []}
    records = provider_records(manager)
    running = [r for r in records if r.enabled]  # the policy enables at most one: the selected, unshadowed one
    if not running:
        named = [r for r in records if selected_by(r.candidate, selection)]
        if named:
            record = named[-1]
            status["plugin"] = record.key
            status["reason"] = plugin_disabled_error(manager, record) if plugin_is_disabled(manager, record) else (record.error or record.reason)
            return status
        owner = owner_of_provider(manager, records, selection)
        standalone = standalone_owner(manager, selection) if owner is None else None
        if standalone is not None:  # an enabled plugin of another kind offers it: the runtime runs it
            record, provider = standalone
            status["plugin"] = record.key
            status["available"], status["reason"] = provider_available(provider)
            status["missing_env"] = missing_required_env(manager, record, missing_secrets(manager, provider, available=status["available"], reason=status["reason"]), available=status["available"])
            status["problems"] = provider_problems(provider)
            return status
        if owner is not None:
            record = owner[0]
            status["reason"] = (
                f"{selection!r} is the provider of plugin '{record.key}', but plugins are selected by their own key or name, "
                f"so it is not loaded -> run 'hermes config set memory.provider {record.name}'"
            )
        else:
            found = ", ".join(sorted(r.name for r in records)) or "none"
            why, whole_fix = described_miss(manager, selection)
            status["reason"] = (f"no memory provider plugin named {selection!r} was found{why}" if whole_fix else
                                f"no memory provider plugin named {selection!r} was found{why} (found: {found}) -> run 'hermes memory setup' to choose one")
        return status
    record = running[0]
    status["plugin"] = record.key
    # Also selected, not disabled, not refused, yet not enabled: the policy shadowed them by this one.
    status["shadowed"] = [r.key for r in records if r is not record and selected_by(r.candidate, selection) and not r.enabled and provider_loadable(manager, r)]
    if record.error is not None:  # refused before import; the runtime skips it too
        status["reason"] = f"plugin '{record.key}' is not loaded: {record.error}"
        return status
    manager.load(record.key)
    if not record.loaded:
        status["reason"] = f"plugin '{record.key}' failed to load: {record.error}"
        return status
    provider = manager.active_memory_provider()
    if provider is None:
        status["reason"] = f"plugin '{record.key}' loaded but registered no memory provider -> check its register(ctx)"
        return status
    status["available"], status["reason"] = provider_available(provider)
    status["missing_env"] = missing_required_env(manager, record, missing_secrets(manager, provider, available=status["available"], reason=status["reason"]), available=status["available"])
    status["problems"] = provider_problems(provider)
    return status


def _provider_details(manager: PluginManager) -> dict[str, Any]:
    """The active provider's own status lines (``status_details()``); the provider reads what it needs itself.

    No session is started for them: a provider whose lines need its backend opens it in
    ``status_details()`` (and closes it in ``shutdown()``), one whose lines come from its files
    imports nothing.
    """
    from hermes_core.memory.provider import MemoryProvider

    provider = manager.active_memory_provider()
    if provider is None or type(provider).status_details is MemoryProvider.status_details:
        return {}
    try:
        details = provider.status_details()
    except Exception as exc:  # provider code: its failure is part of the status, not a crash
        return {"error": f"status_details() raised {type(exc).__name__}: {exc}"}
    finally:
        try:
            provider.shutdown()
        except Exception:
            pass
    return details if isinstance(details, dict) else {"error": f"status_details() returned {type(details).__name__}, not a mapping"}


def cmd_status(args: argparse.Namespace) -> int:
    manager = plugin_manager()
    selection = manager.config.get("memory.provider", "") or ""
    if not isinstance(selection, str):
        raise HermesError(f"{manager.home / 'config.yaml'}: memory.provider must be a name, not {type(selection).__name__} -> run 'hermes memory setup'")
    status: dict[str, Any] = {"provider": selection or "builtin", "plugin": "", "available": True, "reason": "", "missing_env": [], "shadowed": [], "problems": []}
    if selection not in ("", "builtin"):  # what the runtime treats as built-in only; anything else must resolve
        status.update(_provider_status(manager, selection))
    if status["available"] and status["plugin"]:
        provider = manager.active_memory_provider()
        if provider is not None and not args.offline:
            problem = provider_connection_problem(provider)
            status["connection"] = "failed" if problem else "ok"
            if problem:  # configured, but its service does not answer: nothing it does would work
                status["available"], status["reason"] = False, problem
        status["details"] = _provider_details(manager)
    status["providers"] = sorted(r.name for r in provider_records(manager))
    builtin = builtin_memory(manager)
    states = {target: memory_live_state(builtin, target) for target in TARGETS}
    status["usage"] = {target: state["usage"] for target, state in states.items()}
    # a lowered limit can leave a file over it: edits that grow it are refused until entries go or the limit rises
    status["over_limit"] = sorted(t for t, state in states.items() if state["char_count"] > state["char_limit"])
    scanner_status = getattr(builtin, "scanner_status", None)
    if callable(scanner_status):
        status["scanner"] = scanner_status()
    code = 0 if status["available"] else 1
    if args.json:
        print_json(status)
        return code
    state = "available" if status["available"] else f"NOT available: {status['reason']}"
    plugin = f" [plugin {status['plugin']}]" if status["plugin"] and status["plugin"] != status["provider"] else ""
    print(f"provider:   {status['provider']}{plugin} ({state})")
    for problem in status["problems"]:
        print(f"problem:    {problem}")
    if status["missing_env"]:
        first = status["missing_env"][0]
        # memory setup asks for them only at a terminal; config set stores one anywhere (a script, a container)
        print(f"missing:    {', '.join(status['missing_env'])} (set neither in the environment nor in {manager.home / '.env'}) -> run "
              f"'hermes memory setup {status['provider']}' at a terminal, or 'hermes config set {first} VALUE'")
    if status.get("shadowed"):
        print(f"shadowed:   {', '.join(status['shadowed'])} (also named by memory.provider; only '{status['plugin']}' runs)")
    for key, value in (status.get("details") or {}).items():
        shown = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else "-" if value is None else str(value)
        label = key.replace("_", " ") + ":"
        print(f"{label:<12}{shown}" if len(label) < 12 else f"{label} {shown}")
    print(f"found:      {', '.join(status['providers']) or '(no external providers)'}")
    for target in TARGETS:
        over = ""
        if target in status["over_limit"]:
            over = (f" (over the limit: adding to it is refused -> remove entries with 'hermes memory remove TEXT"
                    f"{'' if target == 'memory' else ' --target user'}', or raise it: 'hermes config set memory.{target}_char_limit N')")
        print(f"{target + ':':<12}{status['usage'][target]}{over}")
    if "meaning_stage" in status.get("scanner", {}):
        print(f"scanner:    meaning stage {status['scanner']['meaning_stage']}")
    return code
