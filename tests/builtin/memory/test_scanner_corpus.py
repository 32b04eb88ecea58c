"""The labelled corpus: its make-up, the scanner's rates on the half the rules were tuned on, and the tool path.

The held-out third (``split == "holdout"``) is only measured by ``benchmarks/scanner.py``; no test here looks
at its individual results, so nothing tunes the rules to it.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from hermes_plugins_builtin.memory import BuiltinMemoryProvider, scan
from hermes_plugins_builtin.memory.scanner import FAMILIES

HERE = Path(__file__).parent / "corpus"
NOTES = [json.loads(line) for line in (HERE / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
DEV = [n for n in NOTES if n["split"] == "dev"]
EARLIER = json.loads((HERE / "earlier_set.json").read_text(encoding="utf-8"))


def test_the_corpus_is_large_varied_and_split_by_group():
    attacks = [n for n in NOTES if n["label"] == "attack"]
    benign = [n for n in NOTES if n["label"] == "benign"]
    assert len(NOTES) >= 1500 and len(attacks) >= 500 and len(benign) >= 1000
    assert sum(n["family"] == "hard" for n in benign) >= len(benign) / 3
    assert len({n["lang"] for n in NOTES}) >= 20
    assert len({n["text"] for n in NOTES}) == len(NOTES)
    assert {n["family"] for n in attacks} >= {"override", "role", "conceal", "leak", "exfil", "creds", "persist", "rce", "forge", "hidden"}
    # The split is a function of the group alone: variants of one seed never straddle the two halves.
    by_group = collections.defaultdict(set)
    for note in NOTES:
        by_group[note["group"]].add(note["split"])
    assert all(len(splits) == 1 for splits in by_group.values())
    older = [n for n in NOTES if n["split"] in ("dev", "holdout")]
    assert 0.25 <= sum(n["split"] == "holdout" for n in older) / len(older) <= 0.42


def test_the_fresh_split_is_a_full_held_out_batch():
    """Only its make-up is checked here: the rules are never tuned on its results (the benchmark reports them)."""
    fresh = [n for n in NOTES if n["split"] == "fresh"]
    attacks = [n for n in fresh if n["label"] == "attack"]
    benign = [n for n in fresh if n["label"] == "benign"]
    assert len(attacks) >= 200 and len(benign) >= 200
    assert sum(n["family"] == "hard" for n in benign) >= len(benign) / 2
    assert len({n["lang"] for n in fresh}) >= 20
    assert {n["family"] for n in attacks} >= {"override", "role", "conceal", "leak", "exfil", "creds", "persist", "rce", "forge", "hidden"}
    assert {n["variant"] for n in attacks} >= {"leetspeak", "homoglyph", "base64", "rot13", "hex", "url", "reversed", "zero_width"}
    assert all(n["group"].startswith("fresh_") for n in fresh)


def test_the_second_fresh_split_is_a_batch_of_its_own():
    """fresh2/: written apart from the rules and the other notes, scanned once as such, tuning data since."""
    batch = [n for n in NOTES if n["split"] == "fresh2"]
    attacks = [n for n in batch if n["label"] == "attack"]
    benign = [n for n in batch if n["label"] == "benign"]
    assert len(attacks) >= 500 and len(benign) >= 500
    assert sum(n["family"] == "hard" for n in benign) >= len(benign) / 2
    assert len({n["lang"] for n in attacks}) >= 25 and len({n["lang"] for n in benign}) >= 25
    assert {n["family"] for n in attacks} == {"override", "role", "conceal", "leak", "exfil", "creds", "persist", "rce", "forge", "hidden"}
    assert all(n["group"].startswith("fresh2_") for n in batch)


def test_the_fresh2_batch_holds_now_that_it_is_tuning_data():
    """fresh2 was read once as an independent batch (66.5 % refused) and tuned on since: it must not slip back."""
    batch = [n for n in NOTES if n["split"] == "fresh2"]
    attacks = [n["text"] for n in batch if n["label"] == "attack"]
    benign = [n["text"] for n in batch if n["label"] == "benign"]
    missed = [text for text in attacks if scan(text) is None]
    refused = [text for text in benign if scan(text) is not None]
    assert len(missed) <= 0.03 * len(attacks), missed
    assert len(refused) <= 0.005 * len(benign), refused


def test_the_tuning_half_meets_the_goal():
    attacks = [n for n in DEV if n["label"] == "attack"]
    benign = [n for n in DEV if n["label"] == "benign"]
    missed = [n["text"] for n in attacks if scan(n["text"]) is None]
    refused = [(n["text"], scan(n["text"])) for n in benign if scan(n["text"]) is not None]
    assert len(missed) <= 0.01 * len(attacks), missed
    assert len(refused) <= 0.01 * len(benign), refused


def test_every_refusal_names_a_known_family():
    for note in DEV:
        finding = scan(note["text"])
        if finding is not None:
            assert finding.family in FAMILIES and finding.span


def test_the_earlier_independent_set_still_holds():
    missed = [text for text in EARLIER["attacks"] if scan(text) is None]
    refused = [text for text in EARLIER["benign"] if scan(text) is not None]
    assert missed == [] and refused == []


@pytest.mark.parametrize("language", ["es", "fr", "de", "ru", "zh", "ja", "ar", "fa", "hi", "si"])
def test_benign_notes_in_each_language_are_stored_through_the_tool(hermes_home, language):
    provider = BuiltinMemoryProvider(hermes_home, memory_char_limit=50_000)
    notes = [n["text"] for n in DEV if n["label"] == "benign" and n["lang"] == language and scan(n["text"]) is None]
    assert notes
    for text in notes:
        answer = json.loads(provider.handle_tool_call("memory", {"action": "add", "content": text}))
        assert answer["success"] is True, answer
    assert provider.live_state("memory")["entries"] == [text.strip() for text in notes]


def test_attacks_never_reach_disk_through_the_tool(hermes_home):
    provider = BuiltinMemoryProvider(hermes_home, memory_char_limit=50_000)
    for note in [n for n in DEV if n["label"] == "attack"][::7]:
        answer = json.loads(provider.handle_tool_call("memory", {"action": "add", "content": note["text"]}))
        if answer["success"] is False:
            assert answer["error"].startswith("Blocked:") and answer["blocked_family"] in FAMILIES
    stored = provider.live_state("memory")["entries"]
    assert len(stored) <= 0.01 * len(DEV)


def test_gates_never_change_a_result():
    """Gates only skip detectors that could not match; running every detector without them decides the same."""
    from hermes_plugins_builtin.memory import scanner

    # Every sixth note (about 4,500 across every batch). The hand-written detectors are compared (what they accept,
    # the learned detector then reads alike). Without gates every detector runs, so a note the gated scan refuses is
    # refused without them too (the same detector still matches): only the notes it accepts need the ungated scan,
    # about 4 ms a note.
    texts = [n["text"] for n in NOTES[::6]] + EARLIER["attacks"] + EARLIER["benign"]
    accepted = [text for text in texts if scanner.scan_rules(text) is None]
    assert len(accepted) > 0.3 * len(texts)  # the check reads the harmless notes, at least
    saved = scanner.RULES, scanner._DECODED_RULES
    try:
        scanner.RULES = tuple(r.without_gates() for r in saved[0])
        scanner._DECODED_RULES = tuple(r.without_gates() for r in saved[1])
        refused_ungated = [(text, finding) for text in accepted if (finding := scanner.scan_rules(text)) is not None]
    finally:
        scanner.RULES, scanner._DECODED_RULES = saved
    assert refused_ungated == []


def test_lower_cased_patterns_never_change_a_result():
    """Detectors run lower-cased on lower-cased text for speed; the case-insensitive forms decide the same."""
    from hermes_plugins_builtin.memory import scanner

    texts = [n["text"] for n in NOTES[1::3]] + EARLIER["attacks"] + EARLIER["benign"]
    # The hand-written detectors are compared: what they accept, the learned detector then reads alike.
    lowered = [(f.family, f.rule) if (f := scanner.scan_rules(text)) else None for text in texts]
    scanner._LOWERED_PATTERNS = False
    try:
        cased = [(f.family, f.rule) if (f := scanner.scan_rules(text)) else None for text in texts]
    finally:
        scanner._LOWERED_PATTERNS = True
    assert lowered == cased
