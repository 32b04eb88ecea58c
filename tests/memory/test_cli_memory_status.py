"""`hermes memory status` reports what the runtime will run: the load policy's verdict, then the provider."""

from __future__ import annotations

import shlex

import pytest
import yaml

from hermes_core.manager import PluginManager

# A plugin named vault-memory whose provider is named vault, with a secret in .env.
PROVIDER = '''
import os
from hermes_core import MemoryProvider

class Vault(MemoryProvider):
    name = "vault"
    def is_available(self):
        return bool(os.environ.get("VAULT_STATUS_TOKEN"))
    def unavailable_reason(self):
        return "VAULT_STATUS_TOKEN is not set"
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
    def get_config_schema(self):
        return [
            {"key": "token", "secret": True, "required": True, "env_var": "VAULT_STATUS_TOKEN"},
            {"key": "region", "default": "eu"},
        ]

def register(ctx):
    ctx.register_memory_provider(Vault())
'''


@pytest.fixture(autouse=True)
def no_token(monkeypatch):
    # Loading a plugin exports $HERMES_HOME/.env into os.environ; setenv first so monkeypatch removes it afterwards.
    monkeypatch.setenv("VAULT_STATUS_TOKEN", "")
    monkeypatch.delenv("VAULT_STATUS_TOKEN")


def _config(hermes_home, **data):
    (hermes_home / "config.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")


def test_a_disabled_provider_is_reported_unavailable_with_a_fix_that_works(make_plugin, run_hermes, hermes_home):
    make_plugin("vault-memory", PROVIDER, manifest={"name": "vault-memory", "kind": "exclusive"})
    (hermes_home / ".env").write_text("VAULT_STATUS_TOKEN=t0k\n")
    _config(hermes_home, memory={"provider": "vault-memory"}, plugins={"disabled": ["vault-memory", "other"]})
    text = run_hermes("memory", "status")
    assert text.exit_code == 1 and "NOT available" in text.stdout and "disabled in plugins.disabled" in text.stdout
    result = run_hermes("memory", "status", "--json")
    status = result.json()
    assert result.exit_code == 1
    assert status["available"] is False and status["plugin"] == "vault-memory"
    assert "hermes plugins enable" not in status["reason"]
    fix = shlex.split(status["reason"].split("remove it from that list: ", 1)[1])
    assert fix[0] == "hermes" and run_hermes(*fix[1:]).exit_code == 0
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["plugins"]["disabled"] == ["other"]
    after = run_hermes("memory", "status", "--json")
    assert after.exit_code == 0 and after.json()["available"] is True


def test_a_refused_provider_is_reported_with_its_error(make_plugin, run_hermes, hermes_home):
    make_plugin("vault-memory", PROVIDER, manifest={"name": "vault-memory", "kind": "exclusive", "requires_hermes": ">=999"})
    _config(hermes_home, memory={"provider": "vault-memory"})
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 1
    status = result.json()
    assert status["available"] is False and "requires_hermes" in status["reason"]


def test_safe_mode_is_reported_as_the_reason(make_plugin, run_hermes, hermes_home, monkeypatch):
    make_plugin("vault-memory", PROVIDER, manifest={"name": "vault-memory", "kind": "exclusive"})
    _config(hermes_home, memory={"provider": "vault-memory"})
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 1 and "HERMES_SAFE_MODE" in result.json()["reason"]


