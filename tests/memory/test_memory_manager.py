"""MemoryManager: one external provider beside the built-in, isolation, timeouts, ordering, fan-out."""

from __future__ import annotations

import json
import logging
import os
import threading

import pytest

from hermes_core.memory import MemoryProvider
from hermes_core.memory.manager import MemoryManager


class Recorder(MemoryProvider):
    """A provider that records every call it gets."""

    def __init__(self, name: str = "ext", tools: list[str] | None = None, recall: str = "") -> None:
        self._name = name
        self.calls: list[tuple] = []
        self.tools = tools or []
        self.recall = recall
        self.listeners = []

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def initialize(self, session_id, **kwargs):
        self.calls.append(("initialize", session_id, kwargs))

    def get_tool_schemas(self):
        return [{"name": t, "description": "", "parameters": {"type": "object", "properties": {}}} for t in self.tools]

    def handle_tool_call(self, tool_name, args, **kwargs):
        return json.dumps({"provider": self._name, "tool": tool_name})

    def prefetch(self, query, *, session_id=""):
        self.calls.append(("prefetch", query, session_id))
        return self.recall

    def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None):
        self.calls.append(("sync_turn", user_content, session_id, messages))

    def queue_prefetch(self, query, *, session_id=""):
        self.calls.append(("queue_prefetch", query))

    def on_memory_write(self, action, target, content, metadata=None):
        self.calls.append(("on_memory_write", action, target, content, metadata))

    def system_prompt_block(self):
        return f"[{self._name} block]"

    def add_write_listener(self, listener):
        self.listeners.append(listener)


class Explodes(Recorder):
    """Raises from every method a manager calls."""

    def __getattribute__(self, item):
        if item in {"initialize", "prefetch", "sync_turn", "queue_prefetch", "on_turn_start", "on_session_end", "on_session_switch", "on_pre_compress", "on_delegation", "on_memory_write", "shutdown", "system_prompt_block", "get_tool_schemas", "handle_tool_call"}:
            def boom(*args, **kwargs):
                raise RuntimeError(f"{item} exploded")
            return boom
        return super().__getattribute__(item)


def test_builtin_goes_first_and_a_second_external_is_rejected(caplog):
    manager = MemoryManager()
    external, second, builtin = Recorder("honcho"), Recorder("mem0"), Recorder("builtin")
    assert manager.add_provider(external)
    assert manager.add_provider(builtin)
    with caplog.at_level(logging.WARNING, logger="hermes.memory"):
        assert not manager.add_provider(second)
    assert [p.name for p in manager.providers] == ["builtin", "honcho"]
    assert "'mem0' rejected" in caplog.text and "'honcho' is already active" in caplog.text and "memory.provider" in caplog.text
    assert manager.build_system_prompt() == "[builtin block]\n\n[honcho block]"


def test_tool_routing_reserved_names_and_first_wins(caplog):
    manager = MemoryManager()
    manager.add_provider(Recorder("builtin", tools=["memory"]))
    with caplog.at_level(logging.WARNING, logger="hermes.memory"):
        manager.add_provider(Recorder("ext", tools=["ext_search", "memory", "session_search"]))
    assert manager.get_all_tool_names() == ["memory", "ext_search"]
    assert json.loads(manager.handle_tool_call("ext_search", {}))["provider"] == "ext"
    assert json.loads(manager.handle_tool_call("memory", {}))["provider"] == "builtin"
    assert "may not define tool 'session_search'" in caplog.text
    assert "no memory provider handles" in json.loads(manager.handle_tool_call("nope", {}))["error"]


def test_a_provider_raising_everywhere_leaves_turns_working():
    manager = MemoryManager(prefetch_timeout=2)
    healthy = Recorder("builtin", recall="from builtin")
    manager.add_provider(healthy)
    manager.add_provider(Explodes("bad", tools=["bad_tool"]))
    manager.initialize_all("s1", hermes_home="/tmp", platform="cli")
    manager.on_turn_start(1, "hello")
    assert manager.prefetch_all("what did we decide") == "from builtin"
    manager.sync_all("u", "a")
    manager.queue_prefetch_all("next")
    assert manager.flush(5)
    assert manager.on_pre_compress([]) == ""
    manager.on_session_switch("s2", reset=True)
    manager.on_memory_write("add", "memory", "x")
    assert "bad_tool" not in manager.get_all_tool_names()
    assert manager.build_system_prompt() == "[builtin block]"
    manager.shutdown_all()
    assert [c[0] for c in healthy.calls] == ["initialize", "prefetch", "sync_turn", "queue_prefetch"]


