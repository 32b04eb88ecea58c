"""When the compressor triggers: threshold of the context length, real usage first, the rough estimate otherwise."""

from __future__ import annotations

import logging

from hermes_core.config import Config
from hermes_plugins_builtin.compressor import CompressionSettings, Compressor, estimate_messages_tokens, estimate_tokens


def test_threshold_is_three_quarters_of_the_context_length_by_default():
    engine = Compressor(context_length=100_000)
    assert engine.threshold_percent == 0.75 and engine.threshold_tokens == 75_000
    assert not engine.should_compress(74_999)
    assert engine.should_compress(75_000)
    engine.update_model("bigger", 200_000, base_url="http://x", api_key="k", provider="p", api_mode="chat")
    assert engine.threshold_tokens == 150_000 and engine.model == "bigger"
    assert not engine.should_compress(75_000)


def test_configured_threshold():
    engine = Compressor(CompressionSettings(threshold=0.5), context_length=10_000)
    assert engine.threshold_tokens == 5_000 and engine.should_compress(5_000) and not engine.should_compress(4_999)


def test_reported_usage_drives_the_decision_openai_and_anthropic_shapes():
    engine = Compressor(context_length=1_000)
    assert not engine.should_compress()  # nothing known yet
    engine.update_from_response({"prompt_tokens": 800, "completion_tokens": 20, "total_tokens": 820})
    assert engine.should_compress() and engine.usage_source == "reported"
    assert (engine.last_prompt_tokens, engine.last_completion_tokens, engine.last_total_tokens) == (800, 20, 820)
    # Anthropic counts cached prompt tokens apart from input_tokens; together they fill the window.
    engine.update_from_response(
        {"input_tokens": 100, "cache_read_input_tokens": 500, "cache_creation_input_tokens": 200, "output_tokens": 9}
    )
    assert engine.last_prompt_tokens == 800 and engine.last_completion_tokens == 9 and engine.last_total_tokens == 809
    engine.update_from_response({"input_tokens": 100, "output_tokens": 9})
    assert not engine.should_compress()
    assert engine.should_compress(prompt_tokens=900)  # an explicit count wins over the recorded one
    engine.update_from_response(None)  # type: ignore[arg-type]  # a response without usage changes nothing
    assert engine.last_prompt_tokens == 100


def test_disabled_or_unknown_context_length_never_triggers():
    assert not Compressor(CompressionSettings(enabled=False), context_length=1_000).should_compress(10**9)
    assert not Compressor(context_length=0).should_compress(10**9)


def test_rough_estimate_is_four_characters_a_token():
    assert estimate_tokens("") == 0 and estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    one = [{"role": "user", "content": "x" * 400}]
    with_image = [{"role": "user", "content": [{"type": "text", "text": "x" * 400}, {"type": "image_url", "image_url": {}}]}]
    assert estimate_messages_tokens(with_image) - estimate_messages_tokens(one) == 1500
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "function": {"name": "abcd", "arguments": "x" * 36}}]}
    assert estimate_messages_tokens([call]) == estimate_messages_tokens([{"role": "assistant", "content": "y" * 40}])


def test_preflight_uses_the_estimate_when_no_usage_was_reported():
    engine = Compressor(context_length=1_000)
    small = [{"role": "user", "content": "x" * 400}]
    large = [{"role": "user", "content": "x" * 4000}]
    assert not engine.should_compress_preflight(small)
    assert engine.should_compress_preflight(large)


def test_after_compressing_the_estimate_of_the_result_replaces_the_stale_usage(conversation):
    c = conversation().system("sys").user("goal").assistant("ok")
    for index in range(10):
        c.user(f"question {index} " + "q" * 300).assistant(f"answer {index} " + "a" * 300)
    engine = Compressor(context_length=2_000)
    engine.update_from_response({"prompt_tokens": 1_900})
    result = engine.compress(c.messages)
    assert engine.last_action == "summarized" and engine.usage_source == "estimated"
    assert engine.last_prompt_tokens == estimate_messages_tokens(result) < 1_900
    assert not engine.should_compress()


def test_settings_come_from_config_and_bad_values_fall_back_with_a_warning(caplog):
    config = Config(
        {
            "compression": {"enabled": "false", "threshold": 0.6, "protect_first_n": 2, "protect_last_n": "4", "target_ratio": 0.3},
            "auxiliary": {"compression": {"base_url": "http://127.0.0.1:1/v1", "model": "small", "api_key": "sk-secret-123", "timeout": 5}},
        }
    )
    settings = CompressionSettings.from_config(config)
    assert (settings.enabled, settings.threshold, settings.protect_first_n, settings.protect_last_n) == (False, 0.6, 2, 4)
    assert settings.target_ratio == 0.3 and settings.summary_timeout == 5.0 and settings.has_summary_model
    assert settings.summary_api_key == "sk-secret-123" and "sk-secret-123" not in repr(settings)
    bad = Config({"compression": {"threshold": 1.5, "protect_last_n": -1, "target_ratio": "lots", "enabled": "maybe"}})
    with caplog.at_level(logging.WARNING):
        fallback = CompressionSettings.from_config(bad)
    assert fallback == CompressionSettings()
    assert "compression.threshold" in caplog.text and "compression.protect_last_n" in caplog.text
    assert "compression.target_ratio" in caplog.text and "compression.enabled" in caplog.text
