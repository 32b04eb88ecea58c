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
def test_a_selection_that_is_not_a_name_selects_nothing(make_plugin, plugin_manager, selection):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    manager = plugin_manager(config={"memory": {"provider": selection}}, load=False)
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
