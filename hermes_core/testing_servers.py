"""Scripted model servers on 127.0.0.1 (OpenAI chat completions, Anthropic Messages); see hermes_core.testing.

This module keeps the import path plugin authors and benchmarks already use::

    from hermes_core.testing_servers import OpenAIServer, text_reply, tool_call_reply

Standard library only.
"""
from __future__ import annotations

from hermes_core.testing.anthropic_server import AnthropicServer, CachingAnthropicServer, validate_anthropic_body
from hermes_core.testing.model_server import ScriptedModelServer
from hermes_core.testing.openai_server import OpenAIServer, validate_openai_messages
from hermes_core.testing.prefix_cache import PrefixCache, PromptBlock, anthropic_prompt_blocks
from hermes_core.testing.replies import (DEFAULT_CHARS_PER_TOKEN, RecordedRequest, Reply, ScriptItem, ToolCall,
                                         disconnect_reply, error_reply, hang_reply, raw_reply, rate_limit_reply,
                                         text_reply, tool_call_reply, tool_calls_reply)

__all__ = [
    "DEFAULT_CHARS_PER_TOKEN", "AnthropicServer", "CachingAnthropicServer", "OpenAIServer", "PrefixCache",
    "PromptBlock", "RecordedRequest", "Reply", "ScriptItem", "ScriptedModelServer", "ToolCall",
    "anthropic_prompt_blocks", "disconnect_reply", "error_reply", "hang_reply", "rate_limit_reply", "raw_reply",
    "text_reply", "tool_call_reply", "tool_calls_reply", "validate_anthropic_body", "validate_openai_messages",
]
