"""plugin.yaml: schema validation, every accepted key, warnings, kind detection, requires_hermes."""

from __future__ import annotations

import json

from hermes_core.manifest import SCHEMA_PATH, read_manifest_text

ALL_KEYS_MANIFEST = """
name: everything
version: 1.2.3
description: uses every documented key
author: someone
kind: standalone
requires_env:
  - SIMPLE_KEY
  - {name: SECRET_KEY, description: a token, url: https://example.invalid, secret: true}
optional_env: [OPTIONAL_KEY]
provides_tools: [a_tool]
provides_hooks: [pre_tool_call]
hooks: [on_session_end]
manifest_version: 2
api_version: "1"
requires_plugins: [other, {id: third, version_range: ">=1"}]
requires_hermes: ">=0.1"
python_dependencies: [requests]
pip_dependencies: [requests]
external_dependencies: [{name: git, check: git --version, install: apt install git}]
config_schema: {depth: {type: int, default: 2, description: how deep}}
license: MIT
homepage: https://example.invalid
tags: [demo]
platforms: [linux]
label: Everything
provides_browser_providers: [b]
provides_web_providers: [w]
capabilities: [net]
emits: [e]
listens: [l]
hermes: {min: "0.1"}
depends: [other]
provides_cli_commands: [every]
provides_commands: [every]
profile_clone: true
"""


def _read(text, init_text="", version="0.1.0"):
    return read_manifest_text(text, default_name="dirname", source="user", path="/p/plugin.yaml", key=None, init_text=init_text, running_version=version)


def test_every_documented_key_is_accepted_without_warnings():
    report = _read(ALL_KEYS_MANIFEST)
    assert report.ok, report.problems
    assert report.warnings == []
    manifest = report.manifest
    assert manifest.name == "everything" and manifest.version == "1.2.3"
    assert [e.name for e in manifest.requires_env] == ["SIMPLE_KEY", "SECRET_KEY"]
    assert manifest.requires_env[1].secret is True
    assert manifest.manifest_version == 2


def test_unknown_keys_warn_and_never_fail():
    report = _read("name: x\nfavourite_colour: blue\n")
    assert report.ok
    assert any("'favourite_colour'" in w for w in report.warnings)


def test_every_problem_is_reported_at_once_with_plugin_source_path_field_cause_and_fix():
    report = _read("name: bad\nkind: memory\nprovides_tools: notalist\nrequires_env: [1]\nmanifest_version: 0\n")
    fields = sorted(p.field for p in report.problems)
    assert fields == ["kind", "manifest_version", "provides_tools", "requires_env.0"]
    kind_problem = next(p for p in report.problems if p.field == "kind")
    text = str(kind_problem)
    assert text.startswith("plugin 'bad' (user, /p/plugin.yaml): 'kind': ")
    assert "'memory' is not one of" in text and "-> set 'kind' to one of 'standalone'" in text


def test_malformed_yaml_names_the_line():
    report = _read("name: x\nkind: [unclosed\n")
    assert report.manifest is None
    assert "plugin.yaml is not valid YAML at line" in report.problems[0].cause


def test_a_non_mapping_manifest_is_a_problem():
    report = _read("- just\n- a list\n")
    assert report.manifest is None and "must be a mapping" in report.problems[0].cause


def test_missing_name_falls_back_to_the_directory_name_with_a_warning():
    report = _read("version: 1\n")
    assert report.manifest.name == "dirname" and report.manifest.version == "1"
    assert any("no 'name'" in w for w in report.warnings)


def test_kind_is_detected_for_memory_providers_without_kind():
    report = _read("name: mem\n", init_text="from agent.memory_provider import MemoryProvider\n")
    assert report.manifest.kind == "exclusive" and report.manifest.kind_detected
    assert not any("kind: standalone" in w for w in report.warnings)  # only a provider: the guess is right
    hooked = _read("name: mem\n", init_text="from agent.memory_provider import MemoryProvider\n@hookimpl\ndef on_session_end(**kw): pass\n")
    assert any("kind: standalone" in w for w in hooked.warnings)
    model = _read("name: mp\n", init_text="def register(ctx):\n    ctx.register_provider(ProviderProfile())\n")
    assert model.manifest.kind == "model-provider"
    explicit = _read("name: mem\nkind: standalone\n", init_text="MemoryProvider")
    assert explicit.manifest.kind == "standalone" and not explicit.manifest.kind_detected
    assert _read("name: plain\n", init_text="def register(ctx): pass").manifest.kind == "standalone"


def test_requires_hermes_is_checked_with_version_specifiers():
    assert _read("name: x\nrequires_hermes: '>=0.1,<1'\n", version="0.1.0").ok
    too_new = _read("name: x\nrequires_hermes: '>=9'\n", version="0.1.0")
    assert [p.field for p in too_new.problems] == ["requires_hermes"]
    assert "needs hermes >=9, this is hermes 0.1.0" in too_new.problems[0].cause
    garbage = _read("name: x\nrequires_hermes: 'soon please'\n")
    assert "not a version specifier" in garbage.problems[0].cause


def test_a_newer_manifest_version_warns_and_loads():
    report = _read("name: x\nmanifest_version: 3\n")
    assert report.ok and any("manifest_version 3" in w for w in report.warnings)


def test_the_schema_file_ships_and_lists_every_key():
    schema = json.loads(SCHEMA_PATH.read_text())
    import yaml

    assert set(yaml.safe_load(ALL_KEYS_MANIFEST)) <= set(schema["properties"])
