"""The compressor tells replays which part of a stored message is its own summary."""

from __future__ import annotations

from hermes_core.context_engine import ContextEngine
from hermes_plugins_builtin.compressor.engine import Compressor
from hermes_plugins_builtin.compressor.summary_message import summary_content


def test_a_summary_alone_leaves_nothing_and_a_merged_one_leaves_the_users_words():
    engine = Compressor()
    summary = summary_content("## Goal\nship the release")
    assert engine.text_without_summary(summary) == ""
    assert engine.text_without_summary(summary + "\n\nAnd now deploy it please.").strip() == "And now deploy it please."
    assert engine.text_without_summary("no summary here") == "no summary here"


def test_the_base_class_default_keeps_the_text():
    summary = summary_content("## Goal\nship")
    assert ContextEngine.text_without_summary(Compressor(), summary) == summary  # the default knows no summary
