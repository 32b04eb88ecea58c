"""A plugin name in decomposed form (NFD: a directory name from macOS, a plugin.yaml saved so) and the same name typed
composed (NFC) are one name for enable, disable, info, remove and the load policy."""

from __future__ import annotations

import unicodedata

import pytest
import yaml

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")
assert NFC != NFD


def _config(home):
    return yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("stored", "typed"), [(NFD, NFC), (NFC, NFD)], ids=["stored-nfd", "stored-nfc"])
def test_enable_info_disable_and_remove_find_the_plugin_in_either_form(make_plugin, run_hermes, hermes_home, stored, typed):
    make_plugin(stored, "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: 'x')\n", manifest={"name": stored, "version": "0.1.0"})
    enabled = run_hermes("plugins", "enable", typed)
    assert enabled.exit_code == 0, enabled.stderr
    assert _config(hermes_home)["plugins"]["enabled"] == [NFC]  # written in one form
    info = run_hermes("plugins", "info", typed, "--json")
    assert info.exit_code == 0 and info.json()["key"] == NFC and info.json()["enabled"] is True
    loaded = {e["key"]: e for e in run_hermes("plugins", "list", "--load", "--json").json()}
    assert loaded[NFC]["loaded"] is True
    assert run_hermes("plugins", "disable", typed).exit_code == 0
    assert _config(hermes_home)["plugins"] == {"enabled": [], "disabled": [NFC]}
    removed = run_hermes("plugins", "remove", typed, "--yes")  # made by hand: deleted only when told to
    assert removed.exit_code == 0, removed.stderr
    assert list((hermes_home / "plugins").iterdir()) == [] and _config(hermes_home)["plugins"]["disabled"] == []


def test_a_directory_named_in_nfd_without_a_name_in_its_manifest_is_found_by_the_composed_name(make_plugin, run_hermes):
    make_plugin(NFD, "def register(ctx): pass\n", manifest={"version": "0.1.0"})
    assert run_hermes("plugins", "enable", NFC).exit_code == 0
    assert run_hermes("plugins", "info", NFC, "--json").json()["enabled"] is True


@pytest.mark.parametrize("listed", [NFD, NFC])
def test_config_lists_match_in_either_form(make_plugin, plugin_manager, listed):
    make_plugin(NFC if listed == NFD else NFD, "def register(ctx): pass\n")
    manager = plugin_manager(enabled=[listed], strict=False)
    assert [r.key for r in manager.plugins if r.loaded and r.candidate.source == "user"] == [NFC]


def test_settings_under_a_decomposed_key_reach_the_plugin(make_plugin, plugin_manager):
    make_plugin(NFC, "def register(ctx):\n    ctx.register_hook('on_session_reset', lambda **kw: ctx.get_config('greeting'))\n")
    manager = plugin_manager(enabled=[NFC], config={"plugins": {"entries": {NFD: {"settings": {"greeting": "bonjour"}}}}})
    assert manager.hooks.invoke("on_session_reset", session_id="s", platform="cli") == ["bonjour"]
