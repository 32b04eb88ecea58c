"""A plugin's BaseException (SystemExit, GeneratorExit, its own KeyboardInterrupt) is its failure; the user's Ctrl-C stops the command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

_REGISTERS_A_HOOK_THEN = "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'x')\n    raise {exc}\n"


@pytest.mark.parametrize("exc", ["KeyboardInterrupt()", "GeneratorExit('bye')", "SystemExit(4)", "type('Boom', (BaseException,), {})('boom')"])
def test_a_base_exception_in_register_is_the_plugins_failure_rolled_back(make_plugin, plugin_manager, exc):
    make_plugin("raiser", _REGISTERS_A_HOOK_THEN.format(exc=exc))
    make_plugin("zz_after", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'after')\n")
    manager = plugin_manager(enabled=["raiser", "zz_after"], strict=False)
    record = manager.get("raiser")
    assert not record.loaded and "register(ctx) raised " in record.error
    assert manager.get("zz_after").loaded  # the next plugin still loads
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["after"]  # nothing of raiser's stays


@pytest.mark.parametrize("exc", ["KeyboardInterrupt", "GeneratorExit"])
def test_a_base_exception_at_import_is_the_plugins_failure(make_plugin, plugin_manager, exc):
    make_plugin("importer", f"raise {exc}()\n")
    record = plugin_manager(enabled=["importer"], strict=False).get("importer")
    assert not record.loaded and record.error.startswith(f"import failed: {exc} (at ")


def test_plugins_list_load_survives_a_plugin_raising_keyboard_interrupt(make_plugin, run_hermes):
    make_plugin("ctrl_c", "def register(ctx):\n    raise KeyboardInterrupt\n")
    make_plugin("quits", "def register(ctx):\n    raise GeneratorExit\n")
    for name in ("ctrl_c", "quits"):
        assert run_hermes("plugins", "enable", name).exit_code == 0
    result = run_hermes("plugins", "list", "--load")
    assert result.exit_code == 0, result.stderr
    assert "ctrl_c: register(ctx) raised KeyboardInterrupt (at " in result.stdout
    assert "quits: register(ctx) raised GeneratorExit (at " in result.stdout
    assert "session_search: hooks -; tools session_search" in result.stdout  # the builtins after them still loaded


def test_a_real_ctrl_c_while_a_plugin_registers_stops_the_command_with_130(make_plugin, hermes_home: Path):
    # SIGINT sent to the process itself: Python's handler raises KeyboardInterrupt inside register(), as for a Ctrl-C
    make_plugin("slow", "import signal\ndef register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'x')\n"
                        "    signal.raise_signal(signal.SIGINT)\n    raise AssertionError('not reached')\n",
                manifest={"name": "slow", "version": "0.1.0"})
    env = {**os.environ, "HERMES_HOME": str(hermes_home)}
    subprocess.run([sys.executable, "-m", "hermes_core", "plugins", "enable", "slow"], env=env, check=True, capture_output=True)
    result = subprocess.run([sys.executable, "-m", "hermes_core", "plugins", "list", "--load"], env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 130
    assert result.stderr.strip().endswith("hermes: interrupted") and "Traceback" not in result.stderr
    assert result.stdout == ""  # stopped before the table


def test_a_hook_raising_generator_exit_is_isolated(make_plugin, plugin_manager):
    make_plugin("gen", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: (_ for _ in ()).throw(GeneratorExit()))\n")
    make_plugin("zz_after", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'still called')\n")
    manager = plugin_manager(enabled=["gen", "zz_after"], strict=False)
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["still called"]


def test_a_hook_raising_keyboard_interrupt_without_a_ctrl_c_is_its_failure_under_the_command(make_plugin, plugin_manager, caplog):
    from hermes_core import interrupts

    make_plugin("kb", "def register(ctx):\n    def hook(**kw):\n        raise KeyboardInterrupt\n    ctx.register_hook('on_session_reset', hook)\n")
    make_plugin("zz_after", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'still called')\n")
    manager = plugin_manager(enabled=["kb", "zz_after"], strict=False)
    with interrupts.watch():  # what the hermes command keeps for its whole run
        assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["still called"]
    assert "plugin 'kb' hook 'on_session_reset' failed: KeyboardInterrupt\n" in caplog.text + "\n"  # no empty ': ' after it
    with pytest.raises(KeyboardInterrupt):  # an embedding program without a watch cannot tell: taken as the user's
        manager.hooks.invoke("on_session_reset", session_id="s", platform="cli")


@pytest.mark.parametrize("disposition", [signal.SIG_IGN, signal.SIG_DFL], ids=["ignored", "default"])
def test_with_sigint_ignored_or_default_a_keyboard_interrupt_is_always_the_plugins(make_plugin, plugin_manager, disposition):
    # a background job or nohup: no Ctrl-C can raise KeyboardInterrupt, so one that appears is the plugin's own
    make_plugin("kb", "def register(ctx):\n    def hook(**kw):\n        raise KeyboardInterrupt\n    ctx.register_hook('on_session_reset', hook)\n")
    make_plugin("zz_after", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'still called')\n")
    manager = plugin_manager(enabled=["kb", "zz_after"], strict=False)
    previous = signal.signal(signal.SIGINT, disposition)
    try:
        assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["still called"]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_during_a_hook_stops_the_command(make_plugin, plugin_manager):
    from hermes_core import interrupts

    make_plugin("slow_hook", "import signal\ndef register(ctx):\n    def hook(**kw):\n        signal.raise_signal(signal.SIGINT)\n"
                             "        return 'not reached'\n    ctx.register_hook('on_session_reset', hook)\n")
    manager = plugin_manager(enabled=["slow_hook"], strict=False)
    with interrupts.watch(), pytest.raises(KeyboardInterrupt):
        manager.hooks.invoke("on_session_reset", session_id="s", platform="cli")