def test_a_hanging_prefetch_is_bounded_and_not_piled_up():
    release = threading.Event()

    class Hangs(Recorder):
        def prefetch(self, query, *, session_id=""):
            self.calls.append(("prefetch", query))
            release.wait()
            return "late"

    manager = MemoryManager(prefetch_timeout=0.2)
    fast = Recorder("builtin", recall="fast")
    slow = Hangs("slow")
    manager.add_provider(fast)
    manager.add_provider(slow)
    try:
        assert manager.prefetch_all("first question") == "fast"
        assert manager.prefetch_all("second question") == "fast"
        assert [c for c in slow.calls if c[0] == "prefetch"] == [("prefetch", "first question")]  # skipped while busy
    finally:
        release.set()


def test_trivial_prompts_skip_recall():
    manager = MemoryManager()
    provider = Recorder("builtin", recall="x")
    manager.add_provider(provider)
    assert manager.prefetch_all("ok") == "" and manager.prefetch_all("/new") == ""
    assert provider.calls == []


def test_background_writes_keep_their_order_and_flush_is_a_barrier():
    order = []

    class Slowish(Recorder):
        def sync_turn(self, user_content, assistant_content, *, session_id=""):
            order.append(user_content)

    manager = MemoryManager()
    manager.add_provider(Slowish("builtin"))
    for index in range(50):
        manager.sync_all(f"turn {index}", "reply")
    assert manager.flush(10)
    assert order == [f"turn {i}" for i in range(50)]


def test_shutdown_drain_is_bounded(caplog):
    release = threading.Event()

    class Stuck(Recorder):
        def sync_turn(self, user_content, assistant_content, *, session_id=""):
            release.wait()

    manager = MemoryManager(drain_timeout=0.2)
    stuck = Stuck("builtin")
    manager.add_provider(stuck)
    manager.sync_all("u", "a")
    try:
        with caplog.at_level(logging.WARNING, logger="hermes.memory"):
            manager.shutdown_all()
        assert "still queued after 0.2 s" in caplog.text
    finally:
        release.set()


def test_sync_turn_gets_messages_only_when_it_accepts_them():
    class Old(Recorder):
        def sync_turn(self, user_content, assistant_content, *, session_id=""):
            self.calls.append(("old_sync", user_content))

    manager = MemoryManager()
    new, old = Recorder("builtin"), Old("old")
    manager.add_provider(new)
    manager.add_provider(old)
    manager.sync_all("u", "a", session_id="s", messages=[{"role": "user", "content": "u"}])
    assert manager.flush(5)
    assert new.calls == [("sync_turn", "u", "s", [{"role": "user", "content": "u"}])]
    assert old.calls == [("old_sync", "u")]


@pytest.mark.parametrize("style", ["keyword", "positional", "legacy"])
def test_memory_writes_reach_external_providers_in_every_signature_style(style, make_plugin, plugin_manager):
    received = []

    class Keyword(Recorder):
        def on_memory_write(self, action, target, content, metadata=None):
            received.append((action, target, content, metadata))

    class Positional(Recorder):
        def on_memory_write(self, action, target, content, meta):  # noqa: D401 - old name for the 4th argument
            received.append((action, target, content, meta))

    class Legacy(Recorder):
        def on_memory_write(self, action, target, content):
            received.append((action, target, content))

    make_plugin("listener", "SEEN = []\ndef register(ctx):\n    ctx.register_hook('on_memory_write', lambda **kw: SEEN.append(kw))\n")
    plugins = plugin_manager(enabled=["listener"])
    manager = MemoryManager(hooks=plugins.hooks)
    builtin = Recorder("builtin")
    manager.add_provider(builtin)
    manager.add_provider({"keyword": Keyword, "positional": Positional, "legacy": Legacy}[style]("ext"))
    builtin.listeners[0]("add", "user", "likes tea", {"session_id": "s7", "tool_name": "memory"})
    expected_meta = {"session_id": "s7", "tool_name": "memory"}
    assert received == [("add", "user", "likes tea") + (() if style == "legacy" else (expected_meta,))]
    hook_call = plugins.get("listener").module.SEEN[0]
    assert (hook_call["action"], hook_call["target"], hook_call["content"], hook_call["session_id"]) == ("add", "user", "likes tea", "s7")


