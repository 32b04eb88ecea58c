"""Tests for the {{ cookiecutter.plugin_name }} plugin, run against a real hermes host.

The fixtures (hermes_home, plugin_manager, run_hermes) come with hermes itself
(hermes_core.testing); each test gets its own empty $HERMES_HOME.
{%- if cookiecutter.kind == "memory-provider" %}
TestProviderContract runs hermes' memory-provider contract kit against the provider.
{%- endif %}
"""

{%- set class_prefix = cookiecutter.plugin_name.title().replace('_', '') %}

from pathlib import Path

import {{ cookiecutter.module_name }}
{%- if cookiecutter.kind == "memory-provider" %}
from hermes_core.testing import MemoryProviderContract
from {{ cookiecutter.module_name }}.provider import {{ class_prefix }}Provider
{%- endif %}

KEY = "{{ cookiecutter.plugin_name }}"
PACKAGE_DIR = Path({{ cookiecutter.module_name }}.__file__).parent
{%- if cookiecutter.kind == "memory-provider" %}
TURNS_ON = {"memory": {"provider": KEY}}
{%- elif cookiecutter.kind == "context-engine" %}
TURNS_ON = {"context": {"engine": KEY}}
{%- else %}
TURNS_ON = {"plugins": {"enabled": [KEY]}}
{%- endif %}


def test_the_manifest_is_valid(run_hermes):
    result = run_hermes("plugins", "validate", str(PACKAGE_DIR))
    assert result.exit_code == 0, result.stdout + result.stderr


def test_hermes_finds_and_loads_the_installed_plugin(plugin_manager, run_hermes):
    plugin_manager(config=TURNS_ON, load=False)  # writes the setting into config.yaml
    entries = {entry["key"]: entry for entry in run_hermes("plugins", "list", "--json", "--load").json()}
    entry = entries[KEY]
    assert entry["source"] == "entrypoint"
    assert entry["loaded"] is True, entry["error"]
{%- if cookiecutter.kind == "hooks" %}
    assert entry["hooks"] == ["on_session_start", "pre_tool_call"]
{%- elif cookiecutter.kind == "tools" %}
    assert entry["tools"] == ["{{ cookiecutter.plugin_name }}_word_count"]
{%- elif cookiecutter.kind == "memory-provider" %}
    assert entry["memory_providers"] == [KEY]
{%- else %}
    assert entry["hooks"] == [] and entry["tools"] == []
{%- endif %}
{%- if cookiecutter.kind == "hooks" %}


def test_pre_tool_call_blocks_rm_rf_and_lets_other_commands_run(plugin_manager):
    manager = plugin_manager(config=TURNS_ON)
    call = {"tool_name": "terminal", "task_id": "t", "session_id": "s", "tool_call_id": "c", "turn_id": "1"}
    assert manager.hooks.invoke("pre_tool_call", args={"command": "rm -rf /"}, **call) == [
        {"action": "block", "message": "{{ cookiecutter.plugin_name }}: 'rm -rf' is not allowed"}
    ]
    assert manager.hooks.invoke("pre_tool_call", args={"command": "ls"}, **call) == []


def test_on_session_start_logs_the_session(plugin_manager, caplog):
    manager = plugin_manager(config=TURNS_ON)
    with caplog.at_level("INFO", logger="{{ cookiecutter.module_name }}"):
        manager.hooks.invoke("on_session_start", session_id="s1", model="test-model", platform="cli")
    assert "session s1 started on cli with test-model" in caplog.text
{%- elif cookiecutter.kind == "tools" %}


def test_the_tool_counts_words(plugin_manager):
    import json

    manager = plugin_manager(config=TURNS_ON)
    result = manager.tools.dispatch("{{ cookiecutter.plugin_name }}_word_count", {"text": "one two three"})
    assert json.loads(result) == {"words": 3}
{%- elif cookiecutter.kind == "memory-provider" %}


class TestProviderContract(MemoryProviderContract):
    """What every memory provider must do for the host (lifecycle, tool schemas, no network, failures)."""

    def make_provider(self, hermes_home):
        return {{ class_prefix }}Provider()


def test_the_provider_is_the_active_memory_provider(plugin_manager):
    manager = plugin_manager(config=TURNS_ON)
    provider = manager.active_memory_provider()
    assert provider is not None and provider.name == KEY
    assert provider.is_available() is True


def test_a_synced_turn_is_recalled_and_searchable(plugin_manager, hermes_home):
    import json

    provider = plugin_manager(config=TURNS_ON).active_memory_provider()
    provider.initialize("s1", hermes_home=str(hermes_home), platform="cli")
    provider.sync_turn("my cat is called Miso", "Nice name!", session_id="s1")
    assert "Miso" in provider.prefetch("what is my cat called", session_id="s1")
    assert provider.prefetch("unrelated words", session_id="s1") == ""
    (schema,) = provider.get_tool_schemas()
    assert set(schema) == {"name", "description", "parameters"} and schema["parameters"]["type"] == "object"
    found = json.loads(provider.handle_tool_call(schema["name"], {"query": "cat"}))
    assert len(found["results"]) == 1
    assert "error" in json.loads(provider.handle_tool_call("no_such_tool", {}))
{%- else %}


def test_the_engine_is_the_active_context_engine(plugin_manager):
    manager = plugin_manager(config=TURNS_ON)
    engine = manager.active_context_engine()
    assert engine is not None and engine.name == KEY


def test_compress_keeps_the_first_and_last_messages(plugin_manager):
    engine = plugin_manager(config=TURNS_ON).active_context_engine()
    engine.update_model("test-model", context_length=1000)
    engine.update_from_response({"prompt_tokens": 800, "completion_tokens": 10})
    assert engine.should_compress() is True
    messages = [{"role": "user", "content": str(i)} for i in range(20)]
    compressed = engine.compress(messages)
    assert compressed[:3] == messages[:3] and compressed[-6:] == messages[-6:]
    assert len(compressed) == 10 and engine.compression_count == 1
{%- endif %}
