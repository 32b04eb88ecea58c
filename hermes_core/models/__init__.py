"""Talking to a model: the HTTP clients and what a call costs.

Below the runtime, which drives a conversation with them, and below ``ctx.llm``
(:mod:`hermes_core.plugin_llm`), which gives plugins one completion: both depend on this package
and it depends on neither.
"""
