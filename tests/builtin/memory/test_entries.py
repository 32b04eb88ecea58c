"""The entry format: the "\n§\n" separator, tolerant reading, counted length, usage text."""

from __future__ import annotations

from hermes_plugins_builtin.memory.entries import (
    ENTRY_DELIMITER,
    char_count,
    holds_separator,
    join_entries,
    parse_entries,
    usage_text,
)


def test_round_trip_keeps_multiline_entries():
    entries = ["first fact", "second fact\nspans two lines", "third § has a section sign inline"]
    assert join_entries(entries) == "first fact\n§\nsecond fact\nspans two lines\n§\nthird § has a section sign inline"
    assert parse_entries(join_entries(entries)) == entries


def test_reading_strips_drops_empty_and_duplicate_entries_keeping_order():
    text = "  b  \n§\n\n§\na\n§\nb\n§\n   \n§\nc\n"
    assert parse_entries(text) == ["b", "a", "c"]


def test_hand_edited_separators_are_accepted():
    text = "§\r\none\r\n § \r\ntwo\n§\t\nthree\n§"
    assert parse_entries(text) == ["one", "two", "three"]


def test_empty_text_has_no_entries():
    assert parse_entries("") == []
    assert parse_entries("\n§\n") == []


def test_the_limit_counts_the_joined_entries():
    entries = ["abc", "de"]
    assert char_count(entries) == len("abc" + ENTRY_DELIMITER + "de") == 8
    assert char_count([]) == 0


def test_usage_text():
    assert usage_text(0, 2200) == "0% — 0/2200 chars"
    assert usage_text(1100, 2200) == "50% — 1100/2200 chars"
    assert usage_text(3000, 1500) == "200% — 3000/1500 chars"


def test_a_separator_line_inside_content_is_detected():
    assert holds_separator("a\n§\nb")
    assert holds_separator("a\n  §  ")
    assert not holds_separator("costs 5 § per unit")


def test_doubled_separators_and_a_file_of_separators_hold_no_entry():
    assert parse_entries("a\n§\n§\n§\nb") == ["a", "b"]
    assert parse_entries("§\n§") == []


def test_windows_line_endings_inside_an_entry_read_as_line_breaks():
    assert parse_entries("one\r\ntwo\r\n§\r\nthree") == ["one\ntwo", "three"]


def test_usage_of_a_tiny_or_zero_limit():
    assert usage_text(0, 1) == "0% — 0/1 chars"
    assert usage_text(1, 1) == "100% — 1/1 chars"
    assert usage_text(5, 0) == "100% — 5/0 chars"  # no division by zero: a zero limit is full
