"""plugins.compat: a plugin written for Hermes Agent, importing its module names, loads unmodified."""

from __future__ import annotations

import sys

import pytest

from hermes_core import compat

LEGACY_PROVIDER = """
import json
from agent.memory_provider import MemoryProvider
from agent.memory_manager import build_memory_context_block
from tools.registry import tool_error
from hermes_constants import get_hermes_home
from hermes_cli.config import cfg_get, load_config


class LegacyMemory(MemoryProvider):
    @property
    def name(self):
        return "legacy"
    def is_available(self):
        return True
    def initialize(self, session_id, **kwargs):
        self.home = get_hermes_home()
    def get_tool_schemas(self):
        return []
    def prefetch(self, query, *, session_id=""):
        return build_memory_context_block("remembered: " + cfg_get(load_config(), "memory", "provider", default="?"))
    def handle_tool_call(self, tool_name, args, **kwargs):
        return tool_error("no tools")


def register(ctx):
    ctx.register_memory_provider(LegacyMemory())
"""


@pytest.fixture(autouse=True)
def _clean_aliases():
    yield
    compat.disable()


def test_a_legacy_provider_loads_with_compat_on(make_plugin, plugin_manager):
    make_plugin("legacy", LEGACY_PROVIDER)  # no kind: detected as a memory provider
    manager = plugin_manager(config={"memory": {"provider": "legacy"}, "plugins": {"compat": True}})
    assert manager.get("legacy").loaded, manager.get("legacy").error
    provider = manager.active_memory_provider()
    provider.initialize("s")
    assert "remembered: legacy" in provider.prefetch("q") and "<memory-context>" in provider.prefetch("q")
    import agent.memory_provider

    assert agent.memory_provider.MemoryProvider is __import__("hermes_core").MemoryProvider


def test_compat_off_by_config_the_legacy_imports_fail_with_a_clear_error(make_plugin, plugin_manager):
    make_plugin("legacy", LEGACY_PROVIDER)
    config = {"memory": {"provider": "legacy"}, "plugins": {"compat": False}}
    record = plugin_manager(config=config, strict=False).get("legacy")
    assert not record.loaded and "No module named 'agent'" in record.error
    assert "'agent.memory_provider', a Hermes Agent module" in record.error and "plugins.compat" in record.error
    assert "agent" not in sys.modules


def test_hermes_cli_plugins_invoke_hook_uses_the_shared_manager(make_plugin, plugin_manager):
    make_plugin("hooky", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'heard')\n")
    manager = plugin_manager(enabled=["hooky"], config={"plugins": {"compat": True}})
    import hermes_cli.plugins as legacy

    legacy.set_plugin_manager(manager)
    assert legacy.invoke_hook("on_session_reset", session_id="s", platform="cli") == ["heard"]
    assert legacy.has_hook("on_session_reset") and "pre_tool_call" in legacy.VALID_HOOKS
