"""The learned detector's parts pinned exactly, independent of the trained weights: the features of given texts,
the concept lexicon on a lexicon the test writes, scoring and packing with a weight table the test builds, the
threshold at its boundary, the finding's span and rule, and loading of the weight format (damaged blobs refused)."""

from __future__ import annotations

import base64
import math
import types
import zlib
from array import array

import pytest

from hermes_plugins_builtin.memory.scanner import learned, learned_concepts, learned_features, learned_weights
from hermes_plugins_builtin.memory.scanner.learned import Model, StaleWeights, from_module, packed_width
from hermes_plugins_builtin.memory.scanner.learned_concepts import Lexicon, concept_features, key
from hermes_plugins_builtin.memory.scanner.learned_features import (
    CHUNK_CHARS, FEATURE_VERSION, chunk_sentences, chunks, features, norm, note_features, plain, sentences,
)


@pytest.fixture
def no_concepts(monkeypatch):
    """Features without the shipped lexicon (another lexicon must not change what these tests expect)."""
    monkeypatch.setattr(learned_concepts, "lexicon", lambda: Lexicon({}))
    learned_features._GRAMS.clear()


# --- features -------------------------------------------------------------------------------------------------


def test_norm_divides_by_the_root_of_the_feature_count_never_of_less_than_32():
    assert norm(0) == norm(1) == norm(32) == 1 / math.sqrt(32)
    assert norm(33) == 1 / math.sqrt(33)
    assert norm(64) == 0.125


def test_sentences_end_at_stops_and_line_breaks_and_skip_blank_ones():
    text = "Hi there. How are you?  Fine!\nNext line;\u3002 last: one"
    assert [text[a:b] for a, b in sentences(text)] == ["Hi there.", "How are you?", "Fine!", "Next line;", " last:", "one"]
    assert sentences("a.b c") == [(0, 5)]  # a stop without a space after it ends nothing
    assert sentences("   \n  ") == []
    assert sentences(" x") == [(0, 2)]


def test_chunks_hold_whole_sentences_up_to_the_chunk_length():
    one = "a" * (CHUNK_CHARS - 3) + "."   # sentence of CHUNK_CHARS - 2 characters, then a space
    text = one + " b. c."
    # "b." ends exactly at CHUNK_CHARS + 1: past the limit, so it starts a new chunk
    assert list(chunks(text)) == [[(0, CHUNK_CHARS - 2)], [(CHUNK_CHARS - 1, CHUNK_CHARS + 1), (CHUNK_CHARS + 2, CHUNK_CHARS + 4)]]
    fits = "a" * (CHUNK_CHARS - 4) + ". b."  # the second sentence ends at exactly CHUNK_CHARS: still one chunk
    assert list(chunks(fits)) == [[(0, CHUNK_CHARS - 3), (CHUNK_CHARS - 2, CHUNK_CHARS)]]
    assert list(chunks("")) == []


def test_the_features_of_a_latin_sentence_are_its_words_pairs_and_padded_trigrams_to_fivegrams(no_concepts):
    assert features("Hide it") == {
        "w hide", "w it", "b hide it",
        " hi", "hid", "ide", "de ", " hid", "hide", "ide ", " hide", "hide ",
        " it", "it ", " it ",
    }


def test_text_is_folded_before_it_is_cut_into_words(no_concepts):
    assert features("H\u200bIDE IT") == features("hide it")
    assert plain("\uff28i\u200b") == "Hi"  # NFKC, then format characters removed


def test_long_words_give_n_grams_but_no_word_or_pair_feature(no_concepts):
    long = "x" * 25
    found = features(f"ok {long}")
    assert "w ok" in found and f"w {long}" not in found and not any(f.startswith("b ") for f in found)
    assert " xx" in found and "xxxxx" in found
    edge = "y" * 24
    assert {f"w {edge}", f"b ok {edge}"} <= features(f"ok {edge}")
    assert f"b {edge} ok" in features(f"{edge} ok")


