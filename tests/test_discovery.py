"""Discovery: sources, precedence and clashes, path safety, policy. Nothing here imports plugins."""

from __future__ import annotations

import os

import pytest

from hermes_core.discovery import check_path_safety

IMPORT_MARKER = "import pathlib, os\npathlib.Path(os.environ['HERMES_HOME'], 'IMPORTED_{name}').touch()\ndef register(ctx):\n    pass\n"


def _keys(manager):
    return {r.key: r for r in manager.discover()}


def test_sources_user_bundled_category_and_project(make_plugin, plugin_manager, monkeypatch, tmp_path, hermes_home):
    bundled = tmp_path / "bundled"
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(bundled))
    make_plugin("flat", IMPORT_MARKER.format(name="flat"), where=bundled)
    make_plugin("honcho", IMPORT_MARKER.format(name="honcho"), where=bundled, category="memory", manifest={"name": "honcho", "kind": "exclusive"})
    make_plugin("mine", IMPORT_MARKER.format(name="mine"))
    make_plugin("proj", IMPORT_MARKER.format(name="proj"), where="project")
    manager = plugin_manager(load=False, cwd=tmp_path / "project")
    records = _keys(manager)
    assert {"flat", "memory/honcho", "mine"} <= set(records)
    assert "proj" not in records  # project plugins need the opt-in
    assert records["flat"].candidate.source == "bundled" and records["mine"].candidate.source == "user"
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    records = _keys(plugin_manager(load=False, cwd=tmp_path / "project"))
    assert records["proj"].candidate.source == "project"
    assert not list(hermes_home.glob("IMPORTED_*")), "discovery must not import plugin code"


def test_a_later_source_overrides_and_the_clash_is_reported(make_plugin, plugin_manager, monkeypatch, tmp_path):
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    make_plugin("dup", "def register(ctx): pass\n")
    make_plugin("dup", "def register(ctx): pass\n", where="project")
    manager = plugin_manager(load=False, cwd=tmp_path / "project")
    record = _keys(manager)["dup"]
    assert record.candidate.source == "project"
    assert any("overrides the user plugin" in w for w in record.warnings)
    assert len(manager.clashes) == 1
    (clash,) = manager.clashes
    # how to keep both (rename), keep one (remove) or turn the winner off (disable)
    project_manifest = tmp_path / "project" / ".hermes" / "plugins" / "dup" / "plugin.yaml"
    assert f"to keep both, change 'name:' in {project_manifest}" in clash
    assert "remove this one" in clash and "'hermes plugins disable dup' turns off whichever wins" in clash
    entry = next(e for e in manager.list_plugins() if e["key"] == "dup")
    assert entry["warnings"] and entry["source"] == "project"


def test_a_directory_without_plugin_yaml_is_reported(make_plugin, plugin_manager):
    make_plugin("nomani", "def register(ctx): pass\n", manifest=False)
    record = _keys(plugin_manager(load=False))["nomani"]
    assert "no plugin.yaml" in record.error


def test_plugin_yml_is_accepted(hermes_home, plugin_manager):
    directory = hermes_home / "plugins" / "alt"
    directory.mkdir(parents=True)
    (directory / "plugin.yml").write_text("name: alt\nversion: 2\n")
    (directory / "__init__.py").write_text("def register(ctx): pass\n")
    record = _keys(plugin_manager(enabled=["alt"]))["alt"]
    assert record.loaded and record.candidate.version == "2"


