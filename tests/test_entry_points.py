"""Entry-point plugins found on sys.path (installed layout): general and memory-provider groups."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def site_dir(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [m for m in sys.modules if m.startswith("ep_fixture_")]:
        del sys.modules[name]


def install(site: Path, package: str, entry_points: str, code: str, manifest: str | None = None) -> None:
    """Lay out a package and its dist-info as pip would, without pip."""
    (site / package).mkdir()
    (site / package / "__init__.py").write_text(textwrap.dedent(code))
    if manifest is not None:
        (site / package / "plugin.yaml").write_text(textwrap.dedent(manifest))
    dist = site / f"{package}-2.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 2.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent(entry_points))


def test_an_entry_point_without_plugin_yaml_gets_a_synthesized_manifest(site_dir, plugin_manager):
    install(site_dir, "ep_fixture_plain", "[hermes_agent.plugins]\nplain = ep_fixture_plain\n", "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'plain')\n")
    manager = plugin_manager(enabled=["plain"])
    record = manager.get("plain")
    assert record.candidate.source == "entrypoint" and record.candidate.version == "2.0"
    assert record.loaded and manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["plain"]


def test_a_shipped_plugin_yaml_is_validated_before_import(site_dir, plugin_manager):
    install(
        site_dir,
        "ep_fixture_bad",
        "[hermes_agent.plugins]\nbad = ep_fixture_bad\n",
        "raise RuntimeError('must not be imported')\n",
        manifest="name: bad\nkind: nonsense\n",
    )
    record = plugin_manager(enabled=["bad"], strict=False).get("bad")
    assert not record.loaded and "'kind'" in record.error and "must not be imported" not in record.error


def test_memory_provider_entry_points_accept_a_register_function(site_dir, plugin_manager):
    install(
        site_dir,
        "ep_fixture_mem",
        "[hermes_agent.memory_providers]\nvault = ep_fixture_mem:register\n",
        """
        from hermes_core import MemoryProvider

        class Vault(MemoryProvider):
            name = "vault"
            def is_available(self): return True
            def initialize(self, session_id, **kw): pass
            def get_tool_schemas(self): return []

        def register(ctx):
            ctx.register_memory_provider(Vault())
        """,
    )
    idle = plugin_manager()
    assert idle.get("vault").candidate.kind == "exclusive" and not idle.get("vault").loaded
    manager = plugin_manager(config={"memory": {"provider": "vault"}})
    assert manager.get("vault").loaded and manager.active_memory_provider().name == "vault"


def test_a_builtin_key_cannot_be_taken_over(make_plugin, plugin_manager, hermes_home):
    make_plugin("prompt_caching", "raise RuntimeError('impostor')\n")
    manager = plugin_manager(enabled=["prompt_caching"])
    record = manager.get("prompt_caching")
    assert record.candidate.source == "builtin" and record.loaded
    (clash,) = [c for c in manager.clashes if "key is taken by the builtin" in c]
    # the impostor is the one to rename, and the message says where
    assert f"change 'name:' in {hermes_home / 'plugins' / 'prompt_caching' / 'plugin.yaml'} (the key is the manifest's name)" in clash


def test_an_oversized_plugin_yaml_in_a_package_is_that_plugin_s_problem_not_a_crash(site_dir, plugin_manager):
    install(
        site_dir,
        "ep_fixture_huge",
        "[hermes_agent.plugins]\nhuge = ep_fixture_huge\n",
        "raise RuntimeError('must not be imported')\n",
        manifest="name: huge\n" + "# padding\n" * 40_000,  # over the 256 KiB a manifest may be
    )
    manager = plugin_manager(enabled=["huge"], strict=False)
    record = manager.get("huge")
    assert record is not None and not record.loaded
    assert "plugin.yaml cannot be read" in record.error and "must not be imported" not in record.error


def test_doctor_names_an_entry_point_that_points_at_a_module_its_distribution_lacks(site_dir, run_hermes):
    install(site_dir, "ep_fixture_typo", "[hermes_agent.plugins]\ntypo = ep_fixture_tyop\n", "def register(ctx): pass\n")
    (site_dir / "ep_fixture_typo-2.0.dist-info" / "RECORD").write_text(
        "ep_fixture_typo/__init__.py,,\nep_fixture_typo-2.0.dist-info/METADATA,,\nep_fixture_typo-2.0.dist-info/RECORD,,\n")
    result = run_hermes("plugins", "doctor", "--json")
    entry = {e["key"]: e for e in result.json()}["typo"]
    (problem,) = [p for p in entry["problems"] if p["check"] == "dependencies"]
    assert problem["cause"] == ("entry point typo = ep_fixture_tyop names module 'ep_fixture_tyop', which distribution "
                                "ep_fixture_typo does not contain (its modules: ep_fixture_typo)")
    assert problem["fix"] == "correct the entry point in ep_fixture_typo's pyproject.toml, then reinstall it"


def test_doctor_tells_an_editable_install_whose_source_moved_to_reinstall(site_dir, run_hermes):
    install(site_dir, "ep_fixture_moved", "[hermes_agent.plugins]\nmoved = ep_fixture_gone\n", "def register(ctx): pass\n")
    (site_dir / "ep_fixture_moved-2.0.dist-info" / "RECORD").write_text(
        "__editable___ep_fixture_moved_2_0_finder.py,,\n__editable__.ep_fixture_moved-2.0.pth,,\nep_fixture_moved-2.0.dist-info/RECORD,,\n")
    entry = {e["key"]: e for e in run_hermes("plugins", "doctor", "--json").json()}["moved"]
    (problem,) = [p for p in entry["problems"] if p["check"] == "dependencies"]
    assert "cannot be found" in problem["cause"] and problem["fix"].startswith("reinstall it:")
