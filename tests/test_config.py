"""Layered config, ${VAR} expansion, .env secrets, profiles and `hermes config`."""

from __future__ import annotations

import stat

import pytest

from hermes_core.config import get_env_value, load_config, profile_home, read_env_file, save_env_value
from hermes_core.errors import ConfigError


def test_layers_defaults_file_env_expansion_and_overrides(hermes_home, monkeypatch):
    (hermes_home / "config.yaml").write_text(
        "plugins:\n  enabled: [a]\nmemory:\n  provider: ${MEM_CHOICE}\nauxiliary:\n  url: ${MISSING_VAR:-http://local}\n"
    )
    monkeypatch.setenv("MEM_CHOICE", "mem0")
    config = load_config(overrides={"context.engine": "squash"})
    assert config.get("plugins.enabled") == ["a"]
    assert config.get("plugins.hook_callback_timeout") == 30  # default kept beside the file's keys
    assert config.get("memory.provider") == "mem0"
    assert config.get("auxiliary.url") == "http://local"
    assert config.get("context.engine") == "squash"
    assert config.get("no.such.key", "fallback") == "fallback"


def test_a_broken_config_file_is_a_clear_error(hermes_home):
    (hermes_home / "config.yaml").write_text("plugins: [unclosed\n")
    with pytest.raises(ConfigError, match=r"config.yaml: invalid YAML at line \d+"):
        load_config()
    (hermes_home / "config.yaml").write_text("- a list\n")
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config()


def test_env_file_is_written_0600_and_read_back(hermes_home):
    save_env_value(hermes_home, "API_TOKEN", "s3cr3t value")
    save_env_value(hermes_home, "OTHER", "plain")
    save_env_value(hermes_home, "API_TOKEN", "rotated")
    path = hermes_home / ".env"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_env_file(hermes_home) == {"API_TOKEN": "rotated", "OTHER": "plain"}
    assert get_env_value("OTHER") == "plain"
    with pytest.raises(ConfigError):
        save_env_value(hermes_home, "BAD NAME", "x")


def test_profiles_map_to_their_own_home(hermes_home, run_hermes):
    assert profile_home("work") == hermes_home / "profiles" / "work"
    with pytest.raises(ConfigError):
        profile_home("../escape")
    assert run_hermes("-p", "work", "config", "set", "memory.provider", "honcho").exit_code == 0
    assert (hermes_home / "profiles" / "work" / "config.yaml").is_file()
    assert not (hermes_home / "config.yaml").exists()


def test_config_cli_get_set_unset_show(hermes_home, run_hermes, monkeypatch):
    assert run_hermes("config", "set", "plugins.hook_callback_timeout", "5").exit_code == 0
    assert run_hermes("config", "set", "plugins.enabled", "[a, b]").exit_code == 0
    assert run_hermes("config", "get", "plugins.hook_callback_timeout").stdout == "5\n"
    assert run_hermes("config", "get", "plugins.enabled", "--json").json() == ["a", "b"]
    shown = run_hermes("config", "show", "--json").json()
    assert shown["plugins"]["hook_callback_timeout"] == 5 and shown["memory"]["provider"] == ""
    assert run_hermes("config", "unset", "plugins.enabled").exit_code == 0
    assert run_hermes("config", "get", "plugins.enabled", "--json").json() == []
    missing = run_hermes("config", "get", "nope.key")
    assert missing.exit_code == 1 and "'nope.key' is not set" in missing.stderr and "Traceback" not in missing.stderr
    assert run_hermes("config", "path").stdout.strip() == str(hermes_home / "config.yaml")


def test_config_set_checks_values_against_the_defaults_types(hermes_home, run_hermes):
    import yaml

    assert run_hermes("config", "set", "plugins.enabled", "hook_log").exit_code == 0  # one name is a list of one
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["plugins"]["enabled"] == ["hook_log"]
    for key, value, expected in [
        ("plugins.hook_callback_timeout", "abc", "plugins.hook_callback_timeout is 'abc', but it must be a number from 0 to 600"),
        ("plugins.compat", "maybe", "plugins.compat is 'maybe', but it must be true or false"),
        ("plugins", "5", "plugins is 5, but it must be a mapping of settings"),
        ("plugins.disabled", "{a: 1}", "plugins.disabled is {'a': 1}, but it must be a list of names"),
    ]:
        result = run_hermes("config", "set", key, value)
        assert result.exit_code == 1 and expected in result.stderr, (key, result.stderr)
    assert yaml.safe_load((hermes_home / "config.yaml").read_text()) == {"plugins": {"enabled": ["hook_log"]}}
    assert run_hermes("config", "set", "model.anything", "free text").exit_code == 0  # no default: any value


def test_secrets_go_to_env_and_are_redacted_when_shown(hermes_home, run_hermes):
    key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"
    assert run_hermes("config", "set", "OPENAI_API_KEY", key).stdout.startswith("OPENAI_API_KEY stored in")
    assert (hermes_home / ".env").read_text() == f"OPENAI_API_KEY={key}\n" and (hermes_home / ".env").stat().st_mode & 0o777 == 0o600
    refused = run_hermes("config", "set", "model.api_key", key)
    assert refused.exit_code == 1 and "would put a secret in config.yaml" in refused.stderr and key not in refused.stderr
    assert run_hermes("config", "set", "model.api_key", "${OPENAI_API_KEY}").exit_code == 0
    assert key not in (hermes_home / "config.yaml").read_text()
    assert run_hermes("config", "get", "model.api_key").stdout == "[REDACTED]\n"
    assert run_hermes("config", "get", "model.api_key", "--reveal").stdout == key + "\n"
    shown = run_hermes("config", "show").stdout
    assert key not in shown and "api_key: '[REDACTED]'" in shown
    assert key in run_hermes("config", "show", "--reveal").stdout