def test_a_symlink_escaping_the_plugin_is_refused(make_plugin, plugin_manager, tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text("SECRET = 1\n")
    directory = make_plugin("escape", IMPORT_MARKER.format(name="escape"))
    (directory / "helper.py").symlink_to(outside)
    manager = plugin_manager(enabled=["escape"], strict=False)
    record = _keys(manager)["escape"]
    assert not record.loaded and "helper.py is a symlink to" in record.error and "outside the plugin directory" in record.error
    assert not (manager.home / "IMPORTED_escape").exists()


def test_a_symlink_inside_the_plugin_is_fine(make_plugin, plugin_manager):
    directory = make_plugin("inner", "from .alias import X\ndef register(ctx): pass\n", files={"real.py": "X = 1\n"})
    (directory / "alias.py").symlink_to(directory / "real.py")
    assert _keys(plugin_manager(enabled=["inner"]))["inner"].loaded


def test_a_world_writable_plugin_directory_is_refused(make_plugin, plugin_manager, caplog):
    directory = make_plugin("loose", IMPORT_MARKER.format(name="loose"))
    directory.chmod(0o777)
    manager = plugin_manager(enabled=["loose"], strict=False)
    record = _keys(manager)["loose"]
    assert not record.loaded and "world-writable" in record.error and "chmod o-w" in record.error
    # an enabled plugin refused before import is reported when loading, not skipped in silence
    assert any("plugin 'loose'" in r.getMessage() and "was not loaded" in r.getMessage() and "world-writable" in r.getMessage() for r in caplog.records)
    assert not (manager.home / "IMPORTED_loose").exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing a file's owner needs root")
def test_a_plugin_directory_owned_by_another_user_is_refused(make_plugin, plugin_manager):
    directory = make_plugin("foreign", IMPORT_MARKER.format(name="foreign"))
    os.chown(directory, 4242, 4242)
    record = _keys(plugin_manager(enabled=["foreign"], strict=False))["foreign"]
    assert not record.loaded and "owned by uid 4242" in record.error


def test_path_safety_accepts_a_clean_tree(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "__init__.py").write_text("")
    assert check_path_safety(tmp_path / "p", check_owner=True) == []


# --- policy ------------------------------------------------------------------


def test_plugins_are_opt_in_and_disabled_wins(make_plugin, plugin_manager):
    make_plugin("opt", "def register(ctx): pass\n")
    assert not _keys(plugin_manager(load=False))["opt"].enabled
    assert _keys(plugin_manager(enabled=["opt"], load=False))["opt"].enabled
    both = plugin_manager(config={"plugins": {"enabled": ["opt"], "disabled": ["opt"]}}, load=False)
    assert not _keys(both)["opt"].enabled and "plugins.disabled" in _keys(both)["opt"].reason


def test_enable_and_disable_match_key_or_bare_name(make_plugin, plugin_manager):
    make_plugin("tool", "def register(ctx): pass\n", category="web")
    assert _keys(plugin_manager(config={"plugins": {"enabled": ["tool"]}}, load=False))["web/tool"].enabled
    assert _keys(plugin_manager(config={"plugins": {"enabled": ["web/tool"]}}, load=False))["web/tool"].enabled
    assert not _keys(plugin_manager(config={"plugins": {"enabled": ["web/tool"], "disabled": ["tool"]}}, load=False))["web/tool"].enabled


def test_safe_mode_loads_no_plugin(make_plugin, plugin_manager, monkeypatch):
    make_plugin("opt", IMPORT_MARKER.format(name="opt"))
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    manager = plugin_manager(enabled=["opt"])
    record = _keys(manager)["opt"]
    assert not record.enabled and not record.loaded and "HERMES_SAFE_MODE" in record.reason
    assert not (manager.home / "IMPORTED_opt").exists()


def test_memory_providers_load_only_when_selected(make_plugin, plugin_manager):
    provider_code = """
from hermes_core import MemoryProvider

class Prov(MemoryProvider):
    name = "{name}"
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []

def register(ctx):
    ctx.register_memory_provider(Prov())
"""
    make_plugin("alpha", provider_code.format(name="alpha"), manifest={"name": "alpha"})  # kind detected
    make_plugin("beta", provider_code.format(name="beta"), manifest={"name": "beta", "kind": "exclusive"})
    manager = plugin_manager(enabled=["alpha", "beta"])
    assert not any(r.loaded for r in manager.plugins if r.key in {"alpha", "beta"})
    selected = plugin_manager(config={"memory": {"provider": "beta"}})
    records = _keys(selected)
    assert records["beta"].loaded and not records["alpha"].loaded
    assert "hermes memory setup alpha" in records["alpha"].reason
    assert selected.active_memory_provider().name == "beta"


def test_bundled_backends_load_by_default(make_plugin, plugin_manager, monkeypatch, tmp_path):
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "b"))
    make_plugin("searx", "def register(ctx): pass\n", where=tmp_path / "b", category="web", manifest={"name": "searx", "kind": "backend"})
    make_plugin("userback", "def register(ctx): pass\n", manifest={"name": "userback", "kind": "backend"})
    records = _keys(plugin_manager())
    assert records["web/searx"].loaded and not records["userback"].loaded


