"""Estimated cost on the session row: configured prices, the list-price table, unknown models."""

from __future__ import annotations

import pytest

from hermes_core.models.clients import AnthropicMessagesClient, OpenAIChatClient
from hermes_core.models.pricing import PRICING_VERSION, estimate_cost, list_price
from hermes_core.runtime.session import AgentSession
from hermes_core.testing_servers import AnthropicServer, OpenAIServer, text_reply
from hermes_plugins_builtin.state import SessionStore


def test_the_longest_prefix_wins_and_provider_prefixes_are_ignored():
    assert list_price("claude-3-5-haiku-20241022") == (0.80, 4.0, 0.08, 1.0)
    assert list_price("anthropic/claude-sonnet-4-5") == list_price("claude-sonnet-4")
    assert list_price("gpt-4o-mini-2024-07-18")[0] == 0.15 and list_price("gpt-4o")[0] == 2.50
    assert list_price("qwen2.5-7b-instruct") is None
    assert list_price("claude-opus-4-1-20250805") == list_price("claude-opus-4") and list_price("gpt-4o-2024-08-06")[0] == 2.50
    for other_model in ("o3-pro", "o3-mini", "gpt-5-pro", "o3-deep-research", "gpt-4o-audio-preview"):
        assert list_price(other_model) is None, other_model  # not a release of a priced model: no guess


def test_each_kind_of_token_is_priced_at_its_own_rate():
    usage = {"input_tokens": 1_000_000, "output_tokens": 100_000, "cache_read_tokens": 2_000_000, "cache_write_tokens": 400_000}
    cost = estimate_cost(usage, "claude-sonnet-4-5")
    assert cost.usd == pytest.approx(3.0 + 1.5 + 0.6 + 1.5) and (cost.status, cost.source, cost.pricing_version) == ("estimated", "list prices", PRICING_VERSION)
    configured = estimate_cost(usage, "claude-sonnet-4-5", {"input": 1, "output": 2, "cache_read": 0.5, "cache_write": 1})
    assert configured.usd == pytest.approx(1.0 + 0.2 + 1.0 + 0.4) and configured.source == "config" and configured.pricing_version is None
    assert estimate_cost(usage, "my-local-model") == estimate_cost(usage, "my-local-model", {})
    assert estimate_cost(usage, "my-local-model").status == "unknown" and estimate_cost(usage, "my-local-model").usd is None


def test_the_session_row_gets_cost_and_billing_fields(plugin_manager, hermes_home):
    plugins = plugin_manager()
    usage = {"input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 5000, "cache_creation_input_tokens": 0}
    with SessionStore(hermes_home / "state.db") as store:
        with AnthropicServer([text_reply("priced", usage=usage)]) as server:
            session = AgentSession(plugins=plugins, client=AnthropicMessagesClient(server.base_url, "claude-sonnet-4-5"), store=store)
            priced = store.get_session(session.run_turn("hi").session_id)
            base_url = server.base_url
        with OpenAIServer([text_reply("free")]) as server:
            session = AgentSession(plugins=plugins, client=OpenAIChatClient(server.base_url, "qwen2.5-7b-instruct"), store=store)
            local = store.get_session(session.run_turn("hi").session_id)
    assert priced["estimated_cost_usd"] == pytest.approx((1000 * 3.0 + 200 * 15.0 + 5000 * 0.30) / 1_000_000)
    assert (priced["cost_status"], priced["cost_source"], priced["pricing_version"]) == ("estimated", "list prices", PRICING_VERSION)
    assert priced["billing_provider"] == "anthropic" and priced["billing_base_url"] == base_url and priced["billing_mode"] == "api"
    assert local["estimated_cost_usd"] is None and local["cost_status"] == "unknown" and local["input_tokens"] > 0
