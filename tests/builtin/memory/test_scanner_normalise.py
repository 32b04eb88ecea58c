"""The folded form the detectors read beside the note: each disguise undone exactly, and nothing else changed."""

from __future__ import annotations

import pytest

from hermes_plugins_builtin.memory.scanner.normalise import compact, despaced, folded, nfkc, without_invisible

FOLDED = {
    # NFKC: full-width and mathematical letters, ligatures; then case folding (ß is "ss")
    "full-width": ("ｉｇｎｏｒｅ ＲＵＬＥＳ", "ignore rules"),
    "mathematical bold": ("𝐢𝐠𝐧𝐨𝐫𝐞", "ignore"),
    "ligature": ("ﬁle", "file"),
    "case folding": ("Straße IGNORE", "strasse ignore"),
    # look-alike letters of other scripts folded to the Latin letter they imitate
    "greek look-alikes": ("Ιgnοre", "ignore"),
    "cyrillic a in a latin word": ("\u0430dmin", "admin"),
    "small capitals": ("ᴀᴅᴍɪɴ ʀᴜʟᴇꜱ", "admin rules"),
    "ipa small capitals": ("ɢʜɪɴʀʏʟʙ", "ghinrylb"),
    # a word of another script keeps its letters; only a non-letter look-alike in it is folded
    "russian word kept": ("пользователя", "пользователя"),
    "russian word with a look-alike digit": ("пароль\ua6ef", "пароль2"),
    # invisible characters and soft hyphens inside words dropped
    "zero-width space": ("ig\u200bnore", "ignore"),
    "soft hyphen": ("ig\u00adnore", "ignore"),
    "word joiner": ("ig\u2060nore", "ignore"),
    "combining grapheme joiner": ("ig\u034fnore", "ignore"),
    "bidi override": ("ab\u202ecd", "abcd"),
    "tag character": ("ig\U000e0041nore", "ignore"),
    "variation selector": ("ig\ufe0fnore", "ignore"),
    "byte order mark": ("\ufeffignore", "ignore"),
    # letter-spacing collapsed and split into known words again
    "spaced letters": ("i g n o r e", "ignore"),
    "dotted letters": ("s.y.s.t.e.m", "system"),
    "dashed letters": ("i-g-n-o-r-e", "ignore"),
    "underscored letters": ("i_g_n_o_r_e", "ignore"),
    "starred letters": ("i*g*n*o*r*e", "ignore"),
    "middle dots": ("i·g·n·o·r·e", "ignore"),
    "bullets": ("i•g•n•o•r•e", "ignore"),
    "a spaced phrase split into its words": ("i g n o r e a l l p r e v i o u s", "ignore all previous"),
    "the wider gap after a run becomes one space": ("i g n o r e   all", "ignore all"),
    "a spaced apostrophe closes up": ("d o n ' t i g n o r e", "don't ignore"),
    "three spaced letters beside a run stay letters": ("i g n o r e, x y z", "ignore, xyz"),
    "three spaced letters alone are no run": ("a b c", "a b c"),
    "three spaced letters beside a run are not split into words": ("i g n o r e, q b c", "ignore, qbc"),
    "four spaced letters are split into words": ("i t i s", "it is"),
    "spaced letters no word is made of stay single": ("q b c d e", "q b c d e"),
    "a lone dotted pair is no run": ("s . y", "s . y"),
    # l33tspeak: two disguised words or more
    "two l33t words": ("1gn0r3 pr3v10us", "ignore previous"),
    "every leet digit": ("4b0u7 3v1l5", "about evils"),
    "one l33t word alone is kept": ("1gn0r3 all", "1gn0r3 all"),
    "short all-digit words once l33t is established": ("1gn0r3 pr3v10us 70 17 0000", "ignore previous to it 0000"),
    "a contraction's t": ("can'7 1gn0r3 pr3v10us", "can't ignore previous"),
    "an apostrophe-7 that is no contraction": ("h'7 1gn0r3 pr3v10us", "h'7 ignore previous"),
    "a possessive s": ("1gn0r3 pr3v10us vendor'5", "ignore previous vendor's"),
    "an 8-digit hex word is a digest": ("deadbe3f 1gn0r3 pr3v10us", "deadbe3f ignore previous"),
    "a 7-digit hex word is a word": ("dead0be 1gn0r3 pr3v10us", "deadobe ignore previous"),
    "a l33t word joined by an underscore": ("1gn0r3_pr3v10us x", "ignore_previous x"),
    "l33t beside a non-ascii word": ("é 1gn0r3 pr3v10us", "é ignore previous"),
    # plain text comes back lower-cased and otherwise as it was
    "plain": ("User prefers tea, version 3.11 and 2 spaces.", "user prefers tea, version 3.11 and 2 spaces."),
}


@pytest.mark.parametrize(("text", "expected"), list(FOLDED.values()), ids=list(FOLDED))
def test_folded_undoes_each_disguise_exactly(text, expected):
    assert folded(text) == expected


def test_contraction_and_possessive_are_only_read_once_l33t_is_established():
    assert folded("don'7 and it'5") == "don'7 and it'5"
    assert folded("v3rs10n 1gn0r3 don'7 and it'5 done") == "version ignore don't and it's done"


def test_compact_keeps_letters_only():
    assert compact("ign ore 12 _x!\n-é") == "ignorexé"
    assert compact("") == ""


def test_nfkc_and_without_invisible():
    assert nfkc("ｆｕｌｌ ﬁ ²") == "full fi 2"
    assert without_invisible("a\u200bb\u00adc\ufe0fd\U000e0069e\u2066f") == "abcdef"
    assert without_invisible("pass word") == "pass word"


DESPACED = {
    "spaced code": ("p r i n t ( x )  y z", "print(x) yz"),
    "eight tokens are enough": ("a b c d e f g h", "abcdefgh"),
    "exactly 60 % single characters": ("a b c d e f gg hh ii jj", "abcdefgghhiijj"),
    "tabs and newlines are gaps, wider gaps become one space": ("a b c d e f\tg\nh  ij", "abcdef\tg\nh ij"),
}


@pytest.mark.parametrize(("text", "expected"), list(DESPACED.values()), ids=list(DESPACED))
def test_despaced_joins_text_spaced_out_character_by_character(text, expected):
    assert despaced(text) == expected


@pytest.mark.parametrize(
    "text",
    ["a b c d e f g", "a b c d e ff gg hh ii jj", "ordinary words in a sentence that is long enough", ""],
    ids=["seven tokens", "50 % single characters", "prose", "empty"],
)
def test_despaced_leaves_other_text_alone(text):
    assert despaced(text) is None
