"""What each Mem0 setting resolves to: config.yaml over mem0.json over the environment over defaults,
what a bad value says, and that a secret written into a file is never used.

``load_settings`` reads only files and the mapping given as the environment, so these tests drive it
directly on a home in tmp_path (no model server: nothing is called).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_bundled_plugins.memory.mem0 import settings as mem0_settings
from hermes_bundled_plugins.memory.mem0.settings import SettingsError, load_settings

CHAT_URL = "http://127.0.0.1:9/v1"


def make_home(home: Path, mem0_yaml: str = "", *, model: str = "  provider: openai\n  name: chat-model\n", json_data: Any = None, dotenv: str = "") -> Path:
    """A home whose config.yaml has the chat model ``model`` and ``mem0_yaml`` (indented 4) under memory.mem0."""
    model_block = f"model:\n{model}  base_url: {CHAT_URL}\n" if model else ""
    (home / "config.yaml").write_text(model_block + "memory:\n  provider: mem0\n  mem0:\n    timeout: 2\n" + mem0_yaml)
    if json_data is not None:
        (home / "mem0.json").write_text(json.dumps(json_data))
    if dotenv:
        (home / ".env").write_text(dotenv)
    return home


def refused(home: Path, **kwargs: Any) -> str:
    with pytest.raises(SettingsError) as error:
        load_settings(home, env=kwargs.pop("env", {}), **kwargs)
    return str(error.value)


def test_the_defaults_of_a_home_with_only_a_chat_model(tmp_path):
    loaded = load_settings(make_home(tmp_path), env={})
    assert (loaded.mode, loaded.user_id, loaded.agent_id) == ("local", "hermes-user", "hermes")
    assert (loaded.infer, loaded.rerank, loaded.telemetry) == (True, False, False)
    assert (loaded.top_k, loaded.prefetch_timeout, loaded.timeout) == (5, 3.0, 2.0)
    assert (loaded.breaker_threshold, loaded.breaker_cooldown, loaded.max_attempts) == (5, 120.0, 5)
    assert (loaded.api_key, loaded.host, loaded.native, loaded.notes) == (None, "https://api.mem0.ai", {}, ())
    assert loaded.store_path == tmp_path / "mem0" / "qdrant" and loaded.collection == "hermes"
    assert loaded.data_dir == tmp_path / "mem0" and loaded.location == str(tmp_path / "mem0" / "qdrant")
    assert loaded.llm == mem0_settings.ModelEndpoint("openai", "chat-model", CHAT_URL, None)
    assert loaded.embedder == mem0_settings.ModelEndpoint("openai", "text-embedding-3-small", CHAT_URL, None, 0)


def test_without_a_timeout_anywhere_the_default_is_ten_seconds(tmp_path):
    (tmp_path / "config.yaml").write_text("memory:\n  provider: mem0\n")
    loaded = load_settings(tmp_path, env={})
    assert loaded.timeout == 10.0 and loaded.mode == "local"
    assert loaded.llm is None and loaded.embedder is None, "no chat model, no configured endpoint: nothing to call"


def test_config_yaml_wins_over_mem0_json_and_an_empty_value_falls_through(tmp_path):
    home = make_home(tmp_path, "    user_id: from-yaml\n    agent_id: ''\n    top_k: 7\n",
                     json_data={"user_id": "from-json", "agent_id": "json-agent", "top_k": 3, "rerank": True, "infer": "no"})
    loaded = load_settings(home, env={"MEM0_USER_ID": "from-env", "MEM0_AGENT_ID": "env-agent"})
    assert (loaded.user_id, loaded.agent_id, loaded.top_k, loaded.rerank, loaded.infer) == ("from-yaml", "json-agent", 7, True, False)


def test_ids_come_from_the_caller_then_the_platform_then_the_files_then_the_environment(tmp_path):
    home = make_home(tmp_path, json_data={"user_ids": {"telegram": "tg-42", "discord": ""}, "user_id": "file-user"})
    env = {"MEM0_USER_ID": "env-user", "MEM0_AGENT_ID": "env-agent"}
    assert load_settings(home, platform="telegram", user_id="given", env=env).user_id == "given"
    assert load_settings(home, platform="telegram", env=env).user_id == "tg-42"
    assert load_settings(home, platform="discord", env=env).user_id == "file-user", "an empty per-platform id is no id"
    assert load_settings(home, platform="", env=env).user_id == "file-user"
    (home / "mem0.json").write_text("{}")
    loaded = load_settings(home, env=env)
    assert (loaded.user_id, loaded.agent_id) == ("env-user", "env-agent")
    make_home(home, dotenv="MEM0_USER_ID=dotenv-user\nMEM0_AGENT_ID=  \n")
    loaded = load_settings(home, env={})
    assert (loaded.user_id, loaded.agent_id) == ("dotenv-user", "hermes"), "a blank value in .env is no value"


def test_per_platform_ids_that_are_not_a_mapping_are_ignored(tmp_path):
    home = make_home(tmp_path, json_data={"user_ids": ["telegram"], "user_id": "file-user"})
    assert load_settings(home, platform="telegram", env={}).user_id == "file-user"


@pytest.mark.parametrize("spelling", ["true", "Yes", " ON ", "1", 1, True])
def test_true_spellings(tmp_path, spelling):
    assert load_settings(make_home(tmp_path, json_data={"rerank": spelling, "telemetry": spelling}), env={}).rerank is True
    assert load_settings(tmp_path, env={}).telemetry is True


@pytest.mark.parametrize("spelling", ["false", "No", "off", "0", 0, False])
def test_false_spellings(tmp_path, spelling):
    assert load_settings(make_home(tmp_path, json_data={"infer": spelling}), env={}).infer is False


def test_a_flag_that_is_neither_true_nor_false_is_refused_with_the_fix(tmp_path):
    make_home(tmp_path, json_data={"telemetry": "maybe"})
    assert refused(tmp_path) == "memory.mem0.telemetry is 'maybe', not true or false -> 'hermes config set memory.mem0.telemetry true'"


@pytest.mark.parametrize(("key", "lowest", "below"), [
    ("top_k", 1, 0), ("timeout", 0.1, 0.09), ("prefetch_timeout", 0, -0.5), ("max_attempts", 1, 0),
    ("breaker.threshold", 1, 0), ("breaker.cooldown", 0, -1),
])
def test_each_number_has_a_lowest_value(tmp_path, key, lowest, below):
    def data(value: Any) -> dict[str, Any]:
        outer, _, inner = key.partition(".")
        return {outer: {inner: value}} if inner else {key: value}

    attribute = key.replace(".", "_")
    make_home(tmp_path, json_data=data(lowest))
    (tmp_path / "config.yaml").write_text("memory:\n  provider: mem0\n")
    assert getattr(load_settings(tmp_path, env={}), attribute) == lowest
    (tmp_path / "mem0.json").write_text(json.dumps(data(below)))
    assert refused(tmp_path) == (f"memory.mem0.{key} is {below!r}; it must be a number of at least {lowest:g} "
                                 f"-> 'hermes config set memory.mem0.{key} <number>'")


@pytest.mark.parametrize("value", [True, "lots", None, [3], 1e400])
def test_a_count_that_is_no_number_is_refused(tmp_path, value):
    make_home(tmp_path, json_data={"max_attempts": value} if value is not None else {"max_attempts": {}})
    message = refused(tmp_path)
    assert message.startswith("memory.mem0.max_attempts is ") and message.endswith("-> 'hermes config set memory.mem0.max_attempts <number>'")


def test_numbers_given_as_text_are_converted(tmp_path):
    loaded = load_settings(make_home(tmp_path, "    top_k: '9'\n    breaker:\n      cooldown: '2.5'\n"), env={})
    assert (loaded.top_k, loaded.breaker_cooldown) == (9, 2.5)
    assert type(loaded.top_k) is int and type(loaded.breaker_cooldown) is float and type(loaded.timeout) is float


def test_a_mem0_section_that_is_not_a_mapping_is_refused(tmp_path):
    (tmp_path / "config.yaml").write_text("memory:\n  provider: mem0\n  mem0: [a]\n")
    assert refused(tmp_path) == f"memory.mem0 in {tmp_path / 'config.yaml'} must be a mapping of settings, not list"


def test_an_unknown_mode_is_refused_and_modes_are_read_loosely(tmp_path):
    make_home(tmp_path, "    mode: cloud\n")
    assert refused(tmp_path) == "memory.mem0.mode is 'cloud' -> set it to one of auto, local, platform"
    make_home(tmp_path, "    mode: ' Platform '\n")
    assert load_settings(tmp_path, env={}).mode == "platform"


def test_auto_mode_picks_the_platform_only_for_a_key_without_a_local_store(tmp_path):
    make_home(tmp_path)
    assert load_settings(tmp_path, env={}).mode == "local"
    platform = load_settings(tmp_path, env={"MEM0_API_KEY": "  m0-key  "})
    assert (platform.mode, platform.api_key, platform.llm, platform.embedder, platform.store_path) == ("platform", "m0-key", None, None, None)
    assert platform.location == "https://api.mem0.ai"
    store = {"provider": "qdrant", "config": {"path": "/somewhere"}}
    make_home(tmp_path, json_data={"vector_store": store})
    local = load_settings(tmp_path, env={"MEM0_API_KEY": "m0-key"})
    assert local.mode == "local" and local.native == {"vector_store": store}
    assert local.location == "qdrant (from mem0.json)"
    make_home(tmp_path, json_data={"vector_store": {"config": {}}})
    assert load_settings(tmp_path, env={"MEM0_API_KEY": "m0-key"}).mode == "platform", "a block without a provider is not mem0's"


def test_a_key_in_dotenv_counts_and_a_blank_one_does_not(tmp_path):
    make_home(tmp_path, dotenv="MEM0_API_KEY=from-dotenv\n")
    assert load_settings(tmp_path, env={}).api_key == "from-dotenv"
    assert load_settings(tmp_path, env={"MEM0_API_KEY": "   "}).mode == "local"


def test_native_blocks_are_kept_only_in_mem0_s_own_shape(tmp_path):
    llm = {"provider": "ollama", "config": {"model": "llama"}}
    make_home(tmp_path, json_data={"llm": llm, "embedder": "openai", "vector_store": {"path": "x"}, "other": {"provider": "p"}})
    loaded = load_settings(tmp_path, env={})
    assert loaded.native == {"llm": llm}
    assert loaded.location == str(tmp_path / "mem0" / "qdrant"), "no vector_store block: the default store"
    assert load_settings(tmp_path, env={}).native["llm"]["provider"] == "ollama"


def test_a_location_names_a_store_block_without_a_provider_name(tmp_path):
    loaded = mem0_settings.Mem0Settings(mode="local", home=tmp_path, user_id="u", agent_id="a", native={"vector_store": {"config": {}}})
    assert loaded.location == "? (from mem0.json)"


def test_secrets_in_either_file_are_ignored_and_reported(tmp_path):
    make_home(tmp_path, "    api_key: yaml-secret\n    llm:\n      api_key: yaml-llm-secret\n",
              json_data={"api_key": "json-secret", "embedder": {"api_key": "json-embed-secret"}})
    loaded = load_settings(tmp_path, env={})
    assert (loaded.mode, loaded.api_key, loaded.llm.api_key, loaded.embedder.api_key) == ("local", None, None, None)
    fix = f"secrets are read only from the environment or {tmp_path / '.env'} -> run 'hermes memory setup mem0'"
    assert loaded.notes == (
        f"api_key in config.yaml memory.mem0 is ignored: {fix}",
        f"api_key in mem0.json is ignored: {fix}",
        f"embedder.api_key in mem0.json is ignored: {fix}",
        f"llm.api_key in config.yaml memory.mem0 is ignored: {fix}",
    )
    shown = repr(loaded) + repr(loaded.llm) + repr(loaded.embedder) + str(loaded)
    for value in ("yaml-secret", "yaml-llm-secret", "json-secret", "json-embed-secret"):
        assert value not in shown


def test_keys_from_the_environment_are_used_and_never_shown(tmp_path):
    make_home(tmp_path)
    loaded = load_settings(tmp_path, env={"MEM0_LLM_API_KEY": "llm-key", "MEM0_EMBEDDER_API_KEY": " embed-key "})
    assert (loaded.llm.api_key, loaded.embedder.api_key) == ("llm-key", "embed-key")
    assert "llm-key" not in repr(loaded) and "embed-key" not in repr(loaded)
    assert load_settings(tmp_path, env={"MEM0_LLM_API_KEY": "llm-key"}).embedder.api_key == "llm-key", "the embedder shares the extraction key"
    loaded = load_settings(tmp_path, env={"MEM0_API_KEY": "platform-key"})
    assert "platform-key" not in repr(loaded)


def test_the_chat_model_s_key_is_the_default_for_both_endpoints(tmp_path):
    make_home(tmp_path)
    loaded = load_settings(tmp_path, env={"OPENAI_API_KEY": "chat-key"})
    assert (loaded.llm.api_key, loaded.embedder.api_key) == ("chat-key", "chat-key")


@pytest.mark.parametrize(("contents", "note"), [
    ("{not json", "is not readable JSON"),
    ("[1, 2]", "holds a list, not an object; it is ignored"),
    ('"text"', "holds a str, not an object; it is ignored"),
])
def test_a_mem0_json_that_is_no_object_is_a_note(tmp_path, contents, note):
    make_home(tmp_path)
    (tmp_path / "mem0.json").write_text(contents)
    loaded = load_settings(tmp_path, env={})
    assert len(loaded.notes) == 1 and loaded.notes[0].startswith(f"{tmp_path / 'mem0.json'} {note}")
    assert loaded.mode == "local" and loaded.top_k == 5


def test_an_unreadable_mem0_json_names_the_fix(tmp_path):
    make_home(tmp_path)
    (tmp_path / "mem0.json").mkdir()  # a directory where the file goes
    (note,) = load_settings(tmp_path, env={}).notes
    assert note == f"{tmp_path / 'mem0.json'}: the mem0.json is a directory; it is ignored -> fix or delete it"


def test_the_platform_host_comes_from_the_environment_then_the_files(tmp_path):
    make_home(tmp_path, json_data={"host": "http://json-host/", "base_url": "http://json-base"})
    env = {"MEM0_API_KEY": "k"}
    assert load_settings(tmp_path, env=env).host == "http://json-host"
    assert load_settings(tmp_path, env={**env, "MEM0_HOST": "http://env-host//"}).host == "http://env-host"
    assert load_settings(tmp_path, env={**env, "MEM0_HOST": "http://env-host", "MEM0_BASE_URL": "http://env-base"}).host == "http://env-base"
    assert load_settings(tmp_path, env={**env, "MEM0_HOST": "http://env-host", "MEM0_BASE_URL": " "}).host == "http://env-host"
    (tmp_path / "mem0.json").write_text(json.dumps({"base_url": "http://json-base/"}))
    assert load_settings(tmp_path, env=env).host == "http://json-base"


@pytest.mark.parametrize(("configured", "expected"), [
    (None, "mem0/qdrant"), ("vectors", "vectors"), ("/abs/store", "/abs/store"), ("~/store", "HOME/store"),
])
def test_where_the_local_store_lives(tmp_path, monkeypatch, configured, expected):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    make_home(tmp_path, f"    store:\n      path: {configured}\n      collection: mine\n" if configured else "")
    loaded = load_settings(tmp_path, env={})
    if expected.startswith("/"):
        assert loaded.store_path == Path(expected)
    elif expected.startswith("HOME"):
        assert loaded.store_path == tmp_path / "user" / "store"
    else:
        assert loaded.store_path == tmp_path / expected
    assert loaded.collection == ("mine" if configured else "hermes")


def test_configured_endpoints_override_the_chat_model(tmp_path):
    make_home(tmp_path, "    llm:\n      model: extractor\n      base_url: http://llm/v1\n      provider: groq\n"
                        "    embedder:\n      model: embed\n      base_url: http://embed/v1\n      provider: ollama\n      dims: 256\n")
    loaded = load_settings(tmp_path, env={})
    assert loaded.llm == mem0_settings.ModelEndpoint("groq", "extractor", "http://llm/v1", None)
    assert loaded.embedder == mem0_settings.ModelEndpoint("ollama", "embed", "http://embed/v1", None, 256)


def test_an_extraction_model_without_a_chat_model_uses_openai_and_its_address_for_embeddings(tmp_path):
    make_home(tmp_path, "    llm:\n      model: extractor\n      base_url: http://llm/v1\n", model="")
    loaded = load_settings(tmp_path, env={})
    assert loaded.llm == mem0_settings.ModelEndpoint("openai", "extractor", "http://llm/v1", None)
    assert loaded.embedder == mem0_settings.ModelEndpoint("openai", "text-embedding-3-small", "http://llm/v1", None, 0)


def test_an_embedder_model_alone_is_an_endpoint_without_an_address(tmp_path):
    make_home(tmp_path, "    embedder:\n      model: embed\n", model="")
    loaded = load_settings(tmp_path, env={})
    assert loaded.llm is None
    assert loaded.embedder == mem0_settings.ModelEndpoint("openai", "embed", "", None, 0)


ANTHROPIC = "  provider: anthropic\n  name: claude-x\n"


def test_an_anthropic_chat_model_extracts_but_never_embeds(tmp_path):
    make_home(tmp_path, model=ANTHROPIC)
    loaded = load_settings(tmp_path, env={"ANTHROPIC_API_KEY": "a-key"})
    assert loaded.llm == mem0_settings.ModelEndpoint("anthropic", "claude-x", CHAT_URL, "a-key")
    assert loaded.embedder is None, "Anthropic has no embeddings endpoint"
    make_home(tmp_path, "    embedder:\n      base_url: http://embed/v1\n", model=ANTHROPIC)
    assert load_settings(tmp_path, env={"ANTHROPIC_API_KEY": "a-key"}).embedder == mem0_settings.ModelEndpoint(
        "openai", "text-embedding-3-small", "http://embed/v1", "a-key", 0)


def test_a_configured_extraction_model_beside_an_anthropic_chat_model_speaks_openai(tmp_path):
    make_home(tmp_path, "    llm:\n      model: extractor\n", model=ANTHROPIC)
    loaded = load_settings(tmp_path, env={"ANTHROPIC_API_KEY": "a-key"})
    assert loaded.llm == mem0_settings.ModelEndpoint("openai", "extractor", CHAT_URL, "a-key")
    assert loaded.embedder is not None and loaded.embedder.base_url == CHAT_URL


@pytest.mark.parametrize("dims", [0, "many", -3])
def test_an_embedding_size_below_one_is_refused(tmp_path, dims):
    make_home(tmp_path, f"    embedder:\n      dims: {dims}\n")
    assert refused(tmp_path) == (f"memory.mem0.embedder.dims is {dims!r}; it must be a number of at least 1 "
                                 "-> 'hermes config set memory.mem0.embedder.dims <number>'")


def test_setup_walks_the_key_as_a_secret_and_saves_no_secret(tmp_path):
    schema = {field["key"]: field for field in mem0_settings.config_schema()}
    assert schema["api_key"]["secret"] is True and schema["api_key"]["env_var"] == "MEM0_API_KEY"
    assert schema["mode"]["choices"] == ["auto", "local", "platform"] and schema["embedder.dims"]["minimum"] == 1
    (tmp_path / "config.yaml").write_text("memory:\n  provider: mem0\n")
    mem0_settings.save_settings({"api_key": "secret", "llm.api_key": "s2", "embedder.api_key": "s3", "user_id": "ann", "top_k": 8}, tmp_path)
    text = (tmp_path / "config.yaml").read_text()
    assert "secret" not in text and "s2" not in text and "s3" not in text
    loaded = load_settings(tmp_path, env={})
    assert (loaded.user_id, loaded.top_k) == ("ann", 8)


#: What ``hermes memory setup mem0`` asks, field by field (the wording is what the user reads).
SETUP_FIELDS = [
    {"key": "mode", "description": "auto (platform when MEM0_API_KEY is set), local (embedded, no account) or platform", "default": "auto", "choices": ["auto", "local", "platform"]},
    {"key": "api_key", "description": "Mem0 platform API key (leave empty for local mode)", "secret": True, "required": False, "env_var": "MEM0_API_KEY", "url": "https://app.mem0.ai"},
    {"key": "host", "description": "platform address, for a self-hosted Mem0 platform (empty: https://api.mem0.ai)"},
    {"key": "user_id", "description": "whose memories these are", "default": "hermes-user"},
    {"key": "agent_id", "description": "which agent writes them", "default": "hermes"},
    {"key": "infer", "description": "let the model extract facts from each turn (false: store messages verbatim)", "type": "bool", "default": True},
    {"key": "rerank", "description": "rerank recalled memories (the platform; locally only with a reranker in mem0.json)", "type": "bool", "default": False},
    {"key": "llm.model", "description": "local mode: model that extracts memories (empty: the chat model)"},
    {"key": "llm.base_url", "description": "local mode: its OpenAI-compatible address (empty: the chat model's)"},
    {"key": "embedder.model", "description": "local mode: embedding model", "default": "text-embedding-3-small"},
    {"key": "embedder.base_url", "description": "local mode: embedding endpoint (empty: the extraction model's address)"},
    {"key": "embedder.dims", "description": "local mode: embedding size of that model (empty: ask the endpoint)", "type": "int", "minimum": 1},
]


def test_the_setup_walk_asks_for_settings_that_exist_with_their_real_defaults(tmp_path):
    assert mem0_settings.config_schema() == SETUP_FIELDS
    loaded = load_settings(make_home(tmp_path, model=""), env={})
    defaults = {field["key"]: field["default"] for field in SETUP_FIELDS if "default" in field}
    assert defaults == {"mode": "auto", "user_id": loaded.user_id, "agent_id": loaded.agent_id, "infer": loaded.infer,
                        "rerank": loaded.rerank, "embedder.model": "text-embedding-3-small"}
    chosen = {"mode": "local", "host": "http://self-hosted", "user_id": "ann", "agent_id": "bot", "infer": False, "rerank": True,
              "llm.model": "x-model", "llm.base_url": "http://llm/v1", "embedder.model": "e-model", "embedder.base_url": "http://e/v1", "embedder.dims": 12}
    assert set(chosen) == {field["key"] for field in SETUP_FIELDS} - {"api_key"}
    mem0_settings.save_settings(chosen, tmp_path)
    loaded = load_settings(tmp_path, env={})
    assert (loaded.mode, loaded.host, loaded.user_id, loaded.agent_id, loaded.infer, loaded.rerank) == ("local", "http://self-hosted", "ann", "bot", False, True)
    assert loaded.llm == mem0_settings.ModelEndpoint("openai", "x-model", "http://llm/v1", None)
    assert loaded.embedder == mem0_settings.ModelEndpoint("openai", "e-model", "http://e/v1", None, 12)


def test_the_chat_model_is_read_with_the_given_environment_and_the_home_s_dotenv(tmp_path):
    make_home(tmp_path, model="  provider: openai\n  name: ${CHAT_MODEL_NAME}\n", dotenv="OPENAI_API_KEY=key-from-dotenv\n")
    loaded = load_settings(tmp_path, env={"CHAT_MODEL_NAME": "named-in-env"})
    assert loaded.llm == mem0_settings.ModelEndpoint("openai", "named-in-env", CHAT_URL, "key-from-dotenv")
    assert loaded.embedder.api_key == "key-from-dotenv"


def test_without_a_platform_the_cli_s_id_is_used(tmp_path):
    make_home(tmp_path, json_data={"user_ids": {"cli": "cli-user", "CLI": "shouted"}, "user_id": "file-user"})
    assert load_settings(tmp_path, env={}).user_id == "cli-user"


def test_without_an_environment_given_the_process_environment_is_read(tmp_path, monkeypatch):
    make_home(tmp_path, "    user_id: ${MEM0_TEST_USER}\n")
    monkeypatch.setenv("MEM0_API_KEY", "process-key")
    monkeypatch.setenv("MEM0_TEST_USER", "process-user")
    loaded = load_settings(tmp_path)
    assert (loaded.mode, loaded.api_key, loaded.user_id) == ("platform", "process-key", "process-user")


def test_variables_in_the_mem0_section_come_from_the_given_environment(tmp_path):
    make_home(tmp_path, "    user_id: ${MEM0_TEST_USER}\n")
    assert load_settings(tmp_path, env={"MEM0_TEST_USER": "given-user"}).user_id == "given-user"


def test_every_variable_may_live_in_the_home_s_dotenv(tmp_path):
    make_home(tmp_path, dotenv="MEM0_HOST=http://dotenv-host/\nMEM0_AGENT_ID=dotenv-agent\nMEM0_LLM_API_KEY=llm-dotenv\nMEM0_EMBEDDER_API_KEY=embed-dotenv\n")
    loaded = load_settings(tmp_path, env={})
    assert (loaded.host, loaded.agent_id, loaded.llm.api_key, loaded.embedder.api_key) == ("http://dotenv-host", "dotenv-agent", "llm-dotenv", "embed-dotenv")
    make_home(tmp_path, dotenv="MEM0_BASE_URL=http://dotenv-base\n")
    assert load_settings(tmp_path, env={}).host == "http://dotenv-base"


@pytest.mark.parametrize("key", ["infer", "rerank", "telemetry"])
def test_each_flag_names_itself_when_refused(tmp_path, key):
    make_home(tmp_path, json_data={key: "perhaps"})
    assert refused(tmp_path) == f"memory.mem0.{key} is 'perhaps', not true or false -> 'hermes config set memory.mem0.{key} true'"


def test_only_slashes_are_cut_from_the_end_of_a_host(tmp_path):
    make_home(tmp_path, json_data={"host": "http://mem0.example/PROXX//"})
    assert load_settings(tmp_path, env={"MEM0_API_KEY": "k"}).host == "http://mem0.example/PROXX"


def test_an_extraction_model_without_any_address_has_an_empty_one(tmp_path):
    make_home(tmp_path, "    llm:\n      model: extractor\n", model="")
    loaded = load_settings(tmp_path, env={})
    assert loaded.llm == mem0_settings.ModelEndpoint("openai", "extractor", "", None)
    assert loaded.embedder is None, "no address and no embedding model configured: no embedder"


def test_each_native_block_of_mem0_json_is_kept(tmp_path):
    blocks = {"vector_store": {"provider": "qdrant", "config": {}}, "llm": {"provider": "ollama", "config": {}}, "embedder": {"provider": "ollama", "config": {"model": "nomic"}}}
    make_home(tmp_path, json_data=blocks)
    assert load_settings(tmp_path, env={}).native == blocks


def test_a_key_inside_a_native_block_is_used_and_reported_and_the_environments_wins(tmp_path):
    blocks = {"vector_store": {"provider": "qdrant", "config": {"url": "https://q.example", "api_key": "qd-in-file"}},
              "llm": {"provider": "openai", "config": {"model": "gpt-x", "api_key": "sk-in-file"}},
              "embedder": {"provider": "openai", "config": {"model": "emb-x"}}}
    make_home(tmp_path, json_data=blocks)
    written = (tmp_path / "mem0.json").read_text()

    bare = load_settings(tmp_path, env={})
    assert bare.native == blocks  # a Hermes Agent setup keeps working
    dotenv = tmp_path / ".env"
    assert bare.notes == (
        "vector_store.config.api_key is read from mem0.json, where anyone who can read the file sees it "
        f"-> move it to MEM0_VECTOR_STORE_API_KEY in {dotenv} and delete it from mem0.json",
        "llm.config.api_key is read from mem0.json, where anyone who can read the file sees it "
        f"-> move it to MEM0_LLM_API_KEY in {dotenv} and delete it from mem0.json")
    assert "sk-in-file" not in repr(bare) and "qd-in-file" not in repr(bare)

    keyed = load_settings(tmp_path, env={"MEM0_LLM_API_KEY": "sk-env", "MEM0_VECTOR_STORE_API_KEY": "qd-env"})
    assert keyed.notes == ()
    assert keyed.native["llm"]["config"] == {"model": "gpt-x", "api_key": "sk-env"}
    assert keyed.native["embedder"]["config"] == {"model": "emb-x", "api_key": "sk-env"}  # the extraction model's key by default
    assert keyed.native["vector_store"]["config"] == {"url": "https://q.example", "api_key": "qd-env"}
    assert "sk-env" not in repr(keyed)
    own = load_settings(tmp_path, env={"MEM0_LLM_API_KEY": "sk-env", "MEM0_EMBEDDER_API_KEY": "emb-env"})
    assert own.native["embedder"]["config"]["api_key"] == "emb-env"
    assert (tmp_path / "mem0.json").read_text() == written  # the file is only read
