"""What the PostgreSQL store indexes for a message and asks for a query (postgres/text.py), value by value.

The store's own tests find rows through these; here each rule is pinned where it bites: the byte cut of a
long word, the tool-call text, the positions and weights of the word vector, the grams, the tsquery of a term,
and what is made storable. No server: these are the literals the store hands PostgreSQL."""
from __future__ import annotations

import json

import pytest

from hermes_plugins_builtin.state.postgres import text
from hermes_plugins_builtin.state.query import Term, parse


def _terms(query: str) -> list[Term]:
    return [term for group in parse(query).groups for term in group.terms]


def test_a_word_is_folded_to_lower_case_without_diacritics() -> None:
    assert text.fold("Café") == "cafe"
    assert text.fold("ÅNGSTRÖM") == "angstrom"
    assert text.fold("ﬁne") == "fine"  # compatibility forms decomposed too (NFKD)
    assert text.fold("\u0301") == "\u0301"  # nothing but a combining mark: kept rather than emptied
    assert text.fold("\u0345") == "\u0345"  # ... in lower case (this one's upper case is a capital iota)
    assert text.fold("É\u0301") == "e"


@pytest.mark.parametrize(("word", "expected"), [
    ("A" * 500, "a" * 500),            # 2000 bytes at most by any count: as it is
    ("a" * 2000, "a" * 2000),
    ("a" * 2001, "a" * 2000),          # cut at 2000 bytes
    ("Ж" * 1000, "ж" * 1000),          # 2000 bytes of UTF-8: kept whole
    ("Ж" * 1001, "ж" * 1000),
    ("語" * 700, "語" * 666),           # 2100 bytes: 666 whole characters, the cut one dropped
    ("😀" * 501, "😀" * 500),           # four bytes each
])
def test_a_token_is_cut_to_its_first_2000_bytes_of_whole_characters(word: str, expected: str) -> None:
    assert text.token(word) == expected
    assert len(text.token(word).encode("utf-8")) <= text.MAX_TOKEN_BYTES == 2000


def test_the_searchable_text_holds_content_tool_name_and_each_calls_name_and_arguments() -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"q\": \"caf\\u00e9\\nx\"}"}},
             {"function": {"name": "ls", "arguments": {"path": "/tmp"}}},
             {"function": {"name": None, "arguments": 7}},
             "not a call", {"function": "not a function"}]
    assert text.search_text("Hi", "grep", json.dumps(calls[:4])) == \
        'Hi grep grep {"q": "café x"} ls {"path": "/tmp"}  7'
    assert text.search_text(None, None, None) == "  "
    assert text.search_text("", "", "") == "  "
    assert text.search_text("body", None, json.dumps([])) == "body  "


def test_tool_calls_that_are_no_short_list_of_calls_are_searched_as_written() -> None:
    assert text.search_text("", None, "{not json") == "  {not json"
    assert text.search_text("", None, '{"function": {"name": "x"}}') == '  {"function": {"name": "x"}}'
    four = json.dumps([{"function": {"name": f"n{i}"}} for i in range(4)])
    five = json.dumps([{"function": {"name": f"n{i}"}} for i in range(5)])
    assert text.search_text("", None, four) == "  n0  n1  n2  n3 "  # no arguments: an empty part each
    assert text.search_text("", None, five) == "  " + five  # more than four: too many to unpack
    # escapes of the raw JSON made spaces, \uXXXX decoded
    assert text.search_text("", None, '{"a": "x\\ty\\nz\\rw\\b \\u00e9"}') == '  {"a": "x y z w\\b é"}'


def test_a_lexeme_is_quoted_with_its_quotes_and_backslashes_doubled() -> None:
    assert text._lexeme("it's") == "'it''s'"
    assert text._lexeme("a\\b") == "'a\\\\b'"
    assert text._lexeme("plain") == "'plain'"


def test_the_word_vector_holds_each_token_with_its_positions_from_one() -> None:
    vector, words, weights = text.word_index("Apple apple pie, it's Café")
    assert vector == "'apple':1,2 'pie':3 'it':4 's':5 'cafe':6"
    assert words == ["apple", "pie", "it", "s", "cafe"]
    assert weights == [text.bm25_weight(2, 6)] + [text.bm25_weight(1, 6)] * 4
    assert text.word_index("") == ("", [], [])
    assert text.word_index("a_b") == ("'a':1 'b':2", ["a", "b"], [text.bm25_weight(1, 2)] * 2)


