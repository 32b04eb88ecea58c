"""MemoryManager.switch_external: a running session keeps its provider until its boundary."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from hermes_core.memory.manager import MemoryManager
from hermes_core.memory.provider import MemoryProvider
from hermes_core.testing import MemoryProviderContract
from hermes_plugins_builtin.memory import BuiltinMemoryProvider

sys.path.insert(0, str(Path(__file__).parent))
from switch_support import LEDGER_PLUGIN  # noqa: E402


class Recorder(MemoryProvider):
    def __init__(self, name):
        self._name = name
        self.events = []

    @property
    def name(self):
        return self._name

    def is_available(self):
        return True

    def initialize(self, session_id, **kwargs):
        self.events.append(("initialize", session_id, kwargs.get("platform")))

    def get_tool_schemas(self):
        return [{"name": f"{self._name}_search", "description": "", "parameters": {"type": "object", "properties": {}}}]

    def system_prompt_block(self):
        return f"[{self._name}]"

    def sync_turn(self, user_content, assistant_content, *, session_id=""):
        self.events.append(("sync", user_content, session_id))

    def on_session_switch(self, new_session_id, **kwargs):
        self.events.append(("switch", new_session_id, kwargs.get("reset")))

    def shutdown(self):
        self.events.append(("shutdown",))


def _manager(tmp_path, old):
    manager = MemoryManager()
    manager.add_provider(BuiltinMemoryProvider(tmp_path))
    manager.add_provider(old)
    manager.initialize_all("s1", hermes_home=str(tmp_path), platform="telegram")
    return manager


def test_a_running_session_keeps_its_provider_until_it_ends(tmp_path):
    old, new = Recorder("old"), Recorder("new")
    manager = _manager(tmp_path, old)
    assert manager.switch_external(new) is False
    manager.sync_all("during the old session", "ok")
    manager.on_session_switch("s1b", parent_session_id="s1", reason="compression")  # not a boundary
    assert manager.external is old and manager.has_tool("old_search") and "[old]" in manager.build_system_prompt()
    manager.on_session_end([])
    assert manager.external is new and manager.has_tool("new_search") and not manager.has_tool("old_search")
    assert old.events[-1] == ("shutdown",) and ("sync", "during the old session", "s1") in old.events  # drained before shutdown
    manager.initialize_all("s2", hermes_home=str(tmp_path), platform="telegram")
    manager.sync_all("in the new session", "ok")
    assert manager.flush(5)
    assert new.events == [("initialize", "s2", "telegram"), ("sync", "in the new session", "s2")]
    assert "[new]" in manager.build_system_prompt() and "[old]" not in manager.build_system_prompt()


def test_a_reset_is_a_boundary_and_the_new_provider_starts_with_the_new_session(tmp_path):
    old, new = Recorder("old"), Recorder("new")
    manager = _manager(tmp_path, old)
    manager.switch_external(new)
    manager.on_session_switch("s2", parent_session_id="s1", reset=True)
    assert manager.external is new
    assert new.events == [("initialize", "s2", "telegram")]  # initialized for the session, not told to switch to it
    assert ("switch", "s2", True) not in old.events and old.events[-1] == ("shutdown",)


def test_switching_with_no_session_running_is_immediate_and_none_means_builtin_only(tmp_path):
    old = Recorder("old")
    manager = MemoryManager()
    manager.add_provider(BuiltinMemoryProvider(tmp_path))
    assert manager.switch_external(old) is True and manager.external is old
    manager.initialize_all("s1", hermes_home=str(tmp_path))
    manager.switch_external(None)
    manager.shutdown_all()
    manager.initialize_all("s2", hermes_home=str(tmp_path))
    assert manager.external is None and [p.name for p in manager.providers] == ["builtin"]


def _ledger_class():
    spec = importlib.util.spec_from_file_location("ledger_memory_fixture", LEDGER_PLUGIN / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LedgerMemory


class TestLedgerProviderContract(MemoryProviderContract):
    """The third-party style test provider passes the kit, export/import round trip included."""

    def make_provider(self, hermes_home):
        return _ledger_class()()
