{{ cookiecutter.description | docstring }}
{%- if cookiecutter.kind == "hooks" %}

import logging

from hermes_core import hookimpl

logger = logging.getLogger(__name__)


@hookimpl
def on_session_start(session_id, model, platform):
    """A module-level @hookimpl: runs once when a new session starts."""
    logger.info("{{ cookiecutter.plugin_name }}: session %s started on %s with %s", session_id, platform, model)


def block_destructive_commands(tool_name, args, **kwargs):
    """A callback registered in register(ctx): refuses 'rm -rf' in terminal calls."""
    if tool_name == "terminal" and "rm -rf" in str(args.get("command", "")):
        return {"action": "block", "message": "{{ cookiecutter.plugin_name }}: 'rm -rf' is not allowed"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", block_destructive_commands)
{%- elif cookiecutter.kind == "tools" %}

import json

TOOL_NAME = "{{ cookiecutter.plugin_name }}_word_count"
SCHEMA = {
    "name": TOOL_NAME,
    "description": "Count the words in a text.",
    "parameters": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text to count."}},
        "required": ["text"],
    },
}


def word_count(args, **kwargs):
    """A tool handler: takes the model's arguments, returns a JSON string."""
    return json.dumps({"words": len(str(args.get("text", "")).split())})


def register(ctx):
    ctx.register_tool(name=TOOL_NAME, toolset="{{ cookiecutter.plugin_name }}", schema=SCHEMA, handler=word_count)
{%- elif cookiecutter.kind == "memory-provider" %}


def register(ctx):
    # Imported here, not at the top, so listing plugins never pays for the provider's imports.
    from .provider import {{ cookiecutter.plugin_name.title().replace('_', '') }}Provider

    ctx.register_memory_provider({{ cookiecutter.plugin_name.title().replace('_', '') }}Provider())
{%- else %}


def register(ctx):
    # Imported here, not at the top, so listing plugins never pays for the engine's imports.
    from .engine import {{ cookiecutter.plugin_name.title().replace('_', '') }}Engine

    ctx.register_context_engine({{ cookiecutter.plugin_name.title().replace('_', '') }}Engine())
{%- endif %}
