"""``hermes plugins enable`` on a memory provider: it is selected (``memory.provider``), not listed in ``plugins.enabled``.

Only one external memory provider runs at a time. With none selected (built-in memory only) or this
one already selected, enabling it means selecting it, so that is done. With another one selected the
user must choose which runs, so nothing is changed and the error names both ways on.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from hermes_core.cli.output import print_json
from hermes_core.errors import HermesError, split_cause_and_fix
from hermes_core.plugin_candidate import command_word

if TYPE_CHECKING:
    from hermes_core.manager import PluginManager, PluginRecord


def warn_if_selected(manager: PluginManager, record: PluginRecord) -> None:
    """``plugins disable`` on the provider memory.provider selects: say that only the built-in memory runs now."""
    from hermes_core.policy import selected_by

    current = manager.config.get("memory.provider", "") or ""
    if record.candidate.provides_memory and isinstance(current, str) and selected_by(record.candidate, current):
        print(f"warning: memory.provider still selects {current!r}, which is now disabled, so only the built-in memory runs -> "
              f"'hermes plugins enable {command_word(record.name)}' turns it back on; 'hermes memory switch builtin' (or another provider) "
              "changes the selection", file=sys.stderr)


def enable_provider(manager: PluginManager, record: PluginRecord, args: argparse.Namespace, outcome: dict[str, Any]) -> int:
    """Select ``record`` in memory.provider (and take it out of plugins.disabled); ``outcome`` is the ``--json`` answer so far."""
    from hermes_core.cli.memory_common import BUILTIN_ONLY, plugin_manager, provider_records, selection_for
    from hermes_core.config import read_user_config, write_user_config
    from hermes_core.policy import name_list, selected_by

    config_file = manager.home / "config.yaml"
    current = manager.config.get("memory.provider", "") or ""
    if not isinstance(current, str):
        raise HermesError(f"{config_file}: memory.provider must be a name, not {type(current).__name__} -> "
                          f"run 'hermes config set memory.provider {command_word(record.name)}'")
    selection = selection_for(provider_records(manager), record)
    if current.strip().lower() not in BUILTIN_ONLY and not selected_by(record.candidate, current):
        raise HermesError(
            f"'{record.key}' is a memory provider and memory.provider already selects {current!r}; one external provider runs "
            f"at a time, so nothing was changed -> 'hermes memory switch {command_word(selection)}' makes it the one (add --backfill to send it "
            f"what the agent knows), or 'hermes memory setup {command_word(selection)}' sets it up and selects it"
        )
    data = read_user_config(manager.home)
    plugins = data.get("plugins")
    disabled = name_list(plugins.get("disabled")) if isinstance(plugins, dict) else []
    was_disabled = bool(disabled and {record.key, record.name} & set(disabled))
    if was_disabled:
        assert isinstance(plugins, dict)
        plugins["disabled"] = [n for n in disabled or [] if n not in {record.key, record.name}]
    memory = data.get("memory")
    if not isinstance(memory, dict):
        memory = data["memory"] = {}
    already = current == selection and not was_disabled
    memory["provider"] = selection
    if not already:
        write_user_config(manager.home, data)
    from hermes_core.cli.memory_status import _provider_status

    status = _provider_status(plugin_manager(), selection)  # read afresh, as the next command will; no network
    if args.json:
        print_json(dict(outcome, state="selected", **{"memory.provider": selection}, changed=not already,
                        available=status["available"], reason=status["reason"]))
        return 0
    if already:
        print(f"'{record.key}' is already the memory provider (memory.provider = {selection})")
    else:
        print(f"selected '{record.key}' as the memory provider: memory.provider = {selection} ({config_file})"
              + ("; removed from plugins.disabled" if was_disabled else ""))
    if not status["available"]:
        cause, fix = split_cause_and_fix(status["reason"])
        print(f"warning: {record.name} is selected but not available yet: {cause} -> "
              f"{fix or repr(f'hermes memory setup {command_word(selection)}') + ' stores its settings'}; 'hermes memory status' checks it", file=sys.stderr)
    return 0
