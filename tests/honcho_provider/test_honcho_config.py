"""honcho.json resolution: file order, host block > root > env > default, profiles, validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_bundled_plugins.memory.honcho.config import KEYS, HonchoConfigError, host_key, is_local_url, load_config


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_the_first_existing_file_wins(hermes_home: Path, user_home: Path) -> None:
    write(user_home / ".honcho" / "config.json", {"workspace": "global"})
    assert load_config(hermes_home, {}).workspace == "global"
    write(user_home / ".hermes" / "honcho.json", {"workspace": "shared"})
    assert load_config(hermes_home, {}).workspace == "shared"
    local = write(hermes_home / "honcho.json", {"workspace": "local"})
    config = load_config(hermes_home, {})
    assert (config.workspace, config.path) == ("local", local)


def test_each_key_resolves_host_block_then_root_then_env_then_default(hermes_home: Path) -> None:
    write(hermes_home / "honcho.json", {"apiKey": "root-key", "recallMode": "tools", "hosts": {"hermes": {"recallMode": "context"}}})
    env = {"HONCHO_API_KEY": "env-key", "HONCHO_BASE_URL": "https://honcho.example", "HONCHO_ENVIRONMENT": "local"}
    config = load_config(hermes_home, env)
    assert (config.recallMode, config.sources["recallMode"]) == ("context", "host block hosts.hermes")
    assert (config.apiKey, config.sources["apiKey"]) == ("root-key", "root")
    assert (config.baseUrl, config.sources["baseUrl"]) == ("https://honcho.example", "env HONCHO_BASE_URL")
    assert (config.environment, config.sources["environment"]) == ("local", "env HONCHO_ENVIRONMENT")
    assert (config.writeFrequency, config.sources["writeFrequency"]) == ("async", "default")


def test_every_documented_key_has_its_default(hermes_home: Path) -> None:
    config = load_config(hermes_home, {})
    expected = {
        "environment": "production", "recallMode": "hybrid", "observationMode": "directional", "writeFrequency": "async",
        "saveMessages": True, "sessionStrategy": "per-directory", "sessionPeerPrefix": False, "sessions": {},
        "dialecticDepth": 1, "dialecticReasoningLevel": "low", "dialecticDynamic": True, "dialecticMaxChars": 600,
        "dialecticMaxInputChars": 10000, "messageMaxChars": 25000, "contextCadence": 1, "dialecticCadence": 1,
        "injectionFrequency": "every-turn", "contextTokens": None, "reasoningLevelCap": None, "dialecticDepthLevels": None,
    }
    assert {k: config.values[k] for k in expected} == expected
    assert (config.workspace, config.aiPeer, config.enabled) == ("hermes", "hermes", False)
    assert set(KEYS) >= set(expected)


def test_profiles_pick_their_host_block_and_share_one_workspace(hermes_home: Path, user_home: Path) -> None:
    shared = {
        "apiKey": "k" * 20, "workspace": "hermes", "peerName": "yourname",
        "hosts": {
            "hermes": {"aiPeer": "hermes", "recallMode": "hybrid", "sessionStrategy": "per-directory"},
            "hermes.coder": {"aiPeer": "coder", "recallMode": "tools", "sessionStrategy": "per-repo"},
        },
    }
    write(user_home / ".hermes" / "honcho.json", shared)
    coder_home = user_home / ".hermes" / "profiles" / "coder"
    coder_home.mkdir(parents=True)
    main, coder = load_config(user_home / ".hermes", {}), load_config(coder_home, {})
    assert (main.host, coder.host) == ("hermes", "hermes.coder")
    assert main.workspace == coder.workspace == "hermes" and main.peerName == coder.peerName == "yourname"
    assert (main.aiPeer, main.recallMode, main.sessionStrategy) == ("hermes", "hybrid", "per-directory")
    assert (coder.aiPeer, coder.recallMode, coder.sessionStrategy) == ("coder", "tools", "per-repo")
    assert host_key(coder_home, {"HERMES_HONCHO_HOST": "hermes"}) == "hermes"
    shared["hosts"]["hermes_coder"] = shared["hosts"].pop("hermes.coder")  # the spelling newer Honcho tools write
    write(user_home / ".hermes" / "honcho.json", shared)
    underscored = load_config(coder_home, {})
    assert (underscored.host, underscored.aiPeer, underscored.sources["aiPeer"]) == ("hermes_coder", "coder", "host block hosts.hermes_coder")


def test_enabled_is_automatic_and_explicit_false_wins(hermes_home: Path) -> None:
    assert load_config(hermes_home, {}).enabled is False
    assert load_config(hermes_home, {"HONCHO_API_KEY": "abc"}).enabled is True
    write(hermes_home / "honcho.json", {"baseUrl": "http://localhost:8000", "hosts": {"hermes": {"enabled": False}}})
    config = load_config(hermes_home, {})
    assert config.enabled is False and config.sources["enabled"] == "host block hosts.hermes"


def test_a_local_environment_needs_no_key(hermes_home: Path) -> None:
    assert load_config(hermes_home, {"HONCHO_ENVIRONMENT": "local"}).is_local
    assert not load_config(hermes_home, {}).is_local
    assert not load_config(hermes_home, {"HONCHO_ENVIRONMENT": "local", "HONCHO_BASE_URL": "https://honcho.example"}).is_local


def test_local_urls_are_recognised() -> None:
    assert all(is_local_url(u) for u in ("http://localhost:8000", "http://127.0.0.1:9", "http://[::1]:8000", "http://box.local"))
    assert not any(is_local_url(u) for u in ("https://api.honcho.dev", "", None, "http://10x.example"))


def test_legacy_auto_recall_and_depth_clamping(hermes_home: Path) -> None:
    write(hermes_home / "honcho.json", {"recallMode": "auto", "dialecticDepth": 9, "writeFrequency": 3})
    config = load_config(hermes_home, {})
    assert (config.recallMode, config.dialecticDepth, config.writeFrequency) == ("hybrid", 3, 3)


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        ({"hosts": {"hermes": {"recallMode": "sometimes"}}}, ["hosts.hermes.recallMode", '"sometimes"', '"hybrid"']),
        ({"contextCadence": "2"}, ["contextCadence", '"2"', "whole number"]),
        ({"saveMessages": "yes"}, ["saveMessages", "true or false"]),
        ({"writeFrequency": "hourly"}, ["writeFrequency", '"hourly"', "async"]),
        ({"dialecticDepthLevels": ["low", "extreme"]}, ["dialecticDepthLevels", "minimal"]),
        ({"reasoningLevelCap": "max"}, ["reasoningLevelCap", '"max"']),
        ({"observation": {"user": {"observeMe": "on"}}}, ["observation.user.observeMe", "true or false"]),
        ({"sessions": {"/x": 3}}, ["sessions", "directory -> session name"]),
        ({"hosts": ["hermes"]}, ["hosts must be an object"]),
        ({"baseUrl": "localhost:8000"}, ["baseUrl", "http://"]),
    ],
)
def test_a_bad_value_names_file_key_value_and_fix(hermes_home: Path, data: dict, fragments: list[str]) -> None:
    path = write(hermes_home / "honcho.json", data)
    with pytest.raises(HonchoConfigError) as caught:
        load_config(hermes_home, {})
    message = str(caught.value)
    assert str(path) in message and "->" in message
    for fragment in fragments:
        assert fragment in message


def test_malformed_json_names_the_line(hermes_home: Path) -> None:
    path = write(hermes_home / "honcho.json", '{\n  "workspace": "a",\n  "peerName": "b",\n}\n')
    with pytest.raises(HonchoConfigError, match=rf"{path}: line 4, column 1"):
        load_config(hermes_home, {})
    write(hermes_home / "honcho.json", "[1, 2]")
    with pytest.raises(HonchoConfigError, match="top level must be a JSON object"):
        load_config(hermes_home, {})


def test_unknown_keys_are_warnings_not_errors(hermes_home: Path) -> None:
    write(hermes_home / "honcho.json", {"recalMode": "tools", "pinUserPeer": True, "hosts": {"hermes": {"aiPeerr": "x"}}})
    config = load_config(hermes_home, {})
    assert len(config.warnings) == 2 and "recalMode" in config.warnings[0] and "hosts.hermes.aiPeerr" in config.warnings[1]


def test_the_api_key_is_redacted(hermes_home: Path) -> None:
    secret = "hk_live_" + "s3cr3t" * 4
    config = load_config(hermes_home, {"HONCHO_API_KEY": secret})
    assert secret not in json.dumps(config.redacted()) and config.redacted()["apiKey"].endswith(secret[-4:])
    assert config.redact(f"failed with {secret}") == "failed with ***"
