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


def test_ids_honcho_accepts_are_made_from_any_name() -> None:
    from hermes_bundled_plugins.memory.honcho.config import sanitize_id

    assert sanitize_id("hermes.coder") == "hermes-coder"
    assert sanitize_id("  my project (2) ") == "my-project--2"
    assert sanitize_id("a_b-C9") == "a_b-C9"
    assert sanitize_id("...") == sanitize_id("") == "default"
    assert sanitize_id("x" * 150) == "x" * 100


def test_the_host_comes_from_the_override_then_the_profile(hermes_home: Path, user_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.config import active_profile

    profile_home = user_home / ".hermes" / "profiles" / "work"
    assert active_profile(profile_home) == "work" and active_profile(hermes_home) is None
    assert host_key(profile_home, {}) == "hermes.work"
    assert host_key(profile_home, {"HERMES_HONCHO_HOST": "  "}) == "hermes.work"  # blank: not an override
    assert host_key(profile_home, {"HERMES_HONCHO_HOST": " custom "}) == "custom"
    assert host_key(hermes_home, {}, profile="default") == "hermes"
    assert host_key(hermes_home, {}, profile="ops") == "hermes.ops"
    config = load_config(profile_home, {})
    assert (config.host, config.workspace, config.aiPeer) == ("hermes.work", "hermes-work", "hermes-work")
    assert config.sources["workspace"] == "default (host key)"


def test_values_are_normalised_and_blank_environment_values_ignored(hermes_home: Path) -> None:
    write(hermes_home / "honcho.json", {"baseUrl": " http://localhost:8000/ ", "peerName": "  ", "workspace": " team ", "writeFrequency": " 4 "})
    config = load_config(hermes_home, {"HONCHO_API_KEY": "   ", "HONCHO_ENVIRONMENT": "local"})
    assert config.baseUrl == "http://localhost:8000" and config.workspace == "team" and config.peerName is None
    assert config.writeFrequency == 4
    assert (config.apiKey, config.sources["apiKey"]) == (None, "default")
    assert config.sources["environment"] == "env HONCHO_ENVIRONMENT"
    assert (config.enabled, config.sources["enabled"]) == (True, "auto (apiKey or baseUrl set)")
    assert load_config(hermes_home, {}).is_local  # a local baseUrl needs no key
    write(hermes_home / "honcho.json", {"workspace": None, "hosts": {"hermes": {"workspace": None}}})
    config = load_config(hermes_home, {"HONCHO_BASE_URL": " https://honcho.example "})
    assert (config.workspace, config.baseUrl, config.sources["baseUrl"]) == ("hermes", "https://honcho.example", "env HONCHO_BASE_URL")
    assert config.sources["enabled"] == "auto (apiKey or baseUrl set)" and not config.is_local
    assert load_config(hermes_home, {"HONCHO_API_KEY": "k"}).sources["enabled"] == "auto (apiKey or baseUrl set)"
    assert load_config(hermes_home, {}).sources["enabled"] == "auto (no apiKey or baseUrl)"


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        ({"dialecticMaxChars": 0}, ["dialecticMaxChars = 0", "(at least 1)"]),
        ({"messageMaxChars": 99}, ["messageMaxChars = 99", "(at least 100)"]),
        ({"timeout": True}, ["timeout = true", "whole number"]),
        ({"timeout": 2.5}, ["timeout = 2.5"]),
        ({"writeFrequency": 0}, ["writeFrequency = 0"]),
        ({"writeFrequency": False}, ["writeFrequency = false"]),
        ({"dialecticDepthLevels": []}, ["dialecticDepthLevels = []"]),
        ({"dialecticDepthLevels": "low"}, ["dialecticDepthLevels"]),
        ({"sessions": {"/x": "  "}}, ["sessions"]),
        ({"sessions": ["/x"]}, ["sessions"]),
        ({"observation": ["user"]}, ["observation", "an object"]),
        ({"observation": {"bot": {}}}, ["observation.bot", "only 'user' and 'ai'"]),
        ({"observation": {"user": {"watch": True}}}, ["observation.user.watch"]),
        ({"observation": {"ai": True}}, ["observation.ai"]),
        ({"baseUrl": "ftp://honcho.example"}, ["baseUrl"]),
        ({"baseUrl": "http://"}, ["baseUrl"]),
        ({"baseUrl": 8000}, ["baseUrl = 8000"]),
        ({"peerName": 5}, ["peerName = 5", "a string"]),
        ({"hosts": {"hermes": "coder"}}, ["hosts.hermes must be an object", '"hermes": {"aiPeer": "hermes"}']),
    ],
)
def test_more_bad_values_are_refused_with_where_and_why(hermes_home: Path, data: dict, fragments: list[str]) -> None:
    path = write(hermes_home / "honcho.json", data)
    with pytest.raises(HonchoConfigError) as caught:
        load_config(hermes_home, {})
    message = str(caught.value)
    assert message.startswith(str(path)) and "->" in message
    for fragment in fragments:
        assert fragment in message