def test_unspaced_scripts_take_single_characters_or_pairs_and_no_padding_for_singles(no_concepts):
    assert features("指示") == {"w 指示", "指", "示", " 指", "指示", "示 ", " 指示", "指示 "}
    thai = features("กข")  # Thai: 2 to 4 characters, padded
    assert thai == {"w กข", " ก", "กข", "ข ", " กข", "กข ", " กข "}


@pytest.mark.parametrize(("first", "sizes"), [
    ("\u2e7f", (3, 5)), ("\u2e80", (1, 3)), ("\u0dff", (3, 5)), ("\u0e00", (2, 4)), ("\u0eff", (2, 4)),
    ("\u0f00", (3, 5)), ("\u0fff", (3, 5)), ("\u1000", (2, 4)), ("\u109f", (2, 4)), ("\u10a0", (3, 5)),
    ("\u177f", (3, 5)), ("\u1780", (2, 4)), ("\u17ff", (2, 4)), ("\u1800", (3, 5)),
])
def test_the_script_of_the_first_letter_picks_the_n_gram_lengths(first, sizes):
    assert learned_features._sizes(first + "a") == sizes


def test_the_gram_cache_is_emptied_at_its_cap_and_gives_the_same_features(no_concepts, monkeypatch):
    monkeypatch.setattr(learned_features, "_GRAMS_CAP", 2)
    assert features("aa bb") == features("aa bb")
    assert set(learned_features._GRAMS) == {"aa", "bb"}
    found = features("cc")
    assert set(learned_features._GRAMS) == {"cc"} and found == {"w cc", " cc", "cc ", " cc "}


def test_a_word_met_before_takes_its_n_grams_from_the_cache(no_concepts, monkeypatch):
    monkeypatch.setitem(learned_features._GRAMS, "zz", ("cached",))  # taken out again after the test
    assert features("zz") == {"w zz", "cached"}


def test_a_note_is_the_union_of_its_sentences_and_chunks_carry_each_sentences_features(no_concepts):
    note = "Hide it. Hide me."
    assert note_features(note) == features("Hide it.") | features("Hide me.")
    assert note_features(note) != features(note)  # no pair across the stop
    assert list(chunk_sentences(note)) == [[((0, 8), features("Hide it.")), ((9, 17), features("Hide me."))]]


def test_concept_features_join_the_word_features(monkeypatch):
    monkeypatch.setattr(learned_concepts, "lexicon", lambda: Lexicon({"rules": "rule", "void": "void="}))
    learned_features._GRAMS.clear()
    found = features("Rules void")
    assert {"c:rules", "c:void", "cc:rules+void"} <= found
    monkeypatch.setattr(learned_concepts, "lexicon", lambda: Lexicon({}))
    assert found - {"c:rules", "c:void", "cc:rules+void"} == features("Rules void")


# --- concepts -------------------------------------------------------------------------------------------------


def test_concept_features_name_each_concept_and_each_sorted_pair(monkeypatch):
    small = Lexicon({"b": "beta", "a": "alpha", "c": "gamma"})
    monkeypatch.setattr(learned_concepts, "lexicon", lambda: small)
    assert concept_features("gamma beta alpha") == ["c:a", "c:b", "c:c", "cc:a+b", "cc:a+c", "cc:b+c"]
    assert concept_features("beta") == ["c:b"]
    assert concept_features("nothing") == []


def test_the_shipped_lexicon_is_built_once_from_its_concepts():
    assert learned_concepts.lexicon() is learned_concepts.lexicon()
    assert set(learned_concepts.lexicon().of_text("")) == set()
    assert learned_concepts.lexicon().lengths == sorted(learned_concepts.lexicon().lengths, reverse=True)


