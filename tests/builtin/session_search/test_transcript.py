"""A stored conversation rendered as text for the summary model: roles, tool calls with arguments, tool results."""

from __future__ import annotations

from hermes_plugins_builtin.session_search import format_conversation
from hermes_plugins_builtin.session_search.transcript import iso_time


def test_roles_tool_calls_and_tool_results_are_all_readable():
    messages = [
        {"role": "user", "content": "  what is in the config?  "},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "/etc/app.toml"}'}}]},
        {"role": "tool", "tool_name": "read_file", "tool_call_id": "c1", "content": "port = 8080"},
        {"role": "assistant", "content": "It listens on 8080."},
    ]
    assert format_conversation(messages) == (
        "[USER] what is in the config?\n\n"
        '[ASSISTANT -> tool] read_file({"path": "/etc/app.toml"})\n\n'
        "[TOOL read_file] port = 8080\n\n"
        "[ASSISTANT] It listens on 8080."
    )


def test_odd_shapes_still_render():
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "look at this"}, {"type": "image_url", "image_url": {}}]},
        {"role": "assistant", "content": "", "tool_calls": [{"name": "search", "arguments": {"q": "x"}}]},
        {"role": "assistant", "content": None},  # nothing to show: no empty block
        {"role": "tool", "content": "no name recorded"},
    ]
    assert format_conversation(messages) == (
        "[USER] look at this\n\n"
        '[ASSISTANT -> tool] search({"q": "x"})\n\n'
        "[TOOL] no name recorded"
    )


def test_iso_time():
    assert iso_time(0) == "1970-01-01T00:00:00+00:00"
    assert iso_time(None) is None and iso_time(True) is None and iso_time("yesterday") is None
