"""The compressor loads as a builtin through the plugin manager and ``context.engine`` selects it."""

from __future__ import annotations

import logging

from hermes_plugins_builtin.compressor import ChatCompletionsSummarizer, Compressor


def test_the_builtin_registers_the_compressor_as_the_default_engine(plugin_manager):
    manager = plugin_manager()
    record = manager.get("compressor")
    assert record.candidate.source == "builtin" and record.loaded
    engine = manager.active_context_engine()  # context.engine defaults to "compressor"
    assert isinstance(engine, Compressor) and engine.name == "compressor"
    assert (engine.threshold_percent, engine.protect_first_n, engine.protect_last_n, engine.target_ratio) == (0.75, 3, 6, 0.2)
    assert engine.enabled and engine.summarize is None  # no auxiliary model configured: extractive summaries
    assert manager.auxiliary_tasks["compression"]["display_name"] == "Context compression"


def test_context_engine_compressor_with_compression_settings(plugin_manager):
    manager = plugin_manager(
        config={
            "context": {"engine": "compressor"},
            "compression": {"enabled": False, "threshold": 0.5, "protect_first_n": 2, "protect_last_n": 10, "target_ratio": 0.3},
            "auxiliary": {"compression": {"base_url": "http://127.0.0.1:1/v1", "model": "tiny", "api_key": "k", "timeout": 7}},
        }
    )
    engine = manager.active_context_engine()
    assert isinstance(engine, Compressor)
    assert (engine.enabled, engine.threshold_percent, engine.protect_first_n, engine.protect_last_n) == (False, 0.5, 2, 10)
    assert engine.target_ratio == 0.3
    assert engine.summarize == ChatCompletionsSummarizer(base_url="http://127.0.0.1:1/v1", model="tiny", api_key="k", timeout=7.0)
    engine.update_model("tiny", 1_000)
    assert engine.threshold_tokens == 500


def test_a_bad_setting_is_reported_and_the_engine_still_loads(hermes_home, caplog):
    with caplog.at_level(logging.WARNING):
        manager = _programmatic(hermes_home, {"compression": {"threshold": "most"}})
    assert manager.active_context_engine().threshold_percent == 0.75
    assert "compression.threshold" in caplog.text


def test_a_plugin_engine_selected_by_context_engine_replaces_the_builtin(make_plugin, plugin_manager):
    make_plugin(
        "squash",
        """
from hermes_core import ContextEngine
class Squash(ContextEngine):
    name = "squash"
    def update_from_response(self, usage): pass
    def should_compress(self, prompt_tokens=None): return False
    def compress(self, messages, current_tokens=None, focus_topic=None): return messages[-1:]
def register(ctx):
    ctx.register_context_engine(Squash())
""",
    )
    manager = plugin_manager(config={"context": {"engine": "squash"}})
    assert manager.active_context_engine().name == "squash"
    assert list(manager.context_engines) == ["squash"]  # the compressor stood aside
    assert manager.get("compressor").loaded


def _programmatic(hermes_home, settings, strict=True):
    """A manager given its config by a program: config.yaml itself refuses such values on load."""
    from hermes_core.config import DEFAULT_CONFIG, Config, deep_merge
    from hermes_core.manager import PluginManager

    manager = PluginManager(home=hermes_home, config=Config(deep_merge(DEFAULT_CONFIG, settings)), strict=strict)
    manager.load_all()
    return manager
