"""The load policy's small rules: name lists and selections by key, name or category member."""

from __future__ import annotations

import pytest

from hermes_core.policy import name_list, selected_by

PROVIDER = """
from hermes_core import MemoryProvider

class P(MemoryProvider):
    name = "vault"
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []

def register(ctx):
    ctx.register_memory_provider(P())
"""


@pytest.mark.parametrize(("value", "expected"), [(None, []), ("", []), ("   ", []), ("one", ["one"]), (["a", None, "b"], ["a", "b"]), (("t",), ["t"]), (5, None), ({"a": 1}, None)])
def test_name_list(value, expected):
    assert name_list(value) == expected


@pytest.mark.parametrize("selection", [5, None, "", [], {}, 0, ["vault"]])
def test_a_selection_that_is_not_a_name_selects_nothing(make_plugin, hermes_home, selection):
    from hermes_core.config import DEFAULT_CONFIG, Config, deep_merge
    from hermes_core.manager import PluginManager

    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    # given by a program: config.yaml itself refuses a memory.provider that is not text when it is loaded
    manager = PluginManager(home=hermes_home, config=Config(deep_merge(DEFAULT_CONFIG, {"memory": {"provider": selection}})))
    record = manager.get("vault")
    assert not record.enabled and "not selected" in record.reason
    assert selected_by(record.candidate, selection) is False


def test_a_category_plugin_is_selected_by_key_name_or_directory(make_plugin, plugin_manager):
    # key "mem/vault-dir", name "vault-memory": three spellings select it, others do not
    make_plugin("vault-dir", PROVIDER, manifest={"name": "vault-memory", "kind": "exclusive"}, category="mem")
    for selection in ("mem/vault-dir", "vault-memory", "vault-dir"):
        assert plugin_manager(config={"memory": {"provider": selection}}, load=False).get("mem/vault-dir").enabled, selection
    for selection in ("mem", "vault", "mem/vault-memory", "vault-dir/"):
        assert not plugin_manager(config={"memory": {"provider": selection}}, load=False).get("mem/vault-dir").enabled, selection


def _candidate(key: str, source: str, kind: str = "standalone"):
    from hermes_core.discovery import PluginCandidate
    from hermes_core.manifest import PluginManifest

    name = key.rsplit("/", 1)[-1]
    return PluginCandidate(key, name, source, f"/plugins/{key}", PluginManifest(name=name, kind=kind))


def _decide(candidate, config=None, env=None):
    from hermes_core.config import Config
    from hermes_core.policy import decide

    decision = decide(candidate, Config(config or {}), env or {})
    return decision.enabled, decision.reason


DISABLED = {"plugins": {"disabled": ["memory", "web/tool", "off"]}}


@pytest.mark.parametrize(
    ("candidate", "config", "env", "expected"),
    [
        (_candidate("memory", "builtin"), {}, {}, (True, "builtin (always on)")),
        (_candidate("memory", "builtin"), DISABLED, {}, (True, "builtin (always on; the plugins.disabled entry naming it is ignored)")),
        (_candidate("memory", "builtin"), {}, {"HERMES_SAFE_MODE": "1"}, (True, "builtin (always on)")),
        (_candidate("tool", "user"), {"plugins": {"enabled": ["tool"]}}, {"HERMES_SAFE_MODE": "1"}, (False, "HERMES_SAFE_MODE=1: no plugin is loaded (builtins only)")),
        (_candidate("web/tool", "user"), {"plugins": {"enabled": ["web/tool"], "disabled": ["web/tool"]}}, {}, (False, "disabled in config (plugins.disabled); run 'hermes plugins enable web/tool' to turn it on")),
        (_candidate("vault", "user", "exclusive"), {"memory": {"provider": "vault"}}, {}, (True, "memory provider selected by memory.provider")),
        (_candidate("vault", "user", "exclusive"), {"plugins": {"enabled": ["vault"]}}, {}, (False, "memory provider, not selected -> run 'hermes memory setup vault' to use it")),
        (_candidate("llm", "user", "model-provider"), {"plugins": {"enabled": ["llm"]}}, {}, (False, "model-provider plugins are listed but not run by this host")),
        (_candidate("store", "bundled", "backend"), {}, {}, (True, "bundled backend (on by default)")),
        (_candidate("chat", "bundled", "platform"), {}, {}, (True, "bundled platform (on by default)")),
        (_candidate("store", "user", "backend"), {}, {}, (False, "not enabled -> run 'hermes plugins enable store' to turn it on")),
        (_candidate("other", "bundled", "standalone"), {}, {}, (False, "not enabled -> run 'hermes plugins enable other' to turn it on")),
        (_candidate("store", "bundled", "backend"), {"plugins": {"disabled": ["store"]}}, {}, (False, "disabled in config (plugins.disabled); run 'hermes plugins enable store' to turn it on")),
        (_candidate("lcm", "user", "standalone"), {"context": {"engine": "lcm"}}, {}, (True, "context engine selected by context.engine")),
        (_candidate("tool", "entrypoint"), {"plugins": {"enabled": ["tool"]}}, {}, (True, "enabled in config (plugins.enabled)")),
    ],
)
def test_each_policy_rule_decides_with_its_reason(candidate, config, env, expected):
    assert _decide(candidate, config, env) == expected