def test_lexicon_entries_are_split_trimmed_and_indexed():
    small = Lexicon({"x": " abc ;  de ;; whole= ; two  words ; 指示 ;", "y": "abcd; 指"})
    assert small.stems == {"abc": {"x"}, "abcd": {"y"}}
    assert small.exact == {"de": {"x"}, "whole": {"x"}}
    assert small.phrases == {"two": [(("words",), "x")]}
    assert small.unspaced_concepts == {"指示": {"x"}, "指": {"y"}}
    assert small.lengths == [4, 3]
    assert small.unspaced is not None and small.unspaced.pattern == "指示|指"
    assert Lexicon({"x": "abc"}).unspaced is None
    assert Lexicon({"x": "ABC="}).exact == {"abc": {"x"}}
    assert Lexicon({"x": "de tal"}).phrases == {"de": [(("tal",), "x")]}
    after = Lexicon({"x": "指示; abc; whole="})  # entries after an unspaced one are read too
    assert after.unspaced_concepts == {"指示": {"x"}} and after.stems == {"abc": {"x"}} and after.exact == {"whole": {"x"}}
    assert Lexicon({"x": "指示="}).unspaced_concepts == {"指示": {"x"}}  # the whole-word mark is not part of it
    assert Lexicon({"x": "AXX="}).exact == {"axx": {"x"}}


def test_a_word_takes_its_longest_stem_and_its_whole_form():
    small = Lexicon({"short": "abc", "long": "abcd", "whole": "abcde="})
    assert small.of_word("abcdef") == {"long"}
    assert small.of_word("abcde") == {"long", "whole"}
    assert small.of_word("abcx") == {"short"}
    assert small.of_word("abc") == {"short"}
    assert small.of_word("ab") == frozenset()


def test_clitic_letters_of_arabic_and_hebrew_words_are_read_through_down_to_a_three_letter_stem():
    small = Lexicon({"rules": "\u062a\u0639\u0644"})  # تعل
    assert small.of_word("\u0648\u0627\u0644\u062a\u0639\u0644") == {"rules"}  # three letters in front
    assert small.of_word("\u0648\u0627\u0644\u0645\u062a\u0639\u0644") == frozenset()  # four is too many
    assert small.of_word("\u0648\u062a\u0639\u0644") == {"rules"}
    assert small.of_word("\u0648\u062a\u0639") == frozenset()  # what is left is shorter than the stem
    latin = Lexicon({"rules": "rul"})
    assert latin.of_word("xrul") == frozenset()  # Latin words carry no clitics
    two = Lexicon({"rules": "\u062a\u0639"})  # a two-letter entry is a whole word
    assert two.of_word("\u0648\u062a\u0639") == frozenset() and two.of_word("\u062a\u0639") == {"rules"}


def test_phrases_need_every_word_in_order_the_last_as_a_stem():
    small = Lexicon({"void": "no longer valid"})
    assert small.of_text("it is no longer validated") == {"void"}
    assert small.of_text("no longer") == set()
    assert small.of_text("no still valid") == set()
    assert small.of_text("NO LONGER VALID") == {"void"}
    assert small.of_text("no longer, valid") == {"void"}


def test_unspaced_entries_are_found_across_spaces_only_in_unspaced_text():
    small = Lexicon({"obey": "従う", "rules": "指 示"})
    assert small.of_text("メモに 従 う") == {"obey"}
    assert small.of_text("指示") == {"rules"}
    assert small.of_text("plain latin") == set()


@pytest.fixture
def fresh_keys(monkeypatch):
    """A key table filled by this test alone (the shared one keeps what earlier scans put in it)."""
    monkeypatch.setattr(learned_concepts, "_KEYS", learned_concepts._Keys())


