"""`hermes plugins enable` on a memory provider selects it (memory.provider), as the docs and the listing tell users to run it."""

from __future__ import annotations

import yaml

_PROVIDER = '''
from hermes_core.memory.provider import MemoryProvider

class Vault(MemoryProvider):
    name = "vault"
    def is_available(self): return True
    def initialize(self, session_id, **kwargs): pass
    def get_tool_schemas(self): return []

def register(ctx):
    ctx.register_memory_provider(Vault())
'''


def _config(home):
    return yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8"))


def test_enabling_a_provider_selects_it_with_exit_0(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", _PROVIDER, manifest={"name": "vault", "version": "0.1.0", "kind": "exclusive"})
    result = run_hermes("plugins", "enable", "vault")
    assert result.exit_code == 0, result.stderr
    assert "selected 'vault' as the memory provider: memory.provider = vault" in result.stdout
    assert result.stderr == ""  # it is available: nothing to warn about
    assert _config(hermes_home)["memory"]["provider"] == "vault"
    assert "vault" not in (_config(hermes_home).get("plugins") or {}).get("enabled", [])  # not the general list
    status = run_hermes("memory", "status", "--json").json()
    assert status["plugin"] == "vault" and status["available"] is True  # it is the one that runs now
    again = run_hermes("plugins", "enable", "vault")
    assert again.exit_code == 0 and "already the memory provider" in again.stdout


def test_enabling_a_disabled_provider_takes_it_out_of_plugins_disabled(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", _PROVIDER, manifest={"name": "vault", "version": "0.1.0", "kind": "exclusive"})
    assert run_hermes("plugins", "disable", "vault").exit_code == 0
    answer = run_hermes("plugins", "enable", "vault", "--json")
    assert answer.exit_code == 0, answer.stderr
    outcome = answer.json()
    assert outcome["state"] == "selected" and outcome["memory.provider"] == "vault" and outcome["available"] is True
    assert _config(hermes_home)["plugins"]["disabled"] == [] and _config(hermes_home)["memory"]["provider"] == "vault"


def test_a_bundled_provider_without_settings_is_selected_with_a_warning_naming_setup(run_hermes, hermes_home, monkeypatch):
    for name in ("HONCHO_API_KEY", "HONCHO_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = run_hermes("plugins", "enable", "honcho")
    assert result.exit_code == 0 and "Traceback" not in result.stderr
    assert _config(hermes_home)["memory"]["provider"] == "honcho"
    assert "warning: honcho is selected but not available yet: Honcho is not configured" in result.stderr


def test_with_another_provider_selected_nothing_changes_and_the_error_names_switch(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", _PROVIDER, manifest={"name": "vault", "version": "0.1.0", "kind": "exclusive"})
    (hermes_home / "config.yaml").write_text("memory:\n  provider: mem0\n", encoding="utf-8")
    result = run_hermes("plugins", "enable", "vault")
    assert result.exit_code == 1
    assert "memory.provider already selects 'mem0'" in result.stderr and "'hermes memory switch vault'" in result.stderr
    assert (hermes_home / "config.yaml").read_text(encoding="utf-8") == "memory:\n  provider: mem0\n"


def test_a_builtin_only_selection_counts_as_none(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", _PROVIDER, manifest={"name": "vault", "version": "0.1.0", "kind": "exclusive"})
    (hermes_home / "config.yaml").write_text("memory:\n  provider: builtin\n", encoding="utf-8")
    assert run_hermes("plugins", "enable", "vault").exit_code == 0
    assert _config(hermes_home)["memory"]["provider"] == "vault"


def test_a_provider_that_is_not_available_yet_is_selected_with_the_setup_command_named(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", _PROVIDER.replace("def is_available(self): return True", "def is_available(self): return False"),
                manifest={"name": "vault", "version": "0.1.0", "kind": "exclusive"})
    result = run_hermes("plugins", "enable", "vault")
    assert result.exit_code == 0 and _config(hermes_home)["memory"]["provider"] == "vault"
    assert result.stderr.startswith("warning: vault is selected but not available yet: is_available() returned false -> "
                                    "'hermes memory setup vault' stores its settings;")


def test_disabling_the_selected_provider_says_only_the_builtin_memory_runs(make_plugin, run_hermes):
    make_plugin("vault", _PROVIDER, manifest={"name": "vault", "version": "0.1.0", "kind": "exclusive"})
    assert run_hermes("plugins", "enable", "vault").exit_code == 0
    disabled = run_hermes("plugins", "disable", "vault")
    assert disabled.exit_code == 0
    assert "warning: memory.provider still selects 'vault', which is now disabled, so only the built-in memory runs" in disabled.stderr
    assert run_hermes("memory", "status", "--json").json()["available"] is False
    assert "warning" not in run_hermes("plugins", "disable", "hook_log").stderr  # not a provider: nothing to say