def test_context_engine_selection_enables_the_plugin(make_plugin, plugin_manager):
    make_plugin(
        "squash",
        """
from hermes_core import ContextEngine
class Squash(ContextEngine):
    name = "squash"
    def update_from_response(self, usage): pass
    def should_compress(self, prompt_tokens=None): return False
    def compress(self, messages, current_tokens=None, focus_topic=None): return messages
def register(ctx):
    ctx.register_context_engine(Squash())
""",
    )
    manager = plugin_manager(config={"context": {"engine": "squash"}})
    assert manager.active_context_engine().name == "squash"


def test_requires_hermes_mismatch_is_skipped_before_import(make_plugin, plugin_manager):
    code = "from hermes_core import hookimpl\n" + IMPORT_MARKER.format(name="future")
    make_plugin("future", code, manifest={"name": "future", "requires_hermes": ">=99"})
    manager = plugin_manager(enabled=["future"], strict=False)
    record = _keys(manager)["future"]
    assert not record.loaded and "needs hermes >=99, this is hermes" in record.error
    assert not (manager.home / "IMPORTED_future").exists()


def test_a_hermes_agent_directory_plugin_is_held_to_the_hermes_agent_api_level(make_plugin, plugin_manager):
    from hermes_core.requires_hermes import HERMES_AGENT_API_LEVEL

    make_plugin("future", IMPORT_MARKER.format(name="future"), manifest={"name": "future", "requires_hermes": ">=99"})
    make_plugin("current", IMPORT_MARKER.format(name="current"), manifest={"name": "current", "requires_hermes": f">={HERMES_AGENT_API_LEVEL}"})
    manager = plugin_manager(enabled=["future", "current"], strict=False)
    records = _keys(manager)
    assert not records["future"].loaded
    assert f"needs Hermes Agent >=99; this host serves the plugin API of Hermes Agent {HERMES_AGENT_API_LEVEL}" in records["future"].error
    assert not (manager.home / "IMPORTED_future").exists()
    # hermes' own version (0.x) would refuse this one; Hermes Agent's API level satisfies it
    assert records["current"].loaded and (manager.home / "IMPORTED_current").exists()


def test_the_validation_cache_never_hides_a_changed_manifest(make_plugin, plugin_manager, hermes_home):
    directory = make_plugin("cached", "def register(ctx): pass\n", manifest={"name": "cached", "kind": "standalone"})
    assert _keys(plugin_manager(load=False))["cached"].error is None
    assert (hermes_home / "cache" / "plugin-manifests.json").is_file()
    (directory / "plugin.yaml").write_text("name: cached\nprovides_hooks: sideways\n")
    assert "'provides_hooks'" in _keys(plugin_manager(load=False))["cached"].error
    (directory / "plugin.yaml").write_text("name: cached\n")
    (directory / "__init__.py").write_text("from hermes_core import MemoryProvider\n")
    assert _keys(plugin_manager(load=False))["cached"].candidate.kind == "exclusive"  # kind detection re-ran


def test_the_config_parse_cache_follows_edits(hermes_home):
    from hermes_core.config import load_config

    (hermes_home / "config.yaml").write_text("memory:\n  provider: one\n")
    assert load_config().get("memory.provider") == "one"
    assert (hermes_home / "cache" / "config.yaml.json").is_file()
    (hermes_home / "config.yaml").write_text("memory:\n  provider: two\n")
    assert load_config().get("memory.provider") == "two"