def test_key_lowercases_and_strips_marks_only_below_hebrew_and_in_latin_extended_additional(fresh_keys):
    assert key("ÀÉÎ") == "aei" and key("ABC") == "abc"
    assert key("\u05d0\u05b8") == "\u05d0\u05b8"  # Hebrew keeps its points
    assert key("\u0386") == "\u03b1"  # Greek alpha with tonos
    # A mark left over after a letter with no precomposed form (Yoruba "ẹ̀": ẹ and a grave) is erased; the
    # combining marks end at U+036F, and U+0370 is a letter.
    assert key("\u0301") == "" and key("\u036f") == "" and key("\u0370") == "\u0371"
    table = learned_concepts._KEYS
    assert table == {0xE0: "a", 0xE9: "e", 0xEE: "i", 0x5D0: "\u05d0", 0x5B8: "\u05b8", 0x3AC: "\u03b1", 0x301: "", 0x36F: "", 0x371: "\u0371"}
    assert key("\u058f\u0590") == "\u058f\u0590" and table[0x58F] == "\u058f" and table[0x590] == "\u0590"
    # Vietnamese and Yoruba letters of Latin Extended Additional lose their marks; the blocks either side keep theirs.
    assert key("\u1ec7\u1e00\u1eff") == "ea\u1eff"  # U+1EFF has no mark to lose
    assert key("\u1f00") == "\u1f00"  # Greek Extended, just after: its breathing mark stays


def test_the_mark_stripping_stops_at_the_first_hebrew_code_point():
    keys = learned_concepts._Keys()
    assert keys[0x4DF] == "\u0437"  # Cyrillic ze with diaeresis -> ze: below U+0590, marks go
    assert keys[0x58F] == "\u058f"
    # U+0590 itself is unassigned and decomposes to nothing; U+FB1D (Hebrew yod with hiriq) keeps its point
    assert keys[0xFB1D] == "\ufb1d"


# --- the model ------------------------------------------------------------------------------------------------


def _model(thresholds=(1.0, 1.0), biases=(0.0, 0.0)) -> Model:
    names = ["w a", "w b", "w c"]
    return Model(families=("instruction_override", "concealment"), rows={n: i for i, n in enumerate(names)},
                 weights=(array("h", [100, -200, 32767]), array("h", [-32768, 50, 7])),
                 scales=(0.5, 0.25), biases=biases, thresholds=thresholds)


def test_signed_weights_of_all_families_pack_into_one_sum_and_unpack_exactly():
    model = _model()
    assert model.raw([]) == [0, 0]
    assert model.raw(["w a"]) == [100, -32768]
    assert model.raw(["w a", "w b"]) == [-100, -32718]
    assert model.raw(["w a", "w b", "w c", "w unknown"]) == [32667, -32711]
    assert model.raw(["w b"] * 3) == [-600, 150]


def test_scores_are_bias_plus_scale_times_the_normalised_sum():
    model = _model(biases=(1.5, -2.0))
    assert model.scores({"w a"}) == [1.5 + 0.5 * norm(1) * 100, -2.0 + 0.25 * norm(1) * -32768]
    many = {"w a"} | {f"w {i}" for i in range(40)}
    assert model.scores(many) == [1.5 + 0.5 * norm(41) * 100, -2.0 + 0.25 * norm(41) * -32768]


def test_the_packed_form_round_trips_and_has_forty_bits_a_family_and_a_sign():
    assert [packed_width(n) for n in (1, 2, 3, 4)] == [6, 11, 16, 21]
    model = _model()
    blob = model.packed_bytes()
    assert len(blob) == 3 * 11
    assert blob[:11] == (100 + (-32768 << 40)).to_bytes(11, "little", signed=True)
    again = Model.from_packed(model.families, ["w a", "w b", "w c"], blob, model.scales, model.biases, model.thresholds)
    assert again.weights == () and again.rows == {"w a": 0, "w b": 1, "w c": 2}
    for found in ({"w a"}, {"w b", "w c"}, {"w a", "w b", "w c"}):
        assert again.raw(found) == model.raw(found) and again.scores(found) == model.scores(found)
    assert again.packed_bytes() == blob


def test_windows_score_the_chunk_as_the_union_and_each_sentence_alone():
    model = _model()
    one = [((0, 3), {"w a"})]
    assert list(model.windows(one)) == [(model.scores({"w a"}), one)]
    parts = [((0, 3), {"w a", "w b"}), ((4, 7), {"w b", "w c"}), ((8, 9), {"w b"})]
    windows = list(model.windows(parts))
    assert windows == [
        (model.scores({"w a", "w b", "w c"}), parts),
        (model.scores({"w a", "w b"}), [parts[0]]),
        (model.scores({"w b", "w c"}), [parts[1]]),
        (model.scores({"w b"}), [parts[2]]),
    ]