def test_env_file_values_expand_in_config_and_empty_vars_take_defaults(hermes_home, monkeypatch):
    from hermes_core.config import save_env_value

    save_env_value(hermes_home, "VAULT_URL", "https://vault.invalid")
    monkeypatch.setenv("EMPTY_VAR", "")
    (hermes_home / "config.yaml").write_text("memory:\n  url: ${VAULT_URL}\n  mode: ${EMPTY_VAR:-fallback}\n")
    config = load_config()
    assert config.get("memory.url") == "https://vault.invalid" and config.get("memory.mode") == "fallback"
    monkeypatch.setenv("VAULT_URL", "https://env.invalid")
    assert load_config().get("memory.url") == "https://env.invalid"


def test_secrets_are_refused_and_redacted_however_they_are_nested(hermes_home, run_hermes):
    for key, value in [
        ("model", "{api_key: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX}"),
        ("plugins.entries.x.settings.github_token", "ghp_abcdef"),
        ("model.token", "t0ps3cret"),
    ]:
        result = run_hermes("config", "set", key, value)
        assert result.exit_code == 1 and "would put a secret in config.yaml" in result.stderr, (key, result.stderr)
    assert not (hermes_home / "config.yaml").exists()
    assert run_hermes("config", "set", "model.api_key", "${OPENAI_API_KEY:-}").exit_code == 0  # a reference with a default
    (hermes_home / "config.yaml").write_text("plugins:\n  entries:\n    x:\n      settings:\n        github_token: ghp_abcdef\n")
    shown = run_hermes("config", "show").stdout
    assert "ghp_abcdef" not in shown and "github_token: '[REDACTED]'" in shown


def test_null_clears_a_text_setting(hermes_home, run_hermes):
    import yaml

    assert run_hermes("config", "set", "memory.provider", "null").exit_code == 0
    assert yaml.safe_load((hermes_home / "config.yaml").read_text())["memory"]["provider"] == ""


def test_a_database_url_with_a_password_is_refused_from_config_yaml(hermes_home, run_hermes):
    url = "postgresql://hermes:hunter2@db.internal:5432/history"
    refused = run_hermes("config", "set", "state.url", url)
    assert refused.exit_code == 1 and "secret" in refused.stderr and "hunter2" not in refused.stderr
    assert "hermes config set HERMES_STATE_URL" in refused.stderr  # the variable the store reads
    assert run_hermes("config", "set", "state.url", "postgresql://hermes@db.internal:5432/history").exit_code == 0
    assert run_hermes("config", "set", "state.backend", "postgres").exit_code == 0
    assert run_hermes("config", "get", "state.backend").stdout == "postgres\n"


def test_a_value_stored_in_env_reads_back_redacted(hermes_home, run_hermes):
    key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"
    assert run_hermes("config", "set", "OPENAI_API_KEY", key).exit_code == 0
    assert run_hermes("config", "get", "OPENAI_API_KEY").stdout == "[REDACTED]\n"
    assert run_hermes("config", "get", "OPENAI_API_KEY", "--reveal").stdout == key + "\n"
    assert run_hermes("config", "set", "HERMES_STATE_URL", "postgresql://u:hunter2@db/h").exit_code == 0
    assert run_hermes("config", "get", "HERMES_STATE_URL").stdout == "postgresql://u:[REDACTED]@db/h\n"
    missing = run_hermes("config", "get", "NOT_SET_ANYWHERE")
    assert missing.exit_code == 1 and "hermes config set NOT_SET_ANYWHERE" in missing.stderr


def test_config_unset_removes_a_variable_config_set_stored_in_env(hermes_home, run_hermes, monkeypatch):
    monkeypatch.delenv("QA_SERVICE_TOKEN", raising=False)
    (hermes_home / ".env").write_text("# keys\nOTHER=1\n", encoding="utf-8")
    assert run_hermes("config", "set", "QA_SERVICE_TOKEN", "s3cret").exit_code == 0
    removed = run_hermes("config", "unset", "QA_SERVICE_TOKEN", "--json")
    assert removed.exit_code == 0, removed.stderr
    assert removed.json() == {"key": "QA_SERVICE_TOKEN", "removed": True, "file": str(hermes_home / ".env")}
    assert (hermes_home / ".env").read_text(encoding="utf-8") == "# keys\nOTHER=1\n"  # the rest kept as written
    again = run_hermes("config", "unset", "QA_SERVICE_TOKEN")
    assert again.exit_code == 1
    assert f"QA_SERVICE_TOKEN is not set in {hermes_home / '.env'}" in again.stderr and " -> " in again.stderr


def test_a_section_written_as_a_scalar_names_the_command_that_repairs_it(hermes_home, run_hermes):
    (hermes_home / "config.yaml").write_text("plugins: 5\n", encoding="utf-8")
    refused = run_hermes("plugins", "list", "--json")
    assert refused.exit_code == 1
    fix = refused.json()["fix"]
    assert fix.startswith("'hermes config unset plugins'"), fix
    repaired = run_hermes(*fix.split("'")[1].split()[1:])  # the command the fix names works
    assert repaired.exit_code == 0, repaired.stderr
    assert run_hermes("plugins", "list", "--json").exit_code == 0


def test_setting_below_a_scalar_names_the_value_in_words(hermes_home, run_hermes):
    (hermes_home / "config.yaml").write_text("memory: 5\n", encoding="utf-8")
    refused = run_hermes("config", "set", "memory.provider", "x")
    assert refused.exit_code == 1
    assert "'memory' holds 5 (a whole number), not a mapping" in refused.stderr, refused.stderr
