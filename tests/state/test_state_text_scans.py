"""The write path's text scans (gram runs, diacritic folding) walk only the characters
that can matter; these checks hold them to the plain per-character rules they replace,
on text mixing ASCII with the scripts that make runs and the marks that fold."""
from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_plugins_builtin.state.grams import _continues_run, _starts_run, document_grams, script_runs
from hermes_plugins_builtin.state.ranking import fold, tokens

# ASCII, Latin-1 (ª and º are letters that start runs), combining marks, Devanagari, Thai,
# kana, CJK, Hangul, an emoji, and lone surrogates
_PIECES = st.sampled_from(["a", "Z", "7", " ", "-", "\\u6570", "é", "ª", "º", "©", "\u00a9", "\u0301", "\u0308",
                           "\u0915", "\u093f", "\u0e01", "\u0e34", "\u3042", "\u30fc", "数", "据", "库", "한",
                           "\U0001f600", "\ud800", "—", "ß", "İ"])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)


def _runs_char_by_char(text: str) -> list[str]:
    runs, start = [], -1
    for i, ch in enumerate(text):
        if start >= 0:
            if _continues_run(ch):
                continue
            runs.append(text[start:i])
            start = -1
        if _starts_run(ch):
            start = i
    if start >= 0:
        runs.append(text[start:])
    return runs


def _fold_char_by_char(text: str) -> str:
    lowered = text.lower()
    decomposed = unicodedata.normalize("NFD", lowered)
    if decomposed != lowered or any(unicodedata.combining(ch) for ch in lowered):
        return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return lowered


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_script_runs_are_those_of_a_walk_over_every_character(text):
    assert script_runs(text) == ([] if text.isascii() else _runs_char_by_char(text))


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_fold_strips_the_marks_a_walk_over_every_character_finds(text):
    assert fold(text) == _fold_char_by_char(text)


def test_a_run_ends_at_a_character_below_u00aa_and_marks_stay_with_their_letter():
    assert script_runs("数据©库 x\u0915\u093f—\u3042\u30fc") == ["数据", "库", "\u0915\u093f", "\u3042\u30fc"]
    assert document_grams("ok 数据库 done") == "数据 据库 库"
    assert fold("Café naïve") == "cafe naive"
    assert tokens("It\u2019s done \u2014 Café_ok x\u00a0y 数据库") == ["it", "s", "done", "cafe", "ok", "x", "y", "数据库"]