def _one_word_model(threshold: float) -> Model:
    # "zap" alone: 1 feature for "w zap" plus its grams; only "w zap" weighs, 32 * sqrt(32) / sqrt(32) = 32 * scale
    return Model(families=("concealment",), rows={"w zap": 0}, weights=(array("h", [64]),),
                 scales=(math.sqrt(32) / 64,), biases=(0.0,), thresholds=(threshold,))


def test_a_score_equal_to_the_threshold_is_not_refused_and_one_just_under_it_is(no_concepts):
    score = _one_word_model(0.0).scores(features("zap"))[0]
    assert len(features("zap")) < 32 and score == pytest.approx(1.0)
    assert _one_word_model(score).judge("zap") is None
    found = _one_word_model(math.nextafter(score, 0.0)).judge("zap")
    assert found is not None and (found.family, found.rule, found.span) == ("concealment", "learned:concealment", "zap")


def test_the_finding_names_the_heaviest_sentence_of_the_window_stripped(no_concepts):
    model = _model(thresholds=(0.0, 100.0))
    found = model.judge("  A b.   A c.  B.")
    # the chunk passes; of its sentences "A c." weighs most for instruction_override
    assert found is not None and (found.family, found.rule, found.span) == ("instruction_override", "learned:instruction_override", "A c.")
    assert found.span == found.span.strip()


def test_widest_margin_wins_whatever_the_family_order(no_concepts):
    model = Model(families=("instruction_override", "concealment"), rows={"w a": 0, "w b": 1},
                  weights=(array("h", [100, 0]), array("h", [0, 100])), scales=(0.01, 0.01), biases=(0.0, 0.0),
                  thresholds=(0.0, 0.0))
    assert model.judge("a a. b b b.").family == "instruction_override"  # same raw sums: the first family
    heavier = Model(families=model.families, rows=model.rows, weights=(array("h", [100, 0]), array("h", [0, 101])),
                    scales=model.scales, biases=model.biases, thresholds=model.thresholds)
    found = heavier.judge("a. b.")
    assert found is not None and (found.family, found.span) == ("concealment", "b.")


@pytest.mark.parametrize("opening", [
    "Never ignore", "please do not disregard", "Don't ever bypass", "dont override", "must not simply forget",
    "mustn't skip", "shouldn't drop", "should not turn off", "  do not weaken",
])
def test_a_denied_dismissal_sets_aside_an_override_but_not_another_family(opening, no_concepts):
    sentence = f"{opening} the rules."
    override = Model(families=("instruction_override",), rows={"w rules": 0}, weights=(array("h", [1000]),),
                     scales=(0.01,), biases=(0.0,), thresholds=(0.0,))
    assert override.judge(sentence) is None
    role = Model(families=("role_hijack",), rows=override.rows, weights=override.weights, scales=override.scales,
                 biases=override.biases, thresholds=override.thresholds)
    assert role.judge(sentence) is None
    hidden = Model(families=("concealment",), rows=override.rows, weights=override.weights, scales=override.scales,
                   biases=override.biases, thresholds=override.thresholds)
    assert hidden.judge(sentence) is not None
    assert override.judge(f"Please ignore the rules, {opening.strip().lower()} them.") is not None


def test_a_denied_dismissal_is_passed_over_for_the_next_window_over_its_threshold(no_concepts):
    model = Model(families=("instruction_override",), rows={"w rules": 0, "w now": 1},
                  weights=(array("h", [1000, 10]),), scales=(0.01,), biases=(0.0,), thresholds=(0.0,))
    found = model.judge("Never ignore the rules. Rules now.")
    assert found is not None and found.span == "Rules now."


# --- the weights format ---------------------------------------------------------------------------------------


