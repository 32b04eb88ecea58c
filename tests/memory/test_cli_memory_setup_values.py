"""`hermes memory setup`: finding the provider, refusing disabled ones, checking every value before writing, post_setup."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hermes_core.manager import PluginManager


def provider_code(schema: str, name: str = "vault", extra: str = "") -> str:
    return f'''
import json
from pathlib import Path
from hermes_core import MemoryProvider

class Vault(MemoryProvider):
    name = "{name}"
    def is_available(self): return True
    def initialize(self, session_id, **kw): pass
    def get_tool_schemas(self): return []
    def get_config_schema(self):
        return {schema}
    def save_config(self, values, hermes_home):
        Path(hermes_home, "saved.json").write_text(json.dumps(values))
{extra}
def register(ctx):
    ctx.register_memory_provider(Vault())
'''


TYPED = provider_code(
    """[
            {"key": "token", "secret": True, "required": True, "env_var": "VAULT_SETUP_TOKEN"},
            {"key": "port", "type": "int", "minimum": 1, "maximum": 65535, "default": 8080},
            {"key": "ratio", "type": "number", "default": 0.5},
            {"key": "verbose", "type": "bool"},
            {"key": "retries", "default": 3},
            {"key": "pin", "secret": True, "type": "integer", "env_var": "VAULT_SETUP_PIN"},
        ]"""
)


@pytest.fixture(autouse=True)
def no_tokens(monkeypatch):
    # Loading a plugin exports .env into os.environ; setenv first so monkeypatch removes what the test caused.
    for name in ("VAULT_SETUP_TOKEN", "VAULT_SETUP_PIN"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def _exclusive(name: str) -> dict:
    return {"name": name, "kind": "exclusive"}


def _untouched(home: Path, config_before: str | None) -> None:
    assert not (home / ".env").exists() and not (home / "saved.json").exists()
    config = home / "config.yaml"
    assert (config.read_text() if config.exists() else None) == config_before


def test_values_are_coerced_by_type_or_default_and_passed_to_save_config(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", TYPED, manifest=_exclusive("vault"))
    result = run_hermes(
        "memory", "setup", "vault", "--yes",
        "--set", "token=s3cret", "--set", "port=9000", "--set", "ratio=0.25", "--set", "verbose=yes", "--set", "retries=5",
    )
    assert result.exit_code == 0, result.stderr
    saved = json.loads((hermes_home / "saved.json").read_text())
    assert saved == {"port": 9000, "ratio": 0.25, "verbose": True, "retries": 5}
    assert "VAULT_SETUP_TOKEN=s3cret" in (hermes_home / ".env").read_text()


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("port=http", ["'port'", "'http'", "an integer"]),
        ("port=0", ["'port'", "at least 1"]),
        ("port=70000", ["'port'", "at most 65535"]),
        ("ratio=half", ["'ratio'", "'half'", "a number"]),
        ("verbose=maybe", ["'verbose'", "'maybe'", "true or false"]),
        ("retries=many", ["'retries'", "'many'", "an integer"]),  # no type: the default 3 makes it an int
        ("token=", ["'token'", "may not be empty"]),
    ],
)
def test_a_bad_value_is_refused_and_nothing_is_written(make_plugin, run_hermes, hermes_home, setting, words):
    make_plugin("vault", TYPED, manifest=_exclusive("vault"))
    args = ["--set", setting] if setting.startswith("token=") else ["--set", "token=s3cret", "--set", setting]
    result = run_hermes("memory", "setup", "vault", "--yes", *args)
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert all(word in result.stderr for word in words), result.stderr
    _untouched(hermes_home, None)


def test_a_later_bad_secret_leaves_env_unchanged(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", TYPED, manifest=_exclusive("vault"))
    (hermes_home / "config.yaml").write_text("memory:\n  provider: ''\n")
    result = run_hermes("memory", "setup", "vault", "--yes", "--set", "token=s3cret", "--set", "pin=abc")
    assert result.exit_code == 1 and "'pin'" in result.stderr and "an integer" in result.stderr
    _untouched(hermes_home, "memory:\n  provider: ''\n")


def test_a_secret_without_env_var_is_reported_to_the_provider_author(make_plugin, run_hermes, hermes_home):
    schema = '[{"key": "region", "default": "eu"}, {"key": "api_key", "secret": True}]'
    make_plugin("vault", provider_code(schema), manifest=_exclusive("vault"))
    result = run_hermes("memory", "setup", "vault", "--yes", "--set", "api_key=x")
    assert result.exit_code == 1 and "Traceback" not in result.stderr and "KeyError" not in result.stderr
    assert "memory provider 'vault'" in result.stderr and "'api_key'" in result.stderr and "env_var" in result.stderr
    assert "author" in result.stderr
    _untouched(hermes_home, None)


def test_an_unknown_field_type_is_reported_to_the_provider_author(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", provider_code('[{"key": "size", "type": "bigint"}]'), manifest=_exclusive("vault"))
    result = run_hermes("memory", "setup", "vault", "--yes", "--set", "size=3")
    assert result.exit_code == 1 and "'bigint'" in result.stderr and "author" in result.stderr
    _untouched(hermes_home, None)


def test_a_provider_name_finds_its_plugin_and_the_selection_names_the_plugin(make_plugin, run_hermes, hermes_home):
    make_plugin("vault-memory", TYPED, manifest=_exclusive("vault-memory"))
    result = run_hermes("memory", "setup", "vault", "--yes", "--set", "token=s3cret")
    assert result.exit_code == 0, result.stderr
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["provider"] == "vault-memory"
    plugins = PluginManager(home=hermes_home)
    plugins.load_all()
    assert plugins.active_memory_provider().name == "vault"  # the runtime really runs it


def test_a_disabled_provider_is_refused_with_a_fix_that_works(make_plugin, run_hermes, hermes_home):
    make_plugin("vault", TYPED, manifest=_exclusive("vault"))
    before = "plugins:\n  disabled:\n  - vault\n"
    (hermes_home / "config.yaml").write_text(before)
    refused = run_hermes("memory", "setup", "vault", "--yes", "--set", "token=s3cret")
    assert refused.exit_code == 1 and "disabled in plugins.disabled" in refused.stderr
    assert "hermes plugins enable" not in refused.stderr
    _untouched(hermes_home, before)
    fix = shlex.split(refused.stderr.split("remove it from that list: ", 1)[1].strip())
    assert fix[0] == "hermes" and run_hermes(*fix[1:]).exit_code == 0
    done = run_hermes("memory", "setup", "vault", "--yes", "--set", "token=s3cret")
    assert done.exit_code == 0, done.stderr
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["provider"] == "vault"


WIZARD = provider_code(
    '[{"key": "token", "secret": True, "required": True, "env_var": "VAULT_SETUP_TOKEN"}]',
    extra='''
    def post_setup(self, hermes_home, config):
        import yaml
        Path(hermes_home, "wizard.json").write_text(json.dumps({"home": hermes_home, "memory": config["memory"]}))
        # as providers written for Hermes Agent do: select by provider name, keep own settings
        config["memory"]["provider"] = self.name
        config["vault"] = {"url": "https://vault.example"}
        Path(hermes_home, "config.yaml").write_text(yaml.safe_dump(config))
''',
)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_post_setup_takes_over_an_interactive_setup(make_plugin, hermes_home):
    make_plugin("vault-memory", WIZARD, manifest=_exclusive("vault-memory"))
    leader, follower = os.openpty()
    try:
        # Had the generic prompts run instead, they would wait for a token (getpass discards typed-ahead input).
        os.write(leader, b"\n\n\n")
        done = subprocess.run(
            [sys.executable, "-m", "hermes_core", "memory", "setup", "vault"],
            stdin=follower, capture_output=True, text=True, timeout=30, env=dict(os.environ),
        )
    except subprocess.TimeoutExpired:
        pytest.fail("setup prompted for the schema's values instead of handing over to post_setup")
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0, done.stderr
    wizard = json.loads((hermes_home / "wizard.json").read_text())
    assert wizard == {"home": str(hermes_home), "memory": {}}
    config = yaml.safe_load((hermes_home / "config.yaml").read_text())
    assert config["memory"]["provider"] == "vault-memory" and config["vault"] == {"url": "https://vault.example"}
    assert not (hermes_home / ".env").exists()


def test_post_setup_is_not_used_when_values_are_given(make_plugin, run_hermes, hermes_home):
    make_plugin("vault-memory", WIZARD, manifest=_exclusive("vault-memory"))
    result = run_hermes("memory", "setup", "vault", "--set", "token=s3cret")
    assert result.exit_code == 0, result.stderr
    assert not (hermes_home / "wizard.json").exists() and "VAULT_SETUP_TOKEN=s3cret" in (hermes_home / ".env").read_text()