def test_a_shadowed_provider_is_named_and_the_winner_is_reported(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"})
    make_plugin("vault", PROVIDER, manifest={"name": "vault", "kind": "exclusive"}, category="mem")
    (hermes_home / ".env").write_text("VAULT_STATUS_TOKEN=t0k\n")
    _config(hermes_home, memory={"provider": "vault"})
    plugins = PluginManager(home=hermes_home)
    plugins.discover()
    winner = next(r.key for r in plugins.plugins if r.name == "vault" and r.enabled)
    loser = next(r.key for r in plugins.plugins if r.name == "vault" and not r.enabled)
    status = run_hermes("memory", "status", "--json").json()
    assert status["plugin"] == winner and status["shadowed"] == [loser] and status["available"] is True


def test_a_provider_name_that_the_policy_would_not_load_is_unavailable(make_plugin, run_hermes, hermes_home):
    make_plugin("vault-memory", PROVIDER, manifest={"name": "vault-memory", "kind": "exclusive"})
    (hermes_home / ".env").write_text("VAULT_STATUS_TOKEN=t0k\n")
    _config(hermes_home, memory={"provider": "vault"})
    plugins = PluginManager(home=hermes_home)
    plugins.load_all()
    assert plugins.active_memory_provider() is None  # what the runtime would run: nothing
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 1
    assert "hermes config set memory.provider vault-memory" in result.json()["reason"]


def test_missing_secret_env_vars_are_listed_from_the_schema(make_plugin, run_hermes, hermes_home):
    make_plugin("vault-memory", PROVIDER, manifest={"name": "vault-memory", "kind": "exclusive"})
    _config(hermes_home, memory={"provider": "vault-memory"})
    missing = run_hermes("memory", "status", "--json")
    assert missing.exit_code == 1 and missing.json()["missing_env"] == ["VAULT_STATUS_TOKEN"]
    text = run_hermes("memory", "status").stdout
    # memory setup asks only at a terminal: the fix that works anywhere is named too, and it works
    assert "'hermes memory setup vault-memory' at a terminal, or 'hermes config set VAULT_STATUS_TOKEN VALUE'" in text
    assert run_hermes("config", "set", "VAULT_STATUS_TOKEN", "t0k").exit_code == 0
    present = run_hermes("memory", "status", "--json")
    assert present.exit_code == 0 and present.json()["missing_env"] == []


def test_status_json_exits_1_when_the_provider_is_missing(run_hermes, hermes_home):
    _config(hermes_home, memory={"provider": "nosuch"})
    result = run_hermes("memory", "status", "--json")
    assert result.exit_code == 1 and result.json()["available"] is False
    assert run_hermes("memory", "status", "--json").json()["provider"] == "nosuch"


DETAILED = '''
from hermes_core import MemoryProvider

class Ledger(MemoryProvider):
    name = "ledger"
    broken = False
    def is_available(self): return True
    def initialize(self, session_id, **kw): raise AssertionError("status must not start a session")
    def initialize_for_inspection(self, session_id, **kw): raise AssertionError("status_details reads what it needs itself")
    def get_tool_schemas(self): return []
    def get_config_schema(self):
        return [{"key": "key", "secret": True, "required": False, "env_var": "LEDGER_OPTIONAL_KEY"}]
    def status_details(self):
        if self.broken:
            raise RuntimeError("ledger file unreadable")
        return {"mode": "local", "pending_writes": 2, "last_error": None, "stores": ["a", "b"]}

def register(ctx):
    ctx.register_memory_provider(Ledger())
'''


def test_a_providers_status_details_are_shown_and_an_optional_secret_is_not_missing(make_plugin, run_hermes, hermes_home):
    make_plugin("ledger", DETAILED, manifest={"name": "ledger", "kind": "exclusive"})
    _config(hermes_home, memory={"provider": "ledger"})
    text = run_hermes("memory", "status")
    assert text.exit_code == 0, text.stderr
    lines = text.stdout.splitlines()
    assert "mode:       local" in lines and "pending writes: 2" in lines and "last error: -" in lines and "stores:     a, b" in lines
    assert "missing" not in text.stdout
    status = run_hermes("memory", "status", "--json").json()
    assert status["details"] == {"mode": "local", "pending_writes": 2, "last_error": None, "stores": ["a", "b"]}
    assert status["missing_env"] == []


def test_status_details_that_raise_are_reported_not_a_crash(make_plugin, run_hermes, hermes_home):
    make_plugin("ledger", DETAILED.replace("broken = False", "broken = True"), manifest={"name": "ledger", "kind": "exclusive"})
    _config(hermes_home, memory={"provider": "ledger"})
    text = run_hermes("memory", "status")
    assert text.exit_code == 0 and "error:     " in text.stdout and "status_details() raised RuntimeError: ledger file unreadable" in text.stdout
    assert "Traceback" not in text.stdout + text.stderr


MODES = '''
import os
from hermes_core import MemoryProvider

class Modes(MemoryProvider):
    """A cloud mode that needs MODES_KEY and a local mode that needs a model instead."""
    name = "modes"
    def _reason(self):
        if os.environ.get("MODES_LOCAL"):
            return "" if os.environ.get("MODES_MODEL") else "local mode needs a model: set MODES_MODEL"
        return "" if os.environ.get("MODES_KEY") else "cloud mode needs MODES_KEY"
    def is_available(self):
        return not self._reason()
    def unavailable_reason(self):
        return self._reason()
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
    def get_config_schema(self):
        return [{"key": "key", "secret": True, "required": False, "env_var": "MODES_KEY"}]

def register(ctx):
    ctx.register_memory_provider(Modes())
'''


def test_a_key_only_another_mode_needs_is_not_reported_missing(make_plugin, run_hermes, hermes_home, monkeypatch):
    make_plugin("modes-memory", MODES, manifest={"name": "modes-memory", "kind": "exclusive"})
    _config(hermes_home, memory={"provider": "modes-memory"})
    for name in ("MODES_KEY", "MODES_LOCAL", "MODES_MODEL"):
        monkeypatch.delenv(name, raising=False)
    cloud = run_hermes("memory", "status", "--json").json()
    assert cloud["reason"] == "cloud mode needs MODES_KEY" and cloud["missing_env"] == ["MODES_KEY"]
    monkeypatch.setenv("MODES_LOCAL", "1")
    local = run_hermes("memory", "status")
    assert "local mode needs a model" in local.stdout and "MODES_KEY" not in local.stdout + local.stderr
    assert run_hermes("memory", "status", "--json").json()["missing_env"] == []


def test_a_file_left_over_a_lowered_limit_is_flagged_with_the_fix(run_hermes, hermes_home):
    assert run_hermes("memory", "add", "--target", "user", "Prefers British spelling in docs.").exit_code == 0
    fine = run_hermes("memory", "status", "--offline", "--json").json()
    assert fine["over_limit"] == []
    assert run_hermes("config", "set", "memory.user_char_limit", "10").exit_code == 0
    flagged = run_hermes("memory", "status", "--offline")
    assert "user:       330% — 33/10 chars (over the limit: adding to it is refused" in flagged.stdout
    assert "'hermes config set memory.user_char_limit N'" in flagged.stdout
    assert run_hermes("memory", "status", "--offline", "--json").json()["over_limit"] == ["user"]
    grows = run_hermes("memory", "add", "--target", "user", "Likes tea.")
    assert grows.exit_code == 1  # what the flag says


def test_a_provider_that_prints_leaves_json_output_parseable(run_hermes, make_plugin):
    """stdout carries the JSON document alone: a provider's prints (in is_available, initialize, a write, shutdown)
    go to stderr."""
    import json

    code = """
from hermes_core import MemoryProvider
class Noisy(MemoryProvider):
    name = "noisy"
    def is_available(self):
        print("NOISY is_available")
        return True
    def initialize(self, session_id, **kw): print("NOISY initialize")
    def get_tool_schemas(self): return []
    def on_memory_write(self, action, target, content, metadata=None): print("NOISY write")
    def shutdown(self): print("NOISY shutdown")
def register(ctx):
    print("NOISY register")
    ctx.register_memory_provider(Noisy())
"""
    make_plugin("noisy", code, manifest={"name": "noisy", "kind": "exclusive"})
    assert run_hermes("config", "set", "memory.provider", "noisy").exit_code == 0
    status = run_hermes("memory", "status", "--offline", "--json")
    added = run_hermes("memory", "add", "the user prefers tea", "--json")
    assert json.loads(added.stdout)["success"] is True
    assert json.loads(status.stdout)["provider"] == "noisy", status.stdout
    assert "NOISY is_available" in status.stderr and "NOISY write" in added.stderr  # still shown, where JSON is not


STANDALONE = """
from hermes_core import MemoryProvider
class Std(MemoryProvider):
    name = "stdmem"
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
def register(ctx):
    ctx.register_memory_provider(Std())
"""


def test_a_standalone_plugin_offering_a_provider_is_reported_and_set_up_as_the_runtime_runs_it(run_hermes, make_plugin):
    """A standalone plugin may register a provider; when memory.provider names it, sessions run it, so status and
    setup speak of it too."""
    import json

    make_plugin("stdmem", STANDALONE, manifest={"name": "stdmem", "kind": "standalone"})
    assert run_hermes("plugins", "enable", "stdmem").exit_code == 0
    setup = run_hermes("memory", "setup", "stdmem", "--yes")
    assert setup.exit_code == 0, setup.stderr
    status = run_hermes("memory", "status", "--offline", "--json")
    assert status.exit_code == 0, status.stdout + status.stderr
    found = json.loads(status.stdout)
    assert (found["provider"], found["plugin"], found["available"]) == ("stdmem", "stdmem", True)


def test_a_standalone_plugin_named_otherwise_than_its_provider_is_set_up_by_the_providers_name(run_hermes, make_plugin, hermes_home):
    import json

    make_plugin("toolbox", STANDALONE.replace('"stdmem"', '"vault"'), manifest={"name": "toolbox", "kind": "standalone"})
    assert run_hermes("plugins", "enable", "toolbox").exit_code == 0
    setup = run_hermes("memory", "setup", "vault", "--yes")
    assert setup.exit_code == 0, setup.stderr
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["provider"] == "vault"
    found = json.loads(run_hermes("memory", "status", "--offline", "--json").stdout)
    assert (found["plugin"], found["available"], found["missing_env"]) == ("toolbox", True, [])


def test_a_standalone_plugin_with_another_provider_does_not_hide_the_exclusive_ones_fix(run_hermes, make_plugin):
    import json

    make_plugin("toolbox", STANDALONE.replace('"stdmem"', '"aux"'), manifest={"name": "toolbox", "kind": "standalone"})
    assert run_hermes("plugins", "enable", "toolbox").exit_code == 0
    make_plugin("vault-memory", PROVIDER, manifest={"name": "vault-memory", "kind": "exclusive"})
    assert run_hermes("config", "set", "memory.provider", "vault").exit_code == 0
    found = json.loads(run_hermes("memory", "status", "--offline", "--json").stdout)
    assert "'vault' is the provider of plugin 'vault-memory'" in found["reason"], found["reason"]


def test_a_standalone_plugin_not_yet_enabled_is_named_with_the_enable_command(run_hermes, make_plugin):
    make_plugin("stdmem", STANDALONE, manifest={"name": "stdmem", "kind": "standalone"})
    result = run_hermes("memory", "setup", "stdmem", "--yes")
    assert result.exit_code == 1
    assert "plugin 'stdmem' is there but not enabled (if it offers a memory provider, enable it: hermes plugins enable stdmem" in result.stderr


def test_naming_a_plugin_by_its_directory_or_a_plugin_that_cannot_be_read_says_so(run_hermes, make_plugin, hermes_home):
    make_plugin("myvault", PROVIDER, manifest={"name": "vault3", "kind": "exclusive"})
    by_directory = run_hermes("memory", "setup", "myvault", "--yes")
    assert by_directory.exit_code == 1
    assert f"the plugin in {hermes_home / 'plugins' / 'myvault'} is named 'vault3' in its plugin.yaml -> use that name" in by_directory.stderr
    make_plugin("vault2", PROVIDER, manifest={"name": "vault2", "kind": "memory"})
    unreadable = run_hermes("memory", "setup", "vault2", "--yes")
    assert unreadable.exit_code == 1
    assert "plugin 'vault2' is there but cannot be read:" in unreadable.stderr and "kind" in unreadable.stderr


def test_a_variable_the_manifest_requires_is_named_as_missing(run_hermes, make_plugin):
    import json

    code = PROVIDER.replace("def get_config_schema(self):", "def unused_schema(self):")  # no schema: only the manifest names it
    make_plugin("vault-memory", code, manifest={"name": "vault-memory", "kind": "exclusive",
                                                 "requires_env": [{"name": "VAULT_STATUS_TOKEN", "secret": True}]})
    assert run_hermes("config", "set", "memory.provider", "vault-memory").exit_code == 0
    found = json.loads(run_hermes("memory", "status", "--offline", "--json").stdout)
    assert found["available"] is False and found["missing_env"] == ["VAULT_STATUS_TOKEN"]