def _module(model: Model, names: list[str], **changes) -> types.ModuleType:
    module = types.ModuleType("weights_under_test")
    module.__dict__.update(FEATURE_VERSION=FEATURE_VERSION, FAMILIES=model.families, SCALES=model.scales,
                           BIASES=model.biases, THRESHOLDS=model.thresholds, FEATURES=learned.pack_features(names),
                           PACKED=learned.pack_bytes(model.packed_bytes()))
    module.__dict__.update(changes)
    return module


def test_a_weights_module_loads_as_the_model_it_was_written_from():
    model = _model(biases=(0.25, -1.0), thresholds=(2.0, 3.0))
    names = ["w a", "w b", "w c"]
    assert learned.unpack_features(learned.pack_features(names)) == names
    assert learned.unpack_bytes(learned.pack_bytes(b"\x00\xff")) == b"\x00\xff"
    assert base64.b64decode(learned.pack_features(["é", "b"])) == zlib.compress("é\nb".encode(), 9)
    assert learned.pack_bytes(b"\x00\xff") == base64.b64encode(zlib.compress(b"\x00\xff", 9)).decode()
    assert zlib.compress(b"\x00\xff", 9) != zlib.compress(b"\x00\xff")  # the level is in the stream's header
    loaded = from_module(_module(model, names))
    assert (loaded.families, loaded.scales, loaded.biases, loaded.thresholds) == (
        model.families, model.scales, model.biases, model.thresholds)
    assert loaded.raw(names) == model.raw(names) and loaded.packed_bytes() == model.packed_bytes()
    assert isinstance(loaded.families, tuple) and isinstance(loaded.thresholds, tuple)


def test_a_list_module_is_read_as_tuples():
    model = _model()
    loaded = from_module(_module(model, ["w a", "w b", "w c"], FAMILIES=list(model.families), SCALES=[0.5, 0.25],
                                 BIASES=[0.0, 0.0], THRESHOLDS=[1.0, 1.0]))
    assert loaded.families == model.families and loaded.scales == (0.5, 0.25)
    assert loaded.biases == (0.0, 0.0) and loaded.thresholds == (1.0, 1.0)


@pytest.mark.parametrize("version", [None, FEATURE_VERSION - 1, FEATURE_VERSION + 1, str(FEATURE_VERSION)])
def test_weights_of_another_feature_version_are_refused_naming_both_versions_and_the_fix(version):
    module = _module(_model(), ["w a", "w b", "w c"], FEATURE_VERSION=version)
    if version is None:
        del module.FEATURE_VERSION
    with pytest.raises(StaleWeights) as caught:
        from_module(module)
    assert str(caught.value) == (
        f"weights_under_test was trained on features version {version}, the scanner computes version "
        f"{FEATURE_VERSION}: run python benchmarks/train_scanner_model.py to train it again")


def test_weights_from_an_object_without_a_name_are_named_by_its_repr():
    with pytest.raises(StaleWeights, match=r"^namespace\(FEATURE_VERSION=0\) was trained on features version 0,"):
        from_module(types.SimpleNamespace(FEATURE_VERSION=0))


def test_truncated_weights_are_refused_as_damaged_with_the_counts_and_the_fix():
    model = _model()
    names = ["w a", "w b", "w c"]
    short = _module(model, names, PACKED=learned.pack_bytes(model.packed_bytes()[:-1]))
    with pytest.raises(StaleWeights) as caught:
        from_module(short)
    assert str(caught.value) == ("weights_under_test is damaged: 3 features but 32 bytes of weights for 2 families: "
                                 "run python benchmarks/train_scanner_model.py to train it again")
    extra = _module(model, names[:2])
    with pytest.raises(StaleWeights, match="2 features but 33 bytes of weights for 2 families"):
        from_module(extra)


