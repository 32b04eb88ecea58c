"""Defaults kept by the code that reads a key are the ones `hermes config get` and `config show` report."""

from __future__ import annotations

import json

import yaml

from hermes_core.config import Config
from hermes_core.models.clients.from_config import resolve_model_settings
from hermes_core.settings import SETTINGS, code_defaults
from hermes_plugins_builtin.compressor.settings import CompressionSettings
from hermes_plugins_builtin.prompt_caching.policies import DEFAULT_STRATEGY
from hermes_plugins_builtin.session_search.settings import SearchSettings

EMPTY = Config({})


def test_every_reported_default_is_the_one_the_code_applies():
    compression = CompressionSettings.from_config(EMPTY)
    search = SearchSettings.from_config(EMPTY)
    model = resolve_model_settings({"model": {"name": "m", "base_url": "http://127.0.0.1:9/v1"}}, env={})
    applied = {
        "compression.enabled": compression.enabled, "compression.threshold": compression.threshold,
        "compression.protect_first_n": compression.protect_first_n, "compression.protect_last_n": compression.protect_last_n,
        "compression.target_ratio": compression.target_ratio, "auxiliary.compression.timeout": compression.summary_timeout,
        "auxiliary.session_search.timeout": search.timeout, "auxiliary.session_search.max_concurrency": search.max_concurrency,
        "auxiliary.session_search.max_chars": search.max_chars, "prompt_caching.strategy": DEFAULT_STRATEGY,
        "model.timeout": model.timeout, "model.max_retries": model.max_retries,
    }
    reported = {key: setting.default for key, setting in SETTINGS.items() if setting.default is not None}
    assert reported == applied


def test_config_get_and_show_report_them_and_a_set_value_wins(run_hermes, hermes_home):
    assert run_hermes("config", "get", "compression.threshold").stdout.strip() == "0.75"
    assert run_hermes("config", "get", "auxiliary.session_search.max_chars", "--json").stdout.strip() == "100000"
    assert run_hermes("config", "set", "compression.threshold", "0.5").exit_code == 0
    assert run_hermes("config", "get", "compression.threshold").stdout.strip() == "0.5"
    shown = yaml.safe_load(run_hermes("config", "show").stdout)
    assert shown["compression"]["threshold"] == 0.5 and shown["compression"]["protect_last_n"] == 6
    assert shown["memory"]["memory_char_limit"] == 2200  # DEFAULT_CONFIG's, still merged
    assert json.loads(run_hermes("config", "show", "--json").stdout)["prompt_caching"]["strategy"] == "system_and_3"
    no_default = run_hermes("config", "get", "model.context_length")  # the model's own context length applies
    assert no_default.exit_code == 1 and "is not set and has no default" in no_default.stderr
    assert set(code_defaults()) == {"model", "compression", "prompt_caching", "auxiliary"}


def test_get_and_show_agree_on_every_key(run_hermes, hermes_home):
    (hermes_home / "config.yaml").write_text("compression:\n  enabled: false\n")
    shown = yaml.safe_load(run_hermes("config", "show").stdout)
    section = yaml.safe_load(run_hermes("config", "get", "compression").stdout)
    assert section == shown["compression"] == {"enabled": False, "threshold": 0.75, "protect_first_n": 3, "protect_last_n": 6, "target_ratio": 0.2}
    (hermes_home / "config.yaml").write_text("compression:\n")  # a section left empty: null, and the defaults apply
    shown = yaml.safe_load(run_hermes("config", "show").stdout)
    assert shown["compression"]["threshold"] == 0.75 and run_hermes("config", "get", "compression.threshold").stdout.strip() == "0.75"
    assert CompressionSettings.from_config(Config({"compression": None})).threshold == 0.75  # as the compressor reads it


def test_an_unclosed_mapping_or_list_is_refused_not_stored_as_text(run_hermes, hermes_home):
    for given, example in (("{a: [1, 2", "{a: 1, b: [1, 2]}"), ("[1, 2", "[1, 2]")):
        result = run_hermes("config", "set", "plugins.entries.foo.settings.x", given)
        assert result.exit_code == 1 and f"opens a YAML" in result.stderr and f"e.g. '{example}'" in result.stderr
    assert not (hermes_home / "config.yaml").exists() or "foo" not in (hermes_home / "config.yaml").read_text()
    quoted = run_hermes("config", "set", "plugins.entries.foo.settings.x", '"{a: [1, 2"')  # the text itself, as told
    assert quoted.exit_code == 0 and run_hermes("config", "get", "plugins.entries.foo.settings.x").stdout.strip() == "{a: [1, 2"
    assert run_hermes("config", "set", "plugins.entries.foo.settings.y", "plain: words").exit_code == 0
