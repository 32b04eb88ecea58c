"""The injection corpus: every attack is blocked (by the expected rule), every benign note passes, via the tool too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_plugins_builtin.memory import BuiltinMemoryProvider, scan

CORPUS = json.loads((Path(__file__).parent / "injection_corpus.json").read_text(encoding="utf-8"))
ATTACKS = CORPUS["attacks"]
BENIGN = CORPUS["benign"]


def test_the_corpus_is_big_enough_to_mean_something():
    assert len(ATTACKS) >= 40 and len(BENIGN) >= 40
    assert len({a["text"] for a in ATTACKS}) == len(ATTACKS)
    assert len({b["text"] for b in BENIGN}) == len(BENIGN)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: f"{a['expect']}:{a['text'][:30]!r}")
def test_every_attack_is_blocked_by_the_expected_rule(attack):
    finding = scan(attack["text"])
    assert finding is not None, attack["text"]
    assert (finding.detail if finding.kind == "threat" else "invisible") == attack["expect"]


@pytest.mark.parametrize("note", BENIGN, ids=lambda b: repr(b["text"][:40]))
def test_every_benign_note_passes(note):
    assert scan(note["text"]) is None


def test_through_the_tool_attacks_never_reach_disk_and_benign_notes_all_do(hermes_home):
    provider = BuiltinMemoryProvider(hermes_home, memory_char_limit=20_000)
    for attack in ATTACKS:
        answer = json.loads(provider.handle_tool_call("memory", {"action": "add", "content": attack["text"]}))
        assert answer["success"] is False and answer["error"].startswith("Blocked:")
    assert provider.live_state("memory")["entries"] == []
    for note in BENIGN:
        answer = json.loads(provider.handle_tool_call("memory", {"action": "add", "content": note["text"]}))
        assert answer["success"] is True, answer
    assert provider.live_state("memory")["entries"] == [b["text"].strip() for b in BENIGN]
