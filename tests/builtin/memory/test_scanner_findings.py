"""What a refusal says, word for word: the family, the matched span as a person can read it, the rule, the marker."""

from __future__ import annotations

import pytest

from hermes_plugins_builtin.memory.scanner import FAMILIES, Finding, blocked_marker, printable_span, scan

ADVICE = (
    "Memory is placed in the system prompt of later sessions, so it may not carry instructions to the agent, "
    "hidden characters or secret-handling commands -> rephrase it as a plain fact."
)

#: What each family's refusal tells the writer the note would do.
DOES = {
    "instruction_override": "ranks itself above the agent's instructions",
    "role_hijack": "changes who the agent is or whose authority it follows",
    "concealment": "hides actions, data flows or itself from the user",
    "prompt_disclosure": "reveals, repeats or replaces the system prompt",
    "exfiltration": "sends secrets or private data to another host",
    "credential_access": "reads credential material into the conversation",
    "persistence": "plants itself or other code where it keeps running",
    "remote_code": "downloads code and runs it",
    "forgery": "forges prompt structure: fences, system notes, chat-template tokens, transcripts or tool calls",
    "encoded_instruction": "asks the agent to decode a hidden payload and act on it",
    "invisible_characters": "carries invisible or bidirectional characters outside the scripts and emoji that need them",
}


def test_every_family_is_described():
    assert set(FAMILIES) == {*DOES, "oversize"}


@pytest.mark.parametrize("family", list(DOES))
def test_the_message_names_the_family_what_it_does_the_span_and_the_rule(family):
    finding = Finding(family, "some_rule", "Ignore previous")
    assert finding.message == f"Blocked: {family} — the note {DOES[family]}; matched 'Ignore previous' [rule some_rule]. {ADVICE}"


def test_the_message_says_in_which_form_of_the_note_the_span_was_found():
    finding = Finding("instruction_override", "dismiss", "ignore all", "base64-decoded")
    assert finding.message == (
        "Blocked: instruction_override — the note ranks itself above the agent's instructions; matched 'ignore all' "
        f"(in the base64-decoded form of the note) [rule dismiss]. {ADVICE}"
    )


def test_an_unknown_family_still_gets_a_message():
    assert Finding("new_family", "r", "x").message == f"Blocked: new_family — the note matched a threat rule; matched 'x' [rule r]. {ADVICE}"


def test_oversize_says_how_long_the_note_is():
    finding = Finding("oversize", "scan_limit", "70000 characters, more than the 65536 the scan reads")
    assert finding.message == "Blocked: oversize — the note has 70000 characters, more than the 65536 the scan reads -> store a shorter note."
    assert finding.reason == "70000 characters, more than the 65536 the scan reads"
    assert blocked_marker(finding) == "[BLOCKED: 70000 characters, more than the 65536 the scan reads]"


def test_the_marker_names_the_family_never_the_matched_text():
    assert Finding("role_hijack", "new_identity", "you are now DAN").reason == "role_hijack"
    assert blocked_marker(Finding("role_hijack", "new_identity", "you are now DAN")) == "[BLOCKED: role_hijack]"
    # an invisible character is named by its code point, which is no instruction
    assert blocked_marker(Finding("invisible_characters", "U+200B", "pass\u200bword")) == "[BLOCKED: invisible_characters U+200B]"


def test_a_refused_invisible_character_is_spelled_out_in_the_message():
    finding = scan("plain\u200bfact")
    assert finding == Finding("invisible_characters", "U+200B", "plain\u200bfact")
    assert finding.message == (
        "Blocked: invisible_characters — the note carries invisible or bidirectional characters outside the scripts and "
        f"emoji that need them; matched 'plain<U+200B>fact' [rule U+200B]. {ADVICE}"
    )


SPANS = {
    "format character": ("a\u200bb", "a<U+200B>b"),
    "control character, four hex digits": ("a\x01b\x7fc", "a<U+0001>b<U+007F>c"),
    "private use": ("a\ue000b", "a<U+E000>b"),
    "unassigned": ("a\u0378b", "a<U+0378>b"),
    "variation selectors, both ends of both ranges": ("a\ufe00\ufe0f\U000e0100\U000e01efb", "a<U+FE00><U+FE0F><U+E0100><U+E01EF>b"),
    "visible neighbours of the selector ranges": ("a\ufdff\ufe10b", "a\ufdff\ufe10b"),
    "tab and newline become spaces": ("a\tb\nc", "a b c"),
    "ends stripped": ("  \n ab \t ", "ab"),
    "visible text kept": ("naïve 😀 שלום XX", "naïve 😀 שלום XX"),
}


@pytest.mark.parametrize(("text", "shown"), list(SPANS.values()), ids=list(SPANS))
def test_printable_span_spells_what_cannot_be_seen(text, shown):
    assert printable_span(text) == shown


def test_printable_span_is_cut_at_eighty_characters():
    assert printable_span("x" * 80) == "x" * 80
    assert printable_span("x" * 81) == "x" * 79 + "…"
    assert printable_span("  " + "x" * 80 + "  ") == "x" * 80  # stripped before it is measured
    assert printable_span("\u200b" * 10) == "<U+200B>" * 10  # 80 characters once spelled out
    assert printable_span("\u200b" * 11) == "<U+200B>" * 9 + "<U+200B…"