def test_from_plugins_selects_builtin_and_the_configured_provider(make_plugin, plugin_manager):
    code = """
from hermes_core import MemoryProvider
class P(MemoryProvider):
    name = {name!r}
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
def register(ctx):
    ctx.register_memory_provider(P())
"""
    make_plugin("builtin_stub", code.format(name="builtin"), manifest={"name": "builtin_stub", "kind": "standalone"})
    make_plugin("vault", code.format(name="vault"), manifest={"name": "vault", "kind": "exclusive"})
    plugins = plugin_manager(enabled=["builtin_stub"], config={"memory": {"provider": "vault"}})
    manager = MemoryManager.from_plugins(plugins)
    assert [p.name for p in manager.providers] == ["builtin", "vault"]


@pytest.mark.parametrize("check, reason", [("return False", "VAULT_TOKEN is not set"), ("raise RuntimeError('no keyring')", "is_available() raised RuntimeError: no keyring")])
def test_a_selected_provider_that_is_not_available_stays_out_of_the_session_and_says_why(make_plugin, plugin_manager, caplog, check, reason):
    code = f"""
from hermes_core import MemoryProvider
class P(MemoryProvider):
    name = "vault"
    def is_available(self): {check}
    def unavailable_reason(self): return "VAULT_TOKEN is not set"
    def initialize(self, session_id, **kw): raise AssertionError("an unavailable provider must not be initialized")
    def get_tool_schemas(self): return [{{"name": "vault_search", "description": "d", "parameters": {{"type": "object", "properties": {{}}}}}}]
def register(ctx):
    ctx.register_memory_provider(P())
"""
    make_plugin("vault", code, manifest={"name": "vault", "kind": "exclusive"})
    plugins = plugin_manager(config={"memory": {"provider": "vault"}})
    with caplog.at_level("WARNING"):
        manager = MemoryManager.from_plugins(plugins)
    assert [p.name for p in manager.providers] == ["builtin"]
    warning = "\n".join(r.getMessage() for r in caplog.records)
    assert "'vault' is selected but not available" in warning and reason in warning and "hermes memory status" in warning


def test_availability_is_judged_on_the_plugin_managers_home_not_only_hermes_home(make_plugin, tmp_path, monkeypatch):
    """A host may run a PluginManager on another home: a provider that reads its settings from $HERMES_HOME (until
    initialize() tells it the home) is asked with that home in effect, and $HERMES_HOME is left as it was."""
    from hermes_core.manager import PluginManager

    other = tmp_path / "other_home"
    (other / "plugins").mkdir(parents=True)
    code = """
import os
from pathlib import Path
from hermes_core import MemoryProvider
class P(MemoryProvider):
    name = "vault"
    def is_available(self): return (Path(os.environ["HERMES_HOME"]) / "vault.json").is_file()
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
def register(ctx):
    ctx.register_memory_provider(P())
"""
    make_plugin("vault", code, manifest={"name": "vault", "kind": "exclusive"}, where=other / "plugins")
    (other / "vault.json").write_text("{}")
    (other / "config.yaml").write_text("memory:\n  provider: vault\n")
    before = os.environ["HERMES_HOME"]
    plugins = PluginManager(home=other)
    plugins.load_all()
    manager = MemoryManager.from_plugins(plugins)
    assert [p.name for p in manager.providers] == ["builtin", "vault"]
    assert os.environ["HERMES_HOME"] == before
