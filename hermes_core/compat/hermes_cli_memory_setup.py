"""``hermes_cli.memory_setup`` for plugins written for Hermes Agent: run ``hermes memory setup``.

Provider packages call :func:`cmd_setup_provider` from their own CLI to hand over to the
host's setup (schema prompts, secrets to .env, ``memory.provider``).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["cmd_setup_provider", "cmd_setup", "cmd_status", "memory_command"]


def _namespace(provider: str | None = None, **extra: Any) -> argparse.Namespace:
    values = {"provider": provider, "values": [], "yes": False, "json": False}
    values.update(extra)
    return argparse.Namespace(**values)


def cmd_setup_provider(provider_name: str, values: dict[str, str] | None = None, *, yes: bool = False) -> int:
    """Configure memory provider ``provider_name`` and select it (``hermes memory setup NAME``)."""
    from hermes_core.cli.memory import cmd_setup as run_setup

    pairs = [f"{k}={v}" for k, v in (values or {}).items()]
    return run_setup(_namespace(provider_name, values=pairs, yes=yes))


def cmd_setup(args: Any = None) -> int:
    from hermes_core.cli.memory import cmd_setup as run_setup

    return run_setup(args if isinstance(args, argparse.Namespace) else _namespace(getattr(args, "provider", None)))


def cmd_status(args: Any = None) -> int:
    """Print the memory status (``hermes memory status``)."""
    from hermes_core.cli.memory import cmd_status as run_status

    return run_status(args if isinstance(args, argparse.Namespace) else _namespace())


def memory_command(args: argparse.Namespace) -> int:
    sub = getattr(args, "memory_command", None) or "status"
    return cmd_setup(args) if sub == "setup" else cmd_status(args)