def test_an_environment_value_of_the_wrong_form_names_the_variable(hermes_home: Path) -> None:
    with pytest.raises(HonchoConfigError, match=r"^environment variable HONCHO_ENVIRONMENT = \"staging\" is not valid"):
        load_config(hermes_home, {"HONCHO_ENVIRONMENT": "staging"})


def test_observation_flags_left_out_default_to_true(hermes_home: Path) -> None:
    write(hermes_home / "honcho.json", {"observation": {"user": {"observeOthers": False}, "ai": {}}})
    assert load_config(hermes_home, {}).observation == {"user": {"observeMe": True, "observeOthers": False}, "ai": {"observeMe": True, "observeOthers": True}}


def test_a_file_that_cannot_be_read_is_named_with_the_fix(hermes_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.config import read_config_file

    path = hermes_home / "honcho.json"
    path.write_bytes(b'{"workspace": "caf\xe9"}')
    with pytest.raises(HonchoConfigError, match=rf"^{path}: not UTF-8 text .* -> save it as UTF-8 JSON"):
        load_config(hermes_home, {})
    path.unlink()
    path.mkdir()
    with pytest.raises(HonchoConfigError, match=rf"^{path}: cannot be read \(Is a directory\) -> check its permissions"):
        read_config_file(path)
    path.rmdir()
    write(path, "  \n")
    assert read_config_file(path) == {} and load_config(hermes_home, {}).path == path


def test_a_file_saved_with_a_byte_order_mark_is_read(hermes_home: Path) -> None:
    # Notepad's "UTF-8 with BOM": json refused it ('Unexpected UTF-8 BOM') and Honcho was off
    (hermes_home / "honcho.json").write_bytes('\ufeff{"workspace": "café-team", "hosts": {"hermes": {"baseUrl": "http://127.0.0.1:8000"}}}'.encode("utf-8"))
    config = load_config(hermes_home, {})
    assert config.values["workspace"] == "café-team"
    assert config.values["baseUrl"] == "http://127.0.0.1:8000"


def test_short_api_keys_are_hidden_whole(hermes_home: Path) -> None:
    assert load_config(hermes_home, {"HONCHO_API_KEY": "abcdefghijkl"}).redacted()["apiKey"] == "***"  # 12 characters
    assert load_config(hermes_home, {"HONCHO_API_KEY": "abcdefghijklm"}).redacted()["apiKey"] == "***jklm"
    assert load_config(hermes_home, {}).redacted()["apiKey"] is None
    config = load_config(hermes_home, {"HONCHO_API_KEY": "abcd"})
    assert config.redact("key abcd used") == "key *** used"
    assert load_config(hermes_home, {"HONCHO_API_KEY": "abc"}).redact("abc abc") == "abc abc"  # too short to tell from text
    assert load_config(hermes_home, {}).redact("no key") == "no key"
    with pytest.raises(AttributeError):
        config.no_such_setting  # noqa: B018


def test_setup_asks_for_an_api_key_only_when_none_is_stored_and_the_server_needs_one(hermes_home: Path, user_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.settings import config_schema

    def asked(data: dict, env: dict) -> bool:
        write(hermes_home / "honcho.json", data)
        return "apiKey" in [f["key"] for f in config_schema(load_config(hermes_home, env))]

    assert asked({}, {}) is True  # Honcho cloud, no key anywhere
    assert asked({}, {"HONCHO_API_KEY": "k" * 20}) is True  # from the environment: the setting is still HONCHO_API_KEY
    assert asked({"apiKey": "k" * 20}, {}) is False
    assert asked({"hosts": {"hermes": {"apiKey": "k" * 20}}}, {}) is False
    assert asked({"baseUrl": "http://localhost:8000"}, {}) is False  # a local server needs none
    assert asked({"baseUrl": "https://honcho.example"}, {}) is True


def test_edits_change_only_their_keys_in_the_active_host_block(hermes_home: Path, user_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.settings import edit_host_block, save_settings

    original = {"apiKey": "k" * 20, "linkedHosts": ["x"], "hosts": {"hermes": {"aiPeer": "hermes", "recallMode": "tools"}, "other": {"aiPeer": "o"}}}
    path = write(user_home / ".hermes" / "honcho.json", original)
    assert edit_host_block(hermes_home, {"recallMode": "context", "writeFrequency": "3", "aiPeer": None}, env={}, root_keys={"workspace": "team"}) == path
    data = json.loads(path.read_text())
    assert data["hosts"]["hermes"] == {"recallMode": "context", "writeFrequency": 3}
    assert data["hosts"]["other"] == {"aiPeer": "o"} and data["linkedHosts"] == ["x"] and data["workspace"] == "team"
    assert oct(path.stat().st_mode & 0o777) == "0o644"  # a file of the user's keeps the mode they gave it
    before = path.read_text()
    with pytest.raises(HonchoConfigError, match=r"hosts\.hermes\.recallMode"):
        edit_host_block(hermes_home, {"recallMode": "sometimes"}, env={})
    with pytest.raises(HonchoConfigError, match=r"'recalMode' is not a Honcho setting -> one of: apiKey, "):
        edit_host_block(hermes_home, {"recalMode": "tools"}, env={})
    assert path.read_text() == before  # a refused edit writes nothing
    save_settings(hermes_home, {"peerName": "eri", "baseUrl": "", "aiPeer": None, "not_a_key": 1}, env={"HERMES_HONCHO_HOST": "hermes.work"})
    data = json.loads(path.read_text())
    assert data["hosts"]["hermes.work"] == {"peerName": "eri"} and data["hosts"]["hermes"] == {"recallMode": "context", "writeFrequency": 3}
    data["hosts"] = ["broken"]
    write(path, data)
    with pytest.raises(HonchoConfigError, match="hosts must be an object -> fix it by hand"):
        edit_host_block(hermes_home, {"recallMode": "tools"}, env={})


def test_a_new_file_is_made_in_hermes_home_and_the_underscored_block_is_edited(hermes_home: Path, user_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.settings import edit_host_block, read_raw

    assert read_raw(hermes_home / "honcho.json") == {}
    path = edit_host_block(hermes_home, {"peerName": "eri"}, env={})
    assert path == hermes_home / "honcho.json" and json.loads(path.read_text()) == {"hosts": {"hermes": {"peerName": "eri"}}}
    assert oct(path.stat().st_mode & 0o777) == "0o600"  # a new file may come to hold the API key
    write(path, {"hosts": {"hermes_work": {"aiPeer": "w"}}})
    edit_host_block(hermes_home, {"peerName": "eri"}, env={"HERMES_HONCHO_HOST": "hermes.work"})
    assert json.loads(path.read_text()) == {"hosts": {"hermes_work": {"aiPeer": "w", "peerName": "eri"}}}


def test_each_observation_flag_is_read_and_a_wrong_one_shows_its_value(hermes_home: Path) -> None:
    write(hermes_home / "honcho.json", {"observation": {"user": {"observeMe": False}, "ai": {"observeMe": False, "observeOthers": False}}})
    assert load_config(hermes_home, {}).observation == {"user": {"observeMe": False, "observeOthers": True}, "ai": {"observeMe": False, "observeOthers": False}}
    write(hermes_home / "honcho.json", {"observation": {"user": {"observeMe": "no"}}})
    with pytest.raises(HonchoConfigError, match=r'observation\.user\.observeMe = "no" is not valid'):
        load_config(hermes_home, {})


def test_the_cli_edits_the_file_in_use_under_the_home_it_is_given(hermes_home: Path, tmp_path: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.config import writable_path
    from hermes_bundled_plugins.memory.honcho.settings import edit_host_block, save_settings

    other_home = tmp_path / "other_user"  # not $HOME
    used = write(other_home / ".honcho" / "config.json", {"workspace": "w"})
    assert writable_path(hermes_home, other_home) == used
    assert writable_path(hermes_home) == hermes_home / "honcho.json"  # nothing under $HOME
    assert edit_host_block(hermes_home, {"peerName": "eri"}, env={}, user_home=other_home) == used
    assert save_settings(hermes_home, {"aiPeer": "h"}, env={}, user_home=other_home) == used
    assert json.loads(used.read_text())["hosts"]["hermes"] == {"peerName": "eri", "aiPeer": "h"}
    assert not (hermes_home / "honcho.json").exists()


def test_edits_keep_the_file_readable_and_accept_numbers_as_numbers(hermes_home: Path) -> None:
    from hermes_bundled_plugins.memory.honcho.settings import edit_host_block

    path = edit_host_block(hermes_home, {"peerName": "Éri", "timeout": 5, "writeFrequency": 2, "aiPeer": None}, env={})
    data = {"hosts": {"hermes": {"peerName": "Éri", "timeout": 5, "writeFrequency": 2}}}
    assert path.read_text(encoding="utf-8") == json.dumps(data, indent=2, ensure_ascii=False) + "\n"  # as a person would write it
    with pytest.raises(HonchoConfigError, match=rf"^{path}: workspace = 5 is not valid"):
        edit_host_block(hermes_home, {}, env={}, root_keys={"workspace": 5})
    with pytest.raises(HonchoConfigError, match=rf"^{path}: hosts\.hermes\.timeout = 0 is not valid \(at least 1\)"):
        edit_host_block(hermes_home, {"timeout": 0}, env={})
    # only writeFrequency takes a number written as text ("3" turns); other numbers must be numbers, as when loading
    with pytest.raises(HonchoConfigError, match=r'hosts\.hermes\.timeout = "5" is not valid: it must be a whole number'):
        edit_host_block(hermes_home, {"timeout": "5"}, env={})


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("apiKey", 5, "a string"),
        ("baseUrl", "ftp://honcho", "an http:// or https:// URL, e.g. http://localhost:8000"),
        ("enabled", "yes", "true or false"),
        ("dialecticDepth", "2", "a whole number"),
        ("observation", [], "an object"),
        ("sessions", [], "an object of directory -> session name"),
        ("dialecticDepthLevels", "low", "a list of minimal, low, medium, high, max"),
        ("environment", "staging", 'one of "production", "local"'),
        ("writeFrequency", "often", 'one of "async", "turn", "session" or a whole number of turns >= 1'),
    ],
)
def test_a_value_of_the_wrong_kind_is_named_with_what_the_key_takes(hermes_home: Path, key: str, value: object, expected: str) -> None:
    path = hermes_home / "honcho.json"
    path.write_text(json.dumps({key: value}))
    with pytest.raises(HonchoConfigError) as error:
        load_config(hermes_home, {})
    assert str(error.value) == (
        f"{path}: {key} = {json.dumps(value)} is not valid: it must be {expected} -> edit the file or run 'hermes honcho status' to see the resolved settings")


def test_values_at_the_edge_of_what_a_key_takes_are_accepted(hermes_home: Path) -> None:
    settings = {"dialecticDepth": 1, "messageMaxChars": 100, "writeFrequency": 1, "dialecticDepthLevels": ["low", "max"],
                "sessions": {"/work/site": "site"}}
    (hermes_home / "honcho.json").write_text(json.dumps(settings))
    config = load_config(hermes_home, {})
    assert {key: config.values[key] for key in settings} == settings
    for key, value in (("messageMaxChars", 99), ("writeFrequency", 0), ("dialecticDepthLevels", ["low", "extreme"]), ("dialecticDepthLevels", [])):
        (hermes_home / "honcho.json").write_text(json.dumps({key: value}))
        with pytest.raises(HonchoConfigError, match=rf"{key} = .* is not valid"):
            load_config(hermes_home, {})