def test_a_word_repeated_past_256_times_is_weighed_by_every_occurrence_but_stores_256_positions() -> None:
    positions = text._positions("x " * 300)
    assert positions == {"x": list(range(1, 257)) + [0] * 44}
    vector, words, weights = text.word_index("x " * 300 + "y")
    assert vector == "'x':" + ",".join(map(str, range(1, 257))) + " 'y':301"
    assert weights == [text.bm25_weight(300, 301), text.bm25_weight(1, 301)]


def test_positions_past_postgresqls_last_share_it_and_text_past_the_vectors_size_is_left_out() -> None:
    words = [f"w{i}" for i in range(16390)]
    positions = text._positions(" ".join(words))
    assert positions["w16381"] == [16382] and positions["w16382"] == [16383]
    assert positions["w16383"] == [16383] and positions["w16389"] == [16383]
    cut = "a" * (text.MAX_VECTOR_TEXT - 1) + " bb"  # the second word starts past the first 400,000 characters
    assert list(text._positions(cut)) == ["a" * 2000]
    assert list(text._positions("a" * (text.MAX_VECTOR_TEXT - 3) + " bb")) == ["a" * 2000, "bb"]


def test_bm25_weights_use_the_reference_length_of_forty_words() -> None:
    assert text.bm25_weight(1, 40) == pytest.approx(2.2 / 2.2)
    assert text.bm25_weight(2, 40) == pytest.approx(2 * 2.2 / 3.2)
    assert text.bm25_weight(1, 0) == pytest.approx(2.2 / (1 + 1.2 * 0.25))
    assert text.bm25_weight(3, 80) == pytest.approx(3 * 2.2 / (3 + 1.2 * (0.25 + 0.75 * 2)))
    assert (text.K1, text.B, text.REFERENCE_LENGTH) == (1.2, 0.75, 40.0)


def test_grams_are_every_character_and_bigram_of_the_runs_without_spaces() -> None:
    assert text.gram_array("東京タワー x") == ["タ", "タワ", "ワ", "ワー", "ー", "京", "京タ", "東", "東京"]
    assert text.gram_array("plain ascii") == []
    assert text.gram_array("café") == []  # non-ASCII, but no script without spaces
    assert text.gram_array("call \\u6771\\u4eac") == ["京", "東", "東京"]  # escaped, as tool arguments are
    assert text.gram_array("東 x 京") == ["京", "東"]


def test_a_word_term_asks_for_its_tokens_as_a_phrase_or_for_the_prefix_of_its_first() -> None:
    assert [text.word_query(t) for t in _terms("Apple")] == ["'apple'"]
    assert [text.word_query(t) for t in _terms('"apple Pie"')] == ["'apple' <-> 'pie'"]
    assert [text.word_query(t) for t in _terms("Café*")] == ["'cafe':*"]
    assert [text.word_query(t) for t in _terms("it's")] == ["'it' <-> 's'"]
    assert [text.word_query(t) for t in _terms("C++")] == ["'c'"]
    assert [text.word_query(t) for t in _terms("東京")] == [None]  # no word index expression
    assert text.word_query(Term(text="++", word_expr='"+"')) is None  # no word characters
    assert text.word_query(Term(text="x" * 2001, word_expr='"x"*')) == "'" + "x" * 2000 + "':*"


def test_a_gram_term_needs_its_runs_and_each_run_its_bigrams() -> None:
    (term,) = _terms("東京タワー")
    assert text.gram_runs(term) == ["東京タワー"]
    assert text.gram_runs(Term(text="東京  タワー", gram_exprs=('"x"',))) == ["東京", "タワー"]
    assert text.gram_runs(Term(text="東京", word_expr='"x"')) == []  # not a gram term
    assert text.run_grams("東") == ["東"]
    assert text.run_grams("東京") == ["東京"]
    assert text.run_grams("東京東京") == ["京東", "東京"]


def test_text_postgresql_cannot_store_is_made_storable_and_other_values_pass() -> None:
    assert text.to_text("a\x00b\x00") == "a\ufffdb\ufffd"
    assert text.to_text("a\udc80b") == "a?b"
    assert text.to_text("\x00\ud800") == "\ufffd?"
    assert text.to_text("plain é") == "plain é"
    assert text.to_text(5) == 5 and text.to_text(None) is None and text.to_text(b"\x00") == b"\x00"
