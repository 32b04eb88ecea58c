"""`hermes memory setup` and `status` with a real provider plugin (the built-in memory has its own tests)."""

from __future__ import annotations

import json
import stat

import yaml

PROVIDER = '''
import json
from pathlib import Path
from hermes_core import MemoryProvider

class Vault(MemoryProvider):
    name = "vault"
    def is_available(self):
        import os
        return bool(os.environ.get("VAULT_TOKEN"))
    def unavailable_reason(self):
        return "VAULT_TOKEN is not set"
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
    def get_config_schema(self):
        return [
            {"key": "token", "description": "API token", "secret": True, "required": True, "env_var": "VAULT_TOKEN"},
            {"key": "region", "description": "where", "choices": ["eu", "us"], "default": "eu"},
        ]
    def save_config(self, values, hermes_home):
        Path(hermes_home, "vault.json").write_text(json.dumps(values))

def register(ctx):
    ctx.register_memory_provider(Vault())
'''


def test_setup_is_non_interactive_when_values_are_given(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    result = run_hermes("memory", "setup", "vault", "--set", "token=s3cret", "--set", "region=us", "--yes")
    assert result.exit_code == 0, result.stderr
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["provider"] == "vault"
    assert json.loads((hermes_home / "vault.json").read_text()) == {"region": "us"}
    env_file = hermes_home / ".env"
    assert "VAULT_TOKEN=s3cret" in env_file.read_text() and stat.S_IMODE(env_file.stat().st_mode) == 0o600


def test_setup_errors_name_the_fix(make_plugin, run_hermes):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    missing = run_hermes("memory", "setup", "vault", "--yes")
    assert missing.exit_code == 1 and "--set token=VALUE" in missing.stderr
    unknown = run_hermes("memory", "setup", "vault", "--set", "colour=red", "--yes")
    assert "has no setting(s) colour" in unknown.stderr
    bad_choice = run_hermes("memory", "setup", "vault", "--set", "token=x", "--set", "region=mars", "--yes")
    assert "must be one of eu, us" in bad_choice.stderr
    nobody = run_hermes("memory", "setup", "nosuch", "--yes")
    found = nobody.stderr.split("found: ", 1)[1].split(" ->")[0].split(", ")
    assert "vault" in found  # beside the bundled providers


def test_every_wrong_value_is_named_at_once_and_nothing_is_written(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    both = run_hermes("memory", "setup", "vault", "--set", "region=mars", "--yes")  # and no token
    assert both.exit_code == 1
    assert "2 settings of vault need fixing; nothing was written:" in both.stderr
    assert "  - vault needs 'token' -> pass --set token=VALUE" in both.stderr and "  - setting 'region' must be one of eu, us" in both.stderr
    assert not (hermes_home / "vault.json").exists() and not (hermes_home / ".env").exists()


def test_setting_a_value_for_a_provider_without_settings_names_what_to_do(make_plugin, run_hermes):
    bare = PROVIDER.replace("    def get_config_schema(self):", "    def get_config_schema(self):\n        return []\n    def unused(self):")
    make_plugin("vault", bare, manifest={"name": "vault", "kind": "exclusive"})
    result = run_hermes("memory", "setup", "vault", "--set", "bogus=1", "--yes")
    assert result.exit_code == 1
    assert "vault has no settings to set, so --set bogus=... is not used -> run 'hermes memory setup vault --yes' without --set" in result.stderr


def test_setup_builtin_clears_the_selection(run_hermes, hermes_home):
    (hermes_home / "config.yaml").write_text("memory:\n  provider: vault\n")
    assert run_hermes("memory", "setup", "builtin").exit_code == 0
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["provider"] == ""


def test_setup_answers_in_json_without_asking(make_plugin, run_hermes, hermes_home, monkeypatch):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    monkeypatch.delenv("VAULT_TOKEN", raising=False)
    result = run_hermes("memory", "setup", "vault", "--set", "token=s3cret", "--set", "region=us", "--json", input="no\n")
    assert result.exit_code == 0, result.stderr
    assert result.json() == {"provider": "vault", "memory.provider": "vault", "secrets": ["VAULT_TOKEN"], "settings": ["region"],
                             "env_file": str(hermes_home / ".env"), "available": True, "reason": ""}
    assert "s3cret" not in result.stdout
    builtin = run_hermes("memory", "setup", "builtin", "--json")
    assert builtin.exit_code == 0 and builtin.json()["memory.provider"] == ""
    refused = run_hermes("memory", "setup", "vault", "--json")  # the token is required and --json asks nothing
    assert refused.exit_code == 1 and "--set token=VALUE" in refused.json()["fix"]