@pytest.mark.parametrize("field", ["PACKED", "FEATURES"])
@pytest.mark.parametrize("blob", [
    "not base64!",  # base64 refuses it
    base64.b64encode(b"not zlib").decode(),  # zlib refuses it
    learned.pack_bytes(b"x" * 40)[:-12],  # cut short inside the compressed stream
])
def test_a_corrupted_blob_is_refused_as_damaged_not_with_a_codec_error(field, blob):
    module = _module(_model(), ["w a", "w b", "w c"], **{field: blob})
    with pytest.raises(StaleWeights) as caught:
        from_module(module)
    message = str(caught.value)
    assert message.startswith("weights_under_test is damaged: its packed features or weights do not unpack (")
    assert message.endswith("): run python benchmarks/train_scanner_model.py to train it again")


def test_features_that_are_not_utf8_are_refused_as_damaged():
    module = _module(_model(), [], FEATURES=base64.b64encode(zlib.compress(b"\xff\xfe")).decode())
    with pytest.raises(StaleWeights, match="damaged: its packed features or weights do not unpack"):
        from_module(module)


def test_the_shipped_model_is_loaded_once_and_judge_uses_it(monkeypatch):
    learned.model.cache_clear()
    first = learned.model()
    assert learned.model() is first and first.families == tuple(learned_weights.FAMILIES)
    monkeypatch.setattr(learned, "model", lambda: _model(thresholds=(0.0, 100.0)))
    found = learned.judge("a")
    assert found is not None and found.rule == "learned:instruction_override"


def test_the_margin_is_the_score_less_the_threshold_of_its_own_family(no_concepts):
    # instruction_override scores more but over a higher threshold; concealment passes its lower one by more
    model = Model(families=("instruction_override", "concealment"), rows={"w a": 0, "w b": 1},
                  weights=(array("h", [300, 0]), array("h", [0, 200])), scales=(0.01 * math.sqrt(32),) * 2,
                  biases=(0.0, 0.0), thresholds=(2.0, 0.5))
    assert model.scores(features("a"))[0] == pytest.approx(3.0) and model.scores(features("b"))[1] == pytest.approx(2.0)
    found = model.judge("a. b.")
    assert found is not None and (found.family, found.span) == ("concealment", "b.")


def test_a_chunk_that_passes_only_as_a_whole_names_its_heaviest_sentence_even_when_it_comes_first(no_concepts):
    model = Model(families=("concealment",), rows={"w a": 0, "w b": 1}, weights=(array("h", [100, 60]),),
                  scales=(0.01 * math.sqrt(32),), biases=(0.0,), thresholds=(1.2,))
    assert model.judge("a.") is None and model.judge("b.") is None
    found = model.judge("a. b.")
    assert found is not None and found.span == "a."
    found = model.judge("b. a.")
    assert found is not None and found.span == "a."


def test_a_denied_dismissal_with_the_widest_margin_is_skipped_and_the_next_window_speaks(no_concepts):
    model = Model(families=("instruction_override",), rows={"w rules": 0, "w now": 1},
                  weights=(array("h", [1000, -300]),), scales=(0.01,), biases=(0.0,), thresholds=(0.0,))
    denied, plain_one = "Never ignore the rules.", "Rules now."
    assert model.scores(features(denied))[0] > model.scores(features(plain_one))[0] > 0
    found = model.judge(f"{denied} {plain_one}")
    assert found is not None and found.span == "Rules now."


def test_packed_bytes_follow_the_row_order_not_the_names():
    rows = {"w z": 0, "w a": 1}
    model = Model(families=("concealment",), rows=rows, weights=(array("h", [1, 2]),), scales=(1.0,), biases=(0.0,),
                  thresholds=(0.0,))
    assert model.packed_bytes() == (1).to_bytes(6, "little", signed=True) + (2).to_bytes(6, "little", signed=True)


def test_a_feature_shared_by_the_first_and_last_sentence_counts_once_in_the_chunk():
    model = _model()
    parts = [((0, 1), {"w a"}), ((2, 3), {"w b"}), ((4, 5), {"w a"})]
    chunk, _ = next(model.windows(parts))
    assert chunk == model.scores({"w a", "w b"})
